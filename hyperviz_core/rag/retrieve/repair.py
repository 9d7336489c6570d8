"""Query repair for the views: what the query names, misspelt, is named for the views too.

Ranking repairs query words no chunk contains (:mod:`.lexicon`): a capitalised one matched
by spelling to an entity name ("Aschenbrodel" → *Aschenbrödel*, "Lovelase" → *Lovelace*)
seeds that entity at ``RankWeights.spelling``, and the corpus words found are added to the
BM25 query. Ranking runs last, so before this module the views never saw the repair: the
misspelt entity was no anchor of I_bot, and the views' importance (the IDs the model
reads, the offline locator's order) ranked entities by the unrepaired words.

:func:`repair_for_views` runs the same repair at the ``keywords`` stage, under the same
weights, so that

* the entities matched by spelling are named by the query for every later stage (anchors in
  ``vizrag`` mode, related entities in ``hyper-lite``) at ``min(1, spelling)``, and
* :attr:`~.state.RetrievalState.view_query` — the query with the repaired words appended —
  is what the views' importance reads.

The repair is computed once per query (:meth:`~.lexicon.QueryLexicon.repair` keeps its
last answer), so ranking's own call costs nothing.
"""

from __future__ import annotations

from .lexicon import QueryRepair
from .state import RetrievalState

__all__ = ["repair_for_views"]


def repair_for_views(st: RetrievalState) -> QueryRepair | None:
    """The query repair ranking will make (None when its weights turn it off), recorded on
    ``st``: :attr:`~.state.RetrievalState.spelled` and ``view_query``."""
    w = st.cfg.weights
    if not ((w.bm25 > 0 or w.graph > 0) and (w.spelling > 0 or w.word_forms)):
        return None
    repair = st.corpus.rank_index().lexicon().repair(
        st.query, w.spelling_similarity, spelling=w.spelling > 0, forms=w.word_forms)
    weight = min(1.0, w.spelling)
    st.spelled = {key: weight for key in sorted(st.corpus.known_entities(repair.entities))}
    st.view_query = repair.lexical(st.query)
    return repair
