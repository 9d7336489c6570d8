"""Merging the mentions of one entity or hyperedge, from scratch or onto a stored row.

A merged row depends only on its mentions in (document id, chunk index) order. When every
new mention of a write comes after all stored ones (appending, e.g. the next part of a large
file), the merge continues from the stored row and its small merge state (type counts,
mention count, last position) instead of re-reading every earlier mention: the result is
the same as a merge from scratch, at a cost independent of how often the entity was
mentioned before. Mention rows here have the shape of the store's queries:

* entity: ``(key, name, type, description, metadata, chunk_id, doc_id, idx)``;
* hyperedge: ``(hid, kind, members, description, keywords, weight, member_attrs, metadata,
  chunk_id, doc_id, idx)`` (JSON text where the store keeps JSON).

Example:
    >>> rows = [("a", "A", "person", "x", "{}", "c1", "d1", 0),
    ...         ("a", "a", "place", "y", "{}", "c2", "d2", 0),
    ...         ("a", "a", "person", "x", "{}", "c3", "d3", 0)]
    >>> whole = EntityMerge("a", 4000)
    >>> for r in rows: whole.add(*r[1:])
    >>> part = EntityMerge("a", 4000)
    >>> for r in rows[:2]: part.add(*r[1:])
    >>> resumed = EntityMerge.resume("a", 4000, part.state_row())
    >>> resumed.add(*rows[2][1:])
    >>> resumed.state_row() == whole.state_row()
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ....model import merge_descriptions, preferred_name
from .damage import real
from .schema import dumps, loads

__all__ = ["EntityMerge", "appended_hyperedge", "merge_entities", "merged_hyperedge"]

#: an entity's merged row with its state: (key, name, type, description, metadata, types,
#: mentions, last_doc, last_idx)
EntityRow = tuple[str, str, str, str, str, str, int, str | None, int | None]


class EntityMerge:
    """Running merge of one entity's mentions, in (document id, chunk index) order: majority
    type (ties: first seen), first name differing from the key (but a later one that mixes
    the cases over one in capitals: :func:`~hyperviz_core.items.preferred_name`),
    de-duplicated description lines (at most ``limit`` characters), metadata (earlier
    mentions win)."""

    def __init__(self, key: str, limit: int | None) -> None:
        self.key, self.limit = key, limit
        self.types: dict[str, int] = {}
        self.first_type: dict[str, int] = {}
        self.name: str | None = None
        self.first_name = ""
        self.lines: dict[str, None] = {}
        self.chars = 0
        self.metas: dict[str, None] = {}  # distinct, first occurrence first
        self.n = 0
        self.last: tuple[str, int] | None = None

    @classmethod
    def resume(cls, key: str, limit: int | None, row: Sequence[Any]) -> EntityMerge:
        """Continue from a stored row (:data:`EntityRow`; ``last_doc`` must be known)."""
        _, name, _, desc, meta, types, n, last_doc, last_idx = row
        out = cls(key, limit)
        out.first_name = name
        out.name = name if name != key else None
        for typ, (count, first) in sorted(loads(types).items()):
            out.types[typ] = int(count)
            out.first_type[typ] = int(first)
        if desc:
            out.lines = dict.fromkeys(desc.split("\n"))
            out.chars = len(desc) + 1
        if meta != "{}":
            out.metas[meta] = None
        out.n = int(n)
        out.last = (str(last_doc), int(last_idx))
        return out

    def add(self, name: str, typ: str, desc: str, meta: str, chunk_id: str = "",
            doc_id: str = "", idx: int = 0) -> None:
        if self.n == 0:
            self.first_name = name
        if typ and typ != "entity":
            if typ in self.types:
                self.types[typ] += 1
            else:
                self.types[typ] = 1
                self.first_type[typ] = self.n
        if name != self.key:  # the first such name, or a later one over one in capitals
            self.name = name if self.name is None else preferred_name(self.name, name)
        for line in desc.splitlines() if desc else ():
            line = line.strip()
            if line and line not in self.lines and (
                    self.limit is None or self.chars + len(line) <= self.limit):
                self.lines[line] = None
                self.chars += len(line) + 1
        if meta != "{}" and meta not in self.metas:  # a repeat adds nothing: earlier wins
            self.metas[meta] = None
        self.n += 1
        self.last = (doc_id, idx)

    def result(self) -> tuple[str, str, str, dict[str, Any]]:
        """(name, type, description, metadata)."""
        typ = (max(self.types.items(), key=lambda t: (t[1], -self.first_type[t[0]]))[0]
               if self.types else "entity")
        meta: dict[str, Any] = {}
        for m in reversed(list(self.metas)):
            meta.update(loads(m))
        return (self.name if self.name is not None else self.first_name, typ,
                "\n".join(self.lines), meta)

    def state_row(self) -> EntityRow:
        """The merged row with its merge state, as stored in ``entities``."""
        name, typ, desc, meta = self.result()
        types = {t: [c, self.first_type[t]] for t, c in self.types.items()}
        last = self.last or (None, None)
        return (self.key, name, typ, desc, dumps(meta), dumps(types), self.n, last[0], last[1])


def merge_entities(rows: Iterable[Any], limit: int | None) -> Iterator[EntityMerge]:
    """One finished :class:`EntityMerge` per key of ``rows`` (sorted by key, then position)."""
    cur: EntityMerge | None = None
    for key, *rest in rows:
        if cur is None or key != cur.key:
            if cur is not None:
                yield cur
            cur = EntityMerge(key, limit)
        cur.add(*rest)
    if cur is not None:
        yield cur


def merged_hyperedge(hid: str, ms: Sequence[Any]) -> tuple[tuple[Any, ...], list[str]]:
    """The merged ``hyperedges`` row of one id from all its mention rows (in order),
    and its members (those of the first mention)."""
    members: list[str] = loads(ms[0][2])
    if len(ms) == 1:  # one mention: its JSON fields are canonical already (``dumps``)
        m = ms[0]
        kws_s = m[4] if m[4] == "[]" else dumps(list(dict.fromkeys(loads(m[4]))))
        return (hid, m[1], merge_descriptions(m[3]), kws_s, _weight(m), m[6], m[7],
                m[9], m[10]), members
    desc = merge_descriptions(*(m[3] for m in ms))
    kws: list[str] = list(dict.fromkeys(k for m in ms for k in loads(m[4])))
    weight = max(_weight(m) for m in ms)
    attrs: dict[str, Any] = {}
    meta: dict[str, Any] = {}
    for m in reversed(ms):
        attrs.update(loads(m[6]))
        meta.update(loads(m[7]))
    last = ms[-1]
    return (hid, ms[0][1], desc, dumps(kws), weight, dumps(attrs), dumps(meta),
            last[9], last[10]), members


def appended_hyperedge(row: Sequence[Any], ms: Sequence[Any]) -> tuple[Any, ...]:
    """A stored ``hyperedges`` row (``id, kind, description, keywords, weight,
    member_attrs, metadata, last_doc, last_idx``) merged with later mention rows ``ms``:
    what :func:`merged_hyperedge` gives over all of them."""
    hid, kind, desc, kws, weight, attrs_s, meta_s = row[:7]
    desc = merge_descriptions(desc, *(m[3] for m in ms))
    words = list(dict.fromkeys([*loads(kws), *(k for m in ms for k in loads(m[4]))]))
    weight = max([float(real(weight, "hyperedges", hid)), *(_weight(m) for m in ms)])
    attrs: dict[str, Any] = {}
    meta: dict[str, Any] = {}
    for m in reversed(ms):
        attrs.update(loads(m[6]))
        meta.update(loads(m[7]))
    attrs.update(loads(attrs_s))
    meta.update(loads(meta_s))
    return (hid, kind, desc, dumps(words), weight, dumps(attrs), dumps(meta),
            ms[-1][9], ms[-1][10])


def _weight(m: Sequence[Any]) -> float:
    """The weight of a hyperedge mention row as a float (text such as ``'abc'`` or
    ``'NaN'``, which an edit may store: :class:`~.damage.DamagedRowError`)."""
    return float(real(m[5], "hyperedge_mentions", (m[0], m[8])))
