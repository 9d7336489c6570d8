"""Writing per-chunk mentions and rebuilding merged entities/hyperedges from them.

Used inside the store's document transactions. Merged rows depend only on the set of
mentions (ordered by document id and chunk index), never on insertion order, so an
interrupted-and-resumed indexing run ends with exactly the same store as an uninterrupted one.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ....model import EmptyNameError, Hyperedge, hyperedge_id, merge_descriptions, normalize_key
from ...types import Chunk, ChunkExtraction, ChunkTheme
from .schema import dumps, loads

__all__ = [
    "DESCRIPTION_LIMIT",
    "EMBED_TEXT_LIMIT",
    "ENTITY_TEXT_LIMIT",
    "MentionWriter",
    "Rebuilder",
    "chunked",
]

#: Embedding texts are cut to this many characters (entities: name + start of description).
EMBED_TEXT_LIMIT = 1000
#: Merged entity descriptions keep their first distinct lines up to this many characters
#: (without a summariser): a hub entity's row stays small however often it is mentioned.
DESCRIPTION_LIMIT = 4000
ENTITY_TEXT_LIMIT = 300
_T = TypeVar("_T")


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

    def write(
        self,
        chunks: Sequence[Chunk],
        extractions: Sequence[ChunkExtraction],
        themes: Sequence[ChunkTheme],
    ) -> None:
        by_chunk_ex: dict[str, list[ChunkExtraction]] = {}
        for ex in extractions:
            by_chunk_ex.setdefault(ex.chunk_id, []).append(ex)
        by_chunk_th = {th.chunk_id: th for th in themes}
        ent_rows: list[tuple[Any, ...]] = []
        edge_rows: list[tuple[Any, ...]] = []
        theme_rows: list[tuple[Any, ...]] = []
        key_rows: list[tuple[Any, ...]] = []
        for chunk in sorted(chunks, key=lambda c: c.index):
            ents: dict[str, _Mention] = {}
            edges: dict[str, Hyperedge] = {}
            for ex in by_chunk_ex.get(chunk.id, []):
                for ent in ex.entities:
                    _add_mention(ents, ent.key, ent.name, ent.type, ent.description, ent.metadata)
                for edge in ex.hyperedges:
                    self._add_edge(ents, edges, edge, edge.members, edge.kind)
            theme = by_chunk_th.get(chunk.id)
            hid: str | None = None
            if theme is not None:
                keys: list[str] = []
                for raw in theme.key_entities:
                    try:
                        key = normalize_key(raw)
                    except EmptyNameError:
                        continue
                    if key not in keys:
                        keys.append(key)
                        _add_mention(ents, key, raw, "entity", "", {})
                if keys:
                    edge = Hyperedge(members=keys, description=theme.theme.strip(),
                                     keywords=list(theme.keywords), kind="theme")
                    hid = self._add_edge(ents, edges, edge, keys, "theme")
                theme_rows.append((chunk.id, theme.theme, dumps(list(theme.keywords)), hid))
                key_rows.extend((chunk.id, pos, key) for pos, key in enumerate(keys))
            for key in sorted(ents):
                m = ents[key]
                ent_rows.append((chunk.id, key, m.name, m.type, m.description, dumps(m.metadata)))
            for hid_, e in sorted(edges.items()):
                edge_rows.append((chunk.id, hid_, e.kind, dumps(e.members), e.description,
                                  dumps(e.keywords), float(e.weight), dumps(e.member_attrs),
                                  dumps(e.metadata)))
            self.entity_keys.update(ents)
            self.hyperedge_ids.update(edges)
        c = self.conn
        c.executemany("INSERT INTO entity_mentions VALUES (?, ?, ?, ?, ?, ?)", ent_rows)
        c.executemany("INSERT INTO hyperedge_mentions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      edge_rows)
        c.executemany("INSERT INTO themes VALUES (?, ?, ?, ?)", theme_rows)
        c.executemany("INSERT INTO key_entities VALUES (?, ?, ?)", key_rows)

    @staticmethod
    def _add_edge(
        ents: dict[str, _Mention],
        edges: dict[str, Hyperedge],
        edge: Hyperedge,
        members: Sequence[str],
        kind: str,
    ) -> str | None:
        members = list(dict.fromkeys(members))
        if not members:
            return None
        for key in members:
            _add_mention(ents, key, key, "entity", "", {})
        hid = hyperedge_id(members, kind)
        edge = edge.model_copy(update={"id": hid, "members": members})
        edges[hid] = edges[hid].merged(edge) if hid in edges else edge
        return hid


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
    old.description = merge_descriptions(old.description, desc)
    old.metadata = {**meta, **old.metadata}


@dataclass
class Rebuilt:
    """Embedding texts of the live touched items and the ids that died, per space."""

    texts: dict[str, dict[str, str]] = field(
        default_factory=lambda: {"entity": {}, "hyperedge": {}, "theme": {}})
    dead: dict[str, list[str]] = field(
        default_factory=lambda: {"entity": [], "hyperedge": [], "theme": []})


class Rebuilder:
    """Recompute merged entity and hyperedge rows from their remaining mentions."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        summarize: Callable[[str, str], str] | None = None,
        threshold: int = 4000,
    ) -> None:
        self.conn = conn
        self.summarize = summarize
        self.threshold = threshold

    def _summ(self, name: str, desc: str) -> str:
        if self.summarize is not None and len(desc) > self.threshold:
            short = self.summarize(name, desc).strip()
            if short:
                return short
        return desc

    def rebuild(self, keys: set[str], hids: set[str]) -> Rebuilt:
        out = Rebuilt()
        names: dict[str, str] = {}
        live_keys = self._rebuild_entities(keys, out, names)
        live_h = self._rebuild_hyperedges(hids, out, names)
        c = self.conn
        dead_h = sorted(hids - live_h)
        for part in chunked(dead_h):
            marks = ",".join("?" * len(part))
            kinds = c.execute(f"SELECT id, kind FROM hyperedges WHERE id IN ({marks})", part)
            for hid, kind in kinds.fetchall():
                out.dead["theme" if kind == "theme" else "hyperedge"].append(hid)
            c.execute(f"DELETE FROM hyperedges WHERE id IN ({marks})", part)
        # 3. entities no longer mentioned anywhere
        dead_e = sorted(keys - live_keys)
        for part in chunked(dead_e):
            marks = ",".join("?" * len(part))
            c.execute(f"DELETE FROM entities WHERE key IN ({marks})", part)
        out.dead["entity"] = dead_e
        return out


    def _rebuild_entities(self, keys: set[str], out: Rebuilt, names: dict[str, str]) -> set[str]:
        """Upsert the merged rows of the entities in ``keys`` still mentioned; their keys.

        Mentions are streamed key by key (never all rows of a batch at once), so a hub
        entity mentioned by every chunk costs one pass, not memory in proportion to it.
        """
        c = self.conn
        live_keys: set[str] = set()
        for part in chunked(sorted(keys)):
            marks = ",".join("?" * len(part))
            cur = c.execute(
                "SELECT m.key, m.name, m.type, m.description, m.metadata, m.chunk_id "
                "FROM entity_mentions m JOIN chunks ch ON ch.id = m.chunk_id "
                f"WHERE m.key IN ({marks}) ORDER BY m.key, ch.doc_id, ch.idx", part)
            upserts = []
            for key, merged in _merge_entity_rows(cur, self._limit()):
                name, typ, desc, meta, src = merged
                desc = self._summ(name, desc)
                upserts.append((key, name, typ, desc, dumps(meta), dumps(src)))
                names[key] = name
                out.texts["entity"][key] = (f"{name}: {desc}" if desc else name)[:ENTITY_TEXT_LIMIT]
                live_keys.add(key)
            c.executemany(
                "INSERT INTO entities(key, name, type, description, metadata, source_ids) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET name = excluded.name, "
                "type = excluded.type, description = excluded.description, "
                "metadata = excluded.metadata, source_ids = excluded.source_ids", upserts)
        return live_keys

    def _limit(self) -> int | None:
        """Merged descriptions are capped at :data:`DESCRIPTION_LIMIT` characters unless a
        summariser shortens them (then it reads them whole)."""
        return None if self.summarize is not None else DESCRIPTION_LIMIT

    def _rebuild_hyperedges(self, hids: set[str], out: Rebuilt, names: dict[str, str]
                            ) -> set[str]:
        """Rebuild the hyperedges in ``hids`` still mentioned (with incidences); their ids.

        Rows are written in batches (one upsert, one delete and one insert statement per
        slice of ids), which matters for a server backend where each statement is a round
        trip."""
        c = self.conn
        live_h: set[str] = set()
        for part in chunked(sorted(hids)):
            marks = ",".join("?" * len(part))
            rows = c.execute(
                "SELECT m.hid, m.kind, m.members, m.description, m.keywords, m.weight, "
                "m.member_attrs, m.metadata, m.chunk_id FROM hyperedge_mentions m "
                "JOIN chunks ch ON ch.id = m.chunk_id "
                f"WHERE m.hid IN ({marks}) ORDER BY m.hid, ch.doc_id, ch.idx", part
            ).fetchall()
            grouped: dict[str, list[Any]] = {}
            for r in rows:
                grouped.setdefault(r[0], []).append(r)
            upserts: list[tuple[Any, ...]] = []
            incidences: list[tuple[str, int, str]] = []
            for hid, ms in grouped.items():
                row, members = _merged_hyperedge(hid, ms)
                upserts.append(row)
                incidences.extend((hid, i, k) for i, k in enumerate(members))
                member_names = [names.get(k) or self._name(k) for k in members]
                kind, desc, kws = row[1], row[2], loads(row[3])
                space = "theme" if kind == "theme" else "hyperedge"
                if kind == "theme":
                    text = f"{desc}\n{', '.join(member_names)}\n{', '.join(kws)}".strip()
                else:
                    text = desc or " ".join(member_names)
                    if kws:
                        text = f"{text}\n{', '.join(kws)}"
                out.texts[space][hid] = _cut(text)
            c.executemany(
                "INSERT INTO hyperedges(id, kind, description, keywords, weight, member_attrs,"
                " metadata, source_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO "
                "UPDATE SET description = excluded.description, keywords = excluded.keywords,"
                " weight = excluded.weight, member_attrs = excluded.member_attrs, "
                "metadata = excluded.metadata, source_ids = excluded.source_ids", upserts)
            live = sorted(grouped)
            if live:
                c.execute(f"DELETE FROM incidences WHERE hid IN ({','.join('?' * len(live))})",
                          live)
            c.executemany("INSERT INTO incidences(hid, position, entity_key) VALUES (?, ?, ?)",
                          incidences)
            live_h.update(grouped)
        return live_h

    def _name(self, key: str) -> str:
        row = self.conn.execute("SELECT name FROM entities WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else key


def _merged_hyperedge(hid: str, ms: list[Any]) -> tuple[tuple[Any, ...], list[str]]:
    """The merged ``hyperedges`` row of one id from its mention rows (document order), and
    its members."""
    members: list[str] = loads(ms[0][2])
    desc = merge_descriptions(*(m[3] for m in ms))
    kws: list[str] = list(dict.fromkeys(k for m in ms for k in loads(m[4])))
    weight = max(float(m[5]) for m in ms)
    attrs: dict[str, Any] = {}
    meta: dict[str, Any] = {}
    for m in reversed(ms):
        attrs.update(loads(m[6]))
        meta.update(loads(m[7]))
    src = sorted({m[8] for m in ms})
    return (hid, ms[0][1], desc, dumps(kws), weight, dumps(attrs), dumps(meta),
            dumps(src)), members


class _EntityMerge:
    """Running merge of one entity's mentions, in (document id, chunk index) order."""

    def __init__(self, key: str, limit: int | None) -> None:
        self.key, self.limit = key, limit
        self.types: Counter[str] = Counter()
        self.first_type: dict[str, int] = {}
        self.name: str | None = None
        self.first_name = ""
        self.lines: dict[str, None] = {}
        self.chars = 0
        self.metas: list[str] = []
        self.sources: set[str] = set()
        self.n = 0

    def add(self, name: str, typ: str, desc: str, meta: str, chunk_id: str) -> None:
        if self.n == 0:
            self.first_name = name
        if typ and typ != "entity":
            self.types[typ] += 1
            self.first_type.setdefault(typ, self.n)
        if self.name is None and name != self.key:
            self.name = name
        for line in desc.splitlines():
            line = line.strip()
            if line and line not in self.lines and (
                    self.limit is None or self.chars + len(line) <= self.limit):
                self.lines[line] = None
                self.chars += len(line) + 1
        if meta != "{}":
            self.metas.append(meta)
        self.sources.add(chunk_id)
        self.n += 1

    def result(self) -> tuple[str, str, str, dict[str, Any], list[str]]:
        typ = (max(self.types.items(), key=lambda t: (t[1], -self.first_type[t[0]]))[0]
               if self.types else "entity")
        meta: dict[str, Any] = {}
        for m in reversed(self.metas):
            meta.update(loads(m))
        return (self.name if self.name is not None else self.first_name, typ,
                "\n".join(self.lines), meta, sorted(self.sources))


def _merge_entity_rows(
    rows: Iterable[Any], limit: int | None
) -> Iterator[tuple[str, tuple[str, str, str, dict[str, Any], list[str]]]]:
    """(key, (name, type, description, metadata, source ids)) per key of rows sorted by key
    then position: majority type (ties: first seen), first name differing from the key,
    de-duplicated description lines (at most ``limit`` characters), metadata (earlier
    mentions win), sorted sources."""
    cur: _EntityMerge | None = None
    for key, name, typ, desc, meta, chunk_id in rows:
        if cur is None or key != cur.key:
            if cur is not None:
                yield cur.key, cur.result()
            cur = _EntityMerge(key, limit)
        cur.add(name, typ, desc, meta, chunk_id)
    if cur is not None:
        yield cur.key, cur.result()


def _cut(text: str) -> str:
    return text[:EMBED_TEXT_LIMIT]
