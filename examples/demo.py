"""VizRAG offline demo: index 60 MuSiQue paragraphs, ask three 2-hop questions.

For each question it prints the top passages (with the evidence that ranked them) and writes
the dual-view renderings of the retrieved sub-hypergraphs — I_top (themes) and I_bot
(entities and relations) — as PNG plus a self-contained HTML viewer::

    python examples/demo.py --out out/demo

Everything runs offline (heuristic extraction, hashed embeddings, no language model), so
there is no generated answer: an extractive summary, labelled as such, stands in for it.
Data: ``examples/data`` (MuSiQue, CC BY 4.0; subset selection from HippoRAG, MIT).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path

from hyperviz_core.rag.engine import VizRAG
from hyperviz_core.rag.types import Document
from hyperviz_core.viewer import render_html

DATA = Path(__file__).resolve().parent / "data"


def load_corpus() -> tuple[list[Document], list[dict[str, object]]]:
    """The bundled passages (as documents) and questions."""
    passages = json.loads((DATA / "musique_demo_passages.json").read_text(encoding="utf-8"))
    questions = json.loads((DATA / "musique_demo_questions.json").read_text(encoding="utf-8"))
    docs = [
        Document(id=f"musique-{p['musique_corpus_idx']}", title=p["title"], text=p["text"],
                 metadata={"source": "MuSiQue (CC BY 4.0)"})
        for p in passages
    ]
    return docs, questions


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="out/demo", help="output directory")
    parser.add_argument("--top-k", type=int, default=3, help="passages to print per question")
    args = parser.parse_args(argv)
    out = Path(args.out)
    store_dir = out / "store"
    if store_dir.exists():
        shutil.rmtree(store_dir)  # a fresh index each run
    out.mkdir(parents=True, exist_ok=True)

    docs, questions = load_corpus()
    t0 = time.perf_counter()
    rag = VizRAG(store_dir, show_progress=False, top_k=args.top_k)
    rag.insert(docs)
    s = rag.stats()
    print(f"Indexed {s.documents} passages in {time.perf_counter() - t0:.1f} s: {s.chunks} "
          f"chunks, {s.entities} entities, {s.relation_hyperedges} relation hyperedges "
          f"(G_bot), {s.theme_hyperedges} theme hyperedges over {s.key_entities} key "
          f"entities (G_top).")
    summary = []
    for n, q in enumerate(questions, 1):
        question = str(q["question"])
        t1 = time.perf_counter()
        result = rag.query(question, render=True)  # offline nothing reads the images: ask
        elapsed = time.perf_counter() - t1
        print(f"\n[{n}] {question}")
        print(f"    keywords: {', '.join(result.keywords)}")
        names = {e.key: e.name for e in result.entities}
        located = [f"{names.get(k, k)}" for k in result.located[:6]]
        print(f"    entities located in I_top (offline locator): "
              f"{', '.join(located) or '-'}  ({elapsed:.2f} s incl. rendering)")
        for c in result.chunks:
            text = " ".join(c.text.split())
            text = text if len(text) <= 160 else text[:159] + "…"
            via = f"  via {', '.join(c.entities[:3])}" if c.entities else ""
            print(f"    #{c.rank} {c.score:.2f} {c.title}{via}\n        {text}")
        print("    " + (result.answer or "").replace("\n", "\n    "))
        print(f"    (MuSiQue gold answer: {', '.join(map(str, q['answers']))})")  # type: ignore[call-overload]
        folder = out / f"q{n}-{slug(question)}"
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        for name, view in (("top", result.top_view), ("bottom", result.bottom_view)):
            if view is None:
                continue
            (folder / f"{name}.png").write_bytes(view.png)
            (folder / f"{name}.html").write_text(
                render_html(view.export, png=view.png, title=f"{name}: {question}"),
                encoding="utf-8")
            files += [str(folder / f"{name}.png"), str(folder / f"{name}.html")]
        (folder / "result.json").write_text(result.model_dump_json(indent=1), encoding="utf-8")
        print(f"    wrote {', '.join(files)}")
        summary.append({"question": question, "folder": str(folder),
                        "top_passages": [c.title for c in result.chunks]})
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False),
                                      encoding="utf-8")
    rag.close()
    print(f"\nDone in {time.perf_counter() - t0:.1f} s. Open {out}/q1-*/bottom.html in a browser.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
