"""The ``vizrag`` command line: argument parsing only; the work happens in the library.

Each subcommand lives in its own module exposing ``register(subparsers)``; the handler it
sets with ``set_defaults(func=...)`` returns the process exit code. Bad input, and a model
provider's failure that no command handles itself, or a missing Graphviz, is reported as one
line on stderr with exit code 2; a closed output pipe (``vizrag query ... | head``) ends the
command quietly with exit code 141; Ctrl-C ends it with one line (``vizrag COMMAND:
interrupted``, or the command's own, saying what was kept) and exit code 130, no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__
from .terminal import terminal_safe, tolerant_streams

__all__ = ["build_parser", "main"]

# Subcommand modules, in --help order.
_COMMANDS = ("info", "demo", "render", "index", "query", "check", "interop", "probes", "eval",
             "migrate")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="vizrag",
        description="Hypergraph visualization for retrieval-augmented generation.",
    )
    parser.add_argument("--version", action="version", version=f"vizrag {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # pragma: no cover - development only
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vizrag`` console script."""
    tolerant_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        code: int = args.func(args)
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as shell tools do
        _silence_stdout()
        return 141
    except KeyboardInterrupt:  # Ctrl-C where the command has nothing more to say about it
        print(f"vizrag {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as exc:
        print(f"vizrag {args.command}: error: {terminal_safe(exc)}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        if is_missing_graphviz(exc):
            print(f"vizrag {args.command}: error: Graphviz is not installed (the `dot` program "
                  "was not found on PATH): install it, e.g. `apt-get install graphviz`",
                  file=sys.stderr)
            return 2
        if not _is_provider_error(exc):
            raise
        # a model provider failed (after its retries) outside a per-document/question
        # guard, e.g. the embedder's dimension probe: one line, no traceback
        print(f"vizrag {args.command}: error: model provider: "
              f"{terminal_safe(' '.join(str(exc).split()))}",
              file=sys.stderr)
        return 2
    return code


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (captured): nothing to flush
        pass


def is_missing_graphviz(exc: BaseException) -> bool:
    """Whether ``exc`` is graphviz's ``ExecutableNotFound`` (no ``dot`` on PATH)."""
    gv = sys.modules.get("graphviz")
    return gv is not None and isinstance(exc, gv.ExecutableNotFound)


def _is_provider_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a :class:`~hyperviz_core.rag.ProviderError` (its module is loaded
    whenever one was raised, so the CLI does not import it up front)."""
    protocols = sys.modules.get("hyperviz_core.rag.providers.protocols")
    return protocols is not None and isinstance(exc, protocols.ProviderError)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
