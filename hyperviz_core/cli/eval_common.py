"""Helpers shared by the ``vizrag eval``, ``vizrag probes`` and ``vizrag tune`` commands:
model specs, output folders, cache, progress.

Every model option of these commands (``--llm``, ``--judge``, ``--models``) takes the same
specs (:func:`load_chat`): ``provider:model[@base_url]`` or ``python:package.module:NAME``;
the vision-model options (``eval table 3/5/2c --models``, ``probes run --llm``, ``tune
--llm``) also take ``fake`` and ``fake-noisy`` (:func:`fake_vision`), the FAKE export oracle.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .argtypes import blocking_file, unwritable
from .index import make_chat

__all__ = ["FAKE_SPECS", "check_out", "default_cache", "fake_vision", "load_chat",
           "load_vision", "progress", "usage_line"]

FAKE_SPECS = ("fake", "fake-noisy")
"""Vision-model specs naming the FAKE export oracle (exact, or erring by readability)."""


def load_chat(spec: str | None, flag: str = "--llm", timeout: float | None = None) -> Any:
    """A chat model from ``provider:model[@url]``, ``python:module:NAME`` or None/offline
    (``timeout``: seconds per request of a provider's model, ``--timeout``; default 120)."""
    if spec and spec.startswith("python:"):
        target = spec[len("python:"):]
        mod_name, _, attr = target.rpartition(":")
        if not mod_name or not attr:
            raise ValueError(f"bad model spec {spec!r}: use python:package.module:NAME")
        try:
            obj = getattr(importlib.import_module(mod_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load {spec!r}: {exc}") from None
        from ..rag import ChatModel

        if isinstance(obj, type) or (not isinstance(obj, ChatModel) and callable(obj)):
            try:  # user code: e.g. a provider client that finds no API key
                obj = obj()
            except Exception as exc:
                raise ValueError(f"{spec!r} failed to make a model: "
                                 f"{type(exc).__name__}: {exc}") from None
        if not isinstance(obj, ChatModel):
            raise ValueError(f"{spec!r} is not a ChatModel (needs model_name, complete, "
                             "acomplete)")
        return obj
    return make_chat(spec, flag=flag, timeout=timeout)


def fake_vision(spec: str | None) -> Any:
    """The FAKE export-oracle model (not yet knowing any export) for ``fake`` /
    ``fake-noisy`` (any case), else None."""
    low = (spec or "").strip().lower()
    if low not in FAKE_SPECS:
        return None
    from ..probe import ExportOracleVisionModel

    return ExportOracleVisionModel({}, "metrics" if low == "fake-noisy" else "exact")


def load_vision(spec: str, flag: str, timeout: float | None = None) -> Any:
    """A vision model for ``flag``: ``fake`` / ``fake-noisy`` (:func:`fake_vision`), or any
    :func:`load_chat` spec (``timeout`` as there); ``ValueError`` when the spec names no
    model (``offline``)."""
    model = fake_vision(spec) or load_chat(spec, flag, timeout)
    if model is None:
        raise ValueError(f"{flag} {spec!r} names no vision model")
    return model


def check_out(out: str | Path, files: Iterable[str], flag: str = "--out") -> None:
    """Before any model is asked: ``out`` must be a folder (or creatable as one) and every
    ``files`` path under it (relative, ``/``-separated) must be writable as a file there: no
    file where a folder goes, no folder where a file goes. One-line ``ValueError`` naming the
    path otherwise."""
    folder = Path(out)
    for target in [folder / rel for rel in files]:
        if target.is_dir():
            raise ValueError(f"{flag} {out}: {target} is a folder, where a file is written")
    for parent in sorted({folder, *((folder / rel).parent for rel in files)},
                         key=lambda d: len(d.parts)):
        if (blocked := blocking_file(parent)) is not None:
            raise ValueError(f"{flag} {out}: {blocked} is a file, where a folder goes")
    if (why := unwritable(folder)) is not None:
        raise ValueError(f"{flag} {out}: cannot write in {why}")


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vizrag" / "judge.sqlite"


def progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


def usage_line(what: str, tracker: Any) -> None:
    r = tracker.report()
    print(f"{what}: {r.calls} provider calls, {r.cache_hits} cache hits, {r.retries} retries, "
          f"{r.prompt_tokens}+{r.completion_tokens} tokens", file=sys.stderr)
