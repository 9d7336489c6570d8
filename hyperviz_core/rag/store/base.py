"""Backend-neutral values of the store: its error, its counts, a write's outcome.

Every backend (:mod:`.sqlite`, and any added beside it) raises :class:`StoreError` and returns
:class:`StoreStats` / :class:`DocumentWrite`, so callers never see a backend's own types.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy.typing as npt
from pydantic import BaseModel, Field

__all__ = ["DocumentWrite", "StoreError", "StoreStats", "VectorsArg"]

#: precomputed embeddings ``{space: (ids, matrix)}`` given to ``add_document``
VectorsArg = dict[str, tuple[Sequence[str], npt.ArrayLike]]


class StoreError(ValueError):
    """The store file is missing, corrupt, of another format or newer; or a write is invalid."""


class StoreStats(BaseModel):
    """Counts of a store (what ``vizrag stats`` prints)."""

    documents: int
    chunks: int
    entities: int
    relation_hyperedges: int
    theme_hyperedges: int
    key_entities: int
    themes: int = 0
    vectors: dict[str, int] = Field(default_factory=dict)
    embedder: str | None = None
    embedding_dim: int | None = None
    llm_cache_entries: int = 0
    path: str = ""


class DocumentWrite(BaseModel):
    """Outcome of :meth:`HypergraphStore.add_document`."""

    doc_id: str
    status: Literal["added", "replaced", "skipped"]
    chunks: int = 0
    entities_touched: int = 0
    hyperedges_touched: int = 0
    embedded: int = 0
