"""Assembling the result: ranked chunks and the retrieved entities/hyperedges with their
visual IDs (bottom layer first, then top-layer-only entities and the themes).

The entities and hyperedges are built with ``model_construct``: every field comes from the
store's validated objects, and validating again cost a query on a large store a few
milliseconds (a hub entity's ``source_ids`` hold thousands of chunk ids, each checked).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ..result import RankedChunk, RetrievedEntity, RetrievedHyperedge
from .rank import RankIndex, ScoredChunk
from .state import RetrievalState

__all__ = ["collect", "ranked_chunks"]


def ranked_chunks(index: RankIndex, ranked: Sequence[ScoredChunk]) -> list[RankedChunk]:
    """:class:`RankedChunk` per scored position of ``index``, rank 1 first."""
    out = []
    for r, sc in enumerate(ranked, 1):
        chunk = index.chunk_at(sc.index)
        out.append(RankedChunk(chunk_id=chunk.id, doc_id=chunk.doc_id, score=sc.score, rank=r,
                               text=chunk.text, title=index.title_at(sc.index),
                               evidence=sc.parts, entities=sc.entities,
                               metadata=dict(chunk.metadata), start=chunk.start,
                               end=chunk.end, index=chunk.index))
    return out


def _collect_top(st: RetrievalState) -> None:
    sub_top, top_ids, res, anchors = st.top_shown or st.sub_top, st.top_ids, st.res, st.anchors
    assert sub_top is not None and top_ids is not None and st.sub_bot is not None
    seen = set(st.sub_bot.entities)
    for key in sorted(sub_top.entities, key=lambda k: (-anchors.get(k, 0.0), k)):
        if key in seen:
            continue
        ent = sub_top.entities[key]
        res.entities.append(RetrievedEntity.model_construct(
            key=key, name=ent.name, type=ent.type, description=ent.description,
            score=round(anchors.get(key, 0.0), 6), layer="top",
            role="anchor" if key in anchors else "context",
            source_ids=list(ent.source_ids), visual_id=top_ids.entities.get(key)))
    for hid in sorted(sub_top.hyperedges):
        edge = sub_top.hyperedges[hid]
        res.hyperedges.append(RetrievedHyperedge.model_construct(
            id=hid, kind="theme", members=list(edge.members),
            description=edge.description, source_ids=list(edge.source_ids),
            visual_id=top_ids.hyperedges.get(hid)))


def collect(st: RetrievalState) -> None:
    """Fill ``res.entities`` / ``res.hyperedges`` from the sub-hypergraphs of the stages."""
    sub_bot, bot_ids, res = st.sub_bot, st.bot_ids, st.res
    if sub_bot is None or bot_ids is None:
        return
    b_ents, b_edges = st.b_ents, st.b_edges
    for key in sorted(sub_bot.entities, key=lambda k: (-b_ents.get(k, 0.0), k)):
        ent = sub_bot.entities[key]
        role: Literal["anchor", "related", "context"] = (
            "anchor" if key in st.anchors else "related" if key in st.v_rel else "context")
        res.entities.append(RetrievedEntity.model_construct(
            key=key, name=ent.name, type=ent.type, description=ent.description,
            score=round(b_ents.get(key, 0.0), 6), layer="bottom", role=role,
            source_ids=list(ent.source_ids), visual_id=bot_ids.entities.get(key)))
    if st.sub_top is not None and st.top_ids is not None:
        _collect_top(st)
    for hid in sorted(sub_bot.hyperedges, key=lambda h: (-b_edges.get(h, 0.0), h)):
        edge = sub_bot.hyperedges[hid]
        res.hyperedges.append(RetrievedHyperedge.model_construct(
            id=hid, kind=edge.kind, members=list(edge.members), description=edge.description,
            score=round(b_edges.get(hid, 0.0), 6), source_ids=list(edge.source_ids),
            visual_id=bot_ids.hyperedges.get(hid)))
    if st.cfg.filters is not None:  # under filters=, name only the entities shown (.shown)
        shown = {e.key for e in res.entities}
        res.anchors = [k for k in res.anchors if k in shown]
        res.located = [k for k in res.located if k in shown]
