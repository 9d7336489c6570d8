"""``vizrag migrate``: copy a store to another backend (or place) and verify the counts.

Example: ``vizrag migrate --from out/store --to postgresql://me@db:5432/rag`` (and back with
the arguments swapped). Documents, chunks, both layers, vectors and the model-call cache are
copied without any model call; the command fails (exit 1) if the counts differ afterwards.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    from ..rag.store import StoreError, open_store
    from ..rag.store.transfer import copy_store

    try:
        with open_store(args.source, read_only=True) as src:
            if src.stats().documents == 0:
                raise StoreError(f"source store {src.path} holds no documents")
            with open_store(args.target) as dst:
                report = copy_store(src, dst, show_progress=not args.no_progress
                                    and sys.stderr.isatty())
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    if args.json:
        print(json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True))
    else:
        s = report.destination
        print(f"copied {report.documents_copied} documents ({report.documents_skipped} already "
              f"there) and {report.cache_entries} cached model calls into {s.path}")
        print(f"  destination: documents {s.documents}, chunks {s.chunks}, entities "
              f"{s.entities}, relation hyperedges {s.relation_hyperedges}, theme hyperedges "
              f"{s.theme_hyperedges}, vectors {sum(s.vectors.values())}")
        print("  counts verified: equal to the source" if report.verified else
              "  COUNTS DIFFER: " + "; ".join(report.mismatches))
    return 0 if report.verified else 1


def register(sub: Any) -> None:
    """Add the ``migrate`` subcommand."""
    p = sub.add_parser(
        "migrate", help="copy a store to another backend and verify the counts",
        description="Copy every document, both hypergraph layers, the vectors and the model-"
        "call cache from one store to another: a directory/.sqlite file or a postgresql:// "
        "URL, either way. Re-running resumes (documents already copied are skipped).")
    p.add_argument("--from", dest="source", required=True, metavar="STORE",
                   help="source store (directory, .sqlite file or postgresql:// URL)")
    p.add_argument("--to", dest="target", required=True, metavar="STORE",
                   help="destination store (created if missing)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_run)
