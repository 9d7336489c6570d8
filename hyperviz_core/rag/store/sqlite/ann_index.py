"""The pieces of a persisted HNSW index (issue 17): its parameters, the per-space write
generation kept in the store's ``meta`` table, and :class:`PersistedIndex`, the graph with
its key -> id map that the retrieval stages search. :mod:`.ann_files` keeps them in files
beside the store and in sync with it.

Example (the generation counts the vector writes of a space)::

    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    >>> generation(conn, "chunk")
    0
    >>> bump_generation(conn, "chunk"); bump_generation(conn, "chunk")
    >>> generation(conn, "chunk"), generation(conn, "entity")
    (2, 0)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...vectors import normalize_rows
from ..compact import decode
from .damage import check_blobs

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["AnnParams", "PersistedIndex", "add_rows", "blocks", "bump_generation",
           "bytes_array", "generation", "slices", "store_stamp"]


@dataclass(frozen=True)
class AnnParams:
    """HNSW parameters of the persisted indexes (see ``benchmarks/ann_store_bench.py``)."""

    connectivity: int = 16
    expansion_add: int = 64
    expansion_search: int = 1024
    metric: str = "ip"  # rows are L2-normalised: inner product = cosine, faster to build
    dtype: str = "f16"


#: a graph's first vectors, and additions smaller than this, are inserted by one thread
SEED = 2048


def _gen_key(space: str) -> str:
    return f"vector_generation:{space}"


def generation(conn: sqlite3.Connection, space: str) -> int:
    """The number of vector writes ``space`` has had (0 for none recorded)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_gen_key(space),)).fetchone()
    try:
        return int(row[0]) if row is not None else 0
    except ValueError:
        return -1  # not a number: matches no manifest, so the index is rebuilt


def bump_generation(conn: sqlite3.Connection, space: str) -> None:
    """Inside a write transaction: count one more vector write of ``space``."""
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET "
        "value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)", (_gen_key(space),))


class PersistedIndex:
    """One space's HNSW graph with its key -> id map (a :class:`VectorIndex` for search).

    ``add``/``remove`` exist for the protocol; the store changes the index only through
    :class:`AnnFiles` (its writes go to the ``embeddings`` table and are applied from there).
    """

    def __init__(self, index: Any, keys: list[bytes] | npt.NDArray[Any],
                 hashes: list[bytes] | npt.NDArray[Any], *, generation: int,
                 view: bool, path: Path | None = None, token: str | None = None) -> None:
        self.index = index
        self.keys = keys
        self.hashes = hashes
        self.generation = generation
        self.view = view
        #: the graph file and the token of the saved files it matches (None: unsaved)
        self.path = path
        self.token = token
        self.count = (int(np.count_nonzero(keys != b"")) if isinstance(keys, np.ndarray)
                      else sum(1 for k in keys if k))

    def __len__(self) -> int:
        return self.count

    def search(self, query_vec: npt.ArrayLike, k: int) -> list[tuple[str, float]]:
        """The ``k`` best (id, cosine similarity), best first (ties by id)."""
        if k <= 0 or not self.count:
            return []
        q = normalize_rows(np.atleast_2d(np.asarray(query_vec, dtype=np.float32)))[0]
        found = self.index.search(q, min(k, self.count), threads=1)
        n = len(self.keys)
        hits = []
        for key, dist in zip(found.keys.tolist(), found.distances.tolist(), strict=True):
            name = self.keys[key] if 0 <= key < n else b""
            if name:  # a removed key or one out of range (damaged graph) is never returned
                hits.append((bytes(name).decode("utf-8"), 1.0 - float(dist)))
        return sorted(hits, key=lambda h: (-h[1], h[0]))[:k]

    def add(self, ids: Sequence[str], matrix: npt.ArrayLike) -> None:
        raise TypeError("a persisted ANN index follows the store's embeddings table; "
                        "write vectors through the store")

    def remove(self, ids: Sequence[str]) -> None:
        raise TypeError("a persisted ANN index follows the store's embeddings table; "
                        "delete through the store")


def add_rows(index: Any, keys: list[bytes], hashes: list[bytes],
             rows: Sequence[tuple[str, str, bytes]], dim: int, space: str = "") -> None:
    """Append ``rows`` (id, text hash, vector blob) of ``space`` under the next keys (a
    blob of the wrong length: :class:`~.damage.DamagedRowError` naming it).

    The first ``SEED`` vectors of a graph, and any small addition, are inserted by one
    thread: concurrent insertion into a small graph leaves nodes that no search reaches
    (measured: 8 of 3,000 self-queries missed over 50 graphs of 60 random vectors built
    with all threads, none with one); later rows use all cores.
    """
    if not rows:
        return
    blobs = [r[2] for r in rows]
    check_blobs(space, [r[0] for r in rows], blobs, dim)
    mat = normalize_rows(decode(blobs, dim))
    start = len(keys)
    ids = np.arange(start, start + len(rows), dtype=np.uint64)
    alone = max(0, min(len(rows), SEED - start)) if len(rows) >= SEED else len(rows)
    if alone:
        index.add(ids[:alone], mat[:alone], threads=1)
    if alone < len(rows):
        index.add(ids[alone:], mat[alone:], threads=0)
    keys.extend(r[0].encode("utf-8") for r in rows)
    hashes.extend(str(r[1]).encode("utf-8") for r in rows)


def blocks(cur: sqlite3.Cursor, size: int) -> Iterator[list[Any]]:
    """The rows of ``cur``, ``size`` at a time."""
    while rows := cur.fetchmany(size):
        yield rows


def slices(items: list[str], size: int) -> Iterator[list[str]]:
    """``items`` in consecutive slices of ``size``."""
    for lo in range(0, len(items), size):
        yield items[lo : lo + size]


def bytes_array(items: list[bytes] | npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``items`` as a fixed-width byte-string array (saved without pickling)."""
    if isinstance(items, np.ndarray):
        return items
    width = max((len(b) for b in items), default=1) or 1
    return np.asarray(items, dtype=f"S{width}")


def store_stamp(conn: sqlite3.Connection) -> str:
    """The store's identity (its creation stamp): files of another store are foreign."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'created'").fetchone()
    return "" if row is None else str(row[0])
