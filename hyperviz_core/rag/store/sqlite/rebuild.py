"""Rebuilding merged entity and hyperedge rows after a write (both backends share it).

After a write transaction inserted or deleted mentions, every touched entity key and
hyperedge id gets its merged row recomputed:

* **appended** — the write's new mentions all come after the stored row's last mention (a
  new document whose id sorts last, e.g. the next part of a large file): the merge continues
  from the stored row and its merge state (:mod:`.merge_state`), reading nothing else. Cost:
  independent of how often the item was mentioned before;
* **new** — no stored row: merged from the new mentions alone;
* **rebuilt** — anything else (a deleted or replaced document removed mentions, a new
  mention sorts before stored ones, a row whose state is unknown): merged from all its
  mentions, streamed key by key.

All three give the same row. Items left without mentions are deleted. A hyperedge the write
did not touch gets its embedding text recomputed when one of its members was renamed (an
entity's merged name is its first name differing from its key, so a later mention can change
it): a theme's text lists its members' names, so batch and one-by-one writes embed the same.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .merge import (
    DESCRIPTION_LIMIT,
    MentionWriter,
    chunked,
    entity_text,
    hyperedge_text,
)
from .merge_state import EntityMerge, appended_hyperedge, merge_entities, merged_hyperedge
from .schema import loads
from .spans import DESCRIPTION_SQL

__all__ = ["Rebuilder", "Rebuilt"]

_UPSERT_ENTITY = (
    "INSERT INTO entities(key, name, type, description, metadata, types, mentions, "
    "last_doc, last_idx) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET "
    "name = excluded.name, type = excluded.type, description = excluded.description, "
    "metadata = excluded.metadata, types = excluded.types, mentions = excluded.mentions, "
    "last_doc = excluded.last_doc, last_idx = excluded.last_idx")
_UPSERT_EDGE = (
    "INSERT INTO hyperedges(id, kind, description, keywords, weight, member_attrs, "
    "metadata, last_doc, last_idx) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO "
    "UPDATE SET description = excluded.description, keywords = excluded.keywords, "
    "weight = excluded.weight, member_attrs = excluded.member_attrs, "
    "metadata = excluded.metadata, last_doc = excluded.last_doc, last_idx = excluded.last_idx")


@dataclass
class Rebuilt:
    """Embedding texts of the live touched items and the ids that died, per space."""

    texts: dict[str, dict[str, str]] = field(
        default_factory=lambda: {"entity": {}, "hyperedge": {}, "theme": {}})
    dead: dict[str, list[str]] = field(
        default_factory=lambda: {"entity": [], "hyperedge": [], "theme": []})
    #: how many items took each path (``appended``, ``new``, ``rebuilt``), for benchmarks
    paths: dict[str, int] = field(default_factory=lambda: {"appended": 0, "new": 0,
                                                           "rebuilt": 0})


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _appendable(row: Any, first: tuple[str, int]) -> bool:
    """Whether a stored row (``..., last_doc, last_idx``) may be continued by mentions whose
    first position is ``first``."""
    return row[-2] is not None and (str(row[-2]), int(row[-1])) < first


class Rebuilder:
    """Recompute merged entity and hyperedge rows (see the module doc)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        summarize: Callable[[str, str], str] | None = None,
        threshold: int = 4000,
        spaces: Iterable[str] | None = None,
        lock: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.conn = conn
        self.summarize = summarize
        self.threshold = threshold
        #: the vector spaces whose embedding texts are wanted (None: every space)
        self.spaces = None if spaces is None else frozenset(spaces)
        #: called with the ids of untouched hyperedges before their rows are read (a server
        #: backend locks them as it locked the touched ones)
        self.lock = lock

    def rebuild(self, keys: set[str], hids: set[str],
                fresh: MentionWriter | None = None) -> Rebuilt:
        """Rebuild ``keys`` and ``hids``; ``fresh`` holds the write's new mentions (those
        of items that lost mentions must have been :meth:`~MentionWriter.forget`-ten)."""
        out = Rebuilt()
        names: dict[str, str] = {}
        renamed: set[str] = set()  # live touched entities whose merged name changed
        fe, fh = fresh.appendable() if fresh is not None else ({}, {})
        if self.summarize is not None:
            fe = {}
        done_e = self._append_entities({k: fe[k] for k in sorted(keys) if k in fe}, out, names,
                                       renamed)
        live_keys = done_e | self._rebuild_entities(keys - done_e, out, names, renamed)
        members: dict[str, list[str]] = {}
        rows: dict[str, tuple[Any, ...]] = {}
        done_h = self._append_hyperedges({h: fh[h] for h in sorted(hids) if h in fh}, rows,
                                         members, out)
        live_h = done_h | self._rebuild_hyperedges(hids - done_h, rows, members, out)
        self._renamed_members(renamed, hids, rows, members)
        self._edge_texts(rows, members, out, names)
        self._delete_dead(keys - live_keys, hids - live_h, out)
        return out

    # ------------------------------------------------------------------ entities
    def _limit(self) -> int | None:
        """Merged descriptions are capped at :data:`DESCRIPTION_LIMIT` characters unless a
        summariser shortens them (then it reads them whole)."""
        return None if self.summarize is not None else DESCRIPTION_LIMIT

    def _store_entities(self, merges: list[EntityMerge], out: Rebuilt,
                        names: dict[str, str], old: dict[str, str], renamed: set[str]) -> None:
        """Upsert the merged rows; ``old`` holds the stored names of these keys (those whose
        name changes go into ``renamed``)."""
        rows = []
        for merge in merges:
            row = merge.state_row()
            key, name, desc = row[0], row[1], row[3]
            short = self._summ(name, desc)
            if short != desc:  # a summary is not a merge state: the next write rebuilds
                row = (*row[:3], short, *row[4:7], None, None)
                desc = short
            rows.append(row)
            names[key] = name
            if key in old and old[key] != name:
                renamed.add(key)
            out.texts["entity"][key] = entity_text(name, desc)
        self.conn.executemany(_UPSERT_ENTITY, rows)

    def _summ(self, name: str, desc: str) -> str:
        if self.summarize is not None and len(desc) > self.threshold:
            short = self.summarize(name, desc).strip()
            if short:
                return short
        return desc

    def _append_entities(self, fresh: dict[str, list[Any]], out: Rebuilt,
                         names: dict[str, str], renamed: set[str]) -> set[str]:
        """Merge the new mentions of ``fresh`` onto stored rows (or alone, for new keys);
        the keys done (the others need a rebuild)."""
        done: set[str] = set()
        limit = self._limit()
        for part in chunked(list(fresh)):
            stored = {r[0]: r for r in self.conn.execute(
                "SELECT key, name, type, description, metadata, types, mentions, last_doc, "
                f"last_idx FROM entities WHERE key IN ({_marks(len(part))})", part)}
            merges = []
            for key in part:
                rows, row = fresh[key], stored.get(key)
                if row is None:
                    merge, path = EntityMerge(key, limit), "new"
                elif _appendable(row, (rows[0][-2], rows[0][-1])):
                    merge, path = EntityMerge.resume(key, limit, row), "appended"
                else:
                    continue
                for r in rows:
                    merge.add(*r[1:])
                merges.append(merge)
                out.paths[path] += 1
                done.add(key)
            old = {k: str(r[1]) for k, r in stored.items()}
            self._store_entities(merges, out, names, old, renamed)
        return done

    def _rebuild_entities(self, keys: set[str], out: Rebuilt, names: dict[str, str],
                          renamed: set[str]) -> set[str]:
        """Merge the entities of ``keys`` from all their mentions (streamed key by key);
        the keys still mentioned."""
        live: set[str] = set()
        for part in chunked(sorted(keys)):
            old: dict[str, str] = {}
            if self._wants_edge_texts():  # a renamed member changes hyperedge texts
                old = dict(self.conn.execute(
                    f"SELECT key, name FROM entities WHERE key IN ({_marks(len(part))})",
                    part).fetchall())
            cur = self.conn.execute(
                f"SELECT m.key, m.name, m.type, {DESCRIPTION_SQL}, m.metadata, m.chunk_id, "
                "ch.doc_id, ch.idx FROM entity_mentions m JOIN chunks ch ON ch.id = m.chunk_id "
                f"WHERE m.key IN ({_marks(len(part))}) ORDER BY m.key, ch.doc_id, ch.idx", part)
            merges = list(merge_entities(cur, self._limit()))
            self._store_entities(merges, out, names, old, renamed)
            live.update(m.key for m in merges)
            out.paths["rebuilt"] += len(merges)
        return live

    # ------------------------------------------------------------------ hyperedges
    def _append_hyperedges(self, fresh: dict[str, list[Any]], merged_rows: dict[str, Any],
                           members: dict[str, list[str]], out: Rebuilt) -> set[str]:
        done: set[str] = set()
        for part in chunked(list(fresh)):
            stored = {r[0]: r for r in self.conn.execute(
                "SELECT id, kind, description, keywords, weight, member_attrs, metadata, "
                f"last_doc, last_idx FROM hyperedges WHERE id IN ({_marks(len(part))})",
                part)}
            upserts: list[tuple[Any, ...]] = []
            incidences: list[tuple[str, int, str]] = []
            appended: list[str] = []
            for hid in part:
                rows, row = fresh[hid], stored.get(hid)
                if row is None:
                    merged, mem = merged_hyperedge(hid, rows)
                    members[hid] = mem
                    incidences.extend((hid, i, k) for i, k in enumerate(mem))
                    out.paths["new"] += 1
                elif _appendable(row, (rows[0][-2], rows[0][-1])):
                    merged = appended_hyperedge(row, rows)
                    appended.append(hid)
                    out.paths["appended"] += 1
                else:
                    continue
                upserts.append(merged)
                merged_rows[hid] = merged
                done.add(hid)
            self.conn.executemany(_UPSERT_EDGE, upserts)
            self.conn.executemany(
                "INSERT INTO incidences(hid, position, entity_key) VALUES (?, ?, ?)", incidences)
            if self._wants_edge_texts():
                members.update(self._members(appended))
        return done

    def _wants_edge_texts(self) -> bool:
        return self.spaces is None or bool(self.spaces & {"hyperedge", "theme"})

    def _members(self, hids: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for part in chunked(hids):
            for hid, key in self.conn.execute(
                    f"SELECT hid, entity_key FROM incidences WHERE hid IN ({_marks(len(part))}) "
                    "ORDER BY hid, position", part):
                out.setdefault(hid, []).append(key)
        return out

    def _rebuild_hyperedges(self, hids: set[str], merged_rows: dict[str, Any],
                            members: dict[str, list[str]], out: Rebuilt) -> set[str]:
        """Rebuild the hyperedges in ``hids`` from all their mentions (with incidences);
        the ids still mentioned. One upsert, one delete and one insert statement per slice
        of ids (a server backend pays a round trip per statement)."""
        live: set[str] = set()
        for part in chunked(sorted(hids)):
            rows = self.conn.execute(
                f"SELECT m.hid, m.kind, m.members, {DESCRIPTION_SQL}, m.keywords, m.weight, "
                "m.member_attrs, m.metadata, m.chunk_id, ch.doc_id, ch.idx "
                "FROM hyperedge_mentions m JOIN chunks ch ON ch.id = m.chunk_id "
                f"WHERE m.hid IN ({_marks(len(part))}) ORDER BY m.hid, ch.doc_id, ch.idx", part
            ).fetchall()
            grouped: dict[str, list[Any]] = {}
            for r in rows:
                grouped.setdefault(r[0], []).append(r)
            upserts: list[tuple[Any, ...]] = []
            incidences: list[tuple[str, int, str]] = []
            for hid, ms in grouped.items():
                row, mem = merged_hyperedge(hid, ms)
                upserts.append(row)
                merged_rows[hid] = row
                members[hid] = mem
                incidences.extend((hid, i, k) for i, k in enumerate(mem))
            self.conn.executemany(_UPSERT_EDGE, upserts)
            live_part = sorted(grouped)
            if live_part:
                self.conn.execute(
                    f"DELETE FROM incidences WHERE hid IN ({_marks(len(live_part))})", live_part)
            self.conn.executemany(
                "INSERT INTO incidences(hid, position, entity_key) VALUES (?, ?, ?)", incidences)
            live.update(grouped)
            out.paths["rebuilt"] += len(grouped)
        return live

    def _renamed_members(self, renamed: set[str], touched: set[str],
                         rows: dict[str, tuple[Any, ...]], members: dict[str, list[str]]
                         ) -> None:
        """Add the hyperedges that were not touched but have a member in ``renamed`` to
        ``rows`` and ``members``: their embedding text holds their members' names (a theme
        always, a relation without description), so it changed with the name. (Those whose
        text stays the same are not re-embedded: the stored text hash matches.)"""
        kinds = [kind for kind, space in (("theme", "theme"), ("relation", "hyperedge"))
                 if self.spaces is None or space in self.spaces]
        if not renamed or not kinds:
            return
        hids: set[str] = set()
        for part in chunked(sorted(renamed), 498):  # with the kinds: <= 500 parameters
            hids.update(r[0] for r in self.conn.execute(
                "SELECT DISTINCT i.hid FROM incidences i JOIN hyperedges h ON h.id = i.hid "
                f"WHERE i.entity_key IN ({_marks(len(part))}) AND h.kind IN "
                f"({_marks(len(kinds))})", [*part, *kinds]).fetchall())
        extra = sorted(hids - touched)
        if extra and self.lock is not None:
            self.lock(extra)
        for part in chunked(extra):
            rows.update((r[0], tuple(r)) for r in self.conn.execute(
                "SELECT id, kind, description, keywords FROM hyperedges WHERE id IN "
                f"({_marks(len(part))})", part).fetchall())
        members.update(self._members(extra))

    def _edge_texts(self, rows: dict[str, tuple[Any, ...]], members: dict[str, list[str]],
                    out: Rebuilt, names: dict[str, str]) -> None:
        """Embedding texts of the live touched hyperedges of the wanted spaces (theme:
        theme, member names and keywords; relation: description or member names, and
        keywords). ``rows`` are their merged ``hyperedges`` rows."""
        wanted = {hid: row for hid, row in rows.items()
                  if self.spaces is None
                  or ("theme" if row[1] == "theme" else "hyperedge") in self.spaces}
        missing = sorted({k for hid in wanted for k in members.get(hid, ())} - names.keys())
        for part in chunked(missing):
            names.update(self.conn.execute(
                f"SELECT key, name FROM entities WHERE key IN ({_marks(len(part))})", part))
        for hid in sorted(wanted):
            _, kind, desc, kws_s = wanted[hid][:4]
            member_names = [names.get(k) or k for k in members.get(hid, ())]
            out.texts["theme" if kind == "theme" else "hyperedge"][hid] = hyperedge_text(
                kind, desc, member_names, loads(kws_s))

    # ------------------------------------------------------------------ deaths
    def _delete_dead(self, keys: set[str], hids: set[str], out: Rebuilt) -> None:
        """Delete the items left without mentions (hyperedges first: incidences name
        entities)."""
        for part in chunked(sorted(hids)):
            marks = _marks(len(part))
            for hid, kind in self.conn.execute(
                    f"SELECT id, kind FROM hyperedges WHERE id IN ({marks})", part
            ).fetchall():
                out.dead["theme" if kind == "theme" else "hyperedge"].append(hid)
            self.conn.execute(f"DELETE FROM hyperedges WHERE id IN ({marks})", part)
        dead = sorted(keys)
        for part in chunked(dead):
            self.conn.execute(f"DELETE FROM entities WHERE key IN ({_marks(len(part))})",
                              part)
        out.dead["entity"] = dead

