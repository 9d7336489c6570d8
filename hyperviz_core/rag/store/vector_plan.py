"""Backend-neutral planning of a write's embeddings: which vectors to store, which to compute.

Inside a document transaction a backend knows, per vector space, the texts of the live
items that changed (``texts``). :func:`plan_space` decides each item's vector: a precomputed
one given by the caller, else the stored one when its text hash is unchanged (nothing to
write), else a fresh embedding from ``embedder``. Backends only supply the lookup of stored
text hashes and the bookkeeping of the embedder's dimension.

Example:
    >>> import numpy as np
    >>> class Two:
    ...     name, dim = "two", 2
    ...     def embed(self, texts): return np.ones((len(texts), 2), dtype=np.float32)
    >>> plan = plan_space("entity", {"a": "alpha", "b": "beta"}, None, Two(),
    ...                   stored_hashes=lambda ids: {}, record_dim=lambda dim, name: None)
    >>> plan.ids, plan.matrix.shape, plan.embedded
    (['a', 'b'], (2, 2), 2)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..types import content_hash
from ..vectors import as_matrix
from .base import StoreError, VectorsArg

__all__ = ["SpacePlan", "plan_space", "plan_space_blocks", "unchanged_ids"]

#: items embedded at a time by :func:`plan_space_blocks`
BLOCK = 128


@dataclass
class SpacePlan:
    """Vectors to write for one space: ``ids`` (sorted) with their rows and text hashes."""

    ids: list[str] = field(default_factory=list)
    matrix: npt.NDArray[np.float32] = field(
        default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    hashes: dict[str, str] = field(default_factory=dict)
    embedded: int = 0


def unchanged_ids(texts: Mapping[str, str], stored: Mapping[str, str]) -> list[str]:
    """The ids of ``texts`` (id → the text its vector embeds), in order, whose ``stored``
    text hash (id → hash) is their text's: a stored vector of the same text.

    >>> unchanged_ids({"a": "alpha", "b": "beta"}, {"a": content_hash("alpha"), "b": "x"})
    ['a']
    """
    return [i for i, t in texts.items() if i in stored and stored[i] == content_hash(t)]


def _stale(live: dict[str, str], hashes: dict[str, str], given: dict[str, Any],
           stored_hashes: Callable[[list[str]], dict[str, str]]) -> list[str]:
    """The live ids, sorted, without a given vector whose stored text hash is not theirs."""
    todo = sorted(i for i in live if i not in given)
    stored = stored_hashes(todo) if todo else {}
    return [i for i in todo if stored.get(i) != hashes[i]]


def _check_shape(space: str, mat: npt.NDArray[np.float32], rows: int, embedder: Any) -> None:
    """Refuse vectors that are not ``rows`` rows of the embedder's ``dim`` numbers (an
    embedder that broke its contract must not leave them in the store)."""
    name = str(getattr(embedder, "name", "") or "the embedder")
    if mat.shape[0] != rows:
        raise StoreError(f"{space} vectors: {name} returned {mat.shape[0]} vectors for "
                         f"{rows} texts")
    dim = getattr(embedder, "dim", None) if embedder is not None and rows else None
    if isinstance(dim, int) and mat.shape[1] != dim:
        raise StoreError(f"{space} vectors of dimension {mat.shape[1]}, but {name} has "
                         f"dimension {dim}")


def _embed(embedder: Any, live: dict[str, str], ids: list[str],
           record_dim: Callable[[int, str], None], space: str = "") -> npt.NDArray[np.float32]:
    """The texts of ``ids`` embedded (and the embedder's dimension recorded)."""
    mat = as_matrix(embedder.embed([live[i] for i in ids]))
    _check_shape(space, mat, len(ids), embedder)
    record_dim(int(mat.shape[1]), str(getattr(embedder, "name", "")))
    return mat


def plan_space(
    space: str,
    live: dict[str, str],
    given: VectorsArg | None,
    embedder: Any,
    *,
    stored_hashes: Callable[[list[str]], dict[str, str]],
    record_dim: Callable[[int, str], None],
) -> SpacePlan:
    """Decide the vectors of the live items ``{id: text}`` of ``space`` (see module doc)."""
    hashes = {i: content_hash(t) for i, t in live.items()}
    rows: dict[str, npt.NDArray[np.float32]] = {}
    if given and space in given:
        g_ids, g_mat = given[space]
        mat = as_matrix(g_mat) if len(g_ids) else np.zeros((0, 0), np.float32)
        if mat.shape[0] != len(g_ids):
            raise StoreError(f"{space} vectors: {len(g_ids)} ids, {mat.shape[0]} rows")
        if len(g_ids):
            _check_shape(space, mat, len(g_ids), embedder)
            record_dim(int(mat.shape[1]), str(getattr(embedder, "name", "")))
        rows.update({i: mat[n] for n, i in enumerate(g_ids) if i in live})
    stale = _stale(live, hashes, rows, stored_hashes)
    embedded = 0
    if stale and embedder is not None:
        fresh = _embed(embedder, live, stale, record_dim, space)
        rows.update({i: fresh[n] for n, i in enumerate(stale)})
        embedded = len(stale)
    if not rows:
        return SpacePlan(embedded=embedded)
    ids = sorted(rows)
    if embedded == len(ids):  # all embedded now, in sorted order: no second copy
        matrix = fresh
    else:
        matrix = np.stack([np.asarray(rows[i], dtype=np.float32) for i in ids])
    return SpacePlan(ids=ids, matrix=matrix, hashes={i: hashes[i] for i in ids},
                     embedded=embedded)


def plan_space_blocks(
    space: str,
    live: dict[str, str],
    embedder: Any,
    *,
    stored_hashes: Callable[[list[str]], dict[str, str]],
    record_dim: Callable[[int, str], None],
    block: int = BLOCK,
) -> Iterator[SpacePlan]:
    """:func:`plan_space` without given vectors, as consecutive plans of at most ``block``
    items: each block is embedded only when the caller reaches it, so a write whose
    vectors nobody keeps in memory holds one block of them at a time. The blocks together
    are the one plan :func:`plan_space` returns (same ids in the same order)."""
    hashes = {i: content_hash(t) for i, t in live.items()}
    stale = _stale(live, hashes, {}, stored_hashes)
    if embedder is None:
        return
    for lo in range(0, len(stale), block):
        ids = stale[lo : lo + block]
        mat = _embed(embedder, live, ids, record_dim, space)
        yield SpacePlan(ids=ids, matrix=mat, hashes={i: hashes[i] for i in ids},
                        embedded=len(ids))
        del mat  # not alive while the next block is embedded
