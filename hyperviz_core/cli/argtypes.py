"""Argument types shared by the subcommands (argparse ``type=`` callables).

Example:
    >>> positive_int("3"), non_negative_int("0")
    (3, 0)
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

__all__ = ["blocking_file", "check_top_k_hops", "non_negative_int", "positive_int",
           "unwritable"]


def _at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer of 1 or more, else a one-line argparse error naming the value."""
    return _at_least(text, 1)


def non_negative_int(text: str) -> int:
    """An integer of 0 or more, else a one-line argparse error naming the value."""
    return _at_least(text, 0)


def check_top_k_hops(top_k: int, hops: int) -> None:
    """``--top-k`` at least 1 and ``--hops`` in 0..MAX_HOPS, else a one-line ``ValueError``
    (not pydantic's multi-line one from the engine)."""
    from ..rag.retrieve.config import MAX_HOPS

    if top_k < 1:
        raise ValueError(f"--top-k must be at least 1, got {top_k}")
    if not 0 <= hops <= MAX_HOPS:
        raise ValueError(f"--hops must be between 0 and {MAX_HOPS}, got {hops}")


def _nearest(path: Path) -> Path | None:
    """The nearest of ``path`` and the folders above it that exists."""
    return next((p for p in (path, *path.parents) if p.exists()), None)


def blocking_file(path: Path) -> Path | None:
    """The nearest of ``path`` and the folders above it that exists, when it is no folder:
    the file in the way of creating ``path`` (or a folder at it); None when there is none."""
    found = _nearest(path)
    return found if found is not None and not found.is_dir() else None


def unwritable(folder: Path) -> str | None:
    """Where a file cannot be made in ``folder`` (or the nearest folder above it that
    exists: the missing ones would be created) and why, as ``"/proc (No such file or
    directory)"``; None when one can. Tried with a temporary file: root passes every
    permission check (``os.access``), not a read-only or virtual file system."""
    at = _nearest(folder) or Path(".")
    try:
        fd, name = tempfile.mkstemp(dir=at, prefix=".vizrag-probe-")
    except OSError as exc:
        return f"{at} ({exc.strerror or exc})"
    os.close(fd)
    os.unlink(name)
    return None
