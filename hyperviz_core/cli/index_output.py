"""What ``vizrag index`` prints: the report (text or ``--json``), its last lines on stderr
and its exit code, also for an interrupted run (Ctrl-C, SIGTERM).

Each thing is said once: a document's failure is listed in the report (not also logged as it
happens), and a removed or kept store is told by the report's first line (``--json``: on
stderr, as the JSON does not say it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import time
from collections.abc import Iterator
from typing import Any

from ..textsafe import one_line
from ..wording import counted
from .ready import ready_json, ready_line

__all__ = ["headline", "interrupted", "outcome", "print_index", "quiet_document_failures",
           "said_later", "stats_line"]

#: the indexer's warnings the run's report says itself, once: (logger, start of the message)
_SAID_BY_THE_REPORT = (
    ("hyperviz_core.rag.index.failures", "indexing %s failed"),  # ``failed: ID: ...``
    ("hyperviz_core.rag.index.indexer", "the model's answers held no entity"),  # outcome
    ("hyperviz_core.rag.index.indexer", "indexing stopped: "),  # the report's stop line
)


class _DropSaid(logging.Filter):
    """Drops a warning whose message — its format string (``"indexing %s failed"``) or the
    text made of it — starts with ``start``: the report says it (``kept``: the messages
    dropped, for a caller that says them when no report comes)."""

    def __init__(self, start: str, kept: list[str] | None = None) -> None:
        super().__init__()
        self.start, self.kept = start, kept

    def filter(self, record: logging.LogRecord) -> bool:
        if not (str(record.msg).startswith(self.start)
                or record.getMessage().startswith(self.start)):
            return True
        if self.kept is not None:
            self.kept.append(record.getMessage())
        return False


@contextlib.contextmanager
def said_later(*said: tuple[str, str]) -> Iterator[list[str]]:
    """While the block runs, the warnings of each ``(logger, start)`` of ``said`` (logger
    name, what the message starts with) are not logged but kept in the list yielded (the
    caller prints them with its result, or alone when the result never comes)."""
    kept: list[str] = []
    drops = [(logging.getLogger(name), _DropSaid(start, kept)) for name, start in said]
    for log, drop in drops:
        log.addFilter(drop)
    try:
        yield kept
    finally:
        for log, drop in drops:
            log.removeFilter(drop)


@contextlib.contextmanager
def quiet_document_failures() -> Iterator[None]:
    """While the block runs, the indexer's warnings that the report says at the end (a
    document's failure: ``failed: ID: ...``, ``--json``: ``errors``; a model whose answers
    held no entity) are not logged as they happen: each is said once."""
    quiet = [(logging.getLogger(name), _DropSaid(start)) for name, start in _SAID_BY_THE_REPORT]
    for logger, drop in quiet:
        logger.addFilter(drop)
    try:
        yield
    finally:
        for logger, drop in quiet:
            logger.removeFilter(drop)


def interrupted(args: argparse.Namespace, store: Any, before: int, t0: float, dup: Any
                ) -> int:
    """Ctrl-C (or SIGTERM) stopped the run: the one line saying what the store keeps, and
    with ``--json`` the report on stdout, ``stopped`` saying so. The run's own counters are
    lost with it (documents whose commit it had not yet counted when it was cancelled):
    ``documents_added`` is the growth of the store's document count, ``store`` the store's
    counts, ``seconds`` the time until the stop, and every other counter of the run ``null``
    (not known). Exit code 130."""
    from ..rag.index.report import IndexReport

    stats = store.stats()
    done = stats.documents
    line = (f"interrupted; the store keeps its {done} committed documents (run the same "
            "command again to index the rest)")
    print(f"vizrag index: {line}", file=sys.stderr)
    if args.json:
        report = IndexReport(stopped=line, store=stats, documents_added=max(done - before, 0),
                             seconds=round(time.perf_counter() - t0, 3))
        out = {k: v if k in _KNOWN_WHEN_INTERRUPTED else None
               for k, v in report.model_dump(mode="json").items()}
        out["input"] = dup.model_dump(mode="json", exclude=None if dup.limited else {"limited"})
        out["query_ready_seconds"] = None
        print(json.dumps(out, indent=2, sort_keys=True))
    return 130


#: the fields of an interrupted run's ``--json`` report that hold a value (the rest: null)
_KNOWN_WHEN_INTERRUPTED = frozenset({"stopped", "store", "seconds", "documents_added",
                                     "compacted_bytes"})


def outcome(report: Any, path: Any, fate: str | None, interrupted: str | None, *,
            model: bool, json_out: bool = False) -> int:
    """The run's last lines on stderr (a stop, the store removed or kept, an interrupted
    step, a model whose answers held nothing) and its exit code: 130 interrupted, 2 a stop
    with nothing of the run stored (or the store's stop), 1 a failed document, else 0. The
    store removed or kept is said here only with ``json_out`` (the text report's first line
    says it otherwise)."""
    from ..rag.index.breaker import is_provider_stop
    from ..rag.index.report import nothing_extracted

    if model and (warning := nothing_extracted(report)) is not None:
        print(f"vizrag index: warning: {warning}; see --json", file=sys.stderr)
    if interrupted is not None:  # the run's report above stands: every document is committed
        print(f"vizrag index: interrupted while {interrupted}; every document of this run is "
              "committed", file=sys.stderr)
        return 130
    if report.stopped is not None:
        print(f"vizrag index: {one_line(report.stopped)}", file=sys.stderr)
    if fate == "removed" and json_out:
        print(f"vizrag index: removed the empty store {path} this run had created (it held "
              "no document and no model answer)", file=sys.stderr)
    elif fate == "kept" and json_out:
        print(f"vizrag index: kept the store {path}: it holds {_answers(report)} this run "
              "paid for; the same command re-uses them", file=sys.stderr)
    stored = report.documents_added + report.documents_replaced + report.documents_skipped
    if report.stopped is not None and not (is_provider_stop(report.stopped) and stored):
        return 2  # the store's stop, or the provider's with nothing of the run stored
    return 1 if report.documents_failed else 0


def headline(report: Any, total: int, path: Any, fate: str | None) -> str:
    """The text report's first line: what the run read and stored, and where."""
    read = (report.documents_added + report.documents_replaced + report.documents_skipped
            + report.documents_failed)
    if report.stopped is None and fate is None and not report.documents_failed:
        if total and report.documents_skipped == total and not report.documents_removed:
            gone = len(report.files_gone or [])  # nothing new: say so first, and a prune
            pruned = (f"; removed {counted(gone, 'document')} whose "
                      f"{'file is' if gone == 1 else 'files are'} gone") if gone else ""
            return f"{counted(total, 'document')} already indexed, unchanged{pruned}, in {path}"
        return f"indexed {counted(total, 'document')} into {path}"
    stored = report.documents_added + report.documents_replaced
    head = (f"stopped after reading {read} of {total} documents" if read < total
            else f"read {read} of {total} documents")
    head += (f": {stored} stored, {report.documents_skipped} unchanged, "
             f"{report.documents_failed} failed")
    if fate == "removed":
        return f"{head}; removed the store {path} this run had created (it held nothing)"
    if fate == "kept":
        return (f"{head}; kept the store {path} (it holds {_answers(report)} this run paid "
                "for; the same command re-uses them)")
    return f"{head}; into {path}" if report.stopped is None else (
        f"{head}; the store {path} keeps what was stored")


def _answers(report: Any) -> str:
    """``the 3 model answers`` the store of the run holds (``the model answers`` when the
    store could not count)."""
    if report.store is None:
        return "the model answers"
    n = report.store.llm_cache_entries
    return f"the {n} model answer{'' if n == 1 else 's'}"


def stats_line(stats: Any) -> str:
    """A store's counts in one line (``vizrag stats``, the index report's ``store:``)."""
    return (f"documents {stats.documents}, chunks {stats.chunks}, entities {stats.entities}, "
            f"relation hyperedges {stats.relation_hyperedges}, theme hyperedges "
            f"{stats.theme_hyperedges}, key entities {stats.key_entities}")


#: paths a walk left out that the text report names (``--json`` has them all)
_LEFT_OUT_SHOWN = 10


def _print_json(report: Any, dup: Any, ready: float | None, missing: list[str]) -> None:
    """The ``--json`` report: the run's, its input, the query-ready seconds and
    ``files_missing`` (the stored documents of files gone from the run's folders, left
    in place: ``--prune-missing`` removes them)."""
    out = report.model_dump(mode="json")
    out["input"] = dup.model_dump(mode="json", exclude=None if dup.limited else {"limited"})
    out["query_ready_seconds"] = ready_json(ready)
    out["files_missing"] = missing
    print(json.dumps(out, indent=2, sort_keys=True))


def print_index(args: argparse.Namespace, report: Any, docs: Any, dup: Any,
                path: Any, ready: float | None, fate: str | None = None,
                missing: list[str] | None = None) -> None:
    """The run's report: ``--json`` on stdout, else text (its failures on stderr);
    ``missing``: the ids of :func:`~.index_missing.files_missing`."""
    if args.json:
        return _print_json(report, dup, ready, missing or [])
    print(headline(report, len(docs), path, fate))
    if dup.duplicates or dup.repeats or dup.limited:
        verb = "replaced by a later one" if dup.policy == "replace" else "skipped"
        limited = f" + {dup.limited} left out by --limit" if dup.limited else ""
        print(f"  input: {dup.read} documents read = {dup.kept} kept + {dup.duplicates} "
              f"with a duplicate id ({verb}) + {dup.repeats} exact repeats dropped{limited}")
        for ex in dup.examples:
            print(f"  duplicate id {one_line(ex)}")
    if dup.unreadable:
        print(f"  skipped {len(dup.unreadable)} unreadable file(s):")
        for why in dup.unreadable:
            print(f"  unreadable {one_line(why)}")
    if dup.left_out:  # what the folder walks do not read: named, not silently dropped
        print(f"  left out {len(dup.left_out)} path(s) of the folders (not read):")
        for why in dup.left_out[:_LEFT_OUT_SHOWN]:
            print(f"  left out {one_line(why)}")
        if len(dup.left_out) > _LEFT_OUT_SHOWN:
            print(f"  ... and {len(dup.left_out) - _LEFT_OUT_SHOWN} more (--json lists "
                  "every one under input.left_out)")
    print("  " + report.summary())
    if report.skipped_records:
        print(f"  skipped {report.skipped_records} malformed model records (not in the "
              "expected format)")
    if report.retries:
        print(f"  provider retries: {report.retries} (429/5xx/timeouts; see the warnings)")
    if report.compacted_bytes:
        print(f"  compacted: {report.compacted_bytes / 2**20:.1f} MiB freed")
    if report.store is not None:
        print(f"  store: {stats_line(report.store)}")
    if line := ready_line(ready):
        print(line)
    if gone := report.files_gone:
        more = f" and {len(gone) - 20} more" if len(gone) > 20 else ""
        print(f"  removed {len(gone)} whose files are gone: "
              f"{', '.join(one_line(g) for g in gone[:20])}{more}")
    if left := report.files_unchecked:
        more = f" and {len(left) - 20} more" if len(left) > 20 else ""
        print(f"  not removed: {len(left)} stored from a relative path whose file is not "
              f"found from here: {', '.join(one_line(g) for g in left[:20])}{more} (a "
              "relative path names a file only with the directory it was indexed from; if "
              "they are gone, `vizrag delete --store STORE ID...`)")
    for doc_id in report.empty_documents[:20]:
        print(f"  without text (stored with 0 chunks, nothing retrieves it): "
              f"{one_line(doc_id)}", file=sys.stderr)
    if len(report.empty_documents) > 20:
        print(f"  ... and {len(report.empty_documents) - 20} more without text",
              file=sys.stderr)
    for err in report.errors[:20]:
        print(f"  failed: {one_line(err)}", file=sys.stderr)
    if len(report.errors) > 20:
        print(f"  ... and {len(report.errors) - 20} more failed (--json lists every one "
              "under errors)", file=sys.stderr)
