"""The vector-store filter dialect (PGVector, Chroma, MongoDB style) as the engine's filter.

:func:`engine_form` reads a dict such as ``{"lang": "en", "year": {"$between": [2020, 2023]}}``
and returns the same filter in the engine's dict form (``{"condition": ..., "filters": [...]}``
with ``{"key", "op", "value"}`` conditions); :meth:`.filters.ChunkFilter.from_mongo` builds
and validates it. Nothing here is evaluated: values are only copied.

Per key, ``{"key": value}`` is equality and ``{"key": {op: value, ...}}`` holds when all its
operators hold:

* ``$eq $ne $gt $gte $lt $lte $in $nin``: the core ``== != > >= < <= in nin``, except that
  a missing key (or ``None``) fails ``$ne`` and ``$nin`` too, as SQL's ``NULL`` does in
  PGVector (``{"tenant": {"$ne": "a"}}`` keeps no untagged passage);
* ``$between: [lo, hi]``: ``>= lo`` and ``<= hi`` (two numbers or two strings);
* ``$exists: true|false`` (or ``1``/``0``): the key is present with a non-``None`` value (or
  not);
* ``$like``, ``$ilike``: SQL ``LIKE`` (``%``, ``_``, ``\\`` escapes), ``$ilike`` caseless;
* ``$contains``: a list value holds the item, a string value the substring;
  ``$not_contains``: its negation (a missing key fails, as with ``$ne``/``$nin``);
* ``$all``: a list value holds every item of a list; ``$all: []`` matches nothing, as in
  MongoDB (the core ``all`` with ``[]`` holds for any list: LlamaIndex's reading);
* ``$not: {op: value, ...}``: the key's operators do not all hold.

At the top level ``$and``/``$or``/``$nor`` take a non-empty list of dicts (all, any, none
hold) and ``$not`` a dict (it fails) or a non-empty list (none holds). Plain equality against
a list value is not MongoDB's "any element": ``{"tags": {"$contains": "x"}}`` is.

>>> engine_form({"year": {"$between": [2020, 2023]}})
{'condition': 'and', 'filters': [{'key': 'year', 'op': '>=', 'value': 2020}, \
{'key': 'year', 'op': '<=', 'value': 2023}]}
>>> engine_form({"$not": {"lang": "en"}})
{'condition': 'not', 'filters': [{'condition': 'and', 'filters': [{'key': 'lang', 'op': '==', \
'value': 'en'}]}]}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FIELD_OPERATORS", "LOGICAL_OPERATORS", "engine_form"]

#: the dialect's operators that map to one core operator
_SIMPLE = {"$eq": "==", "$ne": "!=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<=",
           "$in": "in", "$nin": "nin", "$like": "like", "$ilike": "ilike",
           "$contains": "contains", "$all": "all"}
#: the negative operators a missing key (or ``None``) fails, as SQL's NULL does (PGVector)
_PRESENT = ("$ne", "$nin")
#: every operator of a key's dict
FIELD_OPERATORS: tuple[str, ...] = (*_SIMPLE, "$between", "$exists", "$not_contains", "$not")
#: the operators of a filter's top level
LOGICAL_OPERATORS: tuple[str, ...] = ("$and", "$or", "$not", "$nor")
_CONDITIONS = {"$and": "and", "$or": "or", "$nor": "not"}

Form = dict[str, Any]


def engine_form(spec: Mapping[str, Any]) -> Form:
    """``spec`` (see the module docstring) as the engine's filter dict; a ``ValueError`` names
    an unknown operator or a malformed value, a ``TypeError`` a filter that is not a dict."""
    if not isinstance(spec, Mapping):
        raise TypeError(f"a filter must be a dict, got {type(spec).__name__}")
    parts: list[Form] = []
    for key, value in spec.items():
        if key in _CONDITIONS:
            parts.append(_group(_CONDITIONS[key], [engine_form(v) for v in _dicts(key, value)]))
        elif key == "$not":
            if isinstance(value, Mapping) and value:
                parts.append(_group("not", [engine_form(value)]))
            elif isinstance(value, list | tuple) and value:
                parts.append(_group("not", [engine_form(v) for v in value]))
            else:
                raise ValueError(f"filter $not needs a non-empty dict or list of dicts, got "
                                 f"{value!r:.60}")
        elif not isinstance(key, str) or key.startswith("$"):
            raise ValueError(f"unknown filter operator {key!r} at the top level; valid there: "
                             f"{', '.join(LOGICAL_OPERATORS)} (the others go in a key's dict: "
                             f"{', '.join(FIELD_OPERATORS)})")
        elif isinstance(value, Mapping):
            parts.extend(_field(key, value))
        else:
            parts.append(_cond(key, "==", value))
    return parts[0] if len(parts) == 1 and "condition" in parts[0] else _group("and", parts)


def _group(condition: str, filters: list[Form]) -> Form:
    return {"condition": condition, "filters": filters}


def _cond(key: str, op: str, value: Any) -> Form:
    return {"key": key, "op": op, "value": value}


def _dicts(op: str, value: Any) -> list[Any]:
    if not isinstance(value, list | tuple) or not value:
        raise ValueError(f"filter {op} needs a non-empty list of dicts, got {value!r:.60}")
    return list(value)


def _field(key: str, ops: Mapping[str, Any]) -> list[Form]:
    """The conditions of ``{key: {op: value, ...}}`` (all hold)."""
    if not ops:
        raise ValueError(f"filter on {key!r}: an empty operator dict")
    bad = sorted(str(op) for op in ops if op not in FIELD_OPERATORS)
    if bad:
        raise ValueError(f"filter on {key!r}: unknown operator(s) {bad}; valid: "
                         f"{', '.join(FIELD_OPERATORS)}")
    out: list[Form] = []
    for op, value in ops.items():
        if op in _PRESENT:  # as in SQL and Chroma: a missing key (NULL) fails them too
            out += [_cond(key, "exists", True), _cond(key, _SIMPLE[op], value)]
        elif op == "$all" and isinstance(value, list | tuple) and not value:
            out.append(_cond(key, "in", []))  # MongoDB: ``$all: []`` matches nothing
        elif op in _SIMPLE:
            out.append(_cond(key, _SIMPLE[op], value))
        elif op == "$between":
            lo, hi = _bounds(key, value)
            out += [_cond(key, ">=", lo), _cond(key, "<=", hi)]
        elif op == "$exists":  # MongoDB's shell spelling ``$exists: 1`` / ``0`` too
            plain = type(value) is int and value in (0, 1)
            out.append(_cond(key, "exists", bool(value) if plain else value))
        elif op == "$not_contains":
            out += [_cond(key, "exists", True), _group("not", [_cond(key, "contains", value)])]
        elif not isinstance(value, Mapping) or not value:  # $not
            raise ValueError(f"filter on {key!r}: $not needs a non-empty operator dict such "
                             f"as {{'$gt': 1}}, got {value!r:.60}")
        else:
            out.append(_group("not", [_group("and", _field(key, value))]))
    return out


def _bounds(key: str, value: Any) -> tuple[Any, Any]:
    """``$between``'s ``[lo, hi]``: two numbers or two strings (a bool is no number)."""
    where = f"filter on {key!r} ($between)"
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"{where} needs exactly two values [low, high], got {value!r:.60}")
    lo, hi = value
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    if not numbers and not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where} needs two numbers or two strings, got {value!r:.60}")
    return lo, hi
