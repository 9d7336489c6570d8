"""Entity importance for congestion control (:mod:`hyperviz_core.prune`): how much an entity
of a drawing matters, to peel the least important first.

    Importance(v) = α·degree_centrality(v) + β·BM25(name + type + description, query)
                    + priority(v)

(degree centrality = degree / number of hyperedges; BM25 from ``bm25s`` over the texts
without their accents — a query's "Reykjavik" names *Reykjavík* — normalised to [0, 1] by
the best score). ``priority`` is the caller's own bonus per entity (say, the retrieval's: the
entities of its best-ranked passages' facts), 0 for the entities it does not name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .model import Hypergraph
from .unitext import unaccented

__all__ = ["checked_priority", "entity_importance"]


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


def checked_priority(priority: object) -> dict[str, float]:
    """``priority`` as a dict of finite numbers by entity key (None: empty); a clear error
    naming the bad entry otherwise.

    >>> checked_priority({"a": 1})
    {'a': 1.0}
    >>> checked_priority({"a": float("nan")})
    Traceback (most recent call last):
    ...
    ValueError: priority of 'a' must be a finite number, got nan
    """
    if priority is None:
        return {}
    if not isinstance(priority, Mapping):
        raise TypeError(f"priority must map entity keys to numbers, got "
                        f"{type(priority).__name__}")
    out: dict[str, float] = {}
    for key, value in priority.items():
        if not isinstance(key, str):
            raise TypeError(f"priority keys must be entity keys (str), got {key!r:.60}")
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise ValueError(f"priority of {key!r:.60} must be a finite number, got "
                             f"{value!r:.60}")
        out[key] = float(value)
    return out


def entity_importance(
    hg: Hypergraph, query: str | None = None, alpha: float = 0.6, beta: float = 0.4,
    priority: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """α·degree centrality + β·normalised BM25(name + type + description, query) per entity,
    plus its ``priority`` (see the module docstring).

    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name="a", description="radium"), Entity(name="b")],
    ...                 hyperedges=[Hyperedge(id="h", members=["a", "b"])])
    >>> entity_importance(hg, "radium")
    {'a': 1.0, 'b': 0.6}
    >>> entity_importance(hg, "radium", priority={"b": 1.0})
    {'a': 1.0, 'b': 1.6}
    """
    keys = sorted(hg.entities)
    if not keys:
        return {}
    m = max(len(hg.hyperedges), 1)
    cent = [hg.degree(k) / m for k in keys]
    bm = _bm25_scores(hg, keys, query) if query and query.strip() and beta > 0 else [0.0] * len(
        keys
    )
    bonus = checked_priority(priority)
    return {k: round(alpha * c + beta * b + bonus.get(k, 0.0), 9)
            for k, c, b in zip(keys, cent, bm, strict=True)}
