"""CJK/RTL/Indic review (session 37), the HTML viewer in headless Chromium.

2. A right-to-left description reordered the legend's own words around it ("H1 3 · القاهرة
   هي عاصمة مصر members"): user text is now isolated (``<bdi>``) wherever it sits next to
   the viewer's words (legend, tooltips, chips, details, search results).
3. Search did not fold full-width/half-width input ("ＡＢＣ", "Ｅ１", "ｶﾀｶﾅ"): the query
   and the names are now folded with NFKC and lower case, like entity keys.

Uses the Chromium fixture of ``test_viewer_browser.py`` (skips without a browser, fails
under ``CI=true``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import test_viewer_browser as chromium
from test_viewer_browser import Viewer

from hyperviz_core import Hypergraph, HyperViz
from hyperviz_core.model import Entity, Hyperedge
from hyperviz_core.viewer import render_html

pytestmark = pytest.mark.browser
browser = chromium.browser  # the fixtures: one Chromium per module, a fresh page per test
viewer = chromium.viewer

AR_DESC = "القاهرة هي عاصمة مصر"
NAMES = ["القاهرة", "مصر", "Cairo", "ABC株式会社", "カタカナ", "清华大学",
         "a" * 78 + "\U0001F44D" + "b" * 6]


@pytest.fixture(scope="module")
def page() -> tuple[str, str]:
    """(the page, the visual ID of the hyperedge with the Arabic description)."""
    hg = Hypergraph()
    for n in NAMES:
        hg.add_entity(Entity(name=n, description="وصف " + n, type="مدينة"))
    hg.add_hyperedge(Hyperedge(members=NAMES[:3], description=AR_DESC))
    hg.add_hyperedge(Hyperedge(members=NAMES[3:], description="日本語 2024"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no font for some names on this machine
        r = HyperViz().render(hg, layouts=("bi-inc",))
    export = r.export()
    hid = next(h["id"] for h in export["hyperedges"] if h["description"] == AR_DESC)
    return render_html(export, png=r.png), hid


def _rects(v: Viewer, js_target: str) -> list[dict[str, float]]:
    return v.page.evaluate(
        """(sel) => {
          const [css, needle] = sel;
          const root = document.querySelector(css);
          const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
          let node;
          while ((node = walk.nextNode())) {
            const i = node.data.indexOf(needle);
            if (i < 0) { continue; }
            const r = document.createRange();
            r.setStart(node, i); r.setEnd(node, i + needle.length);
            return Array.from(r.getClientRects()).map(b => ({left: b.left, right: b.right,
                                                            top: b.top}));
          }
          return [];
        }""",
        js_target,
    )


def test_legend_keeps_an_rtl_description_before_the_member_count(
    viewer: Viewer, page: tuple[str, str], tmp_path: Path
) -> None:
    viewer.open(page[0], tmp_path / "ar.html")
    item = f'#hv-legend button[data-goto="{page[1]}"] .hv-ldesc'
    assert viewer.page.locator(f"{item} bdi").first.inner_text() == AR_DESC
    desc = _rects(viewer, [item, AR_DESC])
    count = _rects(viewer, [item, "3 members"])
    assert desc and count
    assert len(count) == 1  # "3 members" in one piece, not "3 · ... members"
    if desc[0]["top"] == count[0]["top"]:  # same line: the count is right of the text
        assert count[0]["left"] >= max(r["right"] for r in desc) - 0.5
    dot = _rects(viewer, [item, "\u00b7 3"])
    assert len(dot) == 1 and dot[0]["left"] >= max(r["right"] for r in desc) - 0.5
    assert viewer.errors == [] and viewer.csp_messages() == []


def test_user_text_beside_the_viewers_words_is_isolated(
    viewer: Viewer, page: tuple[str, str], tmp_path: Path
) -> None:
    viewer.open(page[0], tmp_path / "ar.html")
    viewer.hover(f'rect.hv-hnode[data-id="{page[1]}"]')
    tip = viewer.page.locator("#hv-tooltip")
    bdis = tip.locator("bdi").all_inner_texts()
    assert AR_DESC in bdis and "القاهرة" in bdis and "مصر" in bdis
    viewer.page.click(f'#hv-legend button[data-goto="{page[1]}"]')
    details = viewer.page.locator("#hv-details")
    chips = details.locator(".hv-chip bdi").all_inner_texts()
    assert "القاهرة" in chips and "Cairo" in chips
    assert details.locator(".hv-description").get_attribute("dir") == "auto"
    viewer.page.click('.hv-chip:has-text("Cairo")')
    assert "مدينة" in details.locator("p bdi").all_inner_texts()  # "type: <bdi>"
    assert viewer.errors == [] and viewer.csp_messages() == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [("ＡＢＣ", "ABC株式会社"), ("abc株式会社", "ABC株式会社"), ("Ｅ１", None),
     ("ｶﾀｶﾅ", "カタカナ"), ("カタカナ", "カタカナ"), ("  清华  ", "清华大学"),
     ("ＣＡＩＲＯ", "Cairo")],
)
def test_search_folds_full_and_half_width_forms(
    viewer: Viewer, page: tuple[str, str], tmp_path: Path, query: str, expected: str | None
) -> None:
    viewer.open(page[0], tmp_path / "s.html")
    viewer.page.fill("#hv-search", query)
    items = viewer.page.locator("#hv-search-results li").all_inner_texts()
    assert items and "No entity matches" not in items[0], (query, items)
    if expected is None:  # an ID: E1 comes first
        assert items[0].startswith("E1 \u2014 "), items
    else:
        assert any(expected in it for it in items), (query, items)
    assert viewer.errors == []


def test_clipped_names_keep_whole_characters(
    viewer: Viewer, page: tuple[str, str], tmp_path: Path
) -> None:
    viewer.open(page[0], tmp_path / "c.html")
    viewer.page.fill("#hv-search", "aaaa")
    text = viewer.page.locator("#hv-search-results li").first.inner_text()
    lone = viewer.page.evaluate(
        "(t) => /[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?:[^\\uD800-\\uDBFF]|^)"
        "[\\uDC00-\\uDFFF]/.test(t)", text)
    assert not lone, repr(text)  # the emoji is kept whole or dropped whole
    assert text.endswith("\u2026")
