"""``vizrag migrate``: copy a store to another backend (or place) and verify the counts.

Example: ``vizrag migrate --from out/store --to postgresql://me@db:5432/rag`` (and back with
the arguments swapped). Documents, chunks, both layers, vectors and the model-call cache are
copied without any model call; the command fails (exit 1) if the counts differ afterwards.

A damaged, full or locked SQLite store ends the command with one line naming that store (no
traceback); Ctrl-C ends it with "interrupted" and exit code 130 — the documents copied so far
stay committed and running the same command again resumes. Vectors of a space the
destination does not keep (``hyperedge``, kept only by stores made before compact vectors)
are not copied, and the report says so.

The destination is then made query-ready, as ``vizrag index`` leaves a store: its
full-text index or postings, BM25 lengths and per-state query arrays are built and kept, so
the first query of a new process reads them back instead of building them (``--no-prepare``
skips this; a store under 4,000 chunks, which queries load, needs nothing). Ctrl-C during
that step leaves every copied document committed (exit 130).

``--json`` prints the report as one JSON object, ``stopped`` ``null`` when the command ran to
its end. Stopped by Ctrl-C or SIGTERM (exit 130 / 143), it still prints it, ``stopped`` the
line said on stderr: during the copy, ``source``/``destination`` hold both stores' counts,
``verified`` is false and the copy's own counters are ``null`` (not known), as an interrupted
``vizrag index --json`` reports.

``vizrag migrate --upgrade out/store`` upgrades a SQLite store of an older schema in place
(schema 1 → 2: merged rows without stored source lists, see ``rag/store/sqlite/schema.py``);
what every read returns stays the same (``--json``: the outcome as one JSON object); a
PostgreSQL store likewise (as its owner). A store of an older schema is also upgraded by its
first write, a PostgreSQL one also when a writer opens it; readers (and a role that may not
change its tables) read it as it is. ``--upgrade`` and ``--from`` name an existing store: "no
VizRAG store at ..." (exit 2) otherwise, and nothing is created.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["register"]


def _upgrade(spec: str, as_json: bool = False) -> int:
    """``--upgrade STORE``: upgrade its schema in place and check it (an existing store:
    "no VizRAG store at ..." otherwise, nothing created); ``as_json``: the outcome as one
    JSON object ``{"store", "schema_before", "schema", "upgraded", "problems", "ok"}``."""
    from ..rag.store import StoreError, open_store
    from ..rag.store.postgres.schema import is_postgres_url
    from ..rag.store.sqlite.check import store_errors
    from ..rag.store.sqlite.schema import SCHEMA_VERSION

    options = {"upgrade_on_open": False} if is_postgres_url(spec) else {}
    try:  # a database not upgraded before its version is read
        with store_errors(spec), open_store(spec, must_exist=True, **options) as store:
            old = store.schema_version()  # type: ignore[attr-defined]
            ran = store.upgrade()  # type: ignore[attr-defined]
            problems = store.check()
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    if as_json:
        _print_json({"store": str(store.path), "schema_before": old, "schema": SCHEMA_VERSION,
                     "upgraded": bool(ran), "problems": list(problems), "ok": not problems})
        return 0 if not problems else 1
    state = (f"upgraded from schema {old} to {SCHEMA_VERSION}" if ran
             else f"already at schema {SCHEMA_VERSION}")
    print(f"{store.path}: {state}; check: " + ("ok" if not problems
                                                  else f"{len(problems)} problems"))
    for line in problems:
        print(f"  {line}")
    return 0 if not problems else 1


def _print_json(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, indent=2, sort_keys=True))


def _run(args: argparse.Namespace) -> int:
    from ..rag.store import StoreError, is_store_url, open_store, redact_url
    from ..rag.store.sqlite.check import store_errors
    from ..rag.store.transfer import copy_store

    if args.upgrade is not None:
        if args.source or args.target:
            raise ValueError("--upgrade takes no --from/--to")
        return _upgrade(args.upgrade, as_json=args.json)
    if not args.source or not args.target:
        raise ValueError("give --from STORE --to STORE (or --upgrade STORE)")

    if _same_store(args.source, args.target):
        raise ValueError(f"--from and --to name the same store ({redact_url(args.source)}): "
                         "a copy needs another destination")
    sqlite_side = args.target if is_store_url(args.source) else args.source
    report = None
    try:  # an SQLite error names the store that raised it (source or destination)
        with store_errors(sqlite_side), open_store(args.source, read_only=True,
                                                   must_exist=True) as src:
            if src.stats().documents == 0:
                raise StoreError(f"source store {src.path} holds no documents")
            with open_store(args.target) as dst:
                try:
                    report = copy_store(src, dst, show_progress=not args.no_progress
                                        and sys.stderr.isatty())
                except KeyboardInterrupt:
                    return _interrupted_copy(args, src, dst)
                ready, interrupted = _prepare(args, dst, report)
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    except KeyboardInterrupt:
        line = ("interrupted; re-run to resume" if report is None  # nothing was written
                else "interrupted while closing the stores; every document is copied (re-run "
                "to check the counts)")  # after the copy: every document is committed
        print(f"vizrag migrate: {line}", file=sys.stderr)
        if args.json:
            _print_json(_stopped_json(line) if report is None else
                        _report_json(report, None, line))
        return 130
    stopped = _PREPARE_STOPPED if interrupted else None
    _print_report(args, report, ready, stopped)
    if stopped is not None:  # the report above stands: every document is copied and committed
        print(f"vizrag migrate: {stopped}", file=sys.stderr)
        return 130
    return 0 if report.verified else 1


#: Ctrl-C or SIGTERM while the verified copy was being made query-ready
_PREPARE_STOPPED = ("interrupted while making the destination query-ready (skipped: queries "
                    "build what they need themselves); every document is copied")


def _interrupted_copy(args: argparse.Namespace, src: Any, dst: Any) -> int:
    """Ctrl-C (or SIGTERM) stopped the copy: the one line saying what the destination keeps,
    and with ``--json`` the report on stdout, ``stopped`` saying so (as ``vizrag index``
    does): ``source`` and ``destination`` hold both stores' counts, ``verified`` is false and
    the copy's own counters are ``null`` (not known). Exit code 130."""
    line = (f"interrupted; {dst.path} keeps the {dst.stats().documents} documents committed "
            "so far (run the same command again to resume)")
    print(f"vizrag migrate: {line}", file=sys.stderr)
    if args.json:
        out = _stopped_json(line)
        out.update(source=src.stats().model_dump(mode="json"),
                   destination=dst.stats().model_dump(mode="json"), verified=False)
        _print_json(out)
    return 130


def _stopped_json(line: str) -> dict[str, Any]:
    """The ``--json`` report of a copy stopped by ``line``: every field ``null`` but
    ``stopped`` (the copy's own counters are lost with it)."""
    from ..rag.store.transfer import TransferReport

    out: dict[str, Any] = dict.fromkeys(TransferReport.model_fields)
    out.update(stopped=line, query_ready_seconds=None)
    return out


def _report_json(report: Any, ready: float | None, stopped: str | None) -> dict[str, Any]:
    """The ``--json`` report of a copy: ``report``'s fields, ``query_ready_seconds`` and
    ``stopped`` (``null``: the command ran to its end; else the line saying what stopped)."""
    from .ready import ready_json

    out: dict[str, Any] = report.model_dump(mode="json")
    out.update(query_ready_seconds=ready_json(ready), stopped=stopped)
    return out


def _prepare(args: argparse.Namespace, dst: Any, report: Any) -> tuple[float | None, bool]:
    """The seconds making the verified copy ``dst`` query-ready (None: not done), and whether
    Ctrl-C interrupted that step."""
    from .ready import make_query_ready

    if not args.prepare or not report.verified:
        return None, False
    try:
        return make_query_ready(dst, "migrate"), False
    except KeyboardInterrupt:
        return None, True


def _print_report(args: argparse.Namespace, report: Any, ready: float | None,
                  stopped: str | None = None) -> None:
    from .ready import ready_line

    if args.json:
        _print_json(_report_json(report, ready, stopped))
    else:
        s = report.destination
        print(f"copied {report.documents_copied} documents ({report.documents_skipped} already "
              f"there) and {report.cache_entries} cached model calls into {s.path}")
        if gone := report.documents_replaced:
            shown = ", ".join(repr(i) for i in gone[:3]) + (" ..." if len(gone) > 3 else "")
            print(f"  replaced {len(gone)} document(s) the destination held with other "
                  f"content: {shown} (the source's version is kept)")
        print(f"  destination: documents {s.documents}, chunks {s.chunks}, entities "
              f"{s.entities}, relation hyperedges {s.relation_hyperedges}, theme hyperedges "
              f"{s.theme_hyperedges}, vectors {sum(s.vectors.values())}")
        if report.spaces_not_copied:
            print(f"  not copied: {', '.join(report.spaces_not_copied)} vectors (the "
                  "destination does not keep that space; retrieval does not read it)")
        print("  counts verified: equal to the source" if report.verified else
              "  COUNTS DIFFER: " + "; ".join(report.mismatches))
        if line := ready_line(ready):
            print(line)


def register(sub: Any) -> None:
    """Add the ``migrate`` subcommand."""
    p = sub.add_parser(
        "migrate", help="copy a store to another backend and verify the counts",
        description="Copy every document, both hypergraph layers, the vectors and the model-"
        "call cache from one store to another: a directory/.sqlite file or a postgresql:// "
        "URL, either way. Re-running resumes (documents already copied are skipped). "
        "--upgrade STORE upgrades a store of an older schema in place.")
    p.add_argument("--from", dest="source", default=None, metavar="STORE",
                   help="source store (directory, .sqlite file or postgresql:// URL)")
    p.add_argument("--to", dest="target", default=None, metavar="STORE",
                   help="destination store (created if missing)")
    p.add_argument("--upgrade", default=None, metavar="STORE",
                   help="upgrade this store's schema in place (and check it)")
    p.add_argument("--no-prepare", dest="prepare", action="store_false",
                   help="do not make the destination query-ready after the copy (its first "
                   "queries then build the full-text index and query arrays themselves)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_run)


def _same_store(a: str, b: str) -> bool:
    """Whether two store specs name one store: the same SQLite file, or the same schema of
    one database on one server however spelled (``localhost`` or ``127.0.0.1``, extra
    parameters): asked of the servers when both answer, else compared as text."""
    from ..rag.store import is_store_url
    from ..rag.store.postgres.schema import is_postgres_url
    from ..rag.store.sqlite.schema import resolve_path

    if is_postgres_url(a) and is_postgres_url(b):
        same = _same_database(a.strip(), b.strip())
        if same is not None:
            return same
    if is_store_url(a) or is_store_url(b):
        return a.strip() == b.strip()
    return resolve_path(a).resolve() == resolve_path(b).resolve()


def _same_database(a: str, b: str) -> bool | None:
    """Whether ``b`` reaches the session of a connection to ``a`` (same server: the backend
    process and its start time, seen in ``pg_stat_activity``), in the same database and
    schema; None when either cannot be asked (the open that follows says why)."""
    try:
        import psycopg

        from ..rag.store.postgres.connection import connect_kwargs

        with psycopg.connect(a, **connect_kwargs(a)) as ca, \
                psycopg.connect(b, **connect_kwargs(b)) as cb:
            pid, started, schema = ca.execute(
                "SELECT pg_backend_pid(), backend_start, current_schema() FROM pg_stat_activity "
                "WHERE pid = pg_backend_pid()").fetchone() or (None, None, None)
            row = cb.execute(
                "SELECT current_schema() FROM pg_stat_activity WHERE pid = %s AND "
                "backend_start = %s AND datname = current_database()", (pid, started)).fetchone()
    except Exception:
        return None
    return row is not None and row[0] == schema
