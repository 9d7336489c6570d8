"""The ``vizrag`` command line: argument parsing only; the work happens in the library.

Each subcommand lives in its own module exposing ``register(subparsers)``; the handler it
sets with ``set_defaults(func=...)`` returns the process exit code. Bad input, and a model
provider's failure that no command handles itself, or a missing Graphviz, is reported as one
line on stderr with exit code 2; a closed output pipe (``vizrag query ... | head``) ends the
command quietly with exit code 141; Ctrl-C ends it with one line (``vizrag COMMAND:
interrupted``, or the command's own, saying what was kept) and exit code 130, no traceback.
SIGTERM (``timeout``, ``systemd``, ``docker stop``, a cancelled CI job) is handled as Ctrl-C
is (``vizrag index`` stops at its next commit, the same one line), with exit code 143
(128 + 15); the handler is installed here only, for the command's run, and the previous one
restored after it. A write that fails without naming its file (a full disk) names the
command's output options instead of showing a bare errno.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import errno
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from .. import __version__
from .terminal import one_line, terminal_safe, tolerant_streams

__all__ = ["build_parser", "command_parser", "main", "sigterm_as_interrupt", "unrecognized"]

# Subcommand modules, in --help order.
_COMMANDS = ("info", "demo", "render", "index", "delete", "documents", "query", "check",
             "interop", "probes", "eval", "migrate")


class _Parser(argparse.ArgumentParser):
    """argparse's parser; unknown arguments are reported by the (sub)command they were given
    to, with its usage line: a misspelt option gets ``did you mean --top-k?`` (its close
    match among that command's options), an unknown option that may be a value starting
    with ``-`` (a document id ``-rf``, a file ``-notes.txt``) a hint to put ``--`` before it.
    """

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: Any = None) -> Any:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            owner = command_parser(self, parsed)
            given = sys.argv[1:] if args is None else list(args)
            owner.error(unrecognized(owner, extras, given=given))
        return parsed


_DASH_HINT = ("; a value starting with '-' (a document id, a file name) goes after -- "
              "(vizrag delete --store ST -- -rf)")


def command_parser(parser: argparse.ArgumentParser, parsed: argparse.Namespace
                   ) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``parsed`` holds (``vizrag eval judge``: that of
    ``judge``), following each level's chosen subcommand; ``parser`` when none was given."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = getattr(parsed, subs[0].dest, None) if subs else None
        if not subs or chosen not in subs[0].choices:
            return parser
        parser = subs[0].choices[chosen]


def unrecognized(parser: argparse.ArgumentParser, extras: Sequence[str], *,
                 given: Sequence[str] = ()) -> str:
    """argparse's ``unrecognized arguments: ...`` for ``parser``, with ``did you mean
    --top-k?`` for each unknown option with a close match among its option strings, and
    the ``--`` hint when an unknown one starting with a single ``-`` (``-rf``) has none.
    Names are compared without their leading dashes (``--json`` is not close to ``--store``
    for sharing ``--``), and an option among the ``given`` arguments is never suggested.

    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("--top-k")
    >>> _ = p.add_argument("--store")
    >>> unrecognized(p, ["--topk", "3"])
    'unrecognized arguments: --topk 3; did you mean --top-k?'
    >>> unrecognized(p, ["--json"], given=["--store", "s", "--json"])
    'unrecognized arguments: --json'
    """
    used = {token.split("=", 1)[0] for token in given}
    known = {s.lstrip("-"): s for a in parser._actions for s in a.option_strings
             if s not in used}
    message = f"unrecognized arguments: {' '.join(extras)}"
    hints: list[tuple[str, str]] = []
    unmatched = False
    for token in extras:
        if not token.startswith("-") or token in ("-", "--"):
            continue
        name = token.split("=", 1)[0]
        near = difflib.get_close_matches(name.lstrip("-"), list(known), n=1, cutoff=0.6)
        if near:
            hints.append((name, known[near[0]]))
        elif not token.startswith("--"):  # -rf: maybe a value (a document id, a file name)
            unmatched = True
    if len(hints) == 1:
        message += f"; did you mean {hints[0][1]}?"
    elif hints:
        message += "; did you mean " + ", ".join(f"{n} (for {t})" for t, n in hints) + "?"
    return message + (_DASH_HINT if unmatched else "")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every subcommand registered."""
    parser = _Parser(
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
    with sigterm_as_interrupt() as terminated, own_warnings(args.command):
        code = _run(args)
    return 128 + signal.SIGTERM if terminated and code == 130 else code


@contextlib.contextmanager
def own_warnings(command: str) -> Iterator[None]:
    """While the block runs, a warning of VizRAG's own (a category defined in
    ``hyperviz_core``, e.g. a ``MissingGlyphWarning`` of the renderer) is printed as one line
    ``vizrag COMMAND: warning: ...`` rather than with Python's file name and source line;
    other warnings as Python prints them. Each such line is printed once per command (a
    batch of questions drawing the same missing glyphs says so once, not once a view)."""
    shown = warnings.showwarning
    said: set[str] = set()

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        if not category.__module__.startswith("hyperviz_core."):
            shown(message, category, filename, lineno, file, line)
            return
        text = terminal_safe(" ".join(str(message).split()))
        if text not in said:
            said.add(text)
            print(f"vizrag {command}: warning: {text}", file=sys.stderr)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command: its exit code, with the errors no command handles itself
    turned into one line (see the module's docstring)."""
    try:
        clash = _store_clash(args)
        if clash:
            raise ValueError(clash)
        code: int = args.func(args)
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as shell tools do
        _silence_stdout()
        return 141
    except KeyboardInterrupt:  # Ctrl-C where the command has nothing more to say about it
        print(f"vizrag {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as exc:
        print(f"vizrag {args.command}: error: {one_line(_error_text(args, exc))}",
              file=sys.stderr)
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


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[list[int]]:
    """While the block runs, SIGTERM does what Ctrl-C does: it calls the handler SIGINT has
    then (Python's raises ``KeyboardInterrupt``; ``asyncio.run``'s cancels the running task,
    so an indexing run stops at its next commit). Yields a list that receives the signal's
    number when one came. Only in the main thread, never where SIGTERM is ignored; the
    previous handlers are restored afterwards.

    Where SIGINT is ignored (a background job of a script), it stays so: SIGINT is blocked
    instead while Python's handler stands in for it, so that ``asyncio.run`` installs its own
    and SIGTERM stops an indexing run the same way. Blocking a signal holds for one thread
    only, so with other threads running SIGINT is left ignored and SIGTERM raises
    ``KeyboardInterrupt`` itself (threads Python does not know of, such as a BLAS pool
    started before the block, are not counted: a library caller that has them should not
    rely on an ignored SIGINT staying ignored inside the block)."""
    got: list[int] = []
    if (threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "SIGTERM")
            or signal.getsignal(signal.SIGTERM) is signal.SIG_IGN):
        yield got
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        got.append(signum)
        handler = signal.getsignal(signal.SIGINT)
        if not callable(handler):  # no Python handler to hand it to
            raise KeyboardInterrupt
        handler(signal.SIGINT, frame)

    ignored = (signal.getsignal(signal.SIGINT) is signal.SIG_IGN
               and hasattr(signal, "pthread_sigmask")
               and threading.active_count() == 1)  # the mask is this thread's only
    if ignored:  # a real SIGINT stays pending, then is discarded when SIG_IGN is back
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, signal.default_int_handler)
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield got
    finally:
        signal.signal(signal.SIGTERM, previous)
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


#: errors of a write (never of a read), which an ``os.write`` raises without a file name
_WRITE_ERRNOS = frozenset(getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS")
                          if hasattr(errno, n))

#: the options naming what a command writes, as ``(flag, attribute)``
_OUTPUTS = (("--out", "out"), ("--html", "html"), ("--hif", "hif"))


def _store_clash(args: argparse.Namespace) -> str | None:
    """Why an output option (``--hif``, ``--out``, ``--html``) names the SQLite store the
    command reads, or its journal (directly or through a link): writing it would destroy
    the store. ``None`` when none does."""
    store = getattr(args, "store", None)
    given = [(flag, value) for flag, attr in _OUTPUTS
             if isinstance(value := getattr(args, attr, None), str) and value != "-"]
    if not isinstance(store, str) or not given or "://" in store:
        return None
    from ..rag.store.base import StoreError
    from ..rag.store.sqlite.schema import resolve_path

    try:
        db = resolve_path(store).resolve()
    except (StoreError, OSError):
        return None
    guarded = {db, *(db.with_name(db.name + end) for end in ("-wal", "-shm", "-journal"))}
    for flag, value in given:
        if Path(value).resolve() in guarded:
            file = "" if Path(store).resolve() == db else f" (its file {db.name})"
            return f"{flag} {value} would overwrite the store {store}{file}; choose another path"
    return None


def _error_text(args: argparse.Namespace, exc: BaseException) -> str:
    """The one-line error of ``exc``: a write that failed without naming its file (``[Errno
    28] No space left on device``) names the command's outputs instead."""
    if (isinstance(exc, OSError) and exc.filename is None and exc.errno in _WRITE_ERRNOS):
        given = [f"{flag} {value}" for flag, attr in _OUTPUTS
                 if (value := getattr(args, attr, None)) is not None]
        if given:
            return (f"cannot write the output ({', '.join(given)}): "
                    f"{exc.strerror or exc} [Errno {exc.errno}]")
    return str(exc)


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
