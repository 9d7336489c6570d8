"""The HTML viewer isolates the query in its title as the PNG does (stop 65): a Hebrew
question's ``?`` stays at its own end, on the left, not after the question on the right."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import test_viewer_browser as chromium
from test_viewer_browser import Viewer

from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz
from hyperviz_core.viewer import render_html

pytestmark = pytest.mark.browser
browser = chromium.browser
viewer = chromium.viewer

QUERY = "מי היה ראש הממשלה?"

#: the left edges of the query's ``?`` and of its first letter in the page's heading
_EDGES = """() => {
  const b = document.querySelector('#hv-title bdi');
  const t = b.firstChild;
  const x = (i) => { const r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + 1);
                     return r.getBoundingClientRect().x; };
  return [x(t.data.indexOf('?')), x(0)];
}"""


def _page(title: str | None = None) -> str:
    ents = [Entity(name=n) for n in ("תל אביב", "Jaffa")]
    hg = Hypergraph(entities=ents, hyperedges=[
        Hyperedge(members=[e.key for e in ents], description="cities")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = HyperViz().render(hg, layouts=("bi-inc",), query=QUERY)
    return render_html(r.export(), png=r.png, title=title)


def test_the_question_mark_stays_at_the_end_of_a_hebrew_query(
        viewer: Viewer, tmp_path: Path) -> None:
    viewer.open(_page(), tmp_path / "t.html")
    assert viewer.page.inner_text("#hv-title").endswith("query: " + QUERY)
    mark, first = viewer.page.evaluate(_EDGES)
    assert mark < first  # read right to left, the ? comes last: it is drawn leftmost
    assert viewer.errors == []


def test_the_png_title_under_another_page_title_isolates_it_too(
        viewer: Viewer, tmp_path: Path) -> None:
    viewer.open(_page("VizRAG: a retrieval"), tmp_path / "t.html")
    bdi = viewer.page.locator("#hv-png-title bdi bdi")
    assert bdi.inner_text() == QUERY
