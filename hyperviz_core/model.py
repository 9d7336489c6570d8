"""The hypergraph model: entities joined by n-ary hyperedges.

Entities are identified by a *normalised key* derived from their name (case-folded,
whitespace-collapsed, NFKC-normalised), so ``"Marie  Curie"`` and ``"marie curie"`` are the
same entity. Hyperedges are identified by an ``id``; when none is given it is derived from the
hyperedge's kind and member set, so two hyperedges with the same members and kind are the same.

Example:
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph()
    >>> for name in ["Marie Curie", "Pierre Curie", "Nobel Prize"]:
    ...     _ = hg.add_entity(Entity(name=name, type="person"))
    >>> h = hg.add_hyperedge(Hyperedge(members=["marie curie", "pierre curie", "nobel prize"],
    ...                               description="shared the 1903 Nobel Prize in Physics"))
    >>> hg.degree("marie curie"), h.order
    (1, 'high')
    >>> sorted(hg.entity_neighbors("nobel prize"))
    ['marie curie', 'pierre curie']
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from .convert import clique_expansion, hypernetx_parts, incidence_graph, to_hypernetx
from .hif import hypergraph_to_hif, read_hif
from .items import (
    DuplicateIdError,
    EmptyNameError,
    Entity,
    Hyperedge,
    HypergraphError,
    UnknownEntityError,
    UnknownHyperedgeError,
    hyperedge_id,
    merge_descriptions,
    normalize_key,
    preferred_name,
)
from .wording import counted

__all__ = [
    "DuplicateIdError",
    "EmptyNameError",
    "Entity",
    "Hyperedge",
    "Hypergraph",
    "HypergraphError",
    "HypergraphStats",
    "UnknownEntityError",
    "UnknownHyperedgeError",
    "describe",
    "from_hypernetx",
    "hyperedge_id",
    "hypergraph_from_hif",
    "merge_descriptions",
    "normalize_key",
    "preferred_name",
]

class HypergraphStats(BaseModel):
    """Summary numbers of a hypergraph."""

    entities: int
    hyperedges: int
    incidences: int
    relation_hyperedges: int
    theme_hyperedges: int
    max_degree: int
    mean_degree: float
    max_hyperedge_size: int
    mean_hyperedge_size: float
    isolated_entities: int
    components: int


def _need_members(edge: Hyperedge) -> None:
    """A hyperedge joins at least one entity."""
    if not edge.members:
        raise HypergraphError(f"hyperedge {edge.id!r} has no members: a hyperedge joins at "
                              "least one entity")


def _one_or_many(seeds: Iterable[str] | str) -> Iterable[str]:
    """A string is one seed, not its characters."""
    return [seeds] if isinstance(seeds, str) else seeds


def _duplicate_edge(first: Hyperedge, second: Hyperedge) -> str:
    """Why two hyperedges of one constructor call clash: their id, and, for an id derived
    from the members, that they are two over one member set (``add_hyperedge`` merges
    them)."""
    said = f"duplicate hyperedge id {second.id!r}"
    if set(first.members) == set(second.members):
        said += (f": two hyperedges over the members {sorted(second.members)}; give each "
                 "its own id= to keep both, or add them with add_hyperedge to merge them")
    return said


class Hypergraph(BaseModel):
    """Entities plus hyperedges, with the incidence index kept consistent.

    Build with :meth:`add_entity` / :meth:`add_hyperedge` or pass ``entities`` and
    ``hyperedges`` lists to the constructor (duplicates there are an error; so is an
    unknown keyword, or a hyperedge without members). :meth:`model_copy` (and
    ``copy.copy``) copy deeply, like :meth:`copy`: a copy never shares its entities,
    hyperedges or incidence index with the original.
    """

    model_config = ConfigDict(validate_assignment=False, extra="forbid")

    entities: dict[str, Entity] = Field(default_factory=dict)
    hyperedges: dict[str, Hyperedge] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    _incidence: dict[str, set[str]] = PrivateAttr(default_factory=dict)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            # Surface our own error classes (UnknownEntityError, DuplicateIdError ...) as such.
            for err in exc.errors():
                cause = (err.get("ctx") or {}).get("error")
                if isinstance(cause, HypergraphError):
                    raise cause from None
            raise

    def __repr__(self) -> str:  # counts, not every entity (a store's layer: 280 kB)
        return (f"Hypergraph({counted(len(self.entities), 'entity')}, "
                f"{counted(len(self.hyperedges), 'hyperedge')}, metadata={self.metadata!r})")

    __str__ = __repr__

    @model_validator(mode="before")
    @classmethod
    def _lists_to_dicts(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        ents = data.get("entities")
        if isinstance(ents, list):
            out: dict[str, Any] = {}
            for e in ents:
                ent = e if isinstance(e, Entity) else Entity.model_validate(e)
                if ent.key in out:
                    raise DuplicateIdError(f"duplicate entity {ent.name!r} (key {ent.key!r})")
                out[ent.key] = ent
            data["entities"] = out
        edges = data.get("hyperedges")
        if isinstance(edges, list):
            hout: dict[str, Any] = {}
            for h in edges:
                he = h if isinstance(h, Hyperedge) else Hyperedge.model_validate(h)
                if he.id in hout:
                    raise DuplicateIdError(_duplicate_edge(hout[he.id], he))
                hout[he.id] = he
            data["hyperedges"] = hout
        return data

    @model_validator(mode="after")
    def _check_and_index(self) -> Hypergraph:
        self._check_all()
        return self

    def _check_all(self) -> None:
        """Every item under its own key or id, every hyperedge with known members; index."""
        for key, ent in self.entities.items():
            if ent.key != key:
                raise DuplicateIdError(f"entity {ent.name!r} is stored under key {key!r}")
        for hid, edge in self.hyperedges.items():
            if edge.id != hid:
                raise DuplicateIdError(f"hyperedge {edge.id!r} is stored under id {hid!r}")
            _need_members(edge)
            for m in edge.members:
                if m not in self.entities:
                    raise UnknownEntityError(f"hyperedge {hid!r} names unknown entity {m!r}")
        self._reindex()

    def model_copy(self, *, update: Mapping[str, Any] | None = None,
                   deep: bool = False) -> Self:
        """A deep copy (whatever ``deep`` says: a shallow one would share the entity and
        hyperedge dicts and the incidence index with the original), ``update`` applied,
        checked and re-indexed."""
        copied = super().model_copy(update=update, deep=True)
        copied._check_all()
        return copied

    def __copy__(self) -> Self:
        return self.model_copy()

    def _reindex(self) -> None:
        inc: dict[str, set[str]] = {k: set() for k in self.entities}
        for hid, edge in self.hyperedges.items():
            for m in edge.members:
                inc[m].add(hid)
        self._incidence = inc

    # ------------------------------------------------------------------ mutation
    def add_entity(self, entity: Entity) -> Entity:
        """Add an entity, merging it into an existing one with the same key."""
        if not isinstance(entity, Entity):
            example = repr(entity) if isinstance(entity, str) else "'Marie Curie'"
            raise TypeError(f"add_entity takes an Entity (e.g. Entity(name={example})), not "
                            f"{type(entity).__name__}")
        key = entity.key
        old = self.entities.get(key)
        self.entities[key] = old.merged(entity) if old else entity.model_copy(deep=True)
        self._incidence.setdefault(key, set())
        return self.entities[key]

    def add_hyperedge(self, edge: Hyperedge) -> Hyperedge:
        """Add a hyperedge whose members are all known; one with an id already present is
        merged into that one (:meth:`Hyperedge.merged`: members of both in order,
        descriptions joined line by line), so two id-less hyperedges over one member set
        become one. (``Hypergraph(hyperedges=[...])`` refuses a repeated id instead.)"""
        if not isinstance(edge, Hyperedge):
            raise TypeError(f"add_hyperedge takes a Hyperedge (e.g. Hyperedge(members=[...])), "
                            f"not {type(edge).__name__}")
        _need_members(edge)
        missing = [m for m in edge.members if m not in self.entities]
        if missing:
            raise UnknownEntityError(f"hyperedge {edge.id!r} names unknown entities {missing}")
        old = self.hyperedges.get(edge.id)
        new = old.merged(edge) if old else edge.model_copy(deep=True)
        self.hyperedges[new.id] = new
        for m in new.members:
            self._incidence[m].add(new.id)
        return new

    def remove_hyperedge(self, hid: str) -> Hyperedge:
        """Remove and return a hyperedge."""
        edge = self.hyperedges.pop(self._need_edge(hid))
        for m in edge.members:
            self._incidence[m].discard(hid)
        return edge

    def remove_entity(self, key: str, *, keep_singletons: bool = False) -> list[str]:
        """Remove an entity and shrink its hyperedges.

        Hyperedges left with fewer than two members are removed, unless ``keep_singletons``
        is true (then only empty ones go). Returns the ids of the removed hyperedges.

        A shrunk hyperedge keeps its id (a store's, an ``H#``'s, a chunk link's), also one
        derived from its old members, as congestion control's cut keeps it
        (:mod:`~hyperviz_core.prune_peel`): a hyperedge added later with the new member set
        is then a second one (merge it by hand if that is what you want).
        """
        key = self._need_entity(key)
        removed: list[str] = []
        for hid in sorted(self._incidence[key]):
            edge = self.hyperedges[hid]
            members = [m for m in edge.members if m != key]
            if len(members) < (1 if keep_singletons else 2):
                self.remove_hyperedge(hid)
                removed.append(hid)
                continue
            attrs = {m: a for m, a in edge.member_attrs.items() if m != key}
            self.hyperedges[hid] = edge.model_copy(update={
                "members": members, "member_attrs": attrs,
                "order": "low" if len(members) <= 2 else "high"})
        del self.entities[key]
        del self._incidence[key]
        return removed

    # ------------------------------------------------------------------ queries
    def _need_entity(self, key: str) -> str:
        if key in self.entities:
            return key
        norm = normalize_key(key)
        if norm not in self.entities:
            raise UnknownEntityError(f"unknown entity {key!r}")
        return norm

    def _need_edge(self, hid: str) -> str:
        if hid not in self.hyperedges:
            raise UnknownHyperedgeError(f"unknown hyperedge {hid!r}")
        return hid

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in self.entities or key in self.hyperedges)

    def __len__(self) -> int:
        return len(self.entities)

    def neighbors(self, key: str) -> list[str]:
        """Sorted ids of the hyperedges incident to an entity."""
        return sorted(self._incidence[self._need_entity(key)])

    def members(self, hid: str) -> list[str]:
        """Member entity keys of a hyperedge, in their stored order."""
        return list(self.hyperedges[self._need_edge(hid)].members)

    def entity_neighbors(self, key: str) -> list[str]:
        """Sorted keys of the entities sharing at least one hyperedge with ``key``."""
        key = self._need_entity(key)
        out = {m for hid in self._incidence[key] for m in self.hyperedges[hid].members}
        out.discard(key)
        return sorted(out)

    def degree(self, key: str) -> int:
        """Number of hyperedges incident to an entity."""
        return len(self._incidence[self._need_entity(key)])

    def incidence_pairs(self) -> list[tuple[str, str]]:
        """Sorted (hyperedge id, entity key) pairs."""
        return sorted((hid, m) for hid, e in self.hyperedges.items() for m in e.members)

    def subgraph(
        self,
        seed_entities: Iterable[str] = (),
        seed_hyperedges: Iterable[str] = (),
        hops: int = 1,
    ) -> Hypergraph:
        """The h-hop induced sub-hypergraph around seed entities and/or hyperedges.

        Hop 0 holds the seed entities and the members of the seed hyperedges; each hop adds
        every hyperedge touching the current entities and their members. The result keeps
        every hyperedge whose members all lie in the reached entity set, plus the seeds.
        Unknown seeds raise :class:`UnknownEntityError` / :class:`UnknownHyperedgeError`;
        one seed may be given as a string (``seed_entities="radium"``).
        """
        try:  # any integer (a numpy one too)
            hops = operator.index(hops)
        except TypeError:
            raise TypeError(f"hops must be an integer, got {hops!r}") from None
        if hops < 0:
            raise HypergraphError(f"hops must be >= 0, got {hops}")
        seeds_e = [self._need_entity(k) for k in _one_or_many(seed_entities)]
        seeds_h = [self._need_edge(h) for h in _one_or_many(seed_hyperedges)]
        reached: set[str] = set(seeds_e)
        for hid in seeds_h:
            reached.update(self.hyperedges[hid].members)
        frontier = set(reached)
        for _ in range(hops):
            new: set[str] = set()
            for key in sorted(frontier):
                for hid in self._incidence[key]:
                    new.update(self.hyperedges[hid].members)
            frontier = new - reached
            reached |= new
            if not frontier:
                break
        keep_edges = set(seeds_h)
        for key in reached:
            for hid in self._incidence[key]:
                if all(m in reached for m in self.hyperedges[hid].members):
                    keep_edges.add(hid)
        return self._restrict(reached, keep_edges)

    def _restrict(self, keys: Iterable[str], hids: Iterable[str]) -> Hypergraph:
        sub = Hypergraph(metadata=dict(self.metadata))
        for key in sorted(keys):
            sub.entities[key] = self.entities[key].model_copy(deep=True)
        for hid in sorted(hids):
            sub.hyperedges[hid] = self.hyperedges[hid].model_copy(deep=True)
        sub._reindex()
        return sub

    def restrict(self, keys: Iterable[str]) -> Hypergraph:
        """The sub-hypergraph on ``keys``: hyperedges shrink to the kept members.

        Hyperedges left with fewer than two members are dropped.
        """
        keep = {self._need_entity(k) for k in keys}
        out = self.copy()
        for key in sorted(set(out.entities) - keep):
            out.remove_entity(key)
        return out

    def copy(self) -> Hypergraph:  # type: ignore[override]
        """A deep copy."""
        return self._restrict(self.entities, self.hyperedges)

    def merge(self, other: Hypergraph) -> Hypergraph:
        """Union of two hypergraphs as a new hypergraph.

        Same-key entities merge (descriptions de-duplicated, sources unioned); hyperedges of
        the same kind and member set merge (or the same id).
        """
        out = self.copy()
        by_sig = {e.signature: hid for hid, e in sorted(out.hyperedges.items())}
        for key in sorted(other.entities):
            out.add_entity(other.entities[key])
        for hid in sorted(other.hyperedges):
            edge = other.hyperedges[hid]
            target = by_sig.get(edge.signature)
            if target is not None and target != edge.id:
                edge = edge.model_copy(update={"id": target})
            added = out.add_hyperedge(edge)
            by_sig.setdefault(added.signature, added.id)
        out.metadata = {**other.metadata, **self.metadata}
        return out

    def union(self, other: Hypergraph) -> Hypergraph:
        """Alias of :meth:`merge`."""
        return self.merge(other)

    def stats(self) -> HypergraphStats:
        """Counts, degrees, sizes and connected components."""
        degrees = [len(v) for v in self._incidence.values()]
        sizes = [len(e.members) for e in self.hyperedges.values()]
        kinds = [e.kind for e in self.hyperedges.values()]
        return HypergraphStats(
            entities=len(self.entities),
            hyperedges=len(self.hyperedges),
            incidences=sum(sizes),
            relation_hyperedges=kinds.count("relation"),
            theme_hyperedges=kinds.count("theme"),
            max_degree=max(degrees, default=0),
            mean_degree=round(sum(degrees) / len(degrees), 4) if degrees else 0.0,
            max_hyperedge_size=max(sizes, default=0),
            mean_hyperedge_size=round(sum(sizes) / len(sizes), 4) if sizes else 0.0,
            isolated_entities=sum(1 for d in degrees if d == 0),
            components=len(self.components()),
        )

    def components(self) -> list[list[str]]:
        """Connected components as sorted entity-key lists, largest first."""
        seen: set[str] = set()
        comps: list[list[str]] = []
        for start in sorted(self.entities):
            if start in seen:
                continue
            stack, comp = [start], []
            seen.add(start)
            while stack:
                cur = stack.pop()
                comp.append(cur)
                for nb in self.entity_neighbors(cur):
                    if nb not in seen:
                        seen.add(nb)
                        stack.append(nb)
            comps.append(sorted(comp))
        return sorted(comps, key=lambda c: (-len(c), c))

    def check_consistency(self) -> None:
        """Raise :class:`HypergraphError` if the incidence index disagrees with the edges, or
        an entity or hyperedge is stored under a key or id that is not its own."""
        for key, ent in self.entities.items():
            if ent.key != key:
                raise DuplicateIdError(f"entity {ent.name!r} is stored under key {key!r}")
        expected: dict[str, set[str]] = {k: set() for k in self.entities}
        for hid, edge in self.hyperedges.items():
            if edge.id != hid:
                raise DuplicateIdError(f"hyperedge {edge.id!r} is stored under id {hid!r}")
            for m in edge.members:
                if m not in expected:
                    raise UnknownEntityError(f"hyperedge {hid!r} names unknown entity {m!r}")
                expected[m].add(hid)
        if expected != self._incidence:
            raise HypergraphError("incidence index is out of date")

    # ----------------------------------------------------------- conversions
    @classmethod
    def from_hif(cls, source: Any) -> Hypergraph:
        """Load HIF (a path, JSON string or dict); see :mod:`hyperviz_core.hif`."""
        entities, hyperedges, metadata = read_hif(source)
        hg = cls()
        hg.entities.update(entities)
        hg.hyperedges.update(hyperedges)
        hg.metadata = metadata
        hg._reindex()
        return hg

    def to_hif(self) -> dict[str, Any]:
        """Export as a HIF dict; see :mod:`hyperviz_core.hif`."""
        return hypergraph_to_hif(self)

    @classmethod
    def from_hypernetx(cls, hnx_graph: Any) -> Hypergraph:
        """Build from a ``hypernetx.Hypergraph``; see :mod:`hyperviz_core.convert`."""
        entities, hyperedges, metadata = hypernetx_parts(hnx_graph)
        hg = cls()
        for ent in entities:
            hg.add_entity(ent)
        for edge in hyperedges:
            hg.add_hyperedge(edge)
        hg.metadata = metadata
        return hg

    def to_hypernetx(self) -> Any:
        """Convert to a ``hypernetx.Hypergraph``; see :mod:`hyperviz_core.convert`."""
        return to_hypernetx(self)

    def to_incidence_graph(self) -> Any:
        """Bipartite networkx graph; see :func:`hyperviz_core.convert.incidence_graph`."""
        return incidence_graph(self)

    def to_clique_expansion(self) -> Any:
        """Entity–entity networkx graph; see :func:`hyperviz_core.convert.clique_expansion`."""
        return clique_expansion(self)


def hypergraph_from_hif(source: Any) -> Hypergraph:
    """Build a :class:`Hypergraph` from HIF; raises :class:`~hyperviz_core.hif.HIFError`."""
    return Hypergraph.from_hif(source)


def from_hypernetx(hnx_graph: Any) -> Hypergraph:
    """Build a :class:`Hypergraph` from any ``hypernetx.Hypergraph``."""
    return Hypergraph.from_hypernetx(hnx_graph)


def describe(hg: Hypergraph) -> str:
    """One-line summary used by the CLI."""
    s = hg.stats()
    return (
        f"{s.entities} entities, {s.hyperedges} hyperedges, {s.incidences} incidences, "
        f"{s.components} components"
    )
