"""``vizrag import-hyperrag`` and ``vizrag export``: move hypergraphs in and out of a store.

``import-hyperrag WORKDIR --store STORE [--reuse-embeddings]`` imports a Hyper-RAG working dir
(validated completely before anything is written; re-importing is a no-op) and prints counts.
It refuses to replace a stored document under a Hyper-RAG document id that no Hyper-RAG
import wrote (e.g. one ``vizrag index`` stored) unless ``--replace-documents`` is given.
Stored documents of a Hyper-RAG import that WORKDIR no longer holds are named in a note and
kept, or deleted with ``--prune``.
``export --store STORE --hif OUT.json [--layer L] [--doc ID ...] [--query Q]`` writes the whole
store or a selected sub-hypergraph as HIF (``--hif -``: to standard output).

A damaged, full or locked SQLite store ends either command with one line naming it (no
traceback). Ctrl-C ends them with "interrupted" and exit code 130: an import keeps the
batches committed so far (running it again resumes: what is stored is skipped), an export
writes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..atomic import atomic_write_bytes
from ..surrogates import not_unicode
from .argtypes import check_top_k_hops

__all__ = ["register"]


def _theme_extractor(chat: Any, store: Any, max_retries: int) -> Any:
    """None (offline heuristic themes) or an LLM theme extractor with retries and a
    persistent call cache in the store (the indexer's stack)."""
    from ..rag import LLMThemeExtractor, StoreCacheBackend, build_chat_stack

    if chat is None:
        return None
    return LLMThemeExtractor(build_chat_stack(chat, cache=StoreCacheBackend(store),
                                              max_retries=max_retries))


def _run_import(args: argparse.Namespace) -> int:
    from ..interop.hyperrag_import import import_workdir, read_for_import
    from ..rag.store import open_store
    from ..rag.store.sqlite.check import store_errors
    from .index import make_chat, make_embedder, recorded_embedder
    from .ready import make_query_ready, ready_json, ready_line

    embedder = (make_embedder(args.embed, timeout=args.timeout, max_retries=args.max_retries)
                if args.embed else recorded_embedder(args.store) or make_embedder("offline"))
    chat = make_chat(args.llm, timeout=args.timeout)  # bad specs fail here, before any write
    wd = read_for_import(args.workdir, reuse_embeddings=args.reuse_embeddings)  # checked
    with store_errors(args.store):
        store = open_store(args.store, read_only=False)  # directory, .sqlite, postgresql://
        try:
            report = import_workdir(
                wd, store, embedder=embedder, reuse_embeddings=args.reuse_embeddings,
                theme_extractor=_theme_extractor(chat, store, args.max_retries),
                show_progress=not args.no_progress and sys.stderr.isatty(), release=True,
                replace_documents=args.replace_documents, prune=args.prune,
            )
        except KeyboardInterrupt:
            print(f"vizrag import-hyperrag: interrupted; {store.path} keeps the "
                  f"{store.stats().documents} documents committed so far (run the same "
                  "command again to resume)", file=sys.stderr)
            return 130
        else:
            ready = make_query_ready(store, "import-hyperrag")
        finally:
            store.close()
    if args.json:
        out = report.model_dump(mode="json")
        out["query_ready_seconds"] = ready_json(ready)
        print(json.dumps(out, indent=2, sort_keys=True))
    else:
        print("\n".join(report.lines()))
        if line := ready_line(ready):
            print(line)
    return 0


def _run_export(args: argparse.Namespace) -> int:
    from ..interop.store_export import store_hypergraph
    from ..rag.retrieve.config import check_mode
    from ..rag.store.sqlite.check import store_errors
    from .index import make_embedder, open_existing

    given = [f for f, v in (("--mode", args.mode), ("--top-k", args.top_k),
                            ("--hops", args.hops), ("--embed", args.embed)) if v is not None]
    if args.query is not None and (why := not_unicode(args.query, "--query")):
        raise ValueError(why)
    if given and args.query is None:  # they would change nothing: say so
        raise ValueError(f"{', '.join(given)} apply to --query only (without it the whole "
                         "store, or --doc, is exported)")
    top_k, hops = (5 if args.top_k is None else args.top_k), (1 if args.hops is None
                                                                else args.hops)
    check_top_k_hops(top_k, hops)
    retrieve: dict[str, Any] = {"mode": "vizrag" if args.mode is None else args.mode,
                                "top_k": top_k, "hops": hops}
    check_mode(retrieve["mode"])  # before the store is read, as --top-k/--hops are
    embedder = make_embedder(args.embed) if args.embed is not None else None
    to_stdout = args.hif == "-"
    out = Path(args.hif)
    try:
        with store_errors(args.store):
            store = open_existing(args.store, read_only=True)
            try:
                hg = store_hypergraph(store, layer=args.layer, doc_ids=args.doc or (),
                                      query=args.query, embedder=embedder, **retrieve)
            finally:
                store.close()
        doc = hg.to_hif()
        data = json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True,
                          allow_nan=False).encode("utf-8")
        if to_stdout:
            _write_stdout(data)
        else:
            atomic_write_bytes(out, data)
    except KeyboardInterrupt:  # the temporary file of an interrupted write is removed
        where = "standard output" if to_stdout else out
        print(f"vizrag export: interrupted; {where} was not written", file=sys.stderr)
        return 130
    print(f"wrote {'standard output' if to_stdout else out}: {len(doc['nodes'])} nodes, "
          f"{len(doc['edges'])} edges, {len(doc['incidences'])} incidences",
          file=sys.stderr)  # stdout: data only
    return 0


def _write_stdout(data: bytes) -> None:
    """``--hif -``: the HIF document on standard output (UTF-8 bytes, a final newline)."""
    if sys.stdout is None:  # started with standard output closed (`>&-`)
        raise OSError("--hif -: standard output is closed; give a file name")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text stream without bytes (a test's StringIO)
        sys.stdout.write(data.decode("utf-8") + "\n")
    else:
        sys.stdout.flush()
        buffer.write(data + b"\n")
    sys.stdout.flush()


def register(sub: Any) -> None:
    """Add the ``import-hyperrag`` and ``export`` subcommands."""
    from .index import add_provider_options

    p = sub.add_parser(
        "import-hyperrag",
        help="import a Hyper-RAG working dir into a store (no re-extraction)",
        description="Import an iMoonLab/Hyper-RAG working directory (the .hgdb pickle, loaded "
        "with a restricted unpickler; kv_store_*.json; vdb_*.json) into a VizRAG store. "
        "Everything is validated before the first write; importing twice is a no-op. "
        "G_top is built from the imported chunks with the offline theme extractor.",
    )
    p.add_argument("workdir", metavar="WORKDIR", help="Hyper-RAG working_dir")
    p.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    p.add_argument("--reuse-embeddings", action="store_true",
                   help="store Hyper-RAG's vectors when --embed has the same dimension "
                   "(only if queries will be embedded by the same model)")
    p.add_argument("--embed", default=None, metavar="SPEC",
                   help="'offline' (hashed n-grams, 512-d), 'hashing:DIM' or provider:model; "
                   "default: the embedder an existing store recorded when it is an offline "
                   "one, else 'offline'")
    p.add_argument("--llm", default="offline", metavar="PROVIDER:MODEL",
                   help="theme model for G_top: 'offline' (default, heuristic) or e.g. "
                   "openai:gpt-4o-mini (one call per chunk, cached in the store)")
    p.add_argument("--replace-documents", action="store_true",
                   help="replace stored documents whose id a Hyper-RAG document uses although "
                   "no Hyper-RAG import wrote them (e.g. indexed by `vizrag index`); by "
                   "default the import refuses them and writes nothing")
    p.add_argument("--prune", action="store_true",
                   help="delete stored documents a Hyper-RAG import wrote that WORKDIR no "
                   "longer holds (by default they are kept and named in a note; do not use "
                   "it on a store that holds several working dirs)")
    add_provider_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the import report as JSON")
    p.set_defaults(func=_run_import)

    e = sub.add_parser(
        "export",
        help="write a store (or a sub-hypergraph) as HIF JSON",
        description="Export the store's hypergraph as HIF. Without --doc/--query: the whole "
        "store. --doc: entities and hyperedges sourced in those documents. --query: what a "
        "retrieval for the question reaches (no rendering). Both may be combined.",
    )
    e.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    e.add_argument("--hif", required=True, metavar="OUT.json",
                   help="output file ('-': standard output)")
    e.add_argument("--layer", choices=("bottom", "top", "both"), default="both",
                   help="G_bot relations, G_top themes, or both (default)")
    e.add_argument("--doc", action="append", metavar="DOC_ID", help="repeatable")
    e.add_argument("--query", default=None, metavar="QUESTION")
    e.add_argument("--mode", default=None, help="retrieval mode for --query (vizrag)")
    e.add_argument("--top-k", type=int, default=None, metavar="K", help="for --query (5)")
    e.add_argument("--hops", type=int, default=None, metavar="N", help="for --query (1)")
    e.add_argument("--embed", default=None, metavar="SPEC",
                   help="embedder for --query (default: the store's offline one)")
    e.set_defaults(func=_run_export)
