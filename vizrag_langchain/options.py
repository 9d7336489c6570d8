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

from collections.abc import Iterable, Mapping
from typing import Any

from hyperviz_core.rag.engine_args import refuse_unknown_options

__all__ = ["CALL_OPTIONS", "NO_FILTER", "check_flag", "check_k", "refuse_unknown",
           "unpack_search_kwargs"]

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


#: why ``filter=`` is refused where it is no option (e.g. ``HyperRAGVisualRetriever``:
#: ``VizRAGRetriever`` and ``VizRAGVectorStore`` take one)
NO_FILTER = ("this retriever has no metadata filter (VizRAGRetriever and VizRAGVectorStore "
             "take filter={...}; or filter the documents it returns)")


def refuse_unknown(given: Iterable[str], known: Iterable[str], where: str) -> None:
    """A ``TypeError`` naming the options of ``given`` that are not ``known`` (with the
    closest known one: ``top_k`` → ``k``, the name LangChain retrievers use).

    >>> try:
    ...     refuse_unknown(["top_k"], CALL_OPTIONS, "invoke()")
    ... except TypeError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    invoke() got an unknown option 'top_k' (did you mean 'k'?); its options: k, mode, ...
    """
    given = list(given)
    if "filter" in given and "filter" not in set(known):
        raise TypeError(f"{where} got filter=: {NO_FILTER}")
    refuse_unknown_options(given, known, where, aliases=_K_ALIASES)


def unpack_search_kwargs(options: Mapping[str, Any], where: str, *,
                         filter_ok: bool = False) -> dict[str, Any]:
    """``options`` with ``search_kwargs`` (a vector-store retriever's name for the search
    options, ``as_retriever(search_kwargs={"k": 2})``) spread into the retriever's own: only
    :data:`CALL_OPTIONS` are taken, and ``filter`` where the retriever has one
    (``filter_ok``; others are a ``TypeError`` naming them), and one given both ways with
    two values is refused.

    >>> unpack_search_kwargs({"store": "s", "search_kwargs": {"k": 2}}, "VizRAGRetriever")
    {'store': 's', 'k': 2}
    >>> try:
    ...     unpack_search_kwargs({"search_kwargs": {"score_threshold": 0.5}}, "VizRAGRetriever")
    ... except TypeError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    VizRAGRetriever search_kwargs got an unknown option 'score_threshold'; its options: k, ...
    """
    if "search_kwargs" not in options:
        return dict(options)
    out = {k: v for k, v in options.items() if k != "search_kwargs"}
    search = options["search_kwargs"]
    if search is None:
        return out
    known = (*CALL_OPTIONS, "filter") if filter_ok else CALL_OPTIONS
    if not isinstance(search, Mapping):
        raise TypeError(f"{where} search_kwargs must be a dict of options "
                        f"({', '.join(known)}), got {type(search).__name__}")
    refuse_unknown(search, known, f"{where} search_kwargs")
    for name, value in search.items():
        if name in out and out[name] != value:
            raise TypeError(f"{where} got {name!r} twice: {out[name]!r} and search_kwargs "
                            f"{value!r}; give it once")
        out[name] = value
    return out


#: other frameworks' names of ``k``
_K_ALIASES = {"top_k": "k", "similarity_top_k": "k", "n": "k"}
