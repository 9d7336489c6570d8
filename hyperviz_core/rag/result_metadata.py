"""A retrieved passage's metadata: the document's own, as inserted, plus VizRAG's keys.

The framework wrappers give each retrieved chunk the metadata its document was inserted
with, and VizRAG's per-result keys (``title``, ``doc_id``, ``rank``, scores, the entities and
hyperedges it shows). A document may use one of those names itself (``"type"``,
``"rank"``, ``"score"``): its value is never overwritten; VizRAG's goes under the name with
one ``vizrag_`` prefix more than the longest such name the document holds. Equal values
share the name (a document's own ``title`` is not doubled).

Example:
    >>> meta, where = merge_metadata({"rank": "gold", "title": "Ada"}, {"title": "Ada", "rank": 1})
    >>> meta
    {'rank': 'gold', 'title': 'Ada', 'vizrag_rank': 1}
    >>> where
    {'title': 'title', 'rank': 'vizrag_rank'}
    >>> vizrag_value(meta, "rank"), vizrag_value(meta, "title"), vizrag_key(meta, "score")
    (1, 'Ada', None)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["VIZRAG_PREFIX", "merge_metadata", "vizrag_key", "vizrag_value"]

VIZRAG_PREFIX = "vizrag_"
"""Prefix of the name VizRAG's value goes under when the document's metadata holds the key."""


def _depth(metadata: Mapping[str, Any], key: str) -> int:
    """The largest ``n`` for which ``metadata`` holds ``VIZRAG_PREFIX * n + key`` (-1: none)."""
    best = -1
    for name in metadata:
        if isinstance(name, str) and name.endswith(key):
            n, rest = divmod(len(name) - len(key), len(VIZRAG_PREFIX))
            if not rest and name == VIZRAG_PREFIX * n + key:
                best = max(best, n)
    return best


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and bool(a == b)


def merge_metadata(own: Mapping[str, Any], ours: Mapping[str, Any]
                   ) -> tuple[dict[str, Any], dict[str, str]]:
    """The document's metadata ``own`` as inserted, plus VizRAG's keys ``ours``; and where
    each of VizRAG's keys went (key → its name in the metadata). See the module doc."""
    meta = dict(own)
    where: dict[str, str] = {}
    for key, value in ours.items():
        depth = _depth(own, key)
        name = VIZRAG_PREFIX * depth + key
        if depth < 0 or not _same(own[name], value):
            name = VIZRAG_PREFIX * (depth + 1) + key
            meta[name] = value
        where[key] = name
    return meta, where


def vizrag_key(metadata: Mapping[str, Any], key: str) -> str | None:
    """The name VizRAG's ``key`` has in a retrieved passage's metadata: the longest of
    ``key``, ``vizrag_<key>``, ``vizrag_vizrag_<key>`` ... present (None: none is)."""
    depth = _depth(metadata, key)
    return None if depth < 0 else VIZRAG_PREFIX * depth + key


def vizrag_value(metadata: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """VizRAG's value of ``key`` in a retrieved passage's metadata (:func:`vizrag_key`),
    else ``default``."""
    name = vizrag_key(metadata, key)
    return default if name is None else metadata[name]
