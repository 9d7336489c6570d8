"""What a filtered query shows: the facts of the chunks that pass its ``filters=``.

A metadata filter (:mod:`.filters`) masks the ranked passages. The drawings, the result's
entities and hyperedges, and so the answer prompt's listings and the locate prompt, show
only what the passing chunks say: an entity or hyperedge is shown when it has source chunks
and every one of them passes the filter (its merged description then holds no text of an
excluded document); a hyperedge keeps its shown members (:meth:`Hypergraph.restrict`: one
left with fewer than two is dropped). The ranking itself still reads the whole store's
graph evidence, so it is the unfiltered ranking, masked.

Example:
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> from hyperviz_core.rag.types import Chunk
    >>> from hyperviz_core.rag.retrieve.filters import ChunkFilter
    >>> hg = Hypergraph(entities=[Entity(name="Ada", source_ids=["a1"]),
    ...                           Entity(name="Zephyr", source_ids=["b1"]),
    ...                           Entity(name="Paris", source_ids=["a1", "b1"])],
    ...                 hyperedges=[Hyperedge(id="h1", members=["ada", "paris"],
    ...                                       source_ids=["a1"])])
    >>> chunks = {"a1": Chunk(id="a1", doc_id="a", text="t", metadata={"team": "a"}),
    ...           "b1": Chunk(id="b1", doc_id="b", text="t", metadata={"team": "b"})}
    >>> flt = ChunkFilter.model_validate({"filters": [{"key": "team", "value": "a"}]})
    >>> shown = passing_graph(hg, flt, lambda ids: {i: chunks[i] for i in ids})
    >>> sorted(shown.entities), sorted(shown.hyperedges)
    (['ada'], [])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...model import Hypergraph
from ..types import Chunk
from .filters import ChunkFilter
from .state import Corpus, RetrievalState
from .subgraph import induced

__all__ = ["chunk_lookup", "passing_graph", "shown_graph", "shown_payload"]

#: the stage hook payload fields that name entity keys (``linked``, ``located``,
#: ``anchors``; the ``related`` stage's ``entities``)
NAMED = ("linked", "located", "anchors", "entities")

ChunkLookup = Callable[[Sequence[str]], Mapping[str, Chunk]]


def _all_pass(flt: ChunkFilter, chunks: ChunkLookup, sources: Iterable[Sequence[str]]
              ) -> Callable[[Sequence[str]], bool]:
    """Whether one of the ``sources`` lists names chunks and only chunks that pass ``flt``
    (every chunk they name looked up by ``chunks`` once, up front)."""
    ids = sorted({s for some in sources for s in some})
    passing = {cid for cid, chunk in chunks(ids).items() if flt.accepts(chunk)}
    return lambda some: bool(some) and all(s in passing for s in some)


def passing_graph(hg: Hypergraph, flt: ChunkFilter, chunks: ChunkLookup) -> Hypergraph:
    """``hg`` with only the entities and hyperedges whose source chunks (looked up by
    ``chunks``: id → chunk) all pass ``flt``."""
    clean = _all_pass(flt, chunks, [*(e.source_ids for e in hg.entities.values()),
                                    *(h.source_ids for h in hg.hyperedges.values())])
    out = hg.restrict([k for k, e in hg.entities.items() if clean(e.source_ids)])
    for hid in sorted(out.hyperedges):
        if not clean(hg.hyperedges[hid].source_ids):
            out.remove_hyperedge(hid)
    return out


def chunk_lookup(st: RetrievalState) -> ChunkLookup:
    """Chunk id → chunk, from the loaded corpus, else the store."""
    if isinstance(st.corpus, Corpus):
        index = st.corpus.chunks
        return lambda ids: {i: index.chunk_at(index.position[i]) for i in ids
                            if i in index.position}
    return lambda ids: {c.id: c for c in st.store.chunks(ids)}


def shown_graph(st: RetrievalState, hg: Hypergraph) -> Hypergraph:
    """``hg`` as a query with ``filters=`` may show it (:func:`passing_graph`); ``hg``
    itself without a filter."""
    flt = st.cfg.filters
    return hg if flt is None else passing_graph(hg, flt, chunk_lookup(st))


def _shown_themes(st: RetrievalState, hids: list[str]) -> list[str]:
    """The theme hyperedges of ``hids`` all of whose source chunks pass the filter."""
    flt = st.cfg.filters
    assert flt is not None
    members = sorted({m for h in hids for m in st.theme_members.get(h, [])})
    top = st.corpus.layer("top", members, 0)
    edges = induced(top, top.known(members)).hyperedges
    sources = {h: edges[h].source_ids for h in hids if h in edges}
    clean = _all_pass(flt, chunk_lookup(st), sources.values())
    return [h for h in hids if clean(sources.get(h, []))]


def shown_payload(st: RetrievalState, payload: dict[str, Any]) -> dict[str, Any]:
    """A stage's hook payload as a query with ``filters=`` may show it: its lists of entity
    keys (:data:`NAMED`) keep only the entities all of whose source chunks pass (those the
    views and the result show), and its ``themes`` the themes all of whose chunks pass, so
    a hook (a LangChain ``astream_events`` consumer, a tenant's progress display) learns no
    excluded document's entity or theme. ``payload`` itself without a filter."""
    if st.cfg.filters is not None and isinstance(payload.get("themes"), list):
        payload = {**payload, "themes": _shown_themes(st, payload["themes"])}
    lists = {k: v for k, v in payload.items() if k in NAMED and isinstance(v, list) and v}
    if st.cfg.filters is None or not lists:
        return payload
    known = st.shown_keys  # each entity's sources read once per query
    keys = sorted({str(k) for v in lists.values() for k in v} - set(known))
    if keys:
        bottom = st.corpus.layer("bottom", keys, 0)
        shown = set(shown_graph(st, induced(bottom, bottom.known(keys))).entities)
        known.update((k, k in shown) for k in keys)
    return {**payload, **{k: [x for x in v if known.get(x)] for k, v in lists.items()}}
