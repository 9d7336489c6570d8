"""Does a store backend behave as the built-in ones? A conformance check for your own store.

``isinstance(store, StoreProtocol)`` checks only that the members exist. For a backend of
your own (a proxy, a cloud database ...), :func:`store_differences` indexes a small fixed
corpus with the engine into a fresh store of yours and into the built-in SQLite store,
queries both, deletes a document from both, and lists every observable difference: the
stats, both hypergraph layers entity by entity, documents, chunks, themes, entity vectors
(to 6 places), the passages and scores of three queries, and what ``check()`` reports. An
empty list means the backend conforms. It is what the test suite checks the PostgreSQL
backend against (``tests/test_store_contract.py``), for a store object.

Example:
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> store_differences(lambda folder: HypergraphStore(folder))
    []
    >>> store_differences(lambda folder: object())  # doctest: +ELLIPSIS
    ['object lacks ... of StoreProtocol']
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .engine import VizRAG
from .hooks import error_text
from .store import HypergraphStore, StoreProtocol
from .store.protocol import not_a_store
from .types import Document

__all__ = ["CORPUS", "QUERIES", "store_contents", "store_differences"]

#: what the check indexes: titled documents with metadata, entities shared across them
CORPUS: tuple[Document, ...] = (
    Document(id="curie", title="Marie Curie", metadata={"year": 1903, "field": "physics"},
             text="Marie Curie married Pierre Curie in Paris. Marie Curie and Pierre Curie "
                  "shared the Nobel Prize in Physics with Henri Becquerel."),
    Document(id="radium", title="Radium", metadata={"year": 1898, "field": "chemistry"},
             text="Radium was discovered by Marie Curie and Pierre Curie in Paris in 1898. "
                  "The Radium Institute in Paris was founded later."),
    Document(id="einstein", title="Albert Einstein", metadata={"year": 1921},
             text="Albert Einstein worked at the patent office in Bern. Albert Einstein "
                  "received the Nobel Prize in Physics in 1921."),
    Document(id="bern", title="Bern", metadata={"field": "geography"},
             text="Bern is the capital of Switzerland. The Aare river flows through Bern."),
)

#: what the check asks, before and after deleting ``radium``
QUERIES: tuple[str, ...] = (
    "Who discovered radium with Marie Curie?",
    "Where did the Nobel laureate Albert Einstein work?",
    "Which river flows through the Swiss capital?",
)

#: differences listed at most
LISTED = 20


def store_differences(make_store: Callable[[Path], Any], *,
                      listed: int = LISTED) -> list[str]:
    """How a store of ``make_store(folder)`` (a fresh, empty store kept under ``folder``,
    or anywhere else it likes) behaves otherwise than the built-in SQLite store, at most
    ``listed`` differences, each naming the phase and what differs; empty when it conforms.
    Both stores are closed at the end. An exception of your store is a difference, named
    with its phase."""
    with tempfile.TemporaryDirectory(prefix="vizrag-conformance-") as tmp:
        try:
            got = make_store(Path(tmp) / "candidate")
        except Exception as exc:
            return [f"make_store failed: {error_text(exc)}"]
        if not isinstance(got, StoreProtocol):
            return [not_a_store(got)]
        ref = HypergraphStore(Path(tmp) / "reference")
        try:
            return list(_compare(ref, got))[:listed]
        finally:
            ref.close()
            got.close()


def _compare(ref: StoreProtocol, got: StoreProtocol) -> Iterator[str]:
    for phase, act in (("after indexing", _index), ("after deleting 'radium'", _delete)):
        act(ref)
        try:
            act(got)
            seen = _observed(got)
        except Exception as exc:
            yield f"{phase}: {error_text(exc)}"
            return
        yield from (f"{phase}: {d}" for d in _diff(_observed(ref), seen, ""))


def _index(store: StoreProtocol) -> None:
    VizRAG(store, show_progress=False).insert(list(CORPUS))


def _delete(store: StoreProtocol) -> None:
    VizRAG(store, show_progress=False).delete("radium")


def store_contents(store: StoreProtocol) -> dict[str, Any]:
    """Everything observable of ``store``'s contents, as plain data (no paths, no timings):
    stats, both layers, documents, chunks, themes, entity vectors to 6 places and the theme
    hyperedges' chunks. Two stores holding the same corpus give equal dicts."""
    ids, mat = store.vectors("entity")
    return {
        "stats": store.stats().model_dump(exclude={"path"}),
        "bottom": store.bottom().model_dump(),
        "top": store.top().model_dump(),
        "documents": [d.model_dump() for d in store.documents()],
        "chunks": [c.model_dump() for c in store.chunks()],
        "themes": [t.model_dump() for t in store.themes()],
        "entity_vectors": {i: np.round(v, 6).tolist() for i, v in zip(ids, mat, strict=True)},
        "theme_chunks": store.theme_hyperedge_chunks(),
    }


def _observed(store: StoreProtocol) -> dict[str, Any]:
    """:func:`store_contents`, the passages and scores of :data:`QUERIES`, and
    ``check()``."""
    rag = VizRAG(store, show_progress=False)
    answers = {}
    for query in QUERIES:
        res = rag.retrieve(query, render=False)
        answers[query] = [(c.chunk_id, round(c.score, 6)) for c in res.chunks]
    return {**store_contents(store), "retrieve": answers, "check": store.check()}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _diff(want: Any, have: Any, where: str) -> Iterator[str]:
    """Where ``have`` differs from ``want`` (paths like ``bottom.entities['radium']``)."""
    if isinstance(want, dict) and isinstance(have, dict):
        for key in sorted(set(want) | set(have), key=repr):
            at = f"{where}[{key!r}]" if where else str(key)
            if key not in have:
                yield f"{at} is missing"
            elif key not in want:
                yield f"{at} is there, {_short(have[key])}, but not in the built-in store"
            else:
                yield from _diff(want[key], have[key], at)
    elif isinstance(want, list | tuple) and isinstance(have, list | tuple) \
            and len(want) == len(have):
        for i, (a, b) in enumerate(zip(want, have, strict=True)):
            yield from _diff(a, b, f"{where}[{i}]")
    elif want != have or type(want) is not type(have):
        yield f"{where} is {_short(have)}, the built-in store's {_short(want)}"
