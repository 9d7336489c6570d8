"""Viewer keyboard and screen-reader access in headless Chromium (the browser fixture and
its skip/CI rules are those of ``test_viewer_browser``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_viewer_browser import Viewer, browser, viewer  # noqa: F401  (fixtures)
from viewer_fixtures import make_export, sample_hypergraph

from hyperviz_core.viewer import render_html

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page_html() -> str:
    export = make_export(sample_hypergraph(), ("set-force", "bi-inc"))
    export["caption"] = "HyperViz rendering: the caption text."
    return render_html(export)


def test_drawing_items_are_keyboard_buttons(viewer: Viewer, page_html: str,  # noqa: F811
                                            tmp_path: Path) -> None:
    viewer.open(page_html, tmp_path / "view.html")
    page: Any = viewer.page
    svg = page.locator("#hv-svg")
    assert svg.get_attribute("role") == "group"
    assert "hypergraph drawing" in (svg.get_attribute("aria-label") or "")
    described = page.evaluate(
        "document.getElementById(document.getElementById('hv-svg')"
        ".getAttribute('aria-describedby')).textContent")
    assert "the caption text" in described
    assert page.get_attribute("#hv-details", "aria-live") == "polite"
    focusable = page.evaluate(
        "[...document.querySelectorAll('#hv-svg [data-id]')].filter(n => n.tabIndex >= 0)"
        ".map(n => n.getAttribute('class').split(' ')[0])")
    assert {"hv-ent", "hv-label"} <= set(focusable)
    assert page.locator("#hv-svg").aria_snapshot().count("button") >= 2
    ent = page.locator("#hv-svg .hv-ent").first
    eid = ent.get_attribute("data-id")
    ent.focus()
    page.keyboard.press("Enter")
    assert page.get_attribute("#hv-details", "data-selected") == eid
    lab = page.locator("#hv-svg .hv-label-hyperedge[tabindex]").first
    hid = lab.get_attribute("data-id")
    lab.focus()
    page.keyboard.press(" ")
    assert page.get_attribute("#hv-details", "data-selected") == hid
    assert not viewer.errors


def test_arrow_keys_pan_and_reach_search_results(viewer: Viewer, page_html: str,  # noqa: F811
                                                 tmp_path: Path) -> None:
    viewer.open(page_html, tmp_path / "view.html")
    page: Any = viewer.page
    page.click("#hv-zoom-in")
    before = viewer.transform()
    page.focus("#hv-zoom-in")
    page.keyboard.press("ArrowLeft")
    left = viewer.transform()
    assert left != before
    page.keyboard.press("ArrowUp")
    assert viewer.transform() != left
    page.fill("#hv-search", "e")
    page.focus("#hv-search")
    page.keyboard.press("ArrowDown")
    first = page.evaluate("document.activeElement.getAttribute('data-goto')")
    assert first
    page.keyboard.press("ArrowDown")
    second = page.evaluate("document.activeElement.getAttribute('data-goto')")
    assert second and second != first
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.id") == "hv-search"
    assert not viewer.errors
