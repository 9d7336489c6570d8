"""Stop a run whose provider fails every document from the start.

A provider that cannot be reached (a server not started, a wrong URL or key) fails every
document, each after its retries: a run of 10,000 documents would spend hours saying so.
:class:`StartBreaker` counts the documents that failed at the provider before any document
succeeded; after :data:`STOP_AFTER` of them the indexer reads no further document, lets the
running ones finish and reports why (:attr:`~.report.IndexReport.stopped`). A failure after
a success is a document's own (per-document failures, the run goes on), and so is an error
that is not the provider's (e.g. a malformed document). A document that was in flight when
the breaker tripped and is stored after all does not undo the stop (no further document was
read), but the reason then says so instead of "none was stored" (:func:`is_provider_stop`
tells a caller the stop is this one, e.g. to exit 1 rather than 2 when something was stored).

Example:
    >>> from hyperviz_core.rag.providers.protocols import ProviderError
    >>> b = StartBreaker(limit=2)
    >>> b.failure(ProviderError("connection error (http://localhost:11434)"))
    >>> b.failure(ValueError("not the provider's fault")); b.reason is None
    True
    >>> b.failure(ProviderError("connection error (http://localhost:11434)"))
    >>> b.reason.startswith("the provider failed the first 2 documents and none was stored")
    True
    >>> b.success(); b.reason.startswith("the provider failed the first 2 documents before")
    True
    >>> "1 document in flight then was stored after all" in b.reason
    True
"""

from __future__ import annotations

from ..providers.protocols import ProviderError, as_provider_error

__all__ = ["STOP_AFTER", "StartBreaker", "is_provider_stop"]

#: provider failures, before any document succeeded, that stop a run
STOP_AFTER = 3

_PREFIX = "the provider failed the first "


def is_provider_stop(stopped: str | None) -> bool:
    """Whether a run's :attr:`~.report.IndexReport.stopped` is :class:`StartBreaker`'s stop
    (not the store's)."""
    return stopped is not None and stopped.startswith(_PREFIX)


class StartBreaker:
    """Counts provider failures until the first success; :attr:`reason` once it trips."""

    def __init__(self, limit: int = STOP_AFTER) -> None:
        self.limit = limit
        self.failures = 0
        self.succeeded = False
        #: documents stored (or found unchanged) after the breaker tripped: in flight then
        self.late_successes = 0
        self.reason: str | None = None
        self._last = ""

    def success(self) -> None:
        """A document was stored or found unchanged: from now on failures are its own."""
        self.succeeded = True
        if self.reason is not None:  # in flight when it tripped: "none was stored" is false
            self.late_successes += 1
            self.reason = self._why()

    def failure(self, exc: BaseException) -> None:
        """A document failed with ``exc``."""
        if self.succeeded or self.reason is not None:
            return
        err = exc if isinstance(exc, ProviderError) else as_provider_error(exc)
        if err is None:
            return
        self.failures += 1
        if self.failures >= self.limit:
            self._last = str(err)
            self.reason = self._why()

    def _why(self) -> str:
        """The stop's reason: what failed, that no further document was read, and whether
        a document in flight then was stored after all."""
        head = f"{_PREFIX}{self.failures} documents"
        if not self.late_successes:
            return (f"{head} and none was stored (last: {self._last}); the run read no "
                    "further document: check that the server runs, its URL and the API key, "
                    "then run again")
        n = self.late_successes
        were = "document in flight then was" if n == 1 else "documents in flight then were"
        return (f"{head} before any was stored (last: {self._last}), so the run read no "
                f"further document; {n} {were} stored after all: check the provider (it "
                "answers some requests), then run again (stored documents are skipped)")
