"""``retrieval_bench.py --vectors-from STORE``: reuse the vectors an earlier store of the same
embedder holds, so a re-index with changed extraction code does not embed every text again
(all-MiniLM-L6-v2 on 2 CPU cores: about 30 minutes per corpus).

Stores keep each vector with the SHA-256 prefix of the text it embeds
(:func:`hyperviz_core.rag.types.content_hash`); a text whose hash is found gets that vector,
every other text is embedded by the real embedder. Reuse is exact for what the new store
holds: the old store kept float16 vectors, and the new one stores the same float16 values.
Query vectors are always embedded afresh (nothing reuses a query's text).

Example:
    >>> class Fake:
    ...     name, dim = "fake", 2
    ...     def embed(self, texts): return np.ones((len(texts), 2), dtype=np.float32)
    >>> e = StoredVectors(Fake(), {content_hash("known"): np.zeros(2, dtype=np.float32)})
    >>> e.embed(["known", "new"]).tolist(), e.reused, e.embedded
    ([[0.0, 0.0], [1.0, 1.0]], 1, 1)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hyperviz_core.rag.store.compact import decode
from hyperviz_core.rag.types import content_hash


def load_vectors(stores: Sequence[Path], name: str, dim: int) -> dict[str, npt.NDArray[Any]]:
    """Text hash → vector of every stored vector of embedder ``name`` in ``stores`` (a store
    of another embedder or dimension is refused: its vectors mean something else)."""
    out: dict[str, npt.NDArray[Any]] = {}
    for store in stores:
        path = store / "vizrag.sqlite" if store.is_dir() else store
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN "
                                     "('embedder_name', 'embedder_dim')").fetchall())
            if meta.get("embedder_name") != name or int(meta.get("embedder_dim", 0)) != dim:
                raise SystemExit(f"retrieval_bench: {store} holds vectors of "
                                 f"{meta.get('embedder_name')!r}/{meta.get('embedder_dim')}, "
                                 f"not {name!r}/{dim}")
            rows = conn.execute("SELECT text_hash, vector FROM embeddings").fetchall()
            out.update(zip((str(h) for h, _ in rows), decode([b for _, b in rows], dim),
                           strict=True))
        finally:
            conn.close()
    return out


class StoredVectors:
    """An embedder serving stored vectors by text hash, the wrapped one for the rest."""

    def __init__(self, embedder: Any, vectors: dict[str, npt.NDArray[Any]]) -> None:
        self.inner = embedder
        self.name: str = embedder.name
        self.dim: int = embedder.dim
        self.semantic = getattr(embedder, "semantic", None)
        self.vectors = vectors
        self.reused = 0
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        items = [str(t) for t in texts]
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        missing = []
        for row, text in enumerate(items):
            vec = self.vectors.get(content_hash(text))
            if vec is None:
                missing.append(row)
            else:
                out[row] = vec
        if missing:
            out[missing] = np.asarray(self.inner.embed([items[r] for r in missing]),
                                      dtype=np.float32)
        self.reused += len(items) - len(missing)
        self.embedded += len(missing)
        return out

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed(texts)
