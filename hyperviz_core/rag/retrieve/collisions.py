"""Vector search without the offline embedder's hash collisions.

:class:`~..providers.offline.HashingEmbedder` (the offline default) hashes every feature into
one of ``dim`` (512) signed buckets, so a word shares its bucket and sign with about one
word in a thousand: the entity *Ada* scored 0.61 for the keyword "Iron Maiden" ("w:ada" and
"w:iron" fall in bucket 381) and came into the view, linked to nothing shown. On the
MuSiQue bench store, of the 969 top-3 entity hits of the 47 dev questions' keywords, 646
had a similarity without collisions under half the hashed one, and 539 shared no feature
with the keyword at all; of the 969 top-3 theme hits, 342 shared none.

:func:`checked_search` scores each hit of the vector search again by the cosine of the texts
the two vectors are made of — the query's, and the entity's ``name: description`` or the
theme's description, member names and keywords, as the store embeds them
(:func:`~..store.sqlite.merge.entity_text`, :func:`~..store.sqlite.merge.hyperedge_text`) —
without hash collisions (:meth:`~..providers.offline.HashingEmbedder.cosine_to`), and keeps
those that share a feature with the query, best first (ties by id). Another embedder's hits
are returned as searched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy.typing as npt

from ..providers.offline import HashingEmbedder
from .search import search

if TYPE_CHECKING:
    from .state import RetrievalState

__all__ = ["checked_search"]


def checked_search(st: RetrievalState, space: Literal["entity", "theme"],
                   texts: Sequence[str], vectors: npt.ArrayLike, k: int
                   ) -> list[list[tuple[str, float]]]:
    """Up to ``k`` entities or themes most similar to each of ``texts`` (``vectors``: their
    embeddings), as ``(id, cosine)`` best first: for the hashed offline embedder the
    cosines without collisions, hits that share nothing with the text left out (see the
    module docstring); else the vector search's."""
    found = search(st.store, st.corpus, space, vectors, k)
    emb = st.embedder
    if not isinstance(emb, HashingEmbedder):
        return found
    ids = sorted({hit for hits in found for hit, _ in hits})
    stored = (st.corpus.entity_texts(ids) if space == "entity"
              else st.corpus.theme_texts(ids))
    out: list[list[tuple[str, float]]] = []
    for text, hits in zip(texts, found, strict=True):
        query = emb.exact_features(text)
        scored = sorted((-emb.cosine_to(query, stored[hit]), hit)
                        for hit, _ in hits if hit in stored)
        out.append([(hit, -neg) for neg, hit in scored if neg < 0])
    return out
