"""Retrieval that reads only what a query needs from a store with indexed lookups.

:class:`LazyCorpus` stands in for :class:`~.state.Corpus` (which loads both layers, every
chunk and a BM25 index over all of them); what it keeps per store state is the
:class:`~.view.CorpusView` (see there). A store qualifies when it has the lookups
(:class:`~.view.QueryLookups`: the SQLite and PostgreSQL stores) and its full-text
candidates are available (SQLite's FTS5 index, PostgreSQL's postings: made on first use; a
read-only SQLite store without them, a database that refuses them, or another backend uses
:class:`~.state.Corpus`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..store.protocol import StoreProtocol
from .candidates import CandidateIndex
from .layer_index import IndexedLayer
from .lexical import tokens
from .view import CorpusView, QueryLookups

__all__ = ["CorpusView", "LazyCorpus", "QueryLookups", "lazy_corpus_for", "prepare_lazy"]

Generation = tuple[int, int, int]


class LazyCorpus:
    """What the stages read, from indexed lookups (the interface of :class:`~.state.Corpus`)."""

    def __init__(self, store: QueryLookups, view: CorpusView) -> None:
        self.store = store
        self.view = view
        self.matrices: dict[str, tuple[list[str], npt.NDArray[np.float32]]] = {}
        self.matrices_epochs: dict[str, int] = {}  # as in :class:`.state.Corpus`

    def __len__(self) -> int:
        return self.view.n

    def layer(self, layer: Literal["bottom", "top"], keys: Iterable[str], hops: int
              ) -> IndexedLayer:
        """The layer for ``expand``/``induced``: structure in memory, objects by lookup."""
        return IndexedLayer(self.view.layer_index(layer), self.store, self.view.source_ids)

    def known_entities(self, keys: Iterable[str]) -> set[str]:
        """The keys of ``keys`` that are entities of the bottom layer."""
        return set(self.store.entity_info(keys))

    def entity_names(self, keys: Iterable[str]) -> dict[str, str]:
        """Entity key → display name."""
        return {k: v[0] for k, v in self.store.entity_info(keys).items()}

    def entity_texts(self, keys: Iterable[str]) -> dict[str, str]:
        """Entity key → the text its vector is made of."""
        return self.store.entity_texts(keys)

    def theme_texts(self, hids: Iterable[str]) -> dict[str, str]:
        """Theme hyperedge id → the text its vector is made of."""
        return self.store.theme_texts(hids)

    def known_themes(self, hids: Iterable[str]) -> set[str]:
        """The ids of ``hids`` that are theme hyperedges."""
        return {h for h, kind in self.store.hyperedge_kinds(hids).items() if kind == "theme"}

    def theme_members(self, hids: Iterable[str]) -> dict[str, list[str]]:
        """Theme hyperedge id → member keys."""
        return self.store.hyperedge_members(hids)

    def link_titles(self, text: str) -> list[str]:
        """Document-title entities named verbatim by ``text``."""
        return self.view.link(text)

    def rank_index(self) -> CandidateIndex:
        """A fresh chunk index for one query."""
        return CandidateIndex(self.store, self.view)


def lazy_corpus_for(store: StoreProtocol, cached: LazyCorpus | None,
                    generation: Generation | None, *, prepare: bool = False
                    ) -> tuple[LazyCorpus | None, Generation | None]:
    """The lazy corpus of ``store`` (``cached`` when the store did not change), or None when
    the store cannot serve lazy retrieval (for a query, not when ``prepare``: also when
    making its full-text index would wait for another process's write)."""
    if not isinstance(store, QueryLookups):
        return None, None
    gen = store.query_generation()
    if cached is not None and gen == generation:
        return cached, gen  # unchanged store: its full-text index is still there
    # ``gen`` was read before the index is made ready: a write committed meanwhile (its
    # chunks may lack PostgreSQL postings) moves the generation past it, so the query
    # runs again and the next call makes their postings (re-reading it here would hide it)
    if not store.lexical_ready(tokens, prepare=prepare):
        return None, None
    return LazyCorpus(store, CorpusView(store)), gen


def prepare_lazy(store: StoreProtocol) -> LazyCorpus | None:
    """The lazy corpus of ``store`` with everything it keeps per store state built now
    (:meth:`.view.CorpusView.prepare`): a writable SQLite store keeps its full-text index,
    BM25 lengths and query arrays for later processes. None when ``store`` cannot be read
    lazily (nothing is built)."""
    corpus, _ = lazy_corpus_for(store, None, None, prepare=True)
    if corpus is not None:
        corpus.view.prepare()
    return corpus
