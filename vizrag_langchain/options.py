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

from collections.abc import Iterable

from hyperviz_core.rag.engine_args import refuse_unknown_options

__all__ = ["CALL_OPTIONS", "check_flag", "check_k", "refuse_unknown"]

#: what ``invoke(query, ...)`` takes per call
CALL_OPTIONS: tuple[str, ...] = ("k", "mode", "hops", "include_image")


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


def refuse_unknown(given: Iterable[str], known: Iterable[str], where: str) -> None:
    """A ``TypeError`` naming the options of ``given`` that are not ``known`` (with the
    closest known one: ``top_k`` → ``k``, the name LangChain retrievers use).

    >>> try:
    ...     refuse_unknown(["top_k"], CALL_OPTIONS, "invoke()")
    ... except TypeError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    invoke() got an unknown option 'top_k' (did you mean 'k'?); its options: k, mode, ...
    """
    refuse_unknown_options(given, known, where, aliases=_K_ALIASES)


#: other frameworks' names of ``k``
_K_ALIASES = {"top_k": "k", "similarity_top_k": "k", "n": "k"}
