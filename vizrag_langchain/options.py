"""The checks of the retrievers' options, shared by the constructor, ``configurable_fields``
values and each call, so all three are equally strict (no pydantic lax coercion: ``k=True``,
``k=2.0``, ``k="3"`` or ``include_image="yes"`` are a ``TypeError``).

Example:
    >>> check_k(3)
    3
    >>> try:
    ...     check_flag("include_image", "yes")
    ... except TypeError as exc:
    ...     print(exc)
    include_image must be True or False, got 'yes'
"""

from __future__ import annotations

__all__ = ["check_flag", "check_k"]


def check_k(k: object) -> int:
    """``k`` if an integer of at least 1 (``TypeError`` for a bool, float or string,
    ``ValueError`` below 1)."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an integer, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return k


def check_flag(name: str, value: object) -> bool:
    """``value`` if True or False, else a ``TypeError`` naming option ``name``."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value
