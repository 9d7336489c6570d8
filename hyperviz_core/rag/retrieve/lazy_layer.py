"""A hypergraph layer read piecewise from the store (:class:`~.subgraph.Layer`).

:func:`~.subgraph.expand` and :func:`~.subgraph.induced` walk a layer from some seeds:
they read the hyperedges incident to the entities of each hop (of a hub, only the sizes, to
keep its smallest hyperedges), the members of the hyperedges they follow, and the entity
and hyperedge objects of the result. :class:`StoreLayer` answers exactly those from indexed
lookups (``incidences(entity_key)``, ``incidences(hid)``, primary keys), batched per hop
and cached for one query — never the whole layer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, Protocol

from ...model import Entity, Hyperedge

__all__ = ["LayerLookups", "StoreLayer"]


class LayerLookups(Protocol):
    """The store reads behind :class:`StoreLayer` (``LocalReadsMixin``)."""

    def layer_known(self, keys: Iterable[str], layer: Literal["bottom", "top"]
                    ) -> set[str]: ...
    def layer_incidence(self, keys: Iterable[str], layer: Literal["bottom", "top"]
                        ) -> dict[str, list[str]]: ...
    def layer_sizes(self, hids: Iterable[str]) -> dict[str, int]: ...
    def layer_members(self, hids: Iterable[str]) -> dict[str, list[str]]: ...
    def layer_inside(self, keys: Iterable[str], layer: Literal["bottom", "top"]
                     ) -> list[str]: ...
    def layer_hyperedges(self, hids: Iterable[str], layer: Literal["bottom", "top"]
                         ) -> set[str]: ...
    def entity_objects(self, keys: Iterable[str]) -> dict[str, Entity]: ...
    def hyperedge_objects(self, hids: Iterable[str], layer: Literal["bottom", "top"]
                          ) -> dict[str, Hyperedge]: ...


class StoreLayer:
    """G_bot (``"bottom"``) or G_top (``"top"``) of a store, read on demand and cached."""

    def __init__(self, store: LayerLookups, layer: Literal["bottom", "top"]) -> None:
        self.store, self.layer = store, layer
        self._known: dict[str, bool] = {}
        self._incident: dict[str, list[str]] = {}
        self._size: dict[str, int] = {}
        self._members: dict[str, list[str]] = {}
        self._edge_ok: dict[str, bool] = {}

    def known(self, keys: Iterable[str]) -> set[str]:
        keys = set(keys)
        missing = keys - self._known.keys()
        if missing:
            found = self.store.layer_known(missing, self.layer)
            self._known.update({k: k in found for k in missing})
        return {k for k in keys if self._known[k]}

    def prefetch(self, keys: Iterable[str]) -> None:
        missing = set(keys) - self._incident.keys()
        if not missing:
            return
        found = self.store.layer_incidence(missing, self.layer)
        for key in missing:
            self._incident[key] = found.get(key, [])

    def neighbors(self, key: str) -> list[str]:
        self.prefetch([key])
        return self._incident[key]

    def edge_sizes(self, hids: Iterable[str]) -> dict[str, int]:
        hids = list(hids)
        missing = [h for h in hids if h not in self._size]
        if missing:
            self._size.update(self.store.layer_sizes(missing))
        return {h: self._size.get(h, 0) for h in hids}

    def has_edge(self, hid: str) -> bool:
        if hid not in self._edge_ok:
            self._edge_ok[hid] = hid in self.store.layer_hyperedges([hid], self.layer)
        return self._edge_ok[hid]

    def members(self, hids: Iterable[str]) -> dict[str, list[str]]:
        hids = set(hids)
        missing = hids - self._members.keys()
        if missing:
            found = self.store.layer_members(missing)
            for hid in missing:
                self._members[hid] = found.get(hid, [])
        return {h: self._members[h] for h in hids if h in self._members}

    def inside(self, keys: set[str]) -> list[str]:
        return self.store.layer_inside(keys, self.layer)

    def entity_objects(self, keys: Iterable[str]) -> dict[str, Entity]:
        return self.store.entity_objects(keys)

    def edge_objects(self, hids: Iterable[str]) -> dict[str, Hyperedge]:
        return self.store.hyperedge_objects(hids, self.layer)

    def metadata(self) -> dict[str, object]:
        return {"layer": self.layer}
