"""``vizrag documents``: the documents a store holds, one per line (what ``vizrag delete``
takes: ids such as ``doc-<hash>`` that JSON records without an id were given).

Text: ``ID<TAB>CHUNKS<TAB>TITLE<TAB>SOURCE`` per document, sorted by id (tabs and newlines
inside a field shown as ``\\t`` / ``\\n``, so each document is one line a script can ``cut``);
``--json``: one ``{"id", "title", "source", "chunks"}`` object per line. Exit 0; 2 when
there is no store.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from .terminal import one_line, stdout_is_unicode

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    from ..rag.store.sqlite.check import store_errors
    from .index import open_existing

    with store_errors(args.store):
        store = open_existing(args.store, read_only=True)
        try:
            docs = store.documents()
            chunks = Counter(store.chunk_doc_ids().values())
        finally:
            store.close()
    for doc in sorted(docs, key=lambda d: d.id):
        source = doc.metadata.get("source")
        row = {"id": doc.id, "title": doc.title, "source": None if source is None else str(source),
               "chunks": chunks.get(doc.id, 0)}
        if args.json:
            print(json.dumps(row, ensure_ascii=not stdout_is_unicode()))
        else:
            print("\t".join(one_line(v) for v in (doc.id, row["chunks"], doc.title,
                                                 row["source"] or "")))
    return 0


def register(sub: Any) -> None:
    """Add the ``documents`` subcommand."""
    p = sub.add_parser("documents", help="list the documents of a store (id, chunks, title, "
                       "source)", description=__doc__.split("\n\n")[0])
    p.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=_run)
