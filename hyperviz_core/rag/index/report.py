"""What an indexing run reports (:class:`IndexReport`) and its progress bar.

The progress bar counts input MB and shows chunks per second; :class:`IndexReport` carries
the same throughput (``mb_per_s``, ``chunks_per_s``) next to the counts and model usage.
"""

from __future__ import annotations

import asyncio
import math
import time
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, PrivateAttr

from ..store.base import StoreStats
from .caseless import written_without_capitals
from .errors import IndexingError
from .ocr import jbig2_missing, ocr_missing

if TYPE_CHECKING:
    from ..types import Chunk, ChunkExtraction, ChunkTheme, Document

__all__ = ["IndexReport", "busy", "finish_report", "inflight", "nothing_extracted", "progress",
           "tick", "usage_numbers", "warn_empty"]


class IndexReport(BaseModel):
    """What one indexing run did and cost."""

    documents_added: int = 0
    documents_replaced: int = 0
    metadata_updated: int = 0
    """Of :attr:`documents_replaced`, those whose text was unchanged: only their metadata
    (and their chunks') was rewritten, in place, with no model call and no embedding
    (:func:`~.reuse.update_in_place`; e.g. a moved folder changes every ``source``)."""
    documents_skipped: int = 0
    documents_failed: int = 0
    documents_removed: int = 0
    """Documents a text file produced before and no longer produces (its old parts, or its
    whole-file document now that it is split), deleted once the file's documents were all
    stored (:mod:`~hyperviz_core.rag.index.replace`), and those of ``files_gone``."""
    files_gone: list[str] = Field(default_factory=list)
    """Ids of the documents deleted because their text file is gone (deleted or renamed;
    ``vizrag index FOLDER --prune-missing``), sorted."""
    files_unchecked: list[str] = Field(default_factory=list)
    """Ids of documents ``--prune-missing`` left alone: stored from a relative path under a
    folder of the run whose file is not found from the current directory (a relative path
    names a file only with the directory it was indexed from), sorted."""
    empty_documents: list[str] = Field(default_factory=list)
    """Ids of the documents added or replaced that hold no text (stored without chunks, so
    nothing retrieves them; a replaced one loses its old chunks), in the order written."""
    caseless_documents: list[str] = Field(default_factory=list)
    """Ids of the documents the offline extractor read no entity in, written in a script
    without capital letters (Chinese, Arabic, Hebrew ...; :mod:`~.caseless`), in the order
    written: BM25 finds them, the hypergraph holds nothing of them."""
    errors: list[str] = Field(default_factory=list)
    stopped: str | None = None
    """Why the run stopped before its last document (:mod:`~.breaker`: the provider failed
    the first documents and none was stored; :mod:`~.failures`: the store failed, e.g. a full
    disk or a lock held by another process, in one line saying what to do); None when it
    read them all. Documents committed before the stop stay committed."""
    chunks: int = 0
    entities: int = 0
    hyperedges: int = 0
    themes: int = 0
    skipped_records: int = 0
    images: int = 0
    embedded: int = 0
    chunk_vectors_reused: int = 0
    """Chunks of replaced documents whose stored vector was kept (same text, same embedder:
    :mod:`~.reuse`) instead of embedded again; included in :attr:`chunks`."""
    llm_calls: int = 0
    """Model requests the provider answered (cache hits not included)."""
    llm_failures: int = 0
    """Model requests that failed: every failed attempt, retried ones included, so
    ``llm_calls + llm_failures`` requests were sent."""
    cache_hits: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    input_bytes: int = 0
    """UTF-8 bytes of the documents read (indexed, unchanged or failed)."""
    mb_per_s: float = 0.0
    chunks_per_s: float = 0.0
    store: StoreStats | None = None
    compacted_bytes: int = 0
    """Bytes freed by ``vizrag index --compact`` (0 without it)."""

    _first_error: BaseException | None = PrivateAttr(default=None)
    #: whether an empty document is a PDF (a scan, maybe: :meth:`empty_warning` says how to
    #: read it when OCR cannot run here)
    _empty_pdf: bool = PrivateAttr(default=False)
    """The first document's exception (in this process), chained by
    :meth:`raise_for_failures` so its traceback shows where a custom model failed."""

    def raise_for_failures(self) -> None:
        """Raise :class:`~.errors.IndexingError` when a document failed or the run stopped
        early (as ``requests``' ``raise_for_status``); nothing otherwise.

        >>> IndexReport(documents_added=2).raise_for_failures()
        >>> IndexReport(documents_failed=1, errors=["d1: ProviderError: down"]
        ...             ).raise_for_failures()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        hyperviz_core...IndexingError: 1 document failed to index (d1: ProviderError: down)
        """
        if not self.documents_failed and self.stopped is None:
            return
        n = self.documents_failed
        shown = "; ".join(self.errors[:3]) + ("; ..." if len(self.errors) > 3 else "")
        shown = f" ({shown})" if shown else ""  # a store's stop lists no document's error
        stop = f"; {self.stopped}" if self.stopped else ""
        raise IndexingError(f"{n} document{'s' if n != 1 else ''} failed to index{shown}"
                            f"{stop}", self) from self._first_error  # its traceback

    def empty_warning(self) -> str | None:
        """One line naming the documents written without text (``empty_documents``: no
        search returns them), or None.

        >>> IndexReport(empty_documents=["a", "b"]).empty_warning()
        "2 document(s) hold no text ('a', 'b'): stored without chunks, so no search returns them"
        """
        if not self.empty_documents:
            return None
        missing = ocr_missing() if self._empty_pdf else None
        scans = f"; a scanned PDF is read by OCR with {missing}" if missing else ""
        if self._empty_pdf and not missing and (jbig2 := jbig2_missing()):
            scans = ("; a scanned PDF stored as JBIG2 is read by OCR with the jbig2dec "
                     f"program ({jbig2})")
        return (f"{len(self.empty_documents)} document(s) hold no text "
                f"({_first_ids(self.empty_documents)}): stored without chunks, so no search "
                f"returns them{scans}")

    def count_written(self, doc: Document, replaced: bool, chunks: Sequence[Chunk],
                      extractions: Sequence[ChunkExtraction], themes: Sequence[ChunkTheme],
                      images: int, embedded: int, *, offline: bool) -> None:
        """Count one document written (added or ``replaced``): its chunks, mentions,
        themes, images and vectors; ``offline``: extracted without a model, so a document
        in a script without capitals that gave no entity but its title (a file's name) is
        named in :attr:`caseless_documents`."""
        self.documents_replaced += replaced
        self.documents_added += not replaced
        self.empty_documents += [] if chunks else [doc.id]
        self._empty_pdf |= not chunks and str(doc.metadata.get("source", "")).lower() \
            .endswith(".pdf")
        self.chunks += len(chunks)
        self.entities += sum(len(e.entities) for e in extractions)
        if offline and chunks and written_without_capitals(doc.text):
            titles = {doc.title, *(str(c.metadata.get("title", "")) for c in chunks)}
            if all(e.name in titles for x in extractions for e in x.entities):
                self.caseless_documents.append(doc.id)
        self.hyperedges += sum(len(e.hyperedges) for e in extractions)
        self.skipped_records += sum(e.skipped for e in extractions)
        self.themes += sum(1 for t in themes if t.theme)
        self.images += images
        self.embedded += embedded

    def count_metadata_update(self) -> None:
        """Count one document replaced by an update of its metadata in place."""
        self.documents_replaced += 1
        self.metadata_updated += 1

    def caseless_warning(self) -> str | None:
        """One line naming :attr:`caseless_documents`, or None.

        >>> print(IndexReport(caseless_documents=["zh1", "ar1"]).caseless_warning())
        2 document(s) written without capital letters gave no entity ('zh1', 'ar1'): the
        offline extractor finds names by their capitals; index them with a model (--llm,
        chat=...) for their hypergraph (BM25 finds them either way)
        """
        if not self.caseless_documents:
            return None
        return (f"{len(self.caseless_documents)} document(s) written without capital "
                f"letters gave no entity ({_first_ids(self.caseless_documents)}): the offline "
                "extractor finds names by their capitals; index them with a model (--llm, "
                "chat=...) for their hypergraph (BM25 finds them either way)")

    def summary(self) -> str:
        """One human-readable line."""
        removed = (f", {self.documents_removed} stale removed" if self.documents_removed
                   else "")
        if self.empty_documents:
            removed += f", {len(self.empty_documents)} without text (0 chunks)"
        metadata = (f" ({self.metadata_updated} only their metadata)" if self.metadata_updated
                    else "")
        reused = (f" ({self.chunk_vectors_reused} kept their vectors)"
                  if self.chunk_vectors_reused else "")
        return (
            f"{self.documents_added} added, {self.documents_replaced} replaced{metadata}, "
            f"{self.documents_skipped} unchanged, {self.documents_failed} failed{removed}; "
            f"{self.chunks} chunks{reused}, {self.entities} entity mentions, {self.hyperedges} "
            f"hyperedges, {self.themes} themes; {self.llm_calls} LLM calls answered "
            f"({self.llm_failures} failed, {self.cache_hits} cached, {self.tokens} tokens) "
            f"in {self.seconds:.1f} s "
            f"({self.mb_per_s:.2f} MB/s, {self.chunks_per_s:.0f} chunks/s)"
        )


def _first_ids(ids: list[str]) -> str:
    """The first five ``ids`` as ``repr``s, ``, ...`` after them when there are more."""
    return ", ".join(repr(i) for i in ids[:5]) + (", ..." if len(ids) > 5 else "")


def nothing_extracted(report: IndexReport) -> str | None:
    """The warning of a run whose model answers held no entity at all (documents stored,
    chunks made, not one entity: the model answered in another format, or refused), else
    None. The indexer logs it when a chat model extracted; ``vizrag index`` prints it.

    >>> print(nothing_extracted(IndexReport(documents_added=1, chunks=2, skipped_records=2)))
    the model's answers held no entity in the expected format (2 records skipped): check the
    model/prompt
    >>> nothing_extracted(IndexReport(documents_added=1, chunks=2, entities=3)) is None
    True
    """
    if report.chunks and not report.entities and (
            report.documents_added or report.documents_replaced):
        return ("the model's answers held no entity in the expected format "
                f"({report.skipped_records} records skipped): check the model/prompt")
    return None


def finish_report(report: IndexReport, tracker: Any, before: dict[str, float], t0: float,
                  store: Any) -> None:
    """Fill in the run's model usage (since ``before``), its time and throughput, and the
    store's counts."""
    after = usage_numbers(tracker)
    delta = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
    report.llm_calls = int(delta.get("calls", 0))
    report.llm_failures = int(delta.get("failures", 0))
    report.cache_hits = int(delta.get("cache_hits", 0))
    report.prompt_tokens = int(delta.get("prompt_tokens", 0))
    report.completion_tokens = int(delta.get("completion_tokens", 0))
    report.tokens = report.prompt_tokens + report.completion_tokens
    report.retries = int(delta.get("retries", 0))
    if "cost" in delta:
        report.cost_usd = round(delta["cost"], 6)
    report.seconds = round(time.perf_counter() - t0, 3)
    secs = max(report.seconds, 1e-9)
    report.mb_per_s = round(report.input_bytes / 1e6 / secs, 4)
    report.chunks_per_s = round(report.chunks / secs, 2)
    try:
        report.store = store.stats()
    except Exception:
        if report.stopped is None:
            raise
        report.store = None  # the store that stopped the run (damaged?) cannot count


def usage_numbers(tracker: Any) -> dict[str, float]:
    """Counters of a :class:`~hyperviz_core.rag.UsageTracker` (empty if None)."""
    if tracker is None:
        return {}
    rep = tracker.report()
    out = {k: _number(getattr(rep, k)) for k in
           ("calls", "failures", "cache_hits", "prompt_tokens", "completion_tokens",
            "retries")}
    if rep.cost is not None:
        out["cost"] = _number(rep.cost)
    return out


def _number(value: Any) -> float:
    """A counter as a float: 0.0 for one that is not a finite number (a tracker of your own
    that counted what a server sent, ``1e308`` tokens twice): never a failed run."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def busy(running: dict[Any, tuple[str, int]], doc_id: str) -> bool:
    return any(i == doc_id for i, _ in running.values())


def inflight(running: dict[Any, tuple[str, int]]) -> int:
    return sum(b for _, b in running.values())


async def first_done(running: dict[asyncio.Task[None], Any]) -> set[asyncio.Task[None]]:
    """The tasks of ``running`` done once the first of them is."""
    finished, _ = await asyncio.wait(list(running), return_when=asyncio.FIRST_COMPLETED)
    return finished


async def cancel_all(running: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel the tasks of ``running`` and wait until each has ended (a document being
    committed in a worker thread ends with its transaction, whole): a cancelled run starts
    no model call and no commit after it returns."""
    tasks = list(running)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def known_size(documents: object, total_bytes: int | None) -> int | None:
    """``total_bytes``, else the UTF-8 size of ``documents`` when it is a list or tuple (a
    stream's is not known ahead): the progress bar then has a total and an ETA."""
    if total_bytes is not None or not isinstance(documents, (list, tuple)):
        return total_bytes
    last = {getattr(d, "id", i): d for i, d in enumerate(documents)}  # as indexed: last wins
    return sum(text_bytes(d) for d in last.values())


def text_bytes(doc: object) -> int:
    """The UTF-8 size of a document's text (lone surrogates counted, as stored text never
    holds them but input may): what the progress bar counts per document."""
    return len(str(getattr(doc, "text", "")).encode("utf-8", "surrogatepass"))


def progress(total_bytes: int | None, *, disable: bool) -> Any:
    """A tqdm bar over input MB (unknown total when streaming without a plan)."""
    from tqdm.auto import tqdm

    total = total_bytes / 1e6 if total_bytes else None  # exact: a rounded-down one overshoots
    # the MB done rounded either way (tqdm's own {n_fmt} prints the float sum's noise)
    return tqdm(total=total, desc="indexing", unit="MB", disable=disable,
                bar_format="{l_bar}{bar}| {n:.2f}/{total:.2f} MB [{elapsed}<{remaining}, "
                "{rate_fmt}{postfix}]" if total else
                "{desc}: {n:.2f} MB [{elapsed}, {rate_fmt}{postfix}]")


def tick(bar: Any, size: int, report: IndexReport, t0: float) -> None:
    """Advance the bar by one document's MB; postfix = chunks and chunks per second. The
    bytes done are summed as an integer and the bar set to them (a float sum of the MB went
    past the total: tqdm's "clamping frac" warning and a negative time left)."""
    done = getattr(bar, "vizrag_bytes", 0) + size
    bar.vizrag_bytes = done
    mb = min(done / 1e6, bar.total) if bar.total else done / 1e6
    bar.update(mb - bar.n)
    bar.n = mb  # exactly, whatever the rounding of the update's sum
    secs = max(time.perf_counter() - t0, 1e-9)
    bar.set_postfix_str(f"{report.chunks} chunks, {report.chunks / secs:.0f} chunks/s",
                        refresh=False)


def warn_empty(report: IndexReport, stacklevel: int = 2) -> IndexReport:
    """A ``UserWarning`` (:meth:`IndexReport.empty_warning`) when ``report`` wrote documents
    without text, for the framework wrappers, whose callers see no report; ``report``."""
    said = report.empty_warning()
    if said:
        warnings.warn(said, UserWarning, stacklevel=stacklevel + 1)
    return report
