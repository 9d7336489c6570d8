"""``vizrag delete``: delete documents from a store (and what only they support).

All the ids go in one transaction: every document found goes, or (on an error) none. An id
the store does not hold is named on stderr (``vizrag delete: no document 'x' in STORE``, with
the ids of its parts when its file was stored as parts) and the command exits 1; the others
are deleted. ``--compact`` then rewrites a SQLite store without free space (alone, without
ids: compact only).

``--json`` prints one JSON object instead of the text lines: ``{"store", "deleted":
{"documents", "chunks", "entities", "relation_hyperedges", "theme_hyperedges",
"updated_entities"}, "errors": [{"id", "error"}], "compacted_bytes", "query_ready_seconds",
"stopped"}`` (``errors``: the ids not found, each with the line said on stderr;
``compacted_bytes``: ``null`` without ``--compact`` or on PostgreSQL; ``stopped``: ``null``,
or the line said when Ctrl-C stopped the compaction). The exit codes are the same: 0 every
id deleted, 1 an id not found, 2 nothing could run, 130 Ctrl-C (143 SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..wording import counted
from .index import make_embedder, open_existing
from .index_store import compact_store
from .ready import make_query_ready, ready_json, ready_line
from .terminal import stdout_is_unicode

__all__ = ["register"]

#: Ctrl-C (or SIGTERM) during ``--compact``: VACUUM is one transaction, undone whole
_COMPACT_STOPPED = ("interrupted while compacting; the store is as it was before the "
                    "compaction (any deletion above is committed)")


def _run_delete(args: argparse.Namespace) -> int:
    from ..rag.store.batch import NO_DELETE
    from ..rag.store.sqlite.check import refuse_damaged, store_errors

    if not args.doc_ids and not args.compact:
        raise ValueError("give the ids of the documents to delete (or --compact alone to "
                         "compact the store)")
    freed = argparse.Namespace(compacted_bytes=None)
    errors: list[dict[str, str]] = []
    counts: dict[str, int] = dict(NO_DELETE)
    stopped = ready = None
    with store_errors(args.store):
        store = open_existing(args.store, read_only=False)
        try:
            store.stats()  # a damaged store fails here (one line), before any change,
            refuse_damaged(store)  # or here: damaged table pages a count never reads
            if args.doc_ids:  # committed: said before the compaction (Ctrl-C may stop it)
                counts = _delete_all(args, store, errors)
                if not args.json:
                    _say_deleted(counts)
            if args.compact:
                try:
                    _compact_after_delete(store, freed)
                except KeyboardInterrupt:
                    stopped = _COMPACT_STOPPED
                    print(f"vizrag delete: {stopped}", file=sys.stderr)
            # after the compaction, which renumbers what queries keep
            if stopped is None and (counts["documents"] or args.compact):
                ready = make_query_ready(store, "delete")
        finally:
            store.close()
    if args.json:
        print(json.dumps({"store": str(store.path), "deleted": counts, "errors": errors,
                          "compacted_bytes": freed.compacted_bytes,
                          "query_ready_seconds": ready_json(ready), "stopped": stopped},
                         indent=2, sort_keys=True, ensure_ascii=not stdout_is_unicode()))
    if stopped is not None:
        return 130
    if not args.json:
        if line := ready_line(ready):
            print(line)
        if args.compact and hasattr(store, "compact"):
            print(f"compacted {store.path}: {(freed.compacted_bytes or 0) / 2**20:.1f} MiB "
                  "freed")
    return 0 if counts["documents"] == len(set(args.doc_ids)) else 1


def _say_deleted(counts: dict[str, int]) -> None:
    print(f"deleted {counted(counts.get('documents', 0), 'document')}: "
          f"{counted(counts.get('chunks', 0), 'chunk')}, "
          f"{counted(counts.get('entities', 0), 'entity')}, "
          f"{counts.get('relation_hyperedges', 0)} relation and "
          f"{counts.get('theme_hyperedges', 0)} theme hyperedges "
          f"({counts.get('updated_entities', 0)} shared entities updated)", flush=True)


def _compact_after_delete(store: Any, freed: argparse.Namespace) -> None:
    """``vizrag delete --compact``: VACUUM the SQLite store (the space deletes left is
    reused by later writes, never given back to the disk otherwise); a PostgreSQL store
    reclaims space by itself (autovacuum): nothing to do."""
    if not hasattr(store, "compact"):
        print(f"vizrag delete: note: {store.path} is not a SQLite store: PostgreSQL reclaims "
              "the space itself (autovacuum); nothing compacted", file=sys.stderr)
        return
    freed.compacted_bytes = 0  # a compaction that fails (a warning) freed nothing
    compact_store(store, freed, command="delete")


def _delete_all(args: argparse.Namespace, store: Any, errors: list[dict[str, str]]
                ) -> dict[str, int]:
    """Delete ``args.doc_ids`` from ``store``: the counts of what went; each id not found
    is said on stderr and appended to ``errors`` as ``{"id", "error"}``."""
    from ..rag.index.parts import part_id
    from ..rag.providers.spec import store_embedder

    # shared entities are re-embedded with the store's embedder (its recorded offline one:
    # hashed of any configuration, local MiniLM); with a provider's and no --embed, their
    # old vectors stay
    embedder = (make_embedder(args.embed) if args.embed is not None
                else store_embedder(store.embedder_info()))
    # ids are stored composed (NFC): a decomposed id pasted from a macOS file name finds its
    # document; one stored decomposed (indexed before) is still found as given
    args.doc_ids = list(dict.fromkeys(_stored_id(store, d) for d in args.doc_ids))
    for doc_id in args.doc_ids:
        if not store.has_document(doc_id):
            n = 0  # a text file over --part-kb is stored as its parts
            while store.has_document(part_id(doc_id, n + 1)):
                n += 1
            hint = (f"; its file is stored as {n} parts: give their ids, {part_id(doc_id, 1)}"
                    f"{f' ... {part_id(doc_id, n)}' if n > 1 else ''}" if n else "")
            error = f"no document {doc_id!r} in {store.path}{hint}"
            print(f"vizrag delete: {error}", file=sys.stderr)
            errors.append({"id": doc_id, "error": error})
    # all the ids in one transaction: every document goes, or (on an error) none
    counts: dict[str, int] = store.delete_documents(args.doc_ids, embedder=embedder)
    return counts


def _stored_id(store: Any, doc_id: str) -> str:
    """``doc_id`` as the store holds it: as given when stored so, else its NFC form (the form
    indexing gives ids, :func:`~hyperviz_core.unitext.nfc`)."""
    from ..unitext import nfc

    composed = nfc(doc_id)
    if composed == doc_id or store.has_document(doc_id):
        return doc_id
    return composed


def register(sub: Any) -> None:
    """Add the ``delete`` subcommand."""
    d = sub.add_parser("delete", help="delete documents (and what only they support)",
                       description=__doc__.split("\n\n")[0],
                       epilog="Exit codes: 0 every id deleted; 1 an id not found (named; the "
                       "others are deleted); 2 nothing could run (no store, a usage error); "
                       "130 Ctrl-C, 143 SIGTERM.")
    d.add_argument("doc_ids", nargs="*", metavar="DOC_ID",
                   help="ids of the documents to delete (none with --compact: compact only)")
    d.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    d.add_argument("--embed", default=None, metavar="SPEC",
                   help="embedder used to re-embed shared entities (default: the store's)")
    d.add_argument("--compact", action="store_true",
                   help="then rewrite the SQLite store without free space (VACUUM: gives "
                   "the space of deleted documents back to the disk; needs free space of "
                   "about the store's size; seconds per GB); without ids: compact only")
    d.add_argument("--json", action="store_true",
                   help="print what was deleted as one JSON object (ids not found: its "
                   "\"errors\")")
    d.set_defaults(func=_run_delete)
