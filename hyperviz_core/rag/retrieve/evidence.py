"""The evidence a drawn view carries: the text of the chunks its hyperedges come from.

A rendered view's export (``RenderedView.export``, what its HTML viewer and JSON hold) maps
chunk ids to texts under ``"chunks"``: clicking a hyperedge in the viewer shows the text of
its source chunks. Every drawn hyperedge's sources are given, a view's first
:data:`EVIDENCE_CHUNKS` by id (the ranked passages of I_bot always); before, only I_bot's
ranked passages were, so I_top's themes and a third of I_bot's facts showed "chunk text not
included". Under ``filters=`` a drawn hyperedge's sources all pass (:mod:`.shown`), so no
excluded document's text is given.
"""

from __future__ import annotations

from .shown import chunk_lookup
from .state import RetrievalState

__all__ = ["EVIDENCE_CHUNKS", "attach_evidence"]

#: the most source chunks (besides I_bot's ranked passages) a view carries the text of
EVIDENCE_CHUNKS = 200


def attach_evidence(st: RetrievalState) -> None:
    """Put the evidence texts in each drawn view's export (see the module docstring)."""
    ranked = {c.chunk_id: c.text for c in st.res.chunks}
    lookup = chunk_lookup(st)
    for view in (st.res.top_view, st.res.bottom_view):
        if view is None:
            continue
        given = ranked if view is st.res.bottom_view else {}
        sources = {str(s) for h in view.export.get("hyperedges", [])
                   for s in h.get("source_ids", [])}
        wanted = sorted(sources - set(given))[:EVIDENCE_CHUNKS]
        texts = {**{cid: c.text for cid, c in lookup(wanted).items()}, **given}
        if texts:
            view.export["chunks"] = {c: texts[c] for c in sorted(texts)}
