"""``vizrag query``: ask a store a question (or a batch of them).

Offline by default: prints the ranked evidence and a clearly labelled extractive summary.
``--llm openai:MODEL`` sends the renderings I_top/I_bot to a vision model and prints its
answer. ``--out DIR`` writes ``top.png``/``top.html`` and ``bottom.png``/``bottom.html`` (one
subfolder per question in batch mode). ``--questions FILE.jsonl`` (lines ``{"id",
"question"}``) answers every question with the store loaded once; with ``--json`` each result
is one JSON line ``{"id", "question", "answer", "answer_kind", "chunks": [{"doc_id",
"chunk_id", "score", "text"}], ...}``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from .index import make_chat, make_embedder

__all__ = ["compact", "register", "write_views"]

_MODES = ("vizrag", "text", "hyper-lite", "naive")


def compact(result: Any, qid: str | None = None, images: dict[str, str] | None = None
            ) -> dict[str, Any]:
    """The JSON line of one result (no base64 images; ``--full`` gives everything)."""
    out: dict[str, Any] = {}
    if qid is not None:
        out["id"] = qid
    out.update({
        "question": result.query,
        "mode": result.mode,
        "answer": result.answer,
        "answer_kind": result.answer_kind,
        "keywords": result.keywords,
        "chunks": [{"doc_id": c.doc_id, "chunk_id": c.chunk_id, "score": c.score,
                    "title": c.title, "text": c.text} for c in result.chunks],
        "entities": [{"key": e.key, "name": e.name, "id": e.visual_id, "layer": e.layer,
                      "role": e.role, "score": e.score} for e in result.entities],
        "hyperedges": [{"id": h.id, "visual_id": h.visual_id, "kind": h.kind,
                        "members": h.members, "description": h.description}
                       for h in result.hyperedges],
        "captions": {"top": result.top_view.caption if result.top_view else None,
                     "bottom": result.bottom_view.caption if result.bottom_view else None},
        "timings_ms": result.timings,
        "warnings": result.warnings,
    })
    if images:
        out["images"] = images
    return out


def write_views(result: Any, out_dir: Path) -> dict[str, str]:
    """Write I_top / I_bot as PNG + export JSON + HTML viewer; return the written paths."""
    from ..viewer import render_html

    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    for name, view in (("top", result.top_view), ("bottom", result.bottom_view)):
        if view is None:
            continue
        png = out_dir / f"{name}.png"
        png.write_bytes(view.png)
        (out_dir / f"{name}.json").write_text(
            json.dumps(view.export, ensure_ascii=False, indent=1, sort_keys=True),
            encoding="utf-8")
        html = out_dir / f"{name}.html"
        title = f"VizRAG {'I_top' if name == 'top' else 'I_bot'}: {result.query}"
        html.write_text(render_html(view.export, png=view.png, title=title), encoding="utf-8")
        written[f"{name}_png"] = str(png)
        written[f"{name}_html"] = str(html)
    return written


def _print_human(result: Any, images: dict[str, str]) -> None:
    print(f"Q: {result.query}")
    print(f"mode {result.mode} · keywords: {', '.join(result.keywords) or '-'}")
    if result.answer_kind == "llm":
        print(f"\nAnswer:\n{result.answer}\n")
    elif result.answer:
        print(f"\n{result.answer}\n")
    print("Top passages:")
    for c in result.chunks:
        text = " ".join(c.text.split())
        text = text if len(text) <= 220 else text[:219] + "…"
        print(f"  [{c.rank}] {c.score:.3f}  {c.title or c.doc_id}  ({c.doc_id})\n      {text}")
    if images:
        print("Images: " + ", ".join(images[k] for k in sorted(images)))
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "q"


def _load_questions(path: str) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    text = Path(path).read_text(encoding="utf-8")
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or not str(obj.get("question", "")).strip():
            raise ValueError(f"{path}:{n}: expected an object with a \"question\"")
        items.append((str(obj.get("id", n)), str(obj["question"])))
    return items


def _run(args: argparse.Namespace) -> int:
    from ..rag.engine import VizRAG
    from ..rag.store_schema import resolve_path

    if not args.question and not args.questions:
        raise ValueError("give a question or --questions FILE.jsonl")
    if args.question and args.questions:
        raise ValueError("give either a question or --questions, not both")
    if not resolve_path(args.store).exists():
        raise ValueError(f"no VizRAG store at {args.store} (create one with `vizrag index`)")
    batch = _load_questions(args.questions) if args.questions else [(None, args.question)]
    engine = VizRAG(args.store, chat=make_chat(args.llm), embedder=make_embedder(args.embed),
                    mode=args.mode, top_k=args.top_k, hops=args.hops, show_progress=False)
    out = Path(args.out) if args.out else None
    try:
        for qid, question in batch:
            result = engine.query(question, render=bool(out) or not args.no_render)
            images: dict[str, str] = {}
            if out is not None:
                images = write_views(result, out / _safe(qid) if qid is not None else out)
            if args.full:
                print(result.model_dump_json())
            elif args.json:
                print(json.dumps(compact(result, qid, images), ensure_ascii=False))
            else:
                if qid is not None:
                    print(f"== {qid}")
                _print_human(result, images)
                if len(batch) > 1:
                    print()
    finally:
        engine.close()
    return 0


def register(sub: Any) -> None:
    """Add ``vizrag query`` to the subcommand parser."""
    p = sub.add_parser("query", help="ask a store a question (offline: ranked evidence)",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("question", nargs="?", help="the question (or use --questions)")
    p.add_argument("--store", required=True, help="store directory or .sqlite file")
    p.add_argument("--mode", default="vizrag", choices=_MODES, help="retrieval mode")
    p.add_argument("--top-k", type=int, default=5, help="ranked passages to return")
    p.add_argument("--hops", type=int, default=1, help="sub-hypergraph radius")
    p.add_argument("--llm", default=None,
                   help="chat/vision model, e.g. openai:gpt-4o-mini (default: offline)")
    p.add_argument("--embed", default=None, help="embedder (must match the index)")
    p.add_argument("--out", default=None, help="write I_top/I_bot PNG + HTML here")
    p.add_argument("--questions", default=None, help="JSONL file of {id, question}")
    p.add_argument("--json", action="store_true", help="one JSON line per question")
    p.add_argument("--full", action="store_true",
                   help="print the complete RetrievalResult JSON (with base64 images)")
    p.add_argument("--no-render", action="store_true",
                   help="skip rendering when no --out is given (faster)")
    p.set_defaults(func=_run)
