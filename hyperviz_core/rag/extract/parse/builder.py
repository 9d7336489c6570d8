"""Collecting one answer's entities and relations, and resolving relation members by name.

The JSON and delimited-record parsers feed an :class:`ExtractionBuilder`; :meth:`build`
applies the member rule described in :mod:`.extraction` (members bind by name, undeclared
names become entities, member-less relations take the entities their sentence names,
relations with fewer than two members are skipped) and returns the
:class:`~hyperviz_core.rag.types.ChunkExtraction`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from ....model import Entity, Hyperedge
from ...types import ChunkExtraction
from .fields import (
    MAX_DESC,
    MAX_ITEMS,
    MAX_MEMBERS,
    MAX_TYPE,
    clean,
    clean_name,
    keyword_list,
    name_key,
    strength_weight,
)

__all__ = ["ExtractionBuilder", "is_name"]


def is_name(value: Any) -> bool:
    """Whether a model-written value can name an entity: a string, or a finite number
    (``1905``), never a boolean, an object or a list (their ``repr`` names nothing).

    >>> [is_name(v) for v in ("Paris", 1905, True, {"first": "Marie"}, None)]
    [True, True, False, False, False]
    """
    if isinstance(value, str):
        return True
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value)


class ExtractionBuilder:
    """Collects entities and pending relations, then resolves members by name."""

    def __init__(self, chunk_id: str, known: Iterable[Entity] = ()) -> None:
        self.chunk_id = chunk_id
        self.known = {e.key: e for e in known}
        self.entities: dict[str, Entity] = {}
        self.pending: list[tuple[list[str], str, list[str], float]] = []
        self.skipped = 0

    def entity(self, name: Any, etype: Any = "", desc: Any = "") -> str | None:
        """Declare (or merge into) an entity; its key, or None if skipped (a name that is
        not a string or a number — an object, a list, a boolean — is skipped too)."""
        if not is_name(name):
            self.skipped += 1
            return None
        cleaned = clean_name(name)
        key = name_key(cleaned)
        if key is None or (len(self.entities) >= MAX_ITEMS and key not in self.entities):
            self.skipped += 1
            return None
        t = clean(etype, MAX_TYPE).casefold().replace(" ", "_") or "entity"
        ent = Entity(
            name=cleaned, type=t, description=clean(desc, MAX_DESC), source_ids=[self.chunk_id]
        )
        self.entities[key] = self.entities[key].merged(ent) if key in self.entities else ent
        return key

    def relation(self, members: list[Any], desc: Any, keywords: Any, strength: Any) -> None:
        """Queue a relation; its members (names, or dicts with a ``name``) resolve in build."""
        if len(self.pending) >= MAX_ITEMS:
            self.skipped += 1
            return
        names = []
        for m in members:
            value = m.get("name") if isinstance(m, dict) else m
            if is_name(value):
                names.append(clean_name(value))
            elif value is not None:  # an object, a list or a boolean names nobody
                self.skipped += 1
        self.pending.append(
            ([n for n in names if n][:MAX_MEMBERS], clean(desc, MAX_DESC),
             keyword_list(keywords), strength_weight(strength) if strength is not None else 1.0)
        )

    def _mentioned(self, text: str) -> list[str]:
        low = text.casefold()
        hits: list[tuple[int, str]] = []
        pool = {**self.known, **self.entities}
        for key, ent in list(pool.items())[:500]:
            m = re.search(r"(?<!\w)" + re.escape(ent.name.casefold()) + r"(?!\w)", low)
            if m:
                hits.append((m.start(), key))
        return [k for _, k in sorted(hits)]

    def build(self) -> ChunkExtraction:
        """The extraction: declared entities and the relations with two or more members."""
        edges: dict[str, Hyperedge] = {}
        for names, desc, kws, weight in self.pending:
            if names:
                keys = []
                for n in names:
                    key = name_key(n)
                    if key is not None and key not in self.entities and key not in self.known:
                        key = self.entity(n, "entity", desc)
                    if key is not None:
                        keys.append(key)
            else:
                keys = self._mentioned(desc)
            keys = list(dict.fromkeys(keys))
            if len(keys) < 2:
                self.skipped += 1
                continue
            edge = Hyperedge(members=keys, description=desc, keywords=kws, weight=weight,
                             source_ids=[self.chunk_id])
            edges[edge.id] = edges[edge.id].merged(edge) if edge.id in edges else edge
        return ChunkExtraction(
            chunk_id=self.chunk_id, entities=list(self.entities.values()),
            hyperedges=list(edges.values())[:MAX_ITEMS], skipped=self.skipped,
        )
