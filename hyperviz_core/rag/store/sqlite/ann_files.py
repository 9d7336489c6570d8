"""Persisted HNSW indexes (usearch) of a SQLite store's big vector spaces (issue 17).

Once a vector space holds ``threshold`` vectors or more (and the optional ``usearch``
package is importable), the store searches it through an HNSW graph kept next to the store
file instead of loading every vector. For the store ``<dir>/vizrag.sqlite``:

- ``<dir>/vizrag.ann/<space>.json``: the manifest (format, store identity, dimension,
  HNSW parameters, the space's *generation* and vector count it reflects, the file token);
- ``<dir>/vizrag.ann/<space>-<token>.usearch``: the graph (float16 vectors);
- ``<dir>/vizrag.ann/<space>-<token>.keys.npy`` / ``.hashes.npy``: per usearch key the id
  and the text hash of the vector (UTF-8 byte strings, ``b""`` for a removed key; loaded
  with ``allow_pickle=False``, memory-mapped).

Every write of a space's vectors bumps its generation (``meta`` key
``vector_generation:<space>``) in the write's transaction. The first search of a space
restores the graph memory-mapped (``Index.restore(view=True)``, milliseconds) when the
manifest's generation, count and store identity match the store; otherwise the index is
brought up to date: the (id, text hash) pairs of the space are compared with the index's
(one scan of the space, no vectors read) and only new, changed and deleted vectors are
applied, or it is rebuilt from the ``embeddings`` table when more than half changed or the
files are missing, damaged or foreign. A writable store then saves it atomically (new files
under a fresh token, the manifest replaced last, older files removed). Wrong, truncated or
foreign files never crash a search and never yield an id the store does not hold.

Example (a small threshold so that a tiny space crosses it)::

    >>> import sqlite3, tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from hyperviz_core.rag.ann import usearch_available
    >>> conn = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = conn.executescript(
    ...     "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    ...     "CREATE TABLE embeddings (space TEXT, id TEXT, text_hash TEXT, vector BLOB,"
    ...     " PRIMARY KEY (space, id));")
    >>> rows = [("chunk", f"c{i}", f"h{i}", np.eye(8, dtype=np.float16)[i].tobytes())
    ...         for i in range(8)]
    >>> _ = conn.executemany("INSERT INTO embeddings VALUES (?, ?, ?, ?)", rows)
    >>> files = AnnFiles(Path(tempfile.mkdtemp()) / "vizrag.sqlite", threshold=4)
    >>> idx = files.index(conn, "chunk", dim=8, writable=True)
    >>> usearch_available() == (idx is not None)
    True
    >>> idx is None or idx.search(np.eye(8)[3], 1)[0][0] == "c3"
    True
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ... import ann as _ann
from .ann_index import (
    AnnParams,
    PersistedIndex,
    add_rows,
    blocks,
    bump_generation,
    bytes_array,
    generation,
    slices,
    store_stamp,
)
from .files import ann_dir

__all__ = ["DEFAULT_ANN_THRESHOLD", "AnnFiles", "AnnParams", "PersistedIndex", "bump_generation",
           "generation"]

#: the default ``ann_threshold``: measured at 49,889 hashed vectors (2 cores), exact search
#: answered in 2.3–2.8 ms against 5.9–7.9 ms through the HNSW graph and loaded in about 1 s
#: (``benchmarks/ann_store_bench.py``); exact cost grows with the space, the graph's hardly,
#: so below this many vectors a space is searched exactly (faster and exact), from it the
#: persisted graph spares a load of seconds and hundreds of MiB per process
DEFAULT_ANN_THRESHOLD = 100_000

log = logging.getLogger(__name__)

FORMAT = "vizrag-ann"
VERSION = 1
#: rows read (and added to the graph) at a time while building: bounded memory
BLOCK = 8192


class AnnFiles:
    """The persisted HNSW indexes of one store file (see the module docstring).

    ``stats`` counts what happened (``restored``, ``built``, ``updated``, ``saved``,
    ``rejected``), for tests and logs. :attr:`show_progress` governs the progress bar of a
    build: None (default) shows it on a terminal only (not with ``TQDM_DISABLE=1``), False
    never (``vizrag index --no-progress``), True always.
    """

    def __init__(self, store_path: Path, threshold: int | None,
                 params: AnnParams | None = None) -> None:
        self.dir = ann_dir(store_path)
        self.threshold = threshold
        self.params = params or AnnParams()
        self.stats: Counter[str] = Counter()
        self._live: dict[str, PersistedIndex] = {}
        #: space -> the generation at which it was found below the threshold
        self._exact_at: dict[str, int] = {}
        self._available: bool | None = None
        #: the build's progress bar: None on a terminal only, False never, True always
        self.show_progress: bool | None = None

    @property
    def enabled(self) -> bool:
        """Whether big spaces are searched through persisted graphs at all."""
        if not self.threshold:
            return False
        if self._available is None:  # asked once: a failed import is not cached by Python
            self._available = _ann.usearch_available()
        return self._available

    def index(self, conn: sqlite3.Connection, space: str, *, dim: int,
              writable: bool) -> PersistedIndex | None:
        """The up-to-date index of ``space``, or None when it is searched exactly (below
        the threshold, usearch missing, or no vectors)."""
        if not self.enabled:
            return None
        own = not conn.in_transaction
        if own:
            conn.execute("BEGIN")  # one snapshot for the generation, count and rows
        try:
            return self._index(conn, space, dim, writable)
        except BaseException:
            self._live.pop(space, None)  # perhaps half updated: never used again
            raise
        finally:
            if own and conn.in_transaction:
                conn.execute("COMMIT")

    def _index(self, conn: sqlite3.Connection, space: str, dim: int,
               writable: bool) -> PersistedIndex | None:
        gen = generation(conn, space)
        live = self._live.get(space)
        if live is not None and live.generation == gen:
            return live
        if self._exact_at.get(space) == gen:  # still small: no count per search
            return None
        count = int(conn.execute("SELECT COUNT(*) FROM embeddings WHERE space = ?",
                                 (space,)).fetchone()[0])
        if count < int(self.threshold or 0) or dim <= 0:
            self._live.pop(space, None)
            self._exact_at[space] = gen
            return None
        self._exact_at.pop(space, None)
        stamp = store_stamp(conn)
        if live is None or self._saved_generation(space) == gen:  # e.g. saved by a writer
            live = self._restore(space, dim, stamp) or live
            if live is not None and live.generation == gen and live.count == count:
                self.stats["restored"] += 1
                self._live[space] = live
                return live
        fresh = self._catch_up(conn, space, live, gen) if live is not None else None
        if fresh is None and not writable:  # a build could not be kept: exact is cheaper
            log.info("space %r of a read-only store has no usable ANN index in %s; "
                     "searching it exactly", space, self.dir)
            self._live.pop(space, None)
            self._exact_at[space] = gen
            return None
        if fresh is None:
            fresh = self._build(conn, space, dim, gen)
        if writable:
            self._save(space, fresh, dim, stamp)
        self._live[space] = fresh
        return fresh

    def forget(self) -> None:
        """Drop the indexes held in memory (the files stay)."""
        self._live.clear()
        self._exact_at.clear()

    # ------------------------------------------------------------------ files
    def _manifest(self, space: str) -> Path:
        return self.dir / f"{space}.json"

    def _files(self, space: str, token: str) -> tuple[Path, Path, Path]:
        base = self.dir / f"{space}-{token}"
        return (base.with_name(base.name + ".usearch"), base.with_name(base.name + ".keys.npy"),
                base.with_name(base.name + ".hashes.npy"))

    def _saved_generation(self, space: str) -> int | None:
        """The generation the saved manifest of ``space`` reflects (None: none readable)."""
        try:
            return int(json.loads(self._manifest(space).read_text(encoding="utf-8"))
                       ["generation"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _restore(self, space: str, dim: int, stamp: str) -> PersistedIndex | None:
        """The saved index of ``space`` (memory-mapped), or None if absent or unusable."""
        path = self._manifest(space)
        if not path.exists():
            return None
        try:
            return self._restore_checked(space, path, dim, stamp)
        except Exception as exc:  # damaged or foreign files: rebuilt, never a crash
            self.stats["rejected"] += 1
            log.warning("ANN index %s is unusable (%s); rebuilding it", path, exc)
            return None

    def _restore_checked(self, space: str, path: Path, dim: int,
                         stamp: str) -> PersistedIndex:
        meta = json.loads(path.read_text(encoding="utf-8"))
        expected = {"format": FORMAT, "version": VERSION, "space": space, "dim": dim,
                    "store": stamp, "params": self._params_json()}
        wrong = sorted(k for k, v in expected.items() if meta.get(k) != v)
        if wrong:
            raise ValueError(f"manifest does not match this store ({', '.join(wrong)})")
        token = str(meta["token"])
        graph, keys_path, hashes_path = self._files(space, token)
        if graph.stat().st_size != int(meta["bytes"]):
            raise ValueError("graph file size differs from the manifest")
        keys = np.load(keys_path, mmap_mode="r", allow_pickle=False)
        hashes = np.load(hashes_path, mmap_mode="r", allow_pickle=False)
        if keys.dtype.kind != "S" or hashes.dtype.kind != "S" or len(keys) != len(hashes):
            raise ValueError("key files are not byte-string arrays of equal length")
        index = _ann.usearch_module().Index.restore(str(graph), view=True)
        if index is None or int(index.ndim) != dim:
            raise ValueError("not a usearch index of this dimension")
        index.expansion_search = self.params.expansion_search
        live = PersistedIndex(index, keys, hashes, generation=int(meta["generation"]),
                              view=True, path=graph, token=token)
        if live.count != int(meta["count"]) or len(index) != live.count:
            raise ValueError("vector count differs from the manifest")
        return live

    def _save(self, space: str, live: PersistedIndex, dim: int, stamp: str) -> None:
        """Write ``live`` under a fresh token (unless its files are saved already), replace
        the manifest, drop older files."""
        token = live.token or f"{live.generation}-{secrets.token_hex(4)}"
        graph, keys_path, hashes_path = self._files(space, token)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            if live.token is None or not graph.exists():
                live.index.save(str(graph))
                np.save(keys_path, bytes_array(live.keys), allow_pickle=False)
                np.save(hashes_path, bytes_array(live.hashes), allow_pickle=False)
            meta = {"format": FORMAT, "version": VERSION, "space": space, "dim": dim,
                    "store": stamp, "params": self._params_json(),
                    "generation": live.generation, "count": live.count, "token": token,
                    "bytes": graph.stat().st_size}
            tmp = self.dir / f".{space}.{token}.json.tmp"
            tmp.write_text(json.dumps(meta, sort_keys=True), encoding="utf-8")
            os.replace(tmp, self._manifest(space))
        except OSError as exc:
            log.warning("could not save the ANN index of %r in %s (%s); it is rebuilt "
                        "when the store is next opened", space, self.dir, exc)
            for p in (graph, keys_path, hashes_path):
                with contextlib.suppress(OSError):
                    p.unlink()
            return
        live.path, live.token = graph, token
        self.stats["saved"] += 1
        keep = {p.name for p in (graph, keys_path, hashes_path)}
        for old in sorted(self.dir.glob(f"{space}-*")):
            if old.name not in keep:  # readers that mapped it keep their mapping (POSIX)
                with contextlib.suppress(OSError):
                    old.unlink()

    def _params_json(self) -> dict[str, Any]:
        p = self.params
        return {"connectivity": p.connectivity, "expansion_add": p.expansion_add,
                "metric": p.metric, "dtype": p.dtype}

    # ------------------------------------------------------------------ building
    def _new_graph(self, dim: int) -> Any:
        p = self.params
        index = _ann.usearch_module().Index(
            ndim=dim, metric=p.metric, dtype=p.dtype, connectivity=p.connectivity,
            expansion_add=p.expansion_add, expansion_search=p.expansion_search)
        return index

    def _build(self, conn: sqlite3.Connection, space: str, dim: int,
               gen: int) -> PersistedIndex:
        """A new graph of every stored vector of ``space``, ``BLOCK`` rows at a time."""
        count = int(conn.execute("SELECT COUNT(*) FROM embeddings WHERE space = ?",
                                 (space,)).fetchone()[0])
        log.info("building the ANN index of space %r (%d vectors) in %s", space, count,
                 self.dir)
        index = self._new_graph(dim)
        keys: list[bytes] = []
        hashes: list[bytes] = []
        cur = conn.execute("SELECT id, text_hash, vector FROM embeddings WHERE space = ? "
                           "ORDER BY id", (space,))
        # None: shown on a terminal only; TQDM_DISABLE=1 turns it off
        disable = None if self.show_progress is None else not self.show_progress
        with tqdm(total=count, desc=f"ANN index of {space!r}", unit="vec", leave=False,
                  disable=disable) as bar:
            for rows in blocks(cur, BLOCK):
                add_rows(index, keys, hashes, rows, dim, space)
                bar.update(len(rows))
        self.stats["built"] += 1
        return PersistedIndex(index, keys, hashes, generation=gen, view=False)

    def _catch_up(self, conn: sqlite3.Connection, space: str, live: PersistedIndex,
                  gen: int) -> PersistedIndex | None:
        """``live`` brought to generation ``gen`` by applying only what changed, or None
        when a rebuild is better (more than half changed) or the graph cannot be loaded."""
        stored = dict(conn.execute("SELECT id, text_hash FROM embeddings WHERE space = ?",
                                   (space,)).fetchall())
        known = {bytes(k).decode("utf-8"): n for n, k in enumerate(live.keys) if k}
        dead = sorted(i for i in known if i not in stored)
        new = sorted(i for i, h in stored.items()
                     if i not in known or bytes(live.hashes[known[i]]).decode("utf-8") != h)
        if not dead and not new:  # e.g. written by a version that kept no generation
            live.generation = gen
            return live
        holes = len(live.keys) - live.count
        if 2 * (len(dead) + len(new) + holes) > max(len(stored), 1):
            return None
        index = live.index
        if live.view:
            if live.path is None:
                return None
            try:
                index = _ann.usearch_module().Index.restore(str(live.path), view=False)
            except Exception:  # removed by another process's save, or damaged: rebuild
                return None
            if index is None:
                return None
            index.expansion_search = self.params.expansion_search
        keys, hashes = [bytes(k) for k in live.keys], [bytes(h) for h in live.hashes]
        gone = [known[i] for i in dead] + [known[i] for i in new if i in known]
        if gone:
            index.remove(np.asarray(sorted(gone), dtype=np.uint64))
            for n in gone:
                keys[n] = hashes[n] = b""
        dim = int(index.ndim)
        for part in slices(new, 500):
            marks = ",".join("?" * len(part))
            rows = conn.execute(
                f"SELECT id, text_hash, vector FROM embeddings WHERE space = ? AND id IN "
                f"({marks}) ORDER BY id", [space, *part]).fetchall()
            add_rows(index, keys, hashes, rows, dim, space)
        self.stats["updated"] += 1
        log.info("ANN index of space %r updated: %d added or changed, %d removed", space,
                 len(new), len(dead))
        return PersistedIndex(index, keys, hashes, generation=gen, view=False)
