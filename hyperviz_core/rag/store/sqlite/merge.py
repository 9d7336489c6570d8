"""Writing per-chunk mentions (the raw extraction output) inside a store's write transaction.

Merged entities and hyperedges are rebuilt from the mentions by :mod:`.rebuild`. Merged rows
depend only on the set of mentions (ordered by document id and chunk index), never on
insertion order, so an interrupted-and-resumed indexing run ends with exactly the same store
as an uninterrupted one. :class:`MentionWriter` also keeps the mentions it wrote
(:attr:`~MentionWriter.fresh_entities`, :attr:`~MentionWriter.fresh_edges`), so the rebuild
can append them to stored rows without reading them back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ....model import EmptyNameError, Hyperedge, hyperedge_id, merge_descriptions, normalize_key
from ...types import Chunk, ChunkExtraction, ChunkTheme
from .schema import dumps
from .spans import mention_description

__all__ = [
    "DESCRIPTION_LIMIT",
    "EMBED_TEXT_LIMIT",
    "ENTITY_TEXT_LIMIT",
    "MentionWriter",
    "chunked",
    "entity_text",
    "hyperedge_text",
]

#: Embedding texts are cut to this many characters (entities: name + start of description).
EMBED_TEXT_LIMIT = 1000
#: Merged entity descriptions keep their first distinct lines up to this many characters
#: (without a summariser): a hub entity's row stays small however often it is mentioned.
DESCRIPTION_LIMIT = 4000
ENTITY_TEXT_LIMIT = 300
_T = TypeVar("_T")


def entity_text(name: str, description: str) -> str:
    """The text an entity's vector is made of: ``name: description``, cut to
    :data:`ENTITY_TEXT_LIMIT` characters.

    >>> entity_text("Marie Curie", "Physicist.")
    'Marie Curie: Physicist.'
    """
    return (f"{name}: {description}" if description else name)[:ENTITY_TEXT_LIMIT]


def hyperedge_text(kind: str, description: str, member_names: Sequence[str],
                   keywords: Sequence[str]) -> str:
    """The text a hyperedge's vector is made of: a theme's description, member names and
    keywords, a line each; a relation's description (else its member names), then its
    keywords; cut to :data:`EMBED_TEXT_LIMIT` characters.

    >>> hyperedge_text("theme", "Radium research", ["Marie Curie", "Paris"], ["radium"])
    'Radium research\\nMarie Curie, Paris\\nradium'
    >>> hyperedge_text("relation", "", ["Marie Curie", "Paris"], [])
    'Marie Curie Paris'
    """
    if kind == "theme":
        text = f"{description}\n{', '.join(member_names)}\n{', '.join(keywords)}".strip()
    else:
        text = description or " ".join(member_names)
        if keywords:
            text = f"{text}\n{', '.join(keywords)}"
    return text[:EMBED_TEXT_LIMIT]


def chunked(items: Sequence[_T], size: int = 500) -> Iterator[list[_T]]:
    """Consecutive slices of at most ``size`` items (SQLite variable limits)."""
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]


@dataclass
class _Mention:
    name: str
    type: str
    description: str
    metadata: dict[str, Any]


class MentionWriter:
    """Insert the raw extraction output of a document's chunks as mention rows."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.entity_keys: set[str] = set()
        self.hyperedge_ids: set[str] = set()
        #: key → the entity mention rows written (see :mod:`.merge_state` for the shape)
        self.fresh_entities: dict[str, list[tuple[Any, ...]]] = {}
        #: hyperedge id → the hyperedge mention rows written
        self.fresh_edges: dict[str, list[tuple[Any, ...]]] = {}

        #: items whose merged rows must be rebuilt from every mention
        self.blocked_entities: set[str] = set()
        self.blocked_edges: set[str] = set()
        #: mention rows not inserted yet (:meth:`flush`)
        self._pending_entities: list[tuple[Any, ...]] = []
        self._pending_edges: list[tuple[Any, ...]] = []

    def flush(self) -> None:
        """Insert the mention rows written since the last flush, in primary-key order.

        The mention tables are clustered by (key, chunk): rows of random keys land on
        random pages, so a batch's rows inserted in key order touch each page once
        instead of once per document (what they store does not depend on the order)."""
        c = self.conn
        ents, self._pending_entities = self._pending_entities, []
        edges, self._pending_edges = self._pending_edges, []
        ents.sort(key=lambda r: (r[1], r[0]))
        edges.sort(key=lambda r: (r[1], r[0]))
        c.executemany("INSERT INTO entity_mentions(chunk_id, key, name, type, description, "
                      "metadata, d_start, d_len) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ents)
        c.executemany("INSERT INTO hyperedge_mentions(chunk_id, hid, kind, members, "
                      "description, keywords, weight, member_attrs, metadata, d_start, d_len) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", edges)

    def forget(self, keys: set[str], hids: set[str]) -> None:
        """Mark ``keys``/``hids`` for a rebuild from every mention (e.g. a replaced document
        removed some of their mentions): their kept mentions are not appended."""
        self.blocked_entities |= keys
        self.blocked_edges |= hids

    def appendable(self) -> tuple[dict[str, list[tuple[Any, ...]]],
                                  dict[str, list[tuple[Any, ...]]]]:
        """The kept mentions of the items not blocked, each sorted by (document id, chunk
        index): (entities by key, hyperedges by id)."""
        ents = {k: v if len(v) == 1 else sorted(v, key=_position)
                for k, v in self.fresh_entities.items() if k not in self.blocked_entities}
        edges = {h: v if len(v) == 1 else sorted(v, key=_position)
                 for h, v in self.fresh_edges.items() if h not in self.blocked_edges}
        return ents, edges

    def write(
        self,
        chunks: Sequence[Chunk],
        extractions: Sequence[ChunkExtraction],
        themes: Sequence[ChunkTheme],
    ) -> tuple[set[str], set[str]]:
        """Insert the mention, theme and key-entity rows of one document's chunks; the
        entity keys and hyperedge ids they mention."""
        doc_keys: set[str] = set()
        doc_hids: set[str] = set()
        by_chunk_ex: dict[str, list[ChunkExtraction]] = {}
        for ex in extractions:
            by_chunk_ex.setdefault(ex.chunk_id, []).append(ex)
        by_chunk_th = {th.chunk_id: th for th in themes}
        ent_rows: list[tuple[Any, ...]] = []
        edge_rows: list[tuple[Any, ...]] = []
        theme_rows: list[tuple[Any, ...]] = []
        key_rows: list[tuple[Any, ...]] = []
        for chunk in sorted(chunks, key=lambda c: c.index):
            ents, edges = self._chunk_mentions(by_chunk_ex.get(chunk.id, []),
                                               by_chunk_th.get(chunk.id), chunk.id,
                                               theme_rows, key_rows)
            pos = (chunk.doc_id, chunk.index)
            for key in sorted(ents):
                m = ents[key]
                meta = dumps(m.metadata)
                desc, start, length = mention_description(m.description, chunk.text)
                ent_rows.append((chunk.id, key, m.name, m.type, desc, meta, start, length))
                self.fresh_entities.setdefault(key, []).append(
                    (key, m.name, m.type, m.description, meta, chunk.id, *pos))
            for hid_, (e, members) in sorted(edges.items()):
                row = (e.kind, dumps(members), e.description, dumps(e.keywords),
                       float(e.weight), dumps(e.member_attrs), dumps(e.metadata))
                desc, start, length = mention_description(e.description, chunk.text)
                edge_rows.append((chunk.id, hid_, e.kind, row[1], desc, *row[3:], start,
                                  length))
                self.fresh_edges.setdefault(hid_, []).append((hid_, *row, chunk.id, *pos))
            doc_keys.update(ents)
            doc_hids.update(edges)
        self._pending_entities += ent_rows
        self._pending_edges += edge_rows
        c = self.conn
        c.executemany("INSERT INTO themes VALUES (?, ?, ?, ?)", theme_rows)
        c.executemany("INSERT INTO key_entities VALUES (?, ?, ?)", key_rows)
        self.entity_keys |= doc_keys
        self.hyperedge_ids |= doc_hids
        return doc_keys, doc_hids

    def _chunk_mentions(
        self,
        extractions: Sequence[ChunkExtraction],
        theme: ChunkTheme | None,
        chunk_id: str,
        theme_rows: list[tuple[Any, ...]],
        key_rows: list[tuple[Any, ...]],
    ) -> tuple[dict[str, _Mention], dict[str, tuple[Hyperedge, list[str]]]]:
        """One chunk's entity mentions by key and hyperedges by id (its theme hyperedge
        included); its theme and key-entity rows are appended to ``theme_rows``/``key_rows``."""
        ents: dict[str, _Mention] = {}
        edges: dict[str, tuple[Hyperedge, list[str]]] = {}
        for ex in extractions:
            for ent in ex.entities:
                _add_mention(ents, ent.key, ent.name, ent.type, ent.description, ent.metadata)
            for edge in ex.hyperedges:
                self._add_edge(ents, edges, edge, edge.members, edge.kind)
        if theme is None:
            return ents, edges
        keys: list[str] = []
        for raw in theme.key_entities:
            try:
                key = normalize_key(raw)
            except EmptyNameError:
                continue
            if key not in keys:
                keys.append(key)
                _add_mention(ents, key, raw, "entity", "", {})
        hid: str | None = None
        if keys:
            edge = Hyperedge(members=keys, description=theme.theme.strip(),
                             keywords=list(theme.keywords), kind="theme")
            hid = self._add_edge(ents, edges, edge, keys, "theme")
        theme_rows.append((chunk_id, theme.theme, dumps(list(theme.keywords)), hid))
        key_rows.extend((chunk_id, pos, key) for pos, key in enumerate(keys))
        return ents, edges

    @staticmethod
    def _add_edge(
        ents: dict[str, _Mention],
        edges: dict[str, tuple[Hyperedge, list[str]]],
        edge: Hyperedge,
        members: Sequence[str],
        kind: str,
    ) -> str | None:
        """Record a hyperedge of one chunk as (hyperedge, its members); repeats in the
        chunk are merged (``Hyperedge.merged``)."""
        members = list(dict.fromkeys(members))
        if not members:
            return None
        for key in members:
            _add_mention(ents, key, key, "entity", "", {})
        hid = hyperedge_id(members, kind)
        if hid in edges:
            first, first_members = edges[hid]
            a = first.model_copy(update={"id": hid, "members": first_members})
            merged = a.merged(edge.model_copy(update={"id": hid, "members": members}))
            edges[hid] = (merged, list(merged.members))
        else:
            edges[hid] = (edge, members)
        return hid


def _position(row: tuple[Any, ...]) -> tuple[str, int]:
    return row[-2], row[-1]


def _add_mention(
    ents: dict[str, _Mention], key: str, name: str, typ: str, desc: str, meta: dict[str, Any]
) -> None:
    old = ents.get(key)
    if old is None:
        ents[key] = _Mention(name.strip() or key, typ or "entity", desc.strip(), dict(meta))
        return
    if old.type == "entity" and typ and typ != "entity":
        old.type = typ
    if old.name == key and name.strip() and name.strip() != key:
        old.name = name.strip()
    if desc:
        old.description = merge_descriptions(old.description, desc)
    if meta:
        old.metadata = {**meta, **old.metadata}

