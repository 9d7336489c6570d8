"""The viewer's search ignores the accents of Latin, Greek and Cyrillic letters ("zurich"
finds Zürich, "Ελλαδα" Ελλάδα) while other scripts' marks still count, reads Arabic's yeh and
kaf as Persian's and ignores Hebrew's points and Arabic's harakat and hamza on alef ("علی"
finds علي, "احمد" أحمد, "ירושלים" יְרוּשָׁלַיִם, since stop 64, as offline retrieval; and
Hebrew's cantillation marks, "בראשית" בְּרֵאשִׁ֖ית, since stop 65), and says how many
matches it did not list beyond the first 50 (they were cut silently)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import test_viewer_browser as chromium
from test_viewer_browser import Viewer

from hyperviz_core import Budget, Hypergraph, HyperViz
from hyperviz_core.model import Entity, Hyperedge
from hyperviz_core.viewer import render_html

pytestmark = pytest.mark.browser
browser = chromium.browser
viewer = chromium.viewer

NAMES = ["Zürich", "São Paulo", "Ελλάδα", "Москва́", "हिन्दी", "हिंदू", "علي رضايي", "کرمان",
         "أحمد", "יְרוּשָׁלַיִם", "مدرسة", "בְּרֵאשִׁ֖ית",
         *(f"Person {i:02d}" for i in range(60))]


@pytest.fixture(scope="module")
def page() -> str:
    hg = Hypergraph()
    for n in NAMES:
        hg.add_entity(Entity(name=n))
    hg.add_hyperedge(Hyperedge(members=NAMES[:12], description="places"))
    hg.add_hyperedge(Hyperedge(members=NAMES[12:], description="people"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no font for some names on this machine
        r = HyperViz(budget=Budget(enabled=False)).render(hg, layouts=("bi-inc",))
    return render_html(r.export(), png=r.png)


@pytest.mark.parametrize(("query", "expected"), [
    ("zurich", "Zürich"), ("sao paulo", "São Paulo"), ("ελλαδα", "Ελλάδα"),
    ("москва", "Москва́"), ("ZÜRICH", "Zürich"), ("हिन्दी", "हिन्दी"),
    ("علی رضایی", "علي رضايي"), ("كرمان", "کرمان"), ("علي", "علي رضايي"),
    ("احمد", "أحمد"), ("ירושלים", "יְרוּשָׁלַיִם"), ("مدرسه", "مدرسة"),
    ("בראשית", "בְּרֵאשִׁ֖ית"),  # (stop 65) Hebrew's cantillation marks too
])
def test_accents_are_ignored(viewer: Viewer, page: str, tmp_path: Path, query: str,
                             expected: str) -> None:
    viewer.open(page, tmp_path / "s.html")
    viewer.page.fill("#hv-search", query)
    items = viewer.page.locator("#hv-search-results li").all_inner_texts()
    assert any(expected in it for it in items), (query, items)
    assert viewer.errors == []


def test_indic_marks_still_count(viewer: Viewer, page: str, tmp_path: Path) -> None:
    viewer.open(page, tmp_path / "s.html")
    viewer.page.fill("#hv-search", "हिंदू")
    items = viewer.page.locator("#hv-search-results li").all_inner_texts()
    assert len(items) == 1 and "हिंदू" in items[0], items


def test_matches_beyond_fifty_are_counted(viewer: Viewer, page: str, tmp_path: Path) -> None:
    viewer.open(page, tmp_path / "s.html")
    viewer.page.fill("#hv-search", "person")
    items = viewer.page.locator("#hv-search-results li").all_inner_texts()
    assert len(items) == 51 and items[-1] == "+10 more: type more of the name", items[-3:]
