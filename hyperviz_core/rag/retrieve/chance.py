"""Whether the offline locate step reached its top view by chance.

Offline, the locate step anchors the top view's most important entities (centrality + BM25)
and its themes' members. The themes come from a vector search of the query's keywords; with
the offline hashed (lexical) embedder a query that shares nothing with the store still gets
themes by a faint likeness of character n-grams (similarities 0.04-0.09, where a real match
is about 0.5). Their central entities' evidence, scaled to the best, then outranked the only
passage BM25 matched: a Hebrew name asked of a store whose extractor found entities only in
German and English texts ranked a German document first.

The view was reached by chance when the embedder is lexical and no entity of the view names
or describes anything of the query, read as ranking reads it: its words, the spellings and
word forms the query repair finds (``Lovelase`` → Lovelace, ``Curies`` → Curie), and, for a
name in a script without spaces (Chinese, Japanese), the name inside the query's text. A
semantic embedder's themes are kept (a paraphrase shares no word with its answer), and so is
a chat model's locate answer.
"""

from __future__ import annotations

from .importance import entity_importance, names_query
from .rank import semantic_embedder
from .state import RetrievalState
from .subgraph import DESCRIPTION_CHARS

__all__ = ["offline_located", "reached_by_chance"]


def reached_by_chance(st: RetrievalState) -> bool:
    """Whether ``st``'s top view anchors nothing (see the module docstring)."""
    sub = st.sub_top
    if sub is None or semantic_embedder(st.embedder) or st.spelled:
        return False  # st.spelled: the query names an entity, misspelt (:mod:`.repair`)
    return not names_query(sub, st.view_query, description_chars=DESCRIPTION_CHARS)


def offline_located(st: RetrievalState) -> list[str]:
    """The offline locator's entities: the top view's most important (``top_imp``) among
    those that name or describe a word of the query, at most ``locate_k``. An entity whose
    importance is centrality alone anchors nothing: where several tied, the cut picked them
    alphabetically (review 44: "Alliance 90, American, Amphi ..." for a question about a
    bomb on Akinoshu Kenji's birthplace)."""
    sub = st.sub_top
    if sub is None:
        return []
    named = entity_importance(sub, st.view_query, alpha=0.0, beta=1.0,
                              description_chars=DESCRIPTION_CHARS)
    order = sorted(sub.entities, key=lambda k: (-st.top_imp.get(k, 0.0), k))
    return [k for k in order if named.get(k, 0.0) > 0][: st.cfg.locate_k]
