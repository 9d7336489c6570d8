"""Entity importance of a retrieved sub-hypergraph, without building a ``bm25s`` index.

:func:`~hyperviz_core.prune.entity_importance` (α·degree centrality + β·BM25 of
``name + type + description`` against the query, BM25 scaled by its best) numbers the
entities of I_top and orders the offline locator. It indexes the few dozen entities of the
sub-hypergraph with ``bm25s`` on every query, which costs more than scoring them.
:func:`entity_importance` here computes the same numbers with the BM25 arithmetic of
:mod:`.lexical` (``bm25s``'s tokens, float32 idf and scores, summed per query token in
query order), bit for bit (tested against the original on the MuSiQue/HotpotQA dev
questions' sub-hypergraphs and on texts with underscores, repeats and stop words only).

Example:
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name="a", description="radium"), Entity(name="b")],
    ...                 hyperedges=[Hyperedge(id="h", members=["a", "b"])])
    >>> entity_importance(hg, "radium")
    {'a': 1.0, 'b': 0.6}
"""

from __future__ import annotations

import re

from ...items import HypergraphError, normalize_key
from ...model import Hypergraph
from ...unitext import unaccented
from ..index.caseless import written_without_case
from .lexical import STOPWORDS, bm25_scores

__all__ = ["entity_importance", "names_query"]

#: ``bm25s.tokenize``'s default token pattern (on the lower-cased text; ``_`` is a letter)
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def _tokens(text: str) -> list[str]:
    """``bm25s.tokenize([text], stopwords="en")``'s tokens of ``text`` without its accents
    (:func:`~hyperviz_core.unitext.unaccented`, as ``prune_importance`` reads it: a query's
    "Reykjavik" names *Reykjavík*); no :func:`~.lexicon.lexical_text`."""
    return [t for t in _TOKEN.findall(unaccented(text).lower()) if t not in STOPWORDS]


def _bm25(hg: Hypergraph, keys: list[str], query: str, chars: int | None) -> list[float]:
    """BM25 of each entity's ``name type description[:chars]`` for ``query``, scaled by the
    best (rounded to 9 decimals, zeros when nothing matches) — ``prune_importance._bm25_scores``."""
    zeros = [0.0] * len(keys)
    q_tokens = _tokens(query)
    if not q_tokens:
        return zeros
    docs = []
    for k in keys:
        ent = hg.entities[k]
        docs.append(_tokens(f"{ent.name} {ent.type} {ent.description[:chars]}"))
    vocab = {t for doc in docs for t in doc}
    known = [t for t in q_tokens if t in vocab]
    if not known:
        return zeros
    scores = bm25_scores(known, docs, len(docs), sum(map(len, docs)) / len(docs))
    best = float(max(scores)) if len(scores) else 0.0
    if best <= 0:
        return zeros
    return [round(float(s) / best, 9) for s in scores]


def entity_importance(hg: Hypergraph, query: str | None = None, alpha: float = 0.6,
                      beta: float = 0.4, *, description_chars: int | None = None
                      ) -> dict[str, float]:
    """α·degree centrality + β·normalised BM25(name + type + description, query) per entity
    — :func:`hyperviz_core.prune.entity_importance`'s values; ``description_chars`` reads
    only the first characters of each description (the values of the original over
    :func:`~.subgraph.trim_descriptions`, without copying the entities)."""
    keys = sorted(hg.entities)
    if not keys:
        return {}
    m = max(len(hg.hyperedges), 1)
    cent = [hg.degree(k) / m for k in keys]
    bm = (_bm25(hg, keys, query, description_chars) if query and query.strip() and beta > 0
          else [0.0] * len(keys))
    return {k: round(alpha * c + beta * b, 9) for k, c, b in zip(keys, cent, bm, strict=True)}


def names_query(hg: Hypergraph, query: str | None, *,
                description_chars: int | None = None) -> bool:
    """True when some entity's ``name type description[:description_chars]`` shares a
    BM25 token with ``query`` (its importance holds a query match, not centrality alone),
    or the name of one written without capitals (Chinese, Japanese ...) is inside the query
    (their words are not spaced, so the query's "token" is a whole run of characters).

    >>> from hyperviz_core import Entity
    >>> hg = Hypergraph(entities=[Entity(name="a", description="radium")])
    >>> names_query(hg, "radium?"), names_query(hg, "polonium")
    (True, False)
    >>> names_query(Hypergraph(entities=[Entity(name="图灵")]), "图灵在哪里工作？")
    True
    >>> names_query(hg, "\u200b")
    False
    """
    wanted = set(_tokens(query or ""))
    if wanted and any(
            wanted.intersection(_tokens(f"{e.name} {e.type} {e.description[:description_chars]}"))
            for e in hg.entities.values()):
        return True
    try:
        folded = normalize_key(query) if query and query.strip() else ""
    except HypergraphError:  # nothing left after normalising (zero-width characters only)
        return False
    return any(len(key) > 1 and key in folded and written_without_case(key)
               for key in hg.entities)  # a name in a script without spaces: "图灵在哪里"
