"""``vizrag check``: is a store healthy? (SQLite's integrity check plus the store's invariants)

For a ``postgresql://`` store it runs the same cross-table invariants as for SQLite (PostgreSQL
guards its own pages and foreign keys). For an SQLite file it
opens the store read-only (works on a read-only file or folder and never writes), runs
SQLite's ``integrity_check`` and ``foreign_key_check``, the opening checks (format, schema
version, tables) and the store's invariants (every entity and hyperedge has a mention and
members, incidences name known rows, vectors have the recorded dimension ...); each line of
SQLite's integrity check is one problem (at most 100 listed). A store written by a newer
VizRAG is not called damaged: one ``newer: ...`` line says to upgrade vizrag (``"newer": true``
in ``--json``). Exit code 0: healthy; 1: problems found (listed) or a newer store; 2: no
store there: no file, or one that holds no SQLite database at all (an empty file, a text
file; one line on stderr, also with ``--json``). An SQLite file whose first 16 bytes (the
header) are damaged, while the page-format bytes 21-23 are SQLite's, is damage (1), as is an
SQLite database without VizRAG's tables.

Example::

    vizrag check --store out/store            # "ok: out/store/vizrag.sqlite (120 documents ...)"
    vizrag check --store out/store --json     # {"ok": ..., "problems": [...], ...}
"""

from __future__ import annotations

import argparse
from typing import Any

from .terminal import terminal_safe

__all__ = ["not_sqlite", "register"]


def _run(args: argparse.Namespace) -> int:
    from ..rag.store import is_store_url, refuse_keyword_dsn
    from ..rag.store.sqlite.check import check_store

    refuse_keyword_dsn(args.store)  # not a path: never echoed (it may hold a password)
    report = _check_server(args.store) if is_store_url(args.store) else check_store(args.store)
    if why := not_sqlite(report):
        raise ValueError(f"no VizRAG store at {args.store}: {why}")
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0 if report.ok else 1
    if report.ok:
        print(f"ok: {report.path} ({report.documents} documents, {report.chunks} chunks, "
              f"{report.entities} entities, {report.hyperedges} hyperedges); no problems")
        for note in report.notes:  # not damage (a write without an embedder leaves these)
            print(f"  note: {terminal_safe(note)}")
        return 0
    problems = report.problems
    if report.newer:  # not damaged: written by a newer VizRAG than this one
        print(f"newer: {terminal_safe(problems[0])}")
        problems = problems[1:]
        if not problems:
            return 1
    print(f"damaged: {report.path}: {len(problems)} problem(s)")
    for problem in problems:
        print(f"  {terminal_safe(problem)}")
    for note in report.notes:
        print(f"  note: {terminal_safe(note)}")
    return 1


#: what :func:`~hyperviz_core.rag.store.sqlite.check.check_store` reports, alone, of a file
#: that is no SQLite database, and how the error line says it
_NOT_SQLITE = {"empty file, not a VizRAG store": "an empty file",
               "not an SQLite database, so not a VizRAG store": "not an SQLite database"}

#: bytes 21-23 of every SQLite header (payload fractions 64, 32, 32): a file with them whose
#: first 16 bytes are not SQLite's is a damaged database, not some other file
_SQLITE_FRACTIONS = b"\x40\x20\x20"


def not_sqlite(report: Any) -> str | None:
    """Why the file of ``report`` is no store at all (``"... is not an SQLite database"``):
    empty, or neither SQLite's header nor the fixed bytes of a damaged one; None when it is
    an SQLite file, healthy or damaged."""
    said = _NOT_SQLITE.get(report.problems[0]) if len(report.problems) == 1 else None
    if said is None:
        return None
    try:
        with open(report.path, "rb") as fh:
            head = fh.read(24)
    except OSError:
        return None  # gone meanwhile: the report stands
    if head[21:24] == _SQLITE_FRACTIONS:
        return None
    return f"{report.path} is {said}"


def _check_server(url: str) -> Any:
    """A server backend (``postgresql://``): its cross-table invariants and counts (the
    server guards its own pages; there is no file to check)."""
    from ..rag.store.sqlite.check import CheckReport
    from .index import open_existing

    with open_existing(url, read_only=True) as store:  # checking must not create one
        problems = store.check()
        s = store.stats()
        return CheckReport(path=str(store.path), ok=not problems, problems=problems,
                           documents=s.documents, chunks=s.chunks, entities=s.entities,
                           hyperedges=s.relation_hyperedges + s.theme_hyperedges)


def register(sub: Any) -> None:
    """Add the ``check`` subcommand."""
    p = sub.add_parser("check", help="check a store's integrity (exit 0 healthy, 1 damaged, "
                       "2 no store)", description=__doc__.split("\n\n")[0])
    p.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_run)
