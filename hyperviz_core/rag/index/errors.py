"""The error of reading input files as documents (:class:`LoaderError`)."""

from __future__ import annotations

__all__ = ["LoaderError"]


class LoaderError(ValueError):
    """An input file cannot be read as documents (the message names file and line)."""
