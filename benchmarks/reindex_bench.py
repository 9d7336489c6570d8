"""Re-indexing benchmark: what indexing a folder again sends to the embedding provider.

Writes the first ``--limit`` documents of a corpus (``title``/``text`` items, or the novels'
``corpus_name``/``context``) as text files into a temporary folder and indexes it offline
(heuristic extraction, hashed embeddings) by its absolute path. Then, on the same store:

1. **unchanged**: the same folder again;
2. **moved**: the folder renamed (every document's ``source`` changes, so every document is
   replaced);
3. **edited**: one sentence appended to the middle paragraph of every file.

Per step it prints the documents added / replaced / unchanged, the chunks written, how many
chunk texts the embedder was sent, how many chunks kept their stored vectors (``-`` on code
before that count existed) and the wall time. The embedder is the offline hashed
one, wrapped to count what it is sent (entity and theme texts are counted apart). With a
paid provider the chunk texts sent are what a re-index costs.

Usage::

    .venv/bin/python benchmarks/reindex_bench.py --data ../shared/data/musique/corpus.json
    .venv/bin/python benchmarks/reindex_bench.py \\
        --data ../shared/data/graphrag_bench_novel/corpus.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hyperviz_core.rag import HashingEmbedder, VizRAG
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.store.base import chunk_text


class CountingEmbedder:
    """The offline hashed embedder (same name and vectors; ``dim`` and ``name`` may be
    given), recording the texts sent in ``texts``."""

    def __init__(self, dim: int | None = None, name: str | None = None) -> None:
        self.inner = HashingEmbedder() if dim is None else HashingEmbedder(dim=dim)
        self.name, self.dim = name or self.inner.name, self.inner.dim
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts += list(texts)
        return self.inner.embed(texts)

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed(texts)


def write_corpus(items: list[dict[str, Any]], folder: Path) -> int:
    """Each item as ``folder/dNNNNN.txt`` (its title as a first heading line); the count."""
    folder.mkdir(parents=True)
    for n, item in enumerate(items):
        title = str(item.get("title") or item.get("corpus_name") or "")
        text = str(item.get("text") or item.get("context") or "")
        (folder / f"d{n:05d}.txt").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
    return len(items)


def edit(folder: Path) -> None:
    """Append a sentence to the middle paragraph of every file."""
    for path in sorted(folder.glob("*.txt")):
        paras = re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))
        mid = len(paras) // 2
        paras[mid] = paras[mid].rstrip() + " This sentence was added later."
        path.write_text("\n\n".join(paras), encoding="utf-8")


def step(rag: VizRAG, emb: CountingEmbedder, folder: Path, name: str) -> None:
    """Index ``folder`` and print one line."""
    emb.texts.clear()
    t0 = time.perf_counter()
    report = rag.insert(load_documents(folder))
    wall = time.perf_counter() - t0
    chunks = {chunk_text(c) for c in rag.store.chunks()}
    sent = sum(1 for t in emb.texts if t in chunks)
    print(f"{name:<10} {report.documents_added:>6} added {report.documents_replaced:>6} "
          f"replaced ({getattr(report, 'metadata_updated', '-')} only their metadata) "
          f"{report.documents_skipped:>6} unchanged; {report.chunks:>6} chunks "
          f"written, {sent:>6} chunk texts sent to the embedder "
          f"({len(emb.texts) - sent} other texts), "
          f"{getattr(report, 'chunk_vectors_reused', '-')} kept their vectors; {wall:6.1f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="a corpus.json")
    ap.add_argument("--limit", type=int, default=500, help="documents (default 500)")
    args = ap.parse_args(argv)
    items = json.loads(args.data.read_text(encoding="utf-8"))[: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        first, moved = Path(tmp) / "corpus", Path(tmp) / "moved" / "corpus"
        n = write_corpus(items, first)
        emb = CountingEmbedder()
        print(f"reindex_bench: {n} documents of {args.data} as text files; offline")
        with VizRAG(Path(tmp) / "store", embedder=emb, show_progress=False,
                    index_visualization=False) as rag:
            step(rag, emb, first, "first")
            step(rag, emb, first, "unchanged")
            moved.parent.mkdir()
            first.rename(moved)
            step(rag, emb, moved, "moved")
            edit(moved)
            step(rag, emb, moved, "edited")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
