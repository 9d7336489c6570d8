"""Why a filtered query returned no passage: the result's warning, with hints.

A vector store answers a filter that matches nothing with an empty list, whatever the
reason. The commonest reasons are a key no passage has (``yr`` for ``year``) and a value of
another type than the stored ones (the string ``"1895"`` for the number 1895: values are
compared with their types, never converted). :func:`filter_miss` says which, from the
passages a filtered ranking reads anyway (the first :data:`~.filters.FILL_LIMIT` by id).

Example:
    >>> from hyperviz_core.rag.retrieve.filters import ChunkFilter
    >>> stored = [{"year": 1895, "lang": "fr"}, {"year": 1903, "lang": "de"}]
    >>> miss_hints(ChunkFilter.from_mongo({"year": "1895"}), stored)
    ["'year' holds numbers (e.g. 1895) where the filter gives the string '1895'"]
    >>> miss_hints(ChunkFilter.from_mongo({"yaer": {"$gte": 1900}}), stored)
    ["no passage has the key 'yaer' (did you mean 'year'?)"]
    >>> miss_hints(ChunkFilter.from_mongo({"year": 1850}), stored)
    []
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..types import Chunk
from .filters import (
    ENGINE_CHUNK_ID,
    ENGINE_DOC_ID,
    FILL_LIMIT,
    ChunkFilter,
    MetadataCondition,
    chunk_fields,
    chunks_at,
)

__all__ = ["FILTER_MISS", "filter_miss", "miss_hints"]

FILTER_MISS = "no passage passed the filter"

#: hints named at most (one per condition)
HINTS = 3

#: operators a missing key passes: they need no key and no type
_PASS_MISSING = ("!=", "nin", "is_empty", "exists")
#: operators that read their value's items (a list), not the value itself
_ITEMS = ("in", "any", "all")
#: operators that read a stored value as text
_TEXT = ("like", "ilike")


class _Index(Protocol):
    @property
    def total(self) -> int: ...
    def tiebreak(self) -> npt.NDArray[np.int64]: ...
    def chunk_at(self, pos: int) -> Chunk: ...


def filter_miss(index: _Index, flt: ChunkFilter) -> str:
    """The warning of a query ``flt`` left without passages: :data:`FILTER_MISS` (in a
    store of more than :data:`~.filters.FILL_LIMIT` passages, that none the query matched
    passed, nor any of the first ones by id: the others were not read), then
    :func:`miss_hints` from those first passages (the ranking read them: a lazy index holds
    them; ``prefetch`` reads them in batches)."""
    tiebreak = index.tiebreak()
    first = np.flatnonzero(tiebreak < FILL_LIMIT)
    first = first[np.argsort(tiebreak[first], kind="stable")]
    fields = [chunk_fields(chunk) for _, chunk in chunks_at(index, first.tolist())]
    hints = "; ".join(miss_hints(flt, fields))
    if index.total <= FILL_LIMIT:  # every passage was read
        return f"{FILTER_MISS}: {hints}" if hints else FILTER_MISS
    said = (f"no passage the query matched passed the filter, nor any of the first "
            f"{FILL_LIMIT:,} passages by id")
    return f"{said}; in those, {hints}" if hints else said


def miss_hints(flt: ChunkFilter, fields: Sequence[Mapping[str, Any]]) -> list[str]:
    """What the conditions of ``flt`` ask that ``fields`` (:func:`~.filters.chunk_fields`
    of passages) never hold: a key none has, or values of types none of its values has (at
    most :data:`HINTS`, in the filter's order)."""
    out: list[str] = []
    for cond in _conditions(flt):
        hint = _hint(cond, fields)
        if hint is not None and hint not in out:
            out.append(hint)
    return out[:HINTS]


def _conditions(flt: ChunkFilter) -> Iterator[MetadataCondition]:
    for part in flt.filters:
        if isinstance(part, ChunkFilter):
            yield from _conditions(part)
        else:
            yield part


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str | list):
        return "string" if isinstance(value, str) else "list"
    return type(value).__name__


_PLURAL = {"bool": "bools", "number": "numbers", "string": "strings", "list": "lists"}


def _hint(cond: MetadataCondition, fields: Sequence[Mapping[str, Any]]) -> str | None:
    present = cond.op == "exists" and cond.value is True  # ``$ne``/``$nin`` ask this too
    if cond.op in _PASS_MISSING and not present:
        return None
    held = [f[cond.key] for f in fields if f.get(cond.key) is not None]
    if not held:
        keys = sorted({k for f in fields for k in f} - {ENGINE_DOC_ID, ENGINE_CHUNK_ID})
        close = difflib.get_close_matches(cond.key, keys, n=1)
        guess = f" (did you mean {close[0]!r}?)" if close else ""
        return f"no passage has the key {cond.key!r}{guess}"
    kinds = {_kind(v) for v in held}
    if present:
        return None
    if cond.op in _TEXT or ("string" in kinds and cond.op.startswith("text_match")):
        return None  # LIKE reads numbers and bools as text; a string holds the substring
    if kinds == {"list"}:
        if cond.op in ("contains", "any", "all"):
            held = [x for v in held for x in v]
            kinds = {_kind(x) for x in held}
        else:
            return (f"{cond.key!r} holds lists: match one item with $contains (LlamaIndex: "
                    "FilterOperator.CONTAINS) or $in with a list")
    items = cond.value if cond.op in _ITEMS and isinstance(cond.value, list) else [cond.value]
    given = sorted({_kind(v) for v in items})
    if not kinds or kinds & set(given):
        return None
    example = next(v for v in held if _kind(v) in kinds)
    what = " or ".join(_PLURAL.get(k, k) for k in sorted(kinds))
    if cond.op in _ITEMS:
        gives = " or ".join(_PLURAL.get(k, k) for k in given) + f" {cond.value!r}"
    else:
        gives = f"the {given[0]} {cond.value!r}"
    return f"{cond.key!r} holds {what} (e.g. {example!r}) where the filter gives {gives}"
