"""The incidence structure of a layer as integer arrays, and a :class:`~.subgraph.Layer`
over it.

:func:`~.subgraph.expand` reads, hop after hop, the hyperedges incident to a frontier (for a
hub entity the sizes of all of them, to keep the smallest) and their members. On an
entity-rich corpus the frontier holds hubs with thousands of hyperedges, and asking the
store for those on every query costs more than the rest of the query. :class:`LayerIndex`
keeps, per store state, only the *structure* — hyperedge ids, members as entity numbers in
member order, entity → hyperedge lists — in numpy arrays (no descriptions, keywords or
sources; about 12 bytes per incidence plus the ids); :class:`IndexedLayer` answers the walk
from it and reads the entity and hyperedge objects of the result from the store.

Example:
    >>> import numpy as np
    >>> idx = LayerIndex("bottom", ["a", "b", "c"], ["h1", "h2"],
    ...                  np.array([0, 2, 5]), np.array([0, 1, 1, 2, 1]))
    >>> idx.neighbors("b"), idx.members(["h2"]), idx.sizes(["h1", "h2"])
    (['h1', 'h2'], {'h2': ['b', 'c', 'b']}, {'h1': 2, 'h2': 3})
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from ...model import Entity, Hyperedge
from .distinct import sorted_distinct

__all__ = ["IndexedLayer", "LayerIndex", "ObjectReads"]

IntArray = npt.NDArray[np.int64]


class ObjectReads(Protocol):
    """Store reads of the objects of a walk's result (``LocalReadsMixin``)."""

    def entity_objects(self, keys: Iterable[str],
                       sources: Mapping[str, list[str]] | None = None
                       ) -> dict[str, Entity]: ...
    def hyperedge_objects(self, hids: Iterable[str], layer: Literal["bottom", "top"]
                          ) -> dict[str, Hyperedge]: ...


class LayerIndex:
    """One layer's structure: ``keys`` (entities of the layer... and beyond: every entity
    number used by ``members``), hyperedge ``ids`` sorted, ``indptr``/``members`` (CSR:
    the member entity numbers of hyperedge ``j`` in member order)."""

    def __init__(self, layer: Literal["bottom", "top"], keys: Sequence[str], ids: list[str],
                 indptr: IntArray, members: IntArray, layer_keys: set[str] | None = None
                 ) -> None:
        self.layer = layer
        self.keys = list(keys)
        self._key_array = np.asarray(self.keys, dtype=object)
        self.position = {k: i for i, k in enumerate(self.keys)}
        self.ids = ids
        self.indptr = indptr
        self.member_ids = members
        self.layer_keys = layer_keys  # None: every key is an entity of the layer
        rows = np.repeat(np.arange(len(ids), dtype=np.int64), np.diff(indptr))
        inc = sp.csr_matrix((np.ones(rows.size, dtype=np.int8), (members, rows)),
                            shape=(len(self.keys), len(ids)))
        inc.sum_duplicates()
        inc.sort_indices()
        self.incident = inc  # entity number → sorted hyperedge numbers (= id order)
        self._num: dict[str, int] = {}
        self._smallest: dict[tuple[str, int], list[str]] = {}
        self._member_lists: dict[str, list[str]] = {}

    def _edge(self, hid: str) -> int | None:
        j = self._num.get(hid)
        if j is None:
            j = bisect.bisect_left(self.ids, hid)
            if j >= len(self.ids) or self.ids[j] != hid:
                return None
        return j

    def known(self, keys: Iterable[str]) -> set[str]:
        """The keys of ``keys`` that are entities of the layer."""
        if self.layer_keys is not None:
            return {k for k in keys if k in self.layer_keys}
        return {k for k in keys if k in self.position}

    def neighbors(self, key: str) -> list[str]:
        """Sorted ids of the hyperedges incident to ``key``."""
        i = self.position.get(key)
        if i is None:
            return []
        inc = self.incident
        nums = inc.indices[inc.indptr[i]:inc.indptr[i + 1]].tolist()
        ids = [self.ids[j] for j in nums]
        if len(self._num) < 1_000_000:  # remember where these ids are (bounded)
            self._num.update(zip(ids, nums, strict=True))
        return ids

    def degree(self, key: str) -> int:
        """Number of hyperedges incident to ``key``."""
        i = self.position.get(key)
        return 0 if i is None else int(self.incident.indptr[i + 1] - self.incident.indptr[i])

    def smallest(self, key: str, n: int) -> list[str]:
        """The ``n`` first hyperedges incident to ``key`` by (number of members, id), from
        the arrays (a hub's thousands of ids are never listed); cached per (key, n)."""
        found = self._smallest.get((key, n))
        if found is not None:
            return found
        i = self.position.get(key)
        if i is None:
            return []
        inc = self.incident
        nums = inc.indices[inc.indptr[i]:inc.indptr[i + 1]].astype(np.int64)  # id order
        size = self.indptr[nums + 1] - self.indptr[nums]
        best = nums[np.argsort(size, kind="stable")[:n]].tolist()  # stable: ties by id
        found = [self.ids[j] for j in best]
        if len(self._num) < 1_000_000:
            self._num.update(zip(found, best, strict=True))
        if len(self._smallest) < 100_000:
            self._smallest[(key, n)] = found
        return found

    def inside(self, keys: Iterable[str]) -> list[str]:
        """Sorted ids of the hyperedges incident to ``keys`` whose members all lie in
        ``keys`` (vectorised over the member arrays)."""
        nums = np.asarray(sorted({self.position[k] for k in keys if k in self.position}),
                          dtype=np.int64)
        if not nums.size:
            return []
        inc = self.incident
        hit = np.concatenate([inc.indices[inc.indptr[i]:inc.indptr[i + 1]]
                              for i in nums.tolist()])
        cand = sorted_distinct(hit, len(self.ids), mask_above=4096)  # hubs: a mask
        if not cand.size:
            return []
        mask = np.zeros(len(self.keys), dtype=bool)
        mask[nums] = True
        starts = self.indptr[cand]
        lens = self.indptr[cand + 1] - starts
        before = np.concatenate([[0], np.cumsum(lens)[:-1]])
        flat = np.repeat(starts - before, lens) + np.arange(int(lens.sum()))
        outside = np.repeat(np.arange(cand.size), lens)[~mask[self.member_ids[flat]]]
        good = np.ones(cand.size, dtype=bool)
        good[outside] = False
        return [self.ids[int(j)] for j in cand[good]]

    def has_edge(self, hid: str) -> bool:
        return self._edge(hid) is not None

    def sizes(self, hids: Iterable[str]) -> dict[str, int]:
        """Hyperedge id → number of members (repeats counted, as ``len(members)``)."""
        out: dict[str, int] = {}
        for hid in hids:
            j = self._edge(hid)
            out[hid] = int(self.indptr[j + 1] - self.indptr[j]) if j is not None else 0
        return out

    def members(self, hids: Iterable[str]) -> dict[str, list[str]]:
        """Hyperedge id → member keys in member order (known ids). The lists are remembered
        (a hub's smallest hyperedges come back every query) and shared: do not change
        them."""
        out: dict[str, list[str]] = {}
        cache = self._member_lists
        for hid in hids:
            found = cache.get(hid)
            if found is None:
                j = self._edge(hid)
                if j is None:
                    continue
                found = self._key_array[self.member_ids[self.indptr[j]:self.indptr[j + 1]]
                                        ].tolist()
                if len(cache) < 200_000:
                    cache[hid] = found
            out[hid] = found
        return out


class IndexedLayer:
    """A :class:`~.subgraph.Layer` from a :class:`LayerIndex` and the store's objects.

    ``sources`` (optional): entity key → source chunk ids from memory (the corpus view's
    mention arrays), so the entity objects of a result do not read hubs' mention rows.
    """

    def __init__(self, index: LayerIndex, store: ObjectReads,
                 sources: Callable[[Iterable[str]], dict[str, list[str]]] | None = None
                 ) -> None:
        self.index, self.store, self.sources = index, store, sources

    def prefetch(self, keys: Iterable[str]) -> None:
        """Nothing to fetch: the structure is in memory."""

    def known(self, keys: Iterable[str]) -> set[str]:
        return self.index.known(keys)

    def neighbors(self, key: str) -> list[str]:
        return self.index.neighbors(key)

    def degree(self, key: str) -> int:
        return self.index.degree(key)

    def edge_sizes(self, hids: Iterable[str]) -> dict[str, int]:
        return self.index.sizes(hids)

    def smallest_edges(self, key: str, n: int) -> list[str]:
        return self.index.smallest(key, n)

    def has_edge(self, hid: str) -> bool:
        return self.index.has_edge(hid)

    def members(self, hids: Iterable[str]) -> dict[str, list[str]]:
        return self.index.members(hids)

    def inside(self, keys: set[str]) -> list[str]:
        return self.index.inside(keys)

    def entity_objects(self, keys: Iterable[str]) -> dict[str, Entity]:
        if self.sources is None:
            return self.store.entity_objects(keys)
        keys = list(keys)
        return self.store.entity_objects(keys, self.sources(keys))

    def edge_objects(self, hids: Iterable[str]) -> dict[str, Hyperedge]:
        return self.store.hyperedge_objects(hids, self.index.layer)

    def metadata(self) -> dict[str, object]:
        return {"layer": self.index.layer}
