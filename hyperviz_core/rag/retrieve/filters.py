"""Metadata filters of retrieval: which chunks a query may return (``filters=``).

A :class:`ChunkFilter` combines :class:`MetadataCondition` s (and nested filters) with
``"and"``, ``"or"`` or ``"not"`` (none of them holds, as LlamaIndex's ``FilterCondition.NOT``).
A condition reads one field of a chunk (:func:`chunk_fields`): a key of its metadata (its
document's metadata plus ``"title"``), ``"doc_id"`` (its document's id) or ``"chunk_id"``.

The filter *masks* the final ranking (:func:`matching_best`): chunks are scored exactly as
without it, the ones that fail it are skipped, and the ``top_k`` best passing chunks come
back in their unfiltered order (chunks scoring 0 fill up, as without a filter). Values are
compared, never evaluated.

Operators (LlamaIndex's ``FilterOperator`` values, and ``exists``, ``like``, ``ilike``; a
missing key or ``None`` fails every operator except ``!=``, ``nin``, ``is_empty`` and
``exists`` ``False``):

* ``==``, ``!=``: same type and value (numbers by value: ``1 == 1.0``; a bool only equals a
  bool); ``>``, ``>=``, ``<``, ``<=``: two numbers or two strings, else false (a date or
  datetime value is its ISO 8601 string, as date metadata is stored);
* ``in``, ``nin``: the value is (not) one of a list;
* ``contains``: a list value holds the item, or a string value holds the substring;
  ``any``/``all``: it contains any/all of a list;
* ``text_match``, ``text_match_insensitive``: substring of a string (the latter caseless);
* ``is_empty``: missing, ``None``, ``""`` or ``[]`` (give no value);
* ``exists``: with ``True``, present and not ``None`` (``""`` and ``[]`` exist, as SQL's
  ``IS NOT NULL``); with ``False``, missing or ``None``;
* ``like``, ``ilike``: a value matches a SQL ``LIKE`` pattern as a whole: ``%`` any run
  of characters, ``_`` one character, a backslash makes the next one literal (``\\%``);
  ``ilike`` compares lower-cased, as PostgreSQL's ``ILIKE`` (:mod:`.like`: linear time, no
  pattern backtracks); a number or bool is read as its JSON text, as PGVector reads it
  (``202%`` matches 2021, ``t%`` matches true), a list or ``None`` matches nothing.

The vector-store dict dialect (``{"year": {"$between": [2020, 2023]}}``, PGVector, Chroma,
MongoDB style) is :meth:`ChunkFilter.from_mongo` (:mod:`.filter_dialect`).

Example:
    >>> f = ChunkFilter.model_validate({"condition": "or", "filters": [
    ...     {"key": "year", "op": ">=", "value": 2021},
    ...     {"key": "lang", "value": "fr"}]})
    >>> f.matches({"year": 2020, "lang": "fr"}), f.matches({"year": 2019, "lang": "en"})
    (True, False)
    >>> ChunkFilter.from_mongo({"team": "a", "year": {"$in": [2020, 2021]}}).matches(
    ...     {"team": "a", "year": 2021})
    True
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol, get_args

import numpy as np
import numpy.typing as npt
from pydantic import (
    BaseModel,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..types import Chunk
from .filter_dialect import engine_form
from .like import like, like_pattern, like_text

__all__ = ["ENGINE_CHUNK_ID", "ENGINE_DOC_ID", "FILL_LIMIT", "FILTER_BATCH", "OPERATORS",
           "ChunkFilter", "MetadataCondition", "Operator", "as_filter", "chunk_fields", "chunks_at",
           "matching_best", "widened_vector_scores"]

Operator = Literal["==", "!=", ">", ">=", "<", "<=", "in", "nin", "contains", "any", "all",
                   "text_match", "text_match_insensitive", "is_empty", "exists", "like",
                   "ilike"]
OPERATORS: tuple[str, ...] = get_args(Operator)

Scalar = str | int | float | bool
_LISTS = ("in", "nin", "any", "all")
_ORDERED = (">", ">=", "<", "<=")
_STRINGS = ("text_match", "text_match_insensitive", "like", "ilike")


def _scalar(value: Any, where: str) -> Scalar:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where}: a filter value must be finite, got {value!r}")
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()  # as a document's date metadata is stored
    if not isinstance(value, str | int | float | bool):
        raise ValueError(f"{where}: a filter value must be a string, number or bool (or a "
                         f"list of them), got {type(value).__name__} {value!r:.60}")
    return value


class MetadataCondition(BaseModel):
    """``key op value`` on one chunk field (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    op: Operator = "=="
    value: Scalar | list[Scalar] | None = None

    @field_validator("op", mode="before")
    @classmethod
    def _known_op(cls, op: Any) -> Any:
        op = getattr(op, "value", op)  # an enum member (LlamaIndex's FilterOperator)
        if op not in OPERATORS:
            raise ValueError(f"unknown filter operator {op!r}; valid: {', '.join(OPERATORS)}")
        return op

    @field_validator("value", mode="before")
    @classmethod
    def _plain(cls, value: Any, info: ValidationInfo) -> Any:
        """No coercion: ``"3"`` stays a string, a tuple becomes a list; a value of another
        type, or not finite, is named with its key and operator (:func:`_scalar`; not
        pydantic's every-member report)."""
        where = f"filter on {info.data.get('key')!r} ({info.data.get('op', '==')})"
        if isinstance(value, list | tuple):
            if any(item is None for item in value):
                raise ValueError(f"{where}: a list of filter values cannot hold None")
            return [_scalar(_plain_number(item), where) for item in value]
        return None if value is None else _scalar(_plain_number(value), where)

    @model_validator(mode="after")
    def _value_fits(self) -> MetadataCondition:
        where = f"filter on {self.key!r} ({self.op})"
        if not self.key:
            raise ValueError("a filter condition needs a non-empty key")
        if self.op == "is_empty":
            if self.value is not None:
                raise ValueError(f"{where} takes no value, got {self.value!r:.60}")
        elif self.op == "exists":
            if not isinstance(self.value, bool):
                raise ValueError(f"{where} needs true or false, got {self.value!r:.60}")
        elif self.op in _LISTS:
            if not isinstance(self.value, list):
                raise ValueError(f"{where} needs a list of values, got {self.value!r:.60}")
        elif self.value is None or isinstance(self.value, list):
            raise ValueError(f"{where} needs one string, number or bool, got "
                             f"{self.value!r:.60}")
        else:  # a string, number or bool (``_plain``)
            if self.op in _ORDERED and isinstance(self.value, bool):
                raise ValueError(f"{where} needs a number or a string, got {self.value!r}")
            if self.op in _STRINGS and not isinstance(self.value, str):
                raise ValueError(f"{where} needs a string, got {self.value!r:.60}")
            if self.op in ("like", "ilike"):
                try:
                    like_pattern(str(self.value))
                except ValueError as exc:
                    raise ValueError(f"{where}: {exc}") from None
        return self

    def matches(self, fields: Mapping[str, Any]) -> bool:
        """Whether ``fields`` (:func:`chunk_fields`) satisfy the condition."""
        have = fields.get(self.key)
        if self.op == "is_empty":
            return have is None or have == "" or have == []
        if self.op == "exists":
            return (have is not None) is self.value
        if have is None:
            return self.op in ("!=", "nin")
        return _holds(self.op, have, self.value)


def _plain_number(value: Any) -> Any:
    """A numpy scalar (``np.int64(2020)``, ``np.True_``) as the Python value it holds."""
    return value.item() if isinstance(value, np.generic) else value


def _same(a: Any, b: Any) -> bool:
    """Equal with their types: a bool equals only a bool, numbers by value, else ``==`` of
    the same type."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and bool(a == b)


def _contains(have: Any, item: Any) -> bool:
    if isinstance(have, list):
        return any(_same(x, item) for x in have)
    return isinstance(have, str) and isinstance(item, str) and item in have


def _ordered(have: Any, value: Any) -> tuple[Any, Any] | None:
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (have, value))
    return (have, value) if numbers or (isinstance(have, str) and isinstance(value, str)) \
        else None


def _holds(op: str, have: Any, value: Any) -> bool:
    if op in _ORDERED:
        pair = _ordered(have, value)
        if pair is None:
            return False
        a, b = pair
        return bool(a > b if op == ">" else a >= b if op == ">=" else a < b if op == "<"
                    else a <= b)
    if op in ("==", "!="):
        return _same(have, value) == (op == "==")
    if op in ("in", "nin"):
        return any(_same(have, v) for v in value) == (op == "in")
    if op == "contains":
        return _contains(have, value)
    if op in ("any", "all"):
        found = (_contains(have, v) for v in value)
        return any(found) if op == "any" else all(found)
    if op in ("like", "ilike"):
        text = like_text(have)
        return text is not None and like(text, value, caseless=op == "ilike")
    if not isinstance(have, str):  # text_match, text_match_insensitive
        return False
    return value in have if op == "text_match" else value.casefold() in have.casefold()


class ChunkFilter(BaseModel):
    """Conditions and nested filters combined by ``condition`` (``"not"``: none holds)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    filters: list[MetadataCondition | ChunkFilter]
    condition: Literal["and", "or", "not"] = "and"

    @field_validator("condition", mode="before")
    @classmethod
    def _known_condition(cls, value: Any) -> Any:
        value = getattr(value, "value", value)
        if value not in ("and", "or", "not"):
            raise ValueError(f"unknown filter condition {value!r}; valid: and, or, not")
        return value

    def matches(self, fields: Mapping[str, Any]) -> bool:
        """Whether ``fields`` (:func:`chunk_fields`) pass the filter (an empty ``"and"``
        passes everything, an empty ``"or"`` nothing)."""
        found = (f.matches(fields) for f in self.filters)
        if self.condition == "and":
            return all(found)
        return any(found) if self.condition == "or" else not any(found)

    def accepts(self, chunk: Chunk) -> bool:
        """Whether ``chunk`` passes the filter."""
        return self.matches(chunk_fields(chunk))

    @classmethod
    def from_mongo(cls, spec: Mapping[str, Any]) -> ChunkFilter:
        """The filter of a vector-store style dict (PGVector, Chroma, MongoDB):
        ``{"key": value}`` equality, ``{"key": {"$gt": 1}}`` with the operators of
        :data:`.filter_dialect.FIELD_OPERATORS` (``$eq $ne $gt $gte $lt $lte $in $nin
        $between $exists $like $ilike $contains $not_contains $all $not``), and ``$and``,
        ``$or``, ``$nor`` lists and ``$not`` at the top level; several entries of one dict all
        hold (see :mod:`.filter_dialect`).

        >>> ChunkFilter.from_mongo({"$or": [{"lang": "en"}, {"year": {"$lt": 2000}}]}
        ...                        ).condition
        'or'
        >>> ChunkFilter.from_mongo({"name": {"$ilike": "ada%"}}).matches({"name": "ADA L."})
        True
        """
        form = engine_form(spec)
        return cls(condition=form["condition"], filters=[_build(f) for f in form["filters"]])


def _build(form: Mapping[str, Any]) -> MetadataCondition | ChunkFilter:
    """The filter of :func:`.filter_dialect.engine_form`'s dict (each condition validated on
    its own, so that an error names it alone)."""
    if "key" in form:
        try:
            return MetadataCondition(**form)
        except ValidationError as exc:  # one line naming the key, not pydantic's report
            raise ValueError(_said(exc, form)) from None
    return ChunkFilter(condition=form["condition"], filters=[_build(f) for f in form["filters"]])


def _said(exc: ValidationError, form: Mapping[str, Any]) -> str:
    """The first problem of ``exc`` as one line, with what to write instead of a ``None``
    value or a list compared for equality."""
    text = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
    value = form.get("value")
    if value is None or (isinstance(value, list) and None in value):
        text += " (a missing key or None is matched with {'$exists': False})"
    elif isinstance(value, list) and form.get("op") == "==":
        text += (" (a list value is matched with {'$contains': item} or {'$all': [...]}; "
                 "one of several values with {'$in': [...]})")
    return text


def as_filter(value: Any) -> ChunkFilter | None:
    """``value`` as a :class:`ChunkFilter`: one already, a :class:`MetadataCondition`
    (wrapped), a dict of either (one with ``"key"`` is a condition, LlamaIndex's
    ``"operator"`` read as ``"op"``; one with ``"filters"`` a filter: another key of them is
    an error naming it), any other dict in the vector-store style
    (:meth:`ChunkFilter.from_mongo`: ``{"team": "beta"}``), or ``None``/``{}``.

    >>> as_filter({"team": "beta"}) == as_filter({"key": "team", "value": "beta"})
    True
    """
    if value is None or isinstance(value, ChunkFilter):
        return value
    if isinstance(value, MetadataCondition):
        return ChunkFilter(filters=[value])
    if isinstance(value, Mapping):
        if "key" in value:
            if "op" in value and "operator" in value:
                raise ValueError("a filter condition has both 'op' and 'operator': give one")
            cond = {("op" if k == "operator" else k): v for k, v in value.items()}
            return ChunkFilter(filters=[MetadataCondition.model_validate(cond)])
        if "filters" in value:
            return ChunkFilter.model_validate(value)
        return ChunkFilter.from_mongo(value) if value else None
    return ChunkFilter.model_validate(value)


#: the fields that always hold the engine's document and chunk ids (``doc_id`` and
#: ``chunk_id`` do unless the metadata has such a key)
ENGINE_DOC_ID, ENGINE_CHUNK_ID = "vizrag_doc_id", "vizrag_chunk_id"


def chunk_fields(chunk: Chunk) -> dict[str, Any]:
    """What a filter reads of ``chunk``: its metadata, and ``doc_id`` and ``chunk_id`` (the
    engine's ids, unless the metadata has such a key: then its value, as the wrappers'
    documents show it; the engine's are :data:`ENGINE_DOC_ID`, :data:`ENGINE_CHUNK_ID`)."""
    return {"doc_id": chunk.doc_id, "chunk_id": chunk.id, **chunk.metadata,
            ENGINE_DOC_ID: chunk.doc_id, ENGINE_CHUNK_ID: chunk.id}


class _Index(Protocol):
    def chunk_at(self, pos: int) -> Chunk: ...


#: chunks read (on a lazy index, fetched from the store) at once to test a filter
FILTER_BATCH = 64


#: a filtered ranking is filled up with chunks scoring 0 from the first this many chunks by
#: id (they are arbitrary; a lazily read store reads no further for them)
FILL_LIMIT = 16 * FILTER_BATCH


def matching_best(index: _Index, final: npt.NDArray[np.float64],
                  tiebreak: npt.NDArray[np.int64], k: int, flt: ChunkFilter
                  ) -> npt.NDArray[np.intp]:
    """Positions of the ``k`` best chunks that pass ``flt``, in the order of
    :func:`~.topk.best_first` (score, then ``tiebreak``): the filter masks, it never rescores.
    As without a filter, chunks scoring 0 fill up the ``k`` (arbitrary ones: the result says
    so when nothing matched), in id order from the first :data:`FILL_LIMIT` chunks by id
    (``tiebreak``; a lazy index holds them once asked, ``include_first``). A lazy index's
    chunks are fetched in batches (its ``prefetch``)."""
    positive = np.flatnonzero(final > 0)
    zero = np.flatnonzero((final <= 0) & (tiebreak < FILL_LIMIT))
    order = np.concatenate([positive[np.lexsort((tiebreak[positive], -final[positive]))],
                            zero[np.argsort(tiebreak[zero], kind="stable")]])
    out: list[int] = []
    for pos, chunk in chunks_at(index, order.tolist()):
        if flt.accepts(chunk):
            out.append(pos)
            if len(out) >= k:
                break
    return np.asarray(out, dtype=np.intp)


def chunks_at(index: _Index, positions: Sequence[int]) -> Iterator[tuple[int, Chunk]]:
    """``(position, chunk)`` of ``positions`` in order, read :data:`FILTER_BATCH` at a time
    (a lazy index's ``prefetch``: one store lookup a batch)."""
    prefetch: Callable[[Sequence[int]], None] | None = getattr(index, "prefetch", None)
    for start in range(0, len(positions), FILTER_BATCH):
        batch = positions[start:start + FILTER_BATCH]
        if prefetch is not None:
            prefetch(batch)
        for pos in batch:
            yield pos, index.chunk_at(pos)


class _Hits(Protocol):
    @property
    def position(self) -> Mapping[str, int]: ...
    @property
    def total(self) -> int: ...
    def require(self, *, chunk_ids: Sequence[str] = ...) -> None: ...
    def chunk_at(self, pos: int) -> Chunk: ...


def widened_vector_scores(index: _Hits, flt: ChunkFilter, search: Callable[[int], dict[str, float]],
                          k: int, top_k: int) -> dict[str, float]:
    """The vector hits of ``naive`` mode under a filter: ``search(k)``, asked again for
    four times as many while fewer than ``top_k`` of its positive hits pass ``flt`` and the
    store has more chunks. Each hit's cosine is what a narrower search gives it."""
    k = max(k, top_k)
    while True:
        hits = search(k)
        index.require(chunk_ids=sorted(hits))
        passing = sum(1 for cid, s in hits.items() if s > 0 and cid in index.position
                      and flt.accepts(index.chunk_at(index.position[cid])))
        if passing >= top_k or len(hits) < k or k >= index.total:
            return hits
        k *= 4
