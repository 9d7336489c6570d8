"""Helpers shared by the ``vizrag eval`` command modules: model specs, cache, progress."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Any

from .index import make_chat

__all__ = ["default_cache", "load_chat", "progress", "usage_line"]


def load_chat(spec: str | None, flag: str = "--llm") -> Any:
    """A chat model from ``provider:model[@url]``, ``python:module:NAME`` or None/offline."""
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
    return make_chat(spec, flag=flag)


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vizrag" / "judge.sqlite"


def progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


def usage_line(what: str, tracker: Any) -> None:
    r = tracker.report()
    print(f"{what}: {r.calls} provider calls, {r.cache_hits} cache hits, {r.retries} retries, "
          f"{r.prompt_tokens}+{r.completion_tokens} tokens", file=sys.stderr)
