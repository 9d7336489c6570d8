"""The loaded corpus read from one store state, and retrievers made safe to fork.

:func:`read_loaded` reads what the loaded :class:`~.state.Corpus` is made of: both layers,
every chunk, the titles and the search copies of the vector spaces a query needs, in one read
snapshot (the store's ``read_snapshot()``), so a query on it reads nothing else from the
store and its result is one state's while other processes write (:func:`fill_spaces` adds a
space later only while the store is still at that state). It may not import :mod:`.state`,
:mod:`.search` or :mod:`.stages` (they import it): :class:`SpaceCopies` brings the search
functions it needs.

:func:`fork_safe` gives a retriever a new stage lock in a child forked while another thread
held it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ...model import Hypergraph
from ..store.protocol import LocalReads, StoreProtocol
from ..types import Chunk
from .config import RetrievalConfig

__all__ = ["LoadedState", "SpaceCopies", "fill_spaces", "fork_safe", "generation_of",
           "one_state", "query_spaces", "read_loaded"]

Generation = tuple[int, int, int]


def one_state(store: StoreProtocol, hold: bool = True
              ) -> contextlib.AbstractContextManager[None]:
    """The store's ``read_snapshot()`` (every read inside sees one committed state), or
    nothing for a store without one (or when not ``hold``)."""
    snapshot = getattr(store, "read_snapshot", None)
    return snapshot() if hold and callable(snapshot) else contextlib.nullcontext()


def generation_of(store: StoreProtocol) -> Generation | None:
    """The store's ``query_generation()``, or None for a store without one."""
    generation = getattr(store, "query_generation", None)
    return generation() if callable(generation) else None


def query_spaces(cfg: RetrievalConfig, stages: Iterable[tuple[str, Any]], embedder: Any
                 ) -> tuple[str, ...]:
    """The vector spaces a query of ``cfg`` running ``stages`` (its mode's, ``(name, stage)``
    pairs) searches: ``theme`` in the ``themes`` stage, ``entity`` in ``bottom_entities``,
    ``chunk`` in ``naive`` mode or when the chunk-vector weight counts (as ``rank``
    decides)."""
    names = {name for name, _ in stages}
    vector = cfg.mode == "naive" or cfg.weights.for_embedder(embedder).vector
    return tuple(space for space, used in (
        ("theme", "themes" in names), ("entity", "bottom_entities" in names),
        ("chunk", bool(vector and cfg.chunk_vector_k))) if used)


Matrices = dict[str, tuple[list[str], npt.NDArray[np.float32]]]


class SpaceCopies(NamedTuple):
    """How the loaded corpus gets the search copy of a vector space (the functions of
    :mod:`.search`, which this module may not import)."""

    replaced: Callable[[StoreProtocol, str], object]  # not None: an index answers, no copy
    read: Callable[[StoreProtocol, str], tuple[list[str], npt.NDArray[np.float32]]]


class LoadedState(NamedTuple):
    """What the loaded corpus is made of, read from one store state (:func:`read_loaded`)."""

    bottom: Hypergraph
    top: Hypergraph
    chunks: list[Chunk]
    titles: dict[str, str]
    matrices: Matrices
    made_at: dict[str, int]
    generation: Generation | None


def _missing(store: StoreProtocol, matrices: Matrices, made_at: dict[str, int],
             spaces: Iterable[str], copies: SpaceCopies) -> list[str]:
    epochs = getattr(store, "vector_index_epochs", {})
    return [s for s in spaces if (s not in matrices or made_at.get(s, 0) != epochs.get(s, 0))
            and copies.replaced(store, s) is None]


def _read_spaces(store: StoreProtocol, matrices: Matrices, made_at: dict[str, int],
                 spaces: Iterable[str], copies: SpaceCopies) -> None:
    epochs = getattr(store, "vector_index_epochs", {})
    for space in _missing(store, matrices, made_at, spaces, copies):
        matrices[space] = copies.read(store, space)
        made_at[space] = epochs.get(space, 0)


def read_loaded(store: StoreProtocol, spaces: Iterable[str], copies: SpaceCopies
                ) -> LoadedState:
    """Both layers, every chunk, the document titles and the search copies of ``spaces``,
    read in one read snapshot (:func:`one_state`), with that state's generation."""
    matrices: Matrices = {}
    made_at: dict[str, int] = {}
    with one_state(store):
        generation = generation_of(store)
        bottom, top = store.bottom(), store.top()
        titles = (store.document_titles() if isinstance(store, LocalReads)
                  else {d.id: d.title for d in store.documents()})
        chunks = store.chunks()
        _read_spaces(store, matrices, made_at, spaces, copies)
    return LoadedState(bottom, top, chunks, titles, matrices, made_at, generation)


def fill_spaces(store: StoreProtocol, matrices: Matrices, made_at: dict[str, int],
                spaces: Iterable[str], copies: SpaceCopies, generation: Generation | None
                ) -> bool:
    """Whether a loaded corpus read at ``generation`` has the search copies of ``spaces``
    (``matrices``, ``made_at``): True when it had them, or when the store is still at
    ``generation`` and those it lacked were read now (in one snapshot); False when the
    store moved on (the corpus must be read again, with them)."""
    spaces = tuple(spaces)
    if not _missing(store, matrices, made_at, spaces, copies):
        return True
    with one_state(store):
        if generation_of(store) != generation:  # (a store without generations: None)
            return False
        _read_spaces(store, matrices, made_at, spaces, copies)
    return True


#: objects whose ``_stages_lock`` a forked child replaces (:func:`fork_safe`)
_LOCKED: weakref.WeakSet[Any] = weakref.WeakSet()


def fork_safe(owner: Any) -> None:
    """Give ``owner`` (a retriever) a new ``_stages_lock`` in a child forked from this
    process: another thread of the parent may have held it at the fork (a query in
    progress), and that thread does not exist in the child, so it would never be freed."""
    _LOCKED.add(owner)


def _after_fork() -> None:
    for owner in list(_LOCKED):
        owner._stages_lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
