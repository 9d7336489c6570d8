"""Entity importance for congestion control (:mod:`hyperviz_core.prune`): how much an entity
of a drawing matters, to peel the least important first.

    Importance(v) = α·degree_centrality(v) + β·BM25(name + type + description, query)

(degree centrality = degree / number of hyperedges; BM25 from ``bm25s`` over the texts
without their accents — a query's "Reykjavik" names *Reykjavík* — normalised to [0, 1] by
the best score).
"""

from __future__ import annotations

from .model import Hypergraph
from .unitext import unaccented

__all__ = ["entity_importance"]


def _bm25_scores(hg: Hypergraph, keys: list[str], query: str) -> list[float]:
    from .bm25_import import bm25s as _bm25s
    bm25s = _bm25s()

    corpus = []
    for k in keys:
        ent = hg.entities[k]
        corpus.append(unaccented(f"{ent.name} {ent.type} {ent.description}"))
    q_tokens = bm25s.tokenize([unaccented(query)], stopwords="en", show_progress=False,
                              return_ids=False)
    if not q_tokens or not q_tokens[0]:
        return [0.0] * len(keys)
    tokens = bm25s.tokenize(corpus, stopwords="en", show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    known = [t for t in q_tokens[0] if t in tokens.vocab]
    if not known:
        return [0.0] * len(keys)
    scores = retriever.get_scores(known)
    best = float(max(scores)) if len(scores) else 0.0
    if best <= 0:
        return [0.0] * len(keys)
    return [round(float(s) / best, 9) for s in scores]


def entity_importance(
    hg: Hypergraph, query: str | None = None, alpha: float = 0.6, beta: float = 0.4
) -> dict[str, float]:
    """α·degree centrality + β·normalised BM25(name + type + description, query) per entity.

    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name="a", description="radium"), Entity(name="b")],
    ...                 hyperedges=[Hyperedge(id="h", members=["a", "b"])])
    >>> entity_importance(hg, "radium")
    {'a': 1.0, 'b': 0.6}
    """
    keys = sorted(hg.entities)
    if not keys:
        return {}
    m = max(len(hg.hyperedges), 1)
    cent = [hg.degree(k) / m for k in keys]
    bm = _bm25_scores(hg, keys, query) if query and query.strip() and beta > 0 else [0.0] * len(
        keys
    )
    return {k: round(alpha * c + beta * b, 9) for k, c, b in zip(keys, cent, bm, strict=True)}
