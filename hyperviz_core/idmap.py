"""Stable visual IDs: ``E1..En`` for entities and ``H1..Hm`` for hyperedges.

Renderings, captions, exports, HTML viewers and prompts all use these short IDs, so a
multimodal model can answer "E3" and we can map it back to the entity key.

Example:
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph, IdMap
    >>> hg = Hypergraph(entities=[Entity(name="b"), Entity(name="a")],
    ...                 hyperedges=[Hyperedge(id="r1", members=["a", "b"])])
    >>> ids = IdMap.build(hg)
    >>> ids.entity_id("a"), ids.entity_key("E2"), ids.hyperedge_id("r1")
    ('E1', 'b', 'H1')
    >>> ids.find_ids("I see E2 and H1, not E9")
    ['E2', 'H1']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field

from .model import Hypergraph, HypergraphError, normalize_key

__all__ = ["IdMap", "UnknownVisualIdError"]

_ID_RE = re.compile(r"\b([EH])\s?(\d{1,6})\b")


class UnknownVisualIdError(HypergraphError, KeyError):
    """A visual ID (``E#``/``H#``) or key that the map does not know."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class IdMap(BaseModel):
    """Bidirectional mapping between keys and short visual IDs."""

    entities: dict[str, str] = Field(default_factory=dict)  # key -> "E#"
    hyperedges: dict[str, str] = Field(default_factory=dict)  # hyperedge id -> "H#"

    @classmethod
    def build(
        cls,
        hypergraph: Hypergraph,
        entity_importance: Mapping[str, float] | None = None,
        hyperedge_importance: Mapping[str, float] | None = None,
    ) -> IdMap:
        """Number entities/hyperedges by descending importance (if given), then by key."""
        ei = entity_importance or {}
        hi = hyperedge_importance or {}
        ents = sorted(hypergraph.entities, key=lambda k: (-float(ei.get(k, 0.0)), k))
        edges = sorted(hypergraph.hyperedges, key=lambda h: (-float(hi.get(h, 0.0)), h))
        return cls.numbered(ents, edges)

    @classmethod
    def numbered(cls, entities: Iterable[str], hyperedges: Iterable[str]) -> IdMap:
        """Number entity keys ``E1, E2, ...`` and hyperedge ids ``H1, H2, ...`` in the order
        given (a caller's own order; :meth:`build` orders by importance).

        >>> IdMap.numbered(["b", "a"], ["r1"]).entities
        {'b': 'E1', 'a': 'E2'}
        """
        return cls(entities={k: f"E{i}" for i, k in enumerate(entities, 1)},
                   hyperedges={h: f"H{i}" for i, h in enumerate(hyperedges, 1)})

    def _rev(self) -> dict[str, str]:
        rev = {v: k for k, v in self.entities.items()}
        rev.update({v: k for k, v in self.hyperedges.items()})
        return rev

    def entity_id(self, key: str) -> str:
        """``E#`` of an entity, by key or by name (normalised, as every
        :class:`~hyperviz_core.model.Hypergraph` method takes it: ``"Marie  CURIE"``)."""
        if not isinstance(key, str):
            raise TypeError(f"entity_id takes an entity key or name (a string), not "
                            f"{type(key).__name__}")
        if key in self.entities:
            return self.entities[key]
        try:
            return self.entities[normalize_key(key)]
        except (KeyError, HypergraphError):
            raise UnknownVisualIdError(f"entity {key!r} has no visual id") from None

    def hyperedge_id(self, hid: str) -> str:
        """``H#`` of a hyperedge id."""
        try:
            return self.hyperedges[hid]
        except KeyError:
            raise UnknownVisualIdError(f"hyperedge {hid!r} has no visual id") from None

    def resolve(self, visual_id: str) -> tuple[str, str]:
        """``("entity", key)`` or ``("hyperedge", id)`` for a visual ID such as ``"E3"``."""
        if not isinstance(visual_id, str):
            raise TypeError(f"a visual id is a string such as 'E3' or 'H1', not "
                            f"{type(visual_id).__name__} {visual_id!r}")
        vid = visual_id.strip().upper()
        key = self._rev().get(vid)
        if key is None:
            raise UnknownVisualIdError(f"unknown visual id {visual_id!r}")
        return ("entity" if vid.startswith("E") else "hyperedge"), key

    def entity_key(self, visual_id: str) -> str:
        """Entity key of an ``E#`` ID."""
        kind, key = self.resolve(visual_id)
        if kind != "entity":
            raise UnknownVisualIdError(f"{visual_id!r} is not an entity id")
        return key

    def hyperedge_key(self, visual_id: str) -> str:
        """Hyperedge id of an ``H#`` ID."""
        kind, key = self.resolve(visual_id)
        if kind != "hyperedge":
            raise UnknownVisualIdError(f"{visual_id!r} is not a hyperedge id")
        return key

    def find_ids(self, text: str) -> list[str]:
        """Known visual IDs mentioned in free text, in order of first mention."""
        rev = self._rev()
        found = (f"{m.group(1)}{int(m.group(2))}" for m in _ID_RE.finditer(str(text).upper()))
        return list(dict.fromkeys(v for v in found if v in rev))

    def __len__(self) -> int:
        return len(self.entities) + len(self.hyperedges)
