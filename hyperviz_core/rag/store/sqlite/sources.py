"""Source chunk ids of merged entities and hyperedges, read from their mentions.

Since store schema 2 the merged rows do not store their sources (a hub entity's list grew
with the corpus and was rewritten by every write that touched it): an entity's sources are
the chunks of its ``entity_mentions`` rows, a hyperedge's those of its
``hyperedge_mentions`` rows, both indexed by key. The results equal schema 1's stored
lists (sorted, distinct), so every read returns what it returned before.

Example:
    >>> rows = {"SELECT": [("a", "c1"), ("a", "c2"), ("b", "c1")]}
    >>> def q(sql, params=()):
    ...     return rows["SELECT"]
    >>> entity_sources(q)
    {'a': ['c1', 'c2'], 'b': ['c1']}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["entity_sources", "hyperedge_sources"]

Query = Callable[..., list[Any]]
_BATCH = 500


def _grouped(rows: Iterable[Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, chunk_id in rows:
        out.setdefault(key, []).append(chunk_id)
    return out


def _by_keys(q: Query, sql: str, keys: Iterable[str]) -> dict[str, list[str]]:
    wanted = sorted(set(keys))
    out: dict[str, list[str]] = {}
    for i in range(0, len(wanted), _BATCH):
        part = wanted[i : i + _BATCH]
        out.update(_grouped(q(sql.format(marks=",".join("?" * len(part))), part)))
    return out


def entity_sources(q: Query, keys: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Entity key → sorted chunk ids of its mentions (every entity, or those of ``keys``)."""
    if keys is None:
        return _grouped(q("SELECT key, chunk_id FROM entity_mentions ORDER BY key, chunk_id"))
    return _by_keys(q, "SELECT key, chunk_id FROM entity_mentions WHERE key IN ({marks}) "
                       "ORDER BY key, chunk_id", keys)


def hyperedge_sources(q: Query, hids: Iterable[str] | None = None, kind: str | None = None
                      ) -> dict[str, list[str]]:
    """Hyperedge id → sorted chunk ids of its mentions (every hyperedge of ``kind``, or
    those of ``hids``)."""
    if hids is None:
        return _grouped(q("SELECT hid, chunk_id FROM hyperedge_mentions WHERE kind = ? "
                          "ORDER BY hid, chunk_id", (kind,)))
    return _by_keys(q, "SELECT hid, chunk_id FROM hyperedge_mentions WHERE hid IN ({marks}) "
                       "ORDER BY hid, chunk_id", hids)
