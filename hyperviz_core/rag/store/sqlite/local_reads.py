"""Reads that fetch only what one query needs: the h-hop neighbourhood of some entities,
the chunks that mention them, and document titles (issue 17).

Each is a handful of indexed lookups (``incidences(entity_key)``, ``incidences`` by hyperedge,
``entity_mentions(key)``, primary keys) in portable SQL with ``?`` placeholders run through
``self._q``, so the PostgreSQL backend (which inherits :class:`StoreReadsMixin`) gets them
unchanged. They return the same objects as slicing the cached layers
(:meth:`~.graphs.GraphLayersMixin.bottom`/``top``) would, without loading those layers.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> from hyperviz_core.rag.types import Chunk, ChunkExtraction, Document
    >>> from hyperviz_core.model import Entity, Hyperedge
    >>> store = HypergraphStore(tempfile.mkdtemp())
    >>> ex = ChunkExtraction(chunk_id="c1", entities=[Entity(name=n) for n in "ABCD"],
    ...     hyperedges=[Hyperedge(members=["A", "B"]), Hyperedge(members=["B", "C"]),
    ...                 Hyperedge(members=["C", "D"])])
    >>> _ = store.add_document(Document(id="d", text="t"), [Chunk(id="c1", doc_id="d",
    ...     text="t")], [ex])
    >>> sorted(store.neighbourhood(["a"], hops=1).entities)   # a, b (1 hop) + c (b's edge)
    ['a', 'b', 'c']
    >>> store.entity_chunks(["b", "zz"])
    {'b': ['c1']}
    >>> store.close()
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Literal

from ....model import Entity, Hyperedge, Hypergraph
from .damage import real
from .graphs import stored_graph
from .schema import loads
from .sources import entity_sources, hyperedge_sources

__all__ = ["LocalReadsMixin"]

_BATCH = 500
_KIND: dict[str, Literal["relation", "theme"]] = {"bottom": "relation", "top": "theme"}


def _batches(items: Iterable[Any]) -> Iterator[list[Any]]:
    """The distinct ``items`` sorted, in batches of at most ``_BATCH`` (SQL ``IN`` lists)."""
    items = sorted(set(items))
    for i in range(0, len(items), _BATCH):
        yield items[i : i + _BATCH]


class LocalReadsMixin:
    """Per-query lookups by index (mixed into both backends through the read mixin)."""

    _lock: threading.RLock
    _q: Callable[..., list[Any]]

    def document_titles(self, ids: Iterable[str] | None = None) -> dict[str, str]:
        """Document id → title (every document, or those of ``ids`` that exist), without
        reading the documents' text."""
        with self._lock:
            if ids is None:
                return dict(self._q("SELECT id, title FROM documents ORDER BY id"))
            out: dict[str, str] = {}
            for part in _batches(ids):
                marks = ",".join("?" * len(part))
                out.update(self._q(f"SELECT id, title FROM documents WHERE id IN ({marks})",
                                   part))
            return dict(sorted(out.items()))

    def entity_chunks(self, keys: Iterable[str]) -> dict[str, list[str]]:
        """Entity key → ids of the chunks that mention it (sorted); unknown keys left out.

        The candidate chunks of a query's entities, from the ``entity_mentions(key)``
        index (theme key entities included: they are mentions too)."""
        out: dict[str, list[str]] = {}
        with self._lock:
            for part in _batches(keys):
                marks = ",".join("?" * len(part))
                for key, cid in self._q(
                        f"SELECT key, chunk_id FROM entity_mentions WHERE key IN ({marks}) "
                        "ORDER BY key, chunk_id", part):
                    out.setdefault(key, []).append(cid)
        return out

    def neighbourhood(self, keys: Iterable[str], hops: int = 1,
                      layer: Literal["bottom", "top"] = "bottom") -> Hypergraph:
        """The part of a layer within ``hops`` of ``keys``, read by index.

        Holds every entity at most ``hops`` hyperedges away from a known key of ``keys``,
        *every* hyperedge of the layer incident to one of them (so ``neighbors`` of those
        entities, and any induced sub-hypergraph on them, equal the full layer's), and the
        members of those hyperedges. Entities and hyperedges equal the full layer's objects
        (``bottom()``/``top()``), so :func:`~hyperviz_core.rag.retrieve.subgraph.expand` with
        ``hops`` gives the same result on either.
        """
        if hops < 0:
            raise ValueError(f"hops must be >= 0, got {hops}")
        kind: Literal["relation", "theme"] = "relation" if layer == "bottom" else "theme"
        with self._lock:
            seen = set(self._known_entities(keys, kind))
            frontier = set(seen)
            members: dict[str, list[str]] = {}
            for level in range(hops + 1):
                fresh = self._incident(frontier, kind) - members.keys()
                members.update(self._members(fresh))
                if level == hops:
                    break
                frontier = {m for h in fresh for m in members[h]} - seen
                seen |= frontier
                if not frontier:
                    break
            wanted = seen | {m for ms in members.values() for m in ms}
            entities = self._entity_rows(wanted)
            edges = self._edge_rows(members, kind)
        return stored_graph(entities, edges, {"layer": layer, "neighbourhood_hops": hops})

    # ------------------------------------------------------------------ objects by key
    def entity_objects(self, keys: Iterable[str],
                       sources: Mapping[str, list[str]] | None = None) -> dict[str, Entity]:
        """The merged entities of ``keys`` (those that exist), as in the loaded layers.

        ``sources``: their source chunk ids when the caller has them (sorted; a key absent
        from it has none), instead of reading them from ``entity_mentions``.
        """
        with self._lock:
            return self._entity_rows(set(keys), sources)

    def hyperedge_objects(self, hids: Iterable[str], layer: Literal["bottom", "top"]
                          ) -> dict[str, Hyperedge]:
        """The hyperedges ``hids`` of ``layer`` (those that exist), as in the loaded layers."""
        with self._lock:
            return self._edge_rows(self._members(set(hids)), _KIND[layer])

    # ------------------------------------------------------------------ helpers
    def _known_entities(self, keys: Iterable[str], kind: str) -> list[str]:
        out: list[str] = []
        for part in _batches(keys):
            marks = ",".join("?" * len(part))
            if kind == "relation":
                sql = f"SELECT key FROM entities WHERE key IN ({marks})"
            else:
                sql = f"SELECT DISTINCT key FROM key_entities WHERE key IN ({marks})"
            out.extend(r[0] for r in self._q(sql, part))
        return out

    def _incident(self, keys: set[str], kind: str) -> set[str]:
        out: set[str] = set()
        for part in _batches(keys):
            marks = ",".join("?" * len(part))
            out.update(r[0] for r in self._q(
                "SELECT DISTINCT i.hid FROM incidences i JOIN hyperedges h ON h.id = i.hid "
                f"WHERE i.entity_key IN ({marks}) AND h.kind || '' = ?", [*part, kind]))
        return out

    def _members(self, hids: set[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for part in _batches(hids):
            marks = ",".join("?" * len(part))
            for hid, key in self._q(
                    f"SELECT hid, entity_key FROM incidences WHERE hid IN ({marks}) "
                    "ORDER BY hid, position", part):
                out.setdefault(hid, []).append(key)
        return out

    def _entity_rows(self, keys: set[str], sources: Mapping[str, list[str]] | None = None
                     ) -> dict[str, Entity]:
        rows: list[Any] = []
        for part in _batches(keys):
            marks = ",".join("?" * len(part))
            rows.extend(self._q(
                "SELECT key, name, type, description, metadata FROM entities "
                f"WHERE key IN ({marks})", part))
        src = entity_sources(self._q, keys) if sources is None else sources
        return {key: Entity.model_construct(
                    name=name, type=typ, description=desc, source_ids=src.get(key, []),
                    metadata=loads(meta, "entities", "metadata", key))
                for key, name, typ, desc, meta in sorted(rows)}

    def _edge_rows(self, members: dict[str, list[str]],
                   kind: Literal["relation", "theme"]) -> dict[str, Hyperedge]:
        rows: list[Any] = []
        for part in _batches(members):
            marks = ",".join("?" * len(part))
            rows.extend(self._q(
                "SELECT id, description, keywords, weight, member_attrs, metadata "
                f"FROM hyperedges WHERE id IN ({marks})", part))
        src = hyperedge_sources(self._q, members)
        edges: dict[str, Hyperedge] = {}
        for hid, desc, kw, weight, attrs, meta in sorted(rows):
            mem = members.get(hid, [])
            edges[hid] = Hyperedge.model_construct(
                id=hid, members=mem, description=desc,
                keywords=loads(kw, "hyperedges", "keywords", hid),
                weight=real(weight, "hyperedges", hid),
                order="low" if len(mem) <= 2 else "high", kind=kind,
                source_ids=src.get(hid, []),
                member_attrs=loads(attrs, "hyperedges", "member_attrs", hid),
                metadata=loads(meta, "hyperedges", "metadata", hid))
        return edges
