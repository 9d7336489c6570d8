"""Python's comparison of a bool with a number, for filters written as LlamaIndex writes them.

The engine's filters compare a bool only with a bool (JSON's and PGVector's reading: ``true``
is not ``1``). LlamaIndex's ``MetadataFilter`` cannot hold a bool value, so ``published ==
1`` is how its users ask for ``{"published": True}``, and LlamaIndex's own vector store
answers as Python does (``True == 1``, ``False < 1``). :func:`python_bools` rewrites a
condition on a number so that a bool metadata value compares as the number it is; other
values compare as before.

Example:
    >>> from hyperviz_core.rag.retrieve.filters import MetadataCondition
    >>> f = python_bools(MetadataCondition(key="published", op="==", value=1))
    >>> f.matches({"published": True}), f.matches({"published": 1}), f.matches({"published": 0})
    (True, True, False)
    >>> g = python_bools(MetadataCondition(key="published", op="!=", value=0))
    >>> g.matches({"published": False}), g.matches({"published": True}), g.matches({})
    (False, True, True)
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from .filters import ChunkFilter, MetadataCondition

__all__ = ["python_bools"]

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
    "<": operator.lt, "<=": operator.le,
    "in": lambda have, values: any(have == v for v in values),
    "nin": lambda have, values: all(have != v for v in values),
}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def python_bools(cond: MetadataCondition) -> MetadataCondition | ChunkFilter:
    """``cond`` with a bool metadata value compared as Python compares it with the number(s)
    of ``cond.value`` (``==``, ``!=``, ``>``, ``>=``, ``<``, ``<=``, ``in``, ``nin``);
    ``cond`` itself for other operators and values. A missing key is read as by ``cond``."""
    compare = _COMPARE.get(cond.op)
    values = cond.value if isinstance(cond.value, list) else [cond.value]
    if compare is None or not any(_number(v) for v in values):
        return cond
    holds = {b: compare(b, cond.value) for b in (False, True)}
    if cond.op in ("!=", "nin"):  # ``cond`` passes every bool: take out those it fails
        failed = [b for b, ok in holds.items() if not ok]
        extra = MetadataCondition(key=cond.key, op="nin", value=failed)
        return ChunkFilter(filters=[cond, extra]) if failed else cond
    passed = [b for b, ok in holds.items() if ok]  # ``cond`` passes no bool: add those
    extra = MetadataCondition(key=cond.key, op="in", value=passed)
    return ChunkFilter(condition="or", filters=[cond, extra]) if passed else cond
