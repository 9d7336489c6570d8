"""Backend-neutral pieces of a batched document write (``add_documents``) and delete
(``delete_documents``).

A batch is written in one transaction with one rebuild of the merged rows, and must end
exactly as writing its documents one by one would. Two documents of a batch with the same
id would make the second a replacement of the first: :func:`split_repeats` cuts the batch
there (each part is its own transaction). Precomputed vectors of the documents are
concatenated (:func:`merge_vectors`, a later document's vector of an id wins, as a later
``add_document`` would), and :func:`vector_changes` lists what to embed and what to drop.
A batched delete checks its ids first (:func:`delete_ids`) and reports what its one
rebuild removed (:func:`delete_counts`).

Example:
    >>> from hyperviz_core.rag.types import Document
    >>> items = [DocumentInput(doc=Document(id=i, text=i), chunks=[]) for i in "abac"]
    >>> [[it.doc.id for it in part] for part in split_repeats(items)]
    [['a', 'b'], ['a', 'c']]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..types import Chunk
from ..vectors import as_matrix
from .base import DocumentInput, StoreError, VectorsArg, chunk_text

__all__ = ["NO_DELETE", "batched", "delete_counts", "delete_ids", "merge_vectors",
           "split_repeats", "vector_changes"]


def batched(items: Iterable[DocumentInput], max_documents: int, max_items: int
            ) -> Iterator[list[DocumentInput]]:
    """Consecutive batches of ``items`` for ``add_documents``: at most ``max_documents``
    documents, closed as soon as they hold ``max_items`` entities and hyperedges (what a
    batch keeps in memory until it is written).

    >>> from hyperviz_core.rag.types import Document
    >>> items = [DocumentInput(doc=Document(id=i, text=i), chunks=[]) for i in "abcde"]
    >>> [[it.doc.id for it in b] for b in batched(items, 2, 100)]
    [['a', 'b'], ['c', 'd'], ['e']]
    """
    batch: list[DocumentInput] = []
    held = 0
    for item in items:
        batch.append(item)
        held += sum(len(ex.entities) + len(ex.hyperedges) for ex in item.extractions)
        if len(batch) >= max_documents or held >= max_items:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def split_repeats(items: Iterable[DocumentInput]) -> list[list[DocumentInput]]:
    """Consecutive parts of ``items`` in which no document id repeats."""
    parts: list[list[DocumentInput]] = [[]]
    seen: set[str] = set()
    for item in items:
        if item.doc.id in seen:
            parts.append([])
            seen = set()
        parts[-1].append(item)
        seen.add(item.doc.id)
    return [p for p in parts if p]


def merge_vectors(items: Sequence[DocumentInput]) -> VectorsArg | None:
    """The precomputed vectors of all ``items`` as one ``{space: (ids, matrix)}``.

    Ids keep their input order, so where two documents give a vector for one id the later
    one is used (the store's planner lets later rows win).
    """
    ids: dict[str, list[str]] = {}
    mats: dict[str, list[Any]] = {}
    for item in items:
        for space, (s_ids, matrix) in (item.vectors or {}).items():
            if not len(s_ids):
                continue
            mat = as_matrix(matrix)
            if mat.shape[0] != len(s_ids):
                raise StoreError(f"document {item.doc.id!r}: {space} vectors: {len(s_ids)} "
                                 f"ids, {mat.shape[0]} rows")
            ids.setdefault(space, []).extend(s_ids)
            mats.setdefault(space, []).append(mat)
    if not ids:
        return None
    return {space: (ids[space], np.vstack(mats[space])) for space in sorted(ids)}


def vector_changes(
    rebuilt: Any, chunks: Sequence[Chunk], removed_chunks: Iterable[str]
) -> tuple[dict[str, dict[str, str]], dict[str, list[str]]]:
    """Texts to (re-)embed and ids to drop per vector space after a write.

    ``rebuilt`` is the :class:`~.sqlite.merge.Rebuilt` of the write, ``chunks`` every chunk
    written, ``removed_chunks`` the chunk ids of replaced documents.
    """
    texts = dict(rebuilt.texts)
    texts["chunk"] = {c.id: chunk_text(c) for c in chunks}
    dead = dict(rebuilt.dead)
    dead["chunk"] = sorted(set(removed_chunks) - {c.id for c in chunks})
    return texts, dead


def delete_ids(doc_ids: Iterable[str]) -> list[str]:
    """The distinct document ids of a ``delete_documents`` call, in their first order;
    :class:`TypeError` naming the first id that is not a string (or for a bare string,
    which is no list of ids), before anything is deleted.

    >>> delete_ids(["b", "a", "b"])
    ['b', 'a']
    """
    if isinstance(doc_ids, str | bytes):
        raise TypeError(f"delete_documents() takes an iterable of document ids, not the "
                        f"single {type(doc_ids).__name__} {doc_ids!r} (wrap it in a list)")
    try:
        ids = list(doc_ids)
    except TypeError:
        raise TypeError(f"delete_documents() takes a list of document ids, got "
                        f"{type(doc_ids).__name__} {doc_ids!r:.80} (nothing was deleted)"
                        ) from None
    for bad in ids:
        if not isinstance(bad, str):
            raise TypeError(f"document ids must be strings, not {type(bad).__name__} {bad!r}")
    return list(dict.fromkeys(ids))


def delete_counts(documents: int, removed_chunks: Sequence[str], rebuilt: Any
                  ) -> tuple[dict[str, list[str]], dict[str, int]]:
    """The ids to drop per vector space and the counts ``delete_documents`` returns, after
    deleting ``documents`` documents whose chunks were ``removed_chunks`` and rebuilding
    what they touched (``rebuilt``: a :class:`~.sqlite.rebuild.Rebuilt`)."""
    dead = dict(rebuilt.dead)
    dead["chunk"] = list(removed_chunks)
    counts = {"documents": documents, "chunks": len(removed_chunks),
              "entities": len(dead["entity"]), "relation_hyperedges": len(dead["hyperedge"]),
              "theme_hyperedges": len(dead["theme"]),
              "updated_entities": len(rebuilt.texts["entity"])}
    return dead, counts


#: what ``delete_documents`` returns when nothing was deleted
NO_DELETE = {"documents": 0, "chunks": 0, "entities": 0, "relation_hyperedges": 0,
             "theme_hyperedges": 0, "updated_entities": 0}
