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
store there.

Example::

    vizrag check --store out/store            # "ok: out/store/vizrag.sqlite (120 documents ...)"
    vizrag check --store out/store --json     # {"ok": ..., "problems": [...], ...}
"""

from __future__ import annotations

import argparse
from typing import Any

from .terminal import terminal_safe

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    from ..rag.store import is_store_url, refuse_keyword_dsn
    from ..rag.store.sqlite.check import check_store

    refuse_keyword_dsn(args.store)  # not a path: never echoed (it may hold a password)
    report = _check_server(args.store) if is_store_url(args.store) else check_store(args.store)
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
    p = sub.add_parser("check", help="check a store's integrity (exit 0 healthy, 1 damaged)",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_run)
