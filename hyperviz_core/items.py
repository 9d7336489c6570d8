"""Entities and hyperedges: the items of a hypergraph, and their identity rules.

An entity's identity is its *normalised key* (NFKC, case-folded, whitespace collapsed); a
hyperedge's identity is its ``id``, by default a hash of its kind and member set.

Example:
    >>> from hyperviz_core import Entity, Hyperedge
    >>> Entity(name="  Marie   CURIE").key
    'marie curie'
    >>> Hyperedge(members=["B", "a"]).id == Hyperedge(members=["a", "b"]).id
    True
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .unitext import nfc, plain_text

__all__ = [
    "DuplicateIdError",
    "EmptyNameError",
    "Entity",
    "Hyperedge",
    "HypergraphError",
    "HypergraphView",
    "UnknownEntityError",
    "UnknownHyperedgeError",
    "hyperedge_id",
    "merge_descriptions",
    "normalize_key",
    "preferred_name",
]

_WS = re.compile(r"\s+")


class HypergraphError(ValueError):
    """Base class of every error raised for bad hypergraph input."""


class EmptyNameError(HypergraphError):
    """An entity name (or key) is empty after normalisation."""


class UnknownEntityError(HypergraphError):
    """A hyperedge or operation names an entity that is not in the hypergraph."""


class UnknownHyperedgeError(HypergraphError):
    """An operation names a hyperedge that is not in the hypergraph."""


class DuplicateIdError(HypergraphError):
    """Two items that must be distinct share one identifier."""


def normalize_key(name: str) -> str:
    """Return the identity key of an entity name.

    >>> normalize_key("  Marie\\tCURIE ")
    'marie curie'

    Keys of recently seen names are remembered (a corpus names the same entities over and
    over: indexing asks for the key of every mention and member).
    """
    return _normalized(name if isinstance(name, str) else str(name))


#: Unicode categories drawn as nothing (no ink, no advance): format characters (zero-width
#: space and joiner, soft hyphen, bidi marks and overrides, word joiner, BOM, tag characters
#: ...), control characters and lone surrogates. Dropping bidi overrides also means a name
#: cannot visually reorder the text drawn after it (:func:`hyperviz_core.draw.text.invisible`).
INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Cs"})
#: a name of only these (what is drawn as nothing, and spaces) is empty
_BLANK = INVISIBLE_CATEGORIES | {"Zs"}


@functools.lru_cache(maxsize=1 << 16)
def _normalized(name: str) -> str:
    key = _WS.sub(" ", unicodedata.normalize("NFKC", name).casefold()).strip()
    if not key or all(unicodedata.category(c) in _BLANK for c in key):
        raise EmptyNameError(f"entity name {name!r} is empty after normalisation")
    return key


_LETTERS = re.compile(r"[^\W\d_]+")


def preferred_name(current: str, other: str) -> str:
    """The name a merged entity keeps of two with one key: ``current`` (the first seen),
    unless it is written in capitals (every letter, and a word of five letters or more: a
    heading's ``SAMUEL PEPYS``, ``MOROCCO``; not ``NASA``) and ``other`` mixes the cases
    (``Samuel Pepys``), which is how the text writes the name elsewhere.

    >>> preferred_name("MOROCCO", "Morocco"), preferred_name("Morocco", "MOROCCO")
    ('Morocco', 'Morocco')
    >>> preferred_name("NASA", "Nasa"), preferred_name("SAMUEL PEPYS", "samuel pepys")
    ('NASA', 'SAMUEL PEPYS')
    """
    if (current.isupper() and any(len(w) >= 5 for w in _LETTERS.findall(current))
            and not other.isupper() and not other.islower()):
        return other
    return current


def merge_descriptions(*descriptions: str) -> str:
    """Join descriptions line by line, dropping empty and repeated lines (order kept)."""
    seen: dict[str, None] = {}
    for text in descriptions:
        for line in str(text).splitlines():
            line = line.strip()
            if line:
                seen.setdefault(line, None)
    return "\n".join(seen)


def _union_sorted(a: Iterable[str], b: Iterable[str]) -> list[str]:
    return sorted({*a, *b})


def _union_ordered(a: Iterable[str], b: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*a, *b]))


class Entity(BaseModel):
    """A node of the hypergraph (a person, place, concept ...)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    name: str
    type: str = "entity"
    description: str = ""
    source_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name_not_empty(cls, value: str) -> str:
        normalize_key(value)  # raises EmptyNameError naming the value
        return nfc(value.strip())  # composed; nothing dropped: the key stays the stored one

    @field_validator("type", "description")
    @classmethod
    def _plain(cls, value: str) -> str:
        """As a reader sees it (:func:`~hyperviz_core.unitext.plain_text`): a decomposed
        accent would be drawn loose."""
        return plain_text(value)

    @field_validator("source_ids")
    @classmethod
    def _sorted_sources(cls, value: list[str]) -> list[str]:
        return sorted(set(value))

    @property
    def key(self) -> str:
        """The normalised identity key."""
        return normalize_key(self.name)

    def merged(self, other: Entity) -> Entity:
        """Merge ``other`` (same key) into a copy of this entity."""
        if other.key != self.key:
            raise DuplicateIdError(f"cannot merge entity {other.name!r} into {self.name!r}")
        return Entity(
            name=preferred_name(self.name, other.name),
            type=self.type if self.type != "entity" else other.type,
            description=merge_descriptions(self.description, other.description),
            source_ids=_union_sorted(self.source_ids, other.source_ids),
            metadata={**other.metadata, **self.metadata},
        )


def hyperedge_id(members: Iterable[str], kind: str = "relation") -> str:
    """Deterministic id of a hyperedge from its kind and member set."""
    digest = hashlib.sha1(("\x1f".join([kind, *sorted(set(members))])).encode()).hexdigest()
    return f"{kind[0]}-{digest[:12]}"


class Hyperedge(BaseModel):
    """An n-ary relation (``kind="relation"``) or a chunk theme (``kind="theme"``).

    ``members`` are entity keys in a meaningful order (duplicates are dropped). ``order`` is
    ``"low"`` for pairwise (≤ 2 members) and ``"high"`` for n-ary hyperedges unless given.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = ""
    members: list[str] = Field(default_factory=list)
    description: str = ""
    keywords: list[str] = Field(default_factory=list)
    weight: float = Field(default=1.0, allow_inf_nan=False)
    order: Literal["low", "high"] | None = None
    kind: Literal["relation", "theme"] = "relation"
    source_ids: list[str] = Field(default_factory=list)
    member_attrs: dict[str, dict[str, Any]] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("members")
    @classmethod
    def _normalise_members(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(normalize_key(m) for m in value))

    @field_validator("description")
    @classmethod
    def _plain(cls, value: str) -> str:
        return plain_text(value)

    @field_validator("member_attrs")
    @classmethod
    def _finite_member_weights(cls, value: dict[str, dict[str, Any]]
                               ) -> dict[str, dict[str, Any]]:
        """A membership ``weight`` is a finite number, like the hyperedge's own, and a
        ``direction`` is HIF's ``"head"`` or ``"tail"`` (``to_hif`` writes both as they are)."""
        for key, attrs in value.items():
            w = attrs.get("weight") if isinstance(attrs, dict) else None
            if isinstance(w, float) and not math.isfinite(w):
                raise ValueError(f"member_attrs[{key!r}]['weight'] must be a finite number, "
                                 f"got {w!r}")
            d = attrs.get("direction", "head") if isinstance(attrs, dict) else "head"
            if d not in ("head", "tail"):
                raise ValueError(f"member_attrs[{key!r}]['direction'] must be 'head' or "
                                 f"'tail' (HIF's incidence directions), got {d!r}")
        return value

    @field_validator("source_ids")
    @classmethod
    def _sorted_sources(cls, value: list[str]) -> list[str]:
        return sorted(set(value))

    @model_validator(mode="after")
    def _fill_defaults(self) -> Hyperedge:
        if not self.id:
            object.__setattr__(self, "id", hyperedge_id(self.members, self.kind))
        if self.order is None:
            object.__setattr__(self, "order", "low" if len(self.members) <= 2 else "high")
        return self

    @property
    def signature(self) -> tuple[str, tuple[str, ...]]:
        """(kind, sorted members): hyperedges with equal signatures are merged."""
        return self.kind, tuple(sorted(self.members))

    def merged(self, other: Hyperedge) -> Hyperedge:
        """Merge ``other`` into a copy of this hyperedge (members of both, in order)."""
        return Hyperedge(
            id=self.id,
            members=_union_ordered(self.members, other.members),
            description=merge_descriptions(self.description, other.description),
            keywords=_union_ordered(self.keywords, other.keywords),
            weight=max(self.weight, other.weight),
            kind=self.kind,
            source_ids=_union_sorted(self.source_ids, other.source_ids),
            member_attrs={**other.member_attrs, **self.member_attrs},
            metadata={**other.metadata, **self.metadata},
        )


class HypergraphView(Protocol):
    """What the converters read from a hypergraph (:class:`~hyperviz_core.model.Hypergraph`
    is one): its entities by key, hyperedges by id and metadata. Lets ``hif`` and ``convert``
    sit below ``model`` (no import cycle)."""

    @property
    def entities(self) -> Mapping[str, Entity]: ...

    @property
    def hyperedges(self) -> Mapping[str, Hyperedge]: ...

    @property
    def metadata(self) -> Mapping[str, Any]: ...
