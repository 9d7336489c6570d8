"""The errors of indexing: input files that cannot be read as documents
(:class:`LoaderError`), documents that failed (:class:`IndexingError`)."""

from __future__ import annotations

from typing import Any

__all__ = ["IndexingError", "LoaderError"]


class LoaderError(ValueError):
    """An input file cannot be read as documents (the message names file and line)."""


class IndexingError(RuntimeError):
    """Documents of a run failed (raised by :meth:`~.report.IndexReport.raise_for_failures`;
    the framework wrappers raise it after a write): the others were stored, a failed one
    keeps what the store held of it before. ``report`` is the run's
    :class:`~.report.IndexReport` (``errors``: one ``id: error`` line per failed document)."""

    def __init__(self, message: str, report: Any) -> None:
        super().__init__(message)
        self.report = report
