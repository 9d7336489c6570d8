"""The errors of indexing: input files that cannot be read as documents
(:class:`LoaderError`), documents that failed (:class:`IndexingError`)."""

from __future__ import annotations

from typing import Any

__all__ = ["SKIP_HINT", "IndexingError", "LoaderError", "NotDocumentsError",
           "NotDocumentsFileError", "UnreadableFileError"]

#: what the error of a file that cannot be read adds (the default, ``on_unreadable="error"``)
SKIP_HINT = "--skip-unreadable leaves such a file out (on_unreadable='skip' in Python)"


class LoaderError(ValueError):
    """An input file cannot be read as documents (the message names file and line)."""


class NotDocumentsError(LoaderError):
    """A JSON file whose shape is not a document collection (a ``package.json``, a HIF
    export): named directly it is an error; a folder walk of ``vizrag index``
    (:class:`~.stream.DocumentStream`) leaves it out and lists it."""


class UnreadableFileError(LoaderError):
    """A file (or a folder) that cannot be read: the message, then ``; ``:data:`SKIP_HINT`
    unless ``hint=False``; :attr:`reason` is the message alone."""

    def __init__(self, reason: str, hint: bool = True) -> None:
        super().__init__(f"{reason}; {SKIP_HINT}" if hint else reason)
        self.reason = reason


class NotDocumentsFileError(UnreadableFileError, NotDocumentsError):
    """A :class:`NotDocumentsError` as :func:`~.loaders.file_documents` raises it (with the
    hint to skip such files)."""


class IndexingError(RuntimeError):
    """Documents of a run failed (raised by :meth:`~.report.IndexReport.raise_for_failures`;
    the framework wrappers raise it after a write): the others were stored, a failed one
    keeps what the store held of it before. ``report`` is the run's
    :class:`~.report.IndexReport` (``errors``: one ``id: error`` line per failed document)."""

    def __init__(self, message: str, report: Any) -> None:
        super().__init__(message)
        self.report = report
