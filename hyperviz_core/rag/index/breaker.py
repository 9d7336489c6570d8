"""Stop a run whose provider fails every document from the start.

A provider that cannot be reached (a server not started, a wrong URL or key) fails every
document, each after its retries: a run of 10,000 documents would spend hours saying so.
:class:`StartBreaker` counts the documents that failed at the provider before any document
succeeded; after :data:`STOP_AFTER` of them the indexer reads no further document, lets the
running ones finish and reports why (:attr:`~.report.IndexReport.stopped`). A failure after
a success is a document's own (per-document failures, the run goes on), and so is an error
that is not the provider's (e.g. a malformed document).

Example:
    >>> from hyperviz_core.rag.providers.protocols import ProviderError
    >>> b = StartBreaker(limit=2)
    >>> b.failure(ProviderError("connection error (http://localhost:11434)"))
    >>> b.failure(ValueError("not the provider's fault")); b.reason is None
    True
    >>> b.failure(ProviderError("connection error (http://localhost:11434)"))
    >>> b.reason.startswith("the provider failed the first 2 documents")
    True
"""

from __future__ import annotations

from ..providers.protocols import ProviderError, as_provider_error

__all__ = ["STOP_AFTER", "StartBreaker"]

#: provider failures, before any document succeeded, that stop a run
STOP_AFTER = 3


class StartBreaker:
    """Counts provider failures until the first success; :attr:`reason` once it trips."""

    def __init__(self, limit: int = STOP_AFTER) -> None:
        self.limit = limit
        self.failures = 0
        self.succeeded = False
        self.reason: str | None = None

    def success(self) -> None:
        """A document was stored or found unchanged: from now on failures are its own."""
        self.succeeded = True

    def failure(self, exc: BaseException) -> None:
        """A document failed with ``exc``."""
        if self.succeeded or self.reason is not None:
            return
        err = exc if isinstance(exc, ProviderError) else as_provider_error(exc)
        if err is None:
            return
        self.failures += 1
        if self.failures >= self.limit:
            self.reason = (
                f"the provider failed the first {self.failures} documents and none was stored"
                f" (last: {err}); stopped before reading the other documents: check that the "
                "server runs, its URL and the API key, then run again")
