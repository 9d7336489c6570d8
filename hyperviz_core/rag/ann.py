"""Approximate nearest-neighbour search for big stores: an HNSW :class:`VectorIndex` (usearch).

:class:`AnnVectorIndex` implements :class:`~hyperviz_core.rag.vectors.VectorIndex`, so a store
uses it through ``store.set_vector_index(space, AnnVectorIndex())`` (later writes are
forwarded to it: updated incrementally). Below ``exact_below`` vectors it answers exactly
(:class:`~hyperviz_core.rag.vectors.ExactVectorIndex`): a small store gains nothing from a
graph index and keeps bit-exact rankings. It needs the optional ``usearch`` package only
once a space grows past that size; :meth:`AnnVectorIndex.save` / :meth:`AnnVectorIndex.load`
persist it next to the store (``<file>`` plus ``<file>.ids.json``).

Example (exact while small, no usearch needed)::

    >>> import numpy as np
    >>> idx = AnnVectorIndex(exact_below=100)
    >>> idx.add(["a", "b"], np.array([[1, 0], [0, 1]], dtype=np.float32))
    >>> [(i, round(s, 3)) for i, s in idx.search(np.array([1.0, 0.2]), k=1)]
    [('a', 0.981)]
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..extras import install_hint
from .vectors import ExactVectorIndex, as_matrix, normalize_rows

__all__ = ["AnnVectorIndex", "usearch_available", "usearch_module"]


def usearch_available() -> bool:
    """Whether the optional ``usearch`` package can be imported."""
    try:
        _usearch()
    except ImportError:
        return False
    return True


def usearch_module() -> Any:
    """The ``usearch.index`` module (imported by name: an optional dependency);
    :class:`ImportError` naming the package when it is missing."""
    return _usearch()


def _usearch() -> Any:
    """The ``usearch.index`` module (imported by name: an optional dependency)."""
    try:
        return importlib.import_module("usearch.index")
    except ImportError as exc:
        raise ImportError("approximate vector search needs the 'ann' extra (the usearch "
                          f"package): {install_hint('ann')}") from exc


def _usearch_index(dim: int, connectivity: int, expansion_search: int) -> Any:
    return _usearch().Index(ndim=dim, metric="cos", dtype="f16", connectivity=connectivity,
                            expansion_add=256, expansion_search=expansion_search)


def _rows(index: ExactVectorIndex, ids: list[str]) -> npt.NDArray[np.float32]:
    dim = index.dim or 0
    if not ids:
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack([index.vector(i) for i in ids]).astype(np.float32)


class AnnVectorIndex:
    """HNSW cosine search (usearch, float16) with exact search for small sizes.

    Args:
        exact_below: below this many vectors search is exact (no usearch needed).
        connectivity, expansion_search: HNSW graph degree and search breadth (recall vs
            latency; ``expansion_search`` must be at least the ``k`` asked for). The
            defaults (32 / 512, ``expansion_add`` 256) are the setting
            ``benchmarks/ann_bench.py`` measured at recall@10 0.975 on 50,000 hashed vectors
            (16 / 64 / 128 gave 0.696).
    """

    def __init__(self, *, exact_below: int = 20_000, connectivity: int = 32,
                 expansion_search: int = 512) -> None:
        self.exact_below = exact_below
        self.connectivity = connectivity
        self.expansion_search = expansion_search
        self._exact: ExactVectorIndex | None = ExactVectorIndex()
        self._ann: Any = None
        self._keys: dict[str, int] = {}
        self._ids: dict[int, str] = {}
        self._next = 0

    def __len__(self) -> int:
        return len(self._exact) if self._exact is not None else len(self._keys)

    @property
    def ids(self) -> list[str]:
        """The ids held, sorted (what the store removes when another process changed it)."""
        return self._exact.ids if self._exact is not None else sorted(self._keys)

    @property
    def approximate(self) -> bool:
        """Whether searches go through the HNSW graph (the index outgrew ``exact_below``)."""
        return self._ann is not None

    def add(self, ids: Sequence[str], matrix: npt.ArrayLike) -> None:
        """Insert or replace the vectors of ``ids``."""
        mat = as_matrix(matrix)
        if self._exact is not None:
            self._exact.add(ids, mat)
            if len(self._exact) >= self.exact_below:
                self._promote()
            return
        self.remove([i for i in ids if i in self._keys])
        keys = np.arange(self._next, self._next + len(ids), dtype=np.uint64)
        self._next += len(ids)
        for key, i in zip(keys.tolist(), ids, strict=True):
            self._keys[i], self._ids[key] = key, i
        if len(ids):
            self._ann.add(keys, normalize_rows(mat))

    def remove(self, ids: Sequence[str]) -> None:
        """Drop ``ids`` (unknown ones are ignored)."""
        if self._exact is not None:
            self._exact.remove(ids)
            return
        keys = [self._keys.pop(i) for i in ids if i in self._keys]
        for key in keys:
            del self._ids[key]
        if keys:
            self._ann.remove(np.asarray(keys, dtype=np.uint64))

    def search(self, query_vec: npt.ArrayLike, k: int) -> list[tuple[str, float]]:
        """The ``k`` best (id, cosine similarity), best first (ties by id)."""
        if self._exact is not None:
            return self._exact.search(query_vec, k)
        if k <= 0 or not self._keys:
            return []
        q = normalize_rows(as_matrix(query_vec))[0]
        found = self._ann.search(q, min(k, len(self._keys)))
        hits = [(self._ids[int(key)], 1.0 - float(dist))
                for key, dist in zip(found.keys, found.distances, strict=True)
                if int(key) in self._ids]
        return sorted(hits, key=lambda h: (-h[1], h[0]))[:k]

    def _promote(self) -> None:
        """Move the exact index's vectors into a new HNSW graph."""
        assert self._exact is not None
        ids = list(self._exact.ids)
        mat = _rows(self._exact, ids)
        self._ann = _usearch_index(int(mat.shape[1]), self.connectivity,
                                   self.expansion_search)
        self._exact = None
        self.add(ids, mat)

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path) -> None:
        """Write the HNSW graph to ``path`` and the id map to ``path.ids.json`` (an index
        still exact is saved as its vectors, ``path.npy``, so ``load`` restores either)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if self._exact is not None:
            ids = list(self._exact.ids)
            np.save(f"{path}.npy", _rows(self._exact, ids))  # beside path.ids.json
            meta: dict[str, Any] = {"exact": True, "ids": ids}
        else:
            self._ann.save(str(path))
            meta = {"exact": False, "keys": self._keys, "next": self._next}
        meta["exact_below"] = self.exact_below
        Path(f"{path}.ids.json").write_text(json.dumps(meta, sort_keys=True), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, **kwargs: Any) -> AnnVectorIndex:
        """An index saved by :meth:`save` (``kwargs`` as for the constructor; a given
        ``exact_below`` replaces the saved one)."""
        path = Path(path)
        meta = json.loads(Path(f"{path}.ids.json").read_text(encoding="utf-8"))
        idx = cls(**{"exact_below": int(meta.get("exact_below", 20_000)), **kwargs})
        if meta["exact"]:
            ids = [str(i) for i in meta["ids"]]
            vectors = Path(f"{path}.npy")
            if not vectors.exists():  # saved before 2026-12-03: the suffix replaced
                vectors = path.with_suffix(".npy")
            if ids:
                idx.add(ids, np.load(vectors, allow_pickle=False))
            return idx
        idx._exact = None
        idx._ann = _usearch().Index.restore(str(path))
        idx._keys = {str(k): int(v) for k, v in meta["keys"].items()}
        idx._ids = {v: k for k, v in idx._keys.items()}
        idx._next = int(meta["next"])
        return idx
