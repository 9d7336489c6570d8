"""``vizrag index``, ``vizrag stats`` and ``vizrag delete``: build and inspect a store.

Offline by default (heuristic extraction, hashed embeddings). ``--llm openai:MODEL`` (any
OpenAI-compatible endpoint, see ``vizrag index --help``) switches extraction and themes to an
LLM, with retries and a persistent call cache in the store.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["make_chat", "make_embedder", "register"]


def make_chat(spec: str | None) -> Any:
    """A chat model from ``provider:model[@base_url]`` (``offline``/``none`` → None).

    Parsed by :func:`hyperviz_core.rag.openai_compat.parse_model_spec`.
    """
    if not spec or spec.strip().lower() in ("offline", "none", "heuristic"):
        return None
    try:
        from ..rag.openai_compat import chat_model_from_spec, parse_model_spec
    except ImportError as exc:  # pragma: no cover - the module ships with the core
        raise ValueError(f"--llm {spec!r} is unavailable: {exc}") from None
    return chat_model_from_spec(parse_model_spec(spec))


def make_embedder(spec: str | None) -> Any:
    """An embedder from ``offline``, ``hashing[:DIM]`` or ``provider:model[@base_url]``."""
    from ..rag.offline import HashingEmbedder

    if not spec or spec.strip().lower() in ("offline", "hashing", "default"):
        return HashingEmbedder()
    low = spec.strip().lower()
    if low.startswith("hashing:"):
        try:
            return HashingEmbedder(dim=int(low.split(":", 1)[1]))
        except ValueError as exc:
            raise ValueError(f"bad --embed {spec!r}: {exc}") from None
    try:
        from ..rag.openai_compat import embedder_from_spec, parse_model_spec
    except ImportError as exc:  # pragma: no cover
        raise ValueError(f"--embed {spec!r} is unavailable: {exc}") from None
    return embedder_from_spec(parse_model_spec(spec))


def _open_existing(path: str) -> Any:
    from ..rag.store import HypergraphStore
    from ..rag.store_schema import resolve_path

    if not resolve_path(path).exists():
        raise ValueError(f"no VizRAG store at {path} (create one with `vizrag index`)")
    return HypergraphStore(path)


def _print_stats(stats: Any) -> None:
    print(
        f"documents {stats.documents}, chunks {stats.chunks}, entities {stats.entities}, "
        f"relation hyperedges {stats.relation_hyperedges}, theme hyperedges "
        f"{stats.theme_hyperedges}, key entities {stats.key_entities}"
    )


def _run_index(args: argparse.Namespace) -> int:
    from ..rag.index import Indexer
    from ..rag.loaders import load_documents

    docs = load_documents(
        args.paths, text_field=args.text_field, id_field=args.id_field,
        title_field=args.title_field,
    )
    if args.limit is not None:
        docs = docs[: args.limit]
    chat = make_chat(args.llm)
    indexer = Indexer(
        args.store,
        embedder=make_embedder(args.embed),
        index_visualization=not args.no_visualization,
        concurrency=args.concurrency,
        show_progress=not args.no_progress and sys.stderr.isatty(),
        chat=chat,
        chunk_size=args.chunk_size,
        chunk_overlap=args.chunk_overlap,
        chunk_unit=args.chunk_unit,
    )
    try:
        report = indexer.index(docs)
    finally:
        indexer.store.close()
    if args.json:
        print(json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True))
    else:
        print(f"indexed {len(docs)} documents into {indexer.store.path}")
        print("  " + report.summary())
        if report.store is not None:
            print("  store: ", end="")
            _print_stats(report.store)
        for err in report.errors[:20]:
            print(f"  failed: {err}", file=sys.stderr)
    return 1 if report.documents_failed else 0


def _run_stats(args: argparse.Namespace) -> int:
    store = _open_existing(args.store)
    try:
        stats = store.stats()
    finally:
        store.close()
    if args.json:
        print(json.dumps(stats.model_dump(mode="json"), indent=2, sort_keys=True))
        return 0
    print(f"store {stats.path}")
    _print_stats(stats)
    if stats.embedder:
        vec = ", ".join(f"{k} {v}" for k, v in stats.vectors.items())
        print(f"vectors ({stats.embedder}, dim {stats.embedding_dim}): {vec}")
    print(f"LLM cache entries {stats.llm_cache_entries}")
    return 0


def _run_delete(args: argparse.Namespace) -> int:
    store = _open_existing(args.store)
    try:
        info = store.embedder_info()
        embed_spec = args.embed
        if embed_spec is None and info is not None and info[0].startswith("hashing"):
            embed_spec = f"hashing:{info[1]}"
        # shared entities are re-embedded with the store's embedder; with an unknown
        # (remote) one and no --embed, their old vectors stay
        embedder = make_embedder(embed_spec) if embed_spec is not None else None
        counts: dict[str, int] = {}
        for doc_id in args.doc_ids:
            got = store.delete_document(doc_id, embedder=embedder)
            if not got["documents"]:
                print(f"vizrag delete: no document {doc_id!r} in {store.path}", file=sys.stderr)
            for k, v in got.items():
                counts[k] = counts.get(k, 0) + v
    finally:
        store.close()
    print(
        f"deleted {counts.get('documents', 0)} documents: {counts.get('chunks', 0)} chunks, "
        f"{counts.get('entities', 0)} entities, {counts.get('relation_hyperedges', 0)} "
        f"relation and {counts.get('theme_hyperedges', 0)} theme hyperedges "
        f"({counts.get('updated_entities', 0)} shared entities updated)"
    )
    return 0 if counts.get("documents", 0) == len(args.doc_ids) else 1


def register(sub: Any) -> None:
    """Add the ``index``, ``stats`` and ``delete`` subcommands."""
    p = sub.add_parser(
        "index",
        help="index text/markdown/JSON/JSONL documents into a store",
        description="Index documents into a VizRAG store (offline unless --llm is given). "
        "JSON: a list of objects with a text field ([{\"title\", \"text\"}] works as is), "
        "or a dict title -> list of sentences (HotpotQA). JSONL: one object per line.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    p.add_argument("--store", required=True, metavar="DIR", help="store directory or .sqlite")
    p.add_argument("--llm", default="offline", metavar="PROVIDER:MODEL",
                   help="'offline' (default, heuristics) or e.g. openai:gpt-4o-mini "
                   "(OpenAI-compatible; see the README for base URLs and keys)")
    p.add_argument("--embed", default="offline", metavar="SPEC",
                   help="'offline' (hashed n-grams, default), 'hashing:DIM' or provider:model")
    p.add_argument("--chunk-size", type=int, default=1200, metavar="N")
    p.add_argument("--chunk-overlap", type=int, default=100, metavar="N")
    p.add_argument("--chunk-unit", choices=("char", "token"), default="char")
    p.add_argument("--text-field", default="text", metavar="F")
    p.add_argument("--id-field", default="id", metavar="F")
    p.add_argument("--title-field", default="title", metavar="F")
    p.add_argument("--concurrency", type=int, default=8, metavar="N")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="index only the first N documents")
    p.add_argument("--no-visualization", action="store_true",
                   help="do not send chunk images to the theme model (ablation)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the index report as JSON")
    p.set_defaults(func=_run_index)

    s = sub.add_parser("stats", help="print the counts of a store")
    s.add_argument("--store", required=True, metavar="DIR")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_run_stats)

    d = sub.add_parser("delete", help="delete documents (and what only they support)")
    d.add_argument("doc_ids", nargs="+", metavar="DOC_ID")
    d.add_argument("--store", required=True, metavar="DIR")
    d.add_argument("--embed", default=None, metavar="SPEC",
                   help="embedder used to re-embed shared entities (default: the store's)")
    d.set_defaults(func=_run_delete)
