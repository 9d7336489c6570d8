"""The HTML viewer's keyboard and screen-reader behaviour (WCAG 2.2 AA review) in headless
Chromium: reflow at 320 px, visible focus distinct from the selection, pan/zoom keys only on
the drawing, Tab that follows the view and visits each item once, the skip button, the search
combobox, tooltips on focus and the names and states of the controls.

The browser fixture and its skip/CI rules are ``test_viewer_browser``'s: Debian's
``/usr/bin/chromium`` or ``$VIZRAG_CHROMIUM``, never a download.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_viewer_browser import browser  # noqa: F401  (the fixture)
from viewer_fixtures import SAMPLE_CHUNKS, make_export, sample_hypergraph

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.viewer import render_html

pytestmark = pytest.mark.browser

DARK_BACKGROUND = (0x1E, 0x1E, 0x1E)  # the dark style's canvas


@pytest.fixture(scope="module")
def sample_html() -> str:
    """Two panels (set-force, bi-inc): every entity and H# is drawn twice."""
    return render_html(make_export(sample_hypergraph(), ("set-force", "bi-inc"),
                                   chunk_texts=SAMPLE_CHUNKS))


class Page:
    """A viewer page in its own context, with its errors and CSP reports."""

    def __init__(self, browser: Any, html: str, path: Path,  # noqa: F811
                 width: int, height: int) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text)
                     if "Content Security Policy" in m.text else None)
        path.write_text(html, encoding="utf-8")
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("html[data-hv-ready]", state="attached")

    def eval(self, script: str, arg: Any = None) -> Any:
        return self.page.evaluate(script, arg)

    def transform(self) -> str:
        return str(self.page.get_attribute("#hv-viewport", "transform"))

    def active(self) -> str:
        """The focused element as ``tag#id.class[data-id]``."""
        return str(self.eval(
            "(() => { const e = document.activeElement; if (!e || e === document.body) "
            "return 'body'; return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + "
            "(e.getAttribute('class') || '').split(' ')[0] + "
            "(e.getAttribute('data-id') ? '[' + e.getAttribute('data-id') + ']' : ''); })()"))


@pytest.fixture
def open_page(browser: Any, tmp_path: Path) -> Iterator[Any]:  # noqa: F811
    pages: list[Page] = []

    def _open(html: str, width: int = 1280, height: int = 800) -> Page:
        pages.append(Page(browser, html, tmp_path / f"view{len(pages)}.html", width, height))
        return pages[-1]

    yield _open
    for p in pages:
        assert p.errors == []
        p.context.close()


def _rgb(css: str) -> tuple[int, int, int]:
    m = re.match(r"rgba?\((\d+),\s*(\d+),\s*(\d+)", css)
    assert m, css
    return int(m[1]), int(m[2]), int(m[3])


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    def lum(c: tuple[int, int, int]) -> float:
        def f(v: int) -> float:
            s = v / 255
            return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
        return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _tab_to(p: Page, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches ``selector`` (keyboard focus, so
    ``:focus-visible`` holds)."""
    for _ in range(limit):
        p.page.keyboard.press("Tab")
        if p.eval("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_reflow_one_column_at_320px(open_page: Any, sample_html: str) -> None:
    """At 320 × 256 (1280 × 1024 at 400 %) the page scrolls in one column: toolbar, a
    drawing of usable height, then the full-width side panel; nothing overflows sideways."""
    p = open_page(sample_html, 320, 256)
    box = p.eval("""(() => { const r = s => { const b = document.querySelector(s)
        .getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; };
        const se = document.scrollingElement;
        return { header: r('#hv-header'), stage: r('#hv-stage'), side: r('#hv-sidebar'),
                 sw: se.scrollWidth, sh: se.scrollHeight }; })()""")
    assert box["sh"] > 256  # the page itself scrolls
    assert box["sw"] <= 320  # no sideways scrolling
    assert box["stage"][3] >= 0.6 * 256 - 1 and box["stage"][2] >= 319
    assert box["side"][2] >= 319  # full width, not squeezed next to the drawing
    assert box["side"][1] >= box["stage"][1] + box["stage"][3] - 1  # below the drawing
    p.page.focus(".hv-legend-item")  # the side panel's controls can be scrolled into view
    legend = p.page.locator(".hv-legend-item").first.bounding_box()
    assert legend and 0 <= legend["y"] < 256 and legend["width"] > 200
    wide = open_page(sample_html, 1280, 800)  # the wide layout is unchanged: two columns
    side = wide.page.locator("#hv-sidebar").bounding_box()
    assert side and side["x"] > 800 and side["y"] < 200


def test_focused_item_is_opaque_and_unlike_the_selection(open_page: Any,
                                                         sample_html: str) -> None:
    p = open_page(sample_html)
    _tab_to(p, "#hv-svg .hv-ent")
    first = p.eval("document.activeElement.getAttribute('data-id')")
    p.page.keyboard.press("Enter")  # select it: the items outside its neighbourhood dim
    assert p.eval("document.querySelectorAll('#hv-svg .hv-dim').length") > 0
    for _ in range(30):  # Tab on to a dimmed entity
        p.page.keyboard.press("Tab")
        if p.eval("document.activeElement.matches('.hv-ent.hv-dim')"):
            break
    else:
        raise AssertionError("no dimmed entity reached")
    look = p.eval("""(() => { const f = document.activeElement, s = getComputedStyle(f);
        const sel = document.querySelector('.hv-ent.hv-sel'), t = getComputedStyle(sel);
        return { op: s.opacity, stroke: s.stroke, dash: s.strokeDasharray,
                 width: parseFloat(s.strokeWidth), selStroke: t.stroke,
                 selDash: t.strokeDasharray, fv: f.matches(':focus-visible'),
                 sel: sel.getAttribute('data-id') }; })()""")
    assert look["sel"] == first and look["fv"]
    assert look["op"] == "1"  # not dimmed with the rest
    assert (look["stroke"], look["dash"]) != (look["selStroke"], look["selDash"])
    assert look["stroke"] != look["selStroke"] and look["dash"] not in ("none", "")
    ring = _rgb(look["stroke"])
    assert look["width"] >= 2
    assert _contrast(ring, (255, 255, 255)) >= 3 and _contrast(ring, DARK_BACKGROUND) >= 3


def test_hyperedge_label_focus_has_contrast(open_page: Any, sample_html: str) -> None:
    p = open_page(sample_html)
    _tab_to(p, "#hv-svg .hv-label[tabindex]")
    halo = p.eval("""(() => { const s = getComputedStyle(document.activeElement);
        return [s.stroke, parseFloat(s.strokeWidth), s.fill, s.opacity]; })()""")
    ring = _rgb(halo[0])
    assert halo[1] >= 2 and halo[3] == "1"
    assert _contrast(ring, (255, 255, 255)) >= 3 and _contrast(ring, DARK_BACKGROUND) >= 3
    assert _contrast(_rgb(halo[2]), ring) >= 4.5  # the label stays readable on its halo


def test_pan_and_zoom_keys_only_on_the_drawing(open_page: Any, sample_html: str) -> None:
    p = open_page(sample_html, 1280, 500)
    p.eval("window.__kept = []; window.addEventListener('keydown', "
           "e => __kept.push(e.key + ':' + e.defaultPrevented))")
    reset = p.transform()
    p.page.focus(".hv-legend-item")
    for key in ("ArrowDown", "ArrowUp", "ArrowLeft", "+", "-"):
        p.page.keyboard.press(key)
    assert p.transform() == reset  # the side panel keeps its keys
    assert p.eval("__kept") == ["ArrowDown:false", "ArrowUp:false", "ArrowLeft:false",
                                "+:false", "-:false"]
    p.page.focus("#hv-hops")
    p.page.keyboard.press("0")
    assert p.transform() == reset
    p.page.click(".hv-legend-item")  # a selection (centred on it): chips in the side panel
    centred = p.transform()
    p.page.focus("#hv-details .hv-chip")
    for key in ("ArrowRight", "ArrowDown", "0"):
        p.page.keyboard.press(key)
    assert p.transform() == centred
    p.page.keyboard.press("Escape")  # Escape still resets from anywhere
    assert p.page.get_attribute("#hv-details", "data-selected") is None
    p.page.click("#hv-zoom-reset")
    p.page.locator("#hv-svg .hv-ent").first.focus()  # on the drawing they pan and zoom
    p.page.keyboard.press("ArrowLeft")
    assert p.transform() != reset
    p.page.keyboard.press("+")
    assert "scale(1.40000)" in p.transform()
    p.eval("document.activeElement.blur()")  # nothing focused: the page's keys
    p.page.keyboard.press("0")
    assert p.transform() == reset


def test_tab_brings_items_of_a_zoomed_drawing_into_view(open_page: Any,
                                                        sample_html: str) -> None:
    p = open_page(sample_html)
    for _ in range(5):
        p.page.click("#hv-zoom-in")
    p.page.focus("#hv-zoom-reset")
    seen = outside = 0
    for _ in range(60):
        p.page.keyboard.press("Tab")
        where = p.eval("""(() => { const e = document.activeElement;
            if (!e.closest('#hv-svg') || e.id === 'hv-svg') return null;
            const r = e.getBoundingClientRect(),
                  s = document.getElementById('hv-svg').getBoundingClientRect();
            const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
            return x >= s.left && x <= s.right && y >= s.top && y <= s.bottom; })()""")
        if where is None:
            if seen:
                break
            continue
        seen += 1
        outside += not where
    assert seen >= 9 and outside == 0
    assert "scale(5.37824)" in p.transform()  # panned, not zoomed back out


def test_skip_button_and_one_tab_stop_per_item(open_page: Any, sample_html: str) -> None:
    p = open_page(sample_html)
    p.page.keyboard.press("Tab")
    assert p.active() == "button#hv-skip.hv-skip"
    skip = p.page.locator("#hv-skip").bounding_box()
    assert skip and skip["y"] >= 0 and skip["width"] > 20  # visible while focused
    p.page.keyboard.press("Enter")
    assert p.active().startswith("aside#hv-sidebar")
    p.page.keyboard.press("Tab")  # on into the side panel's own controls
    assert p.eval("document.getElementById('hv-sidebar').contains(document.activeElement)")
    p.eval("document.activeElement.blur()")
    assert p.page.locator("#hv-skip").bounding_box()["y"] < 0  # hidden again
    stops = []
    p.page.focus("#hv-search")
    for _ in range(80):
        p.page.keyboard.press("Tab")
        if p.eval("document.activeElement.closest('#hv-sidebar') !== null"):
            break
        stops.append(p.active())
    items = [s for s in stops if "[" in s]
    ids = [s.split("[")[1].rstrip("]") for s in items]
    assert len(ids) == len(set(ids))  # each entity and H# once
    drawn = p.eval("[...new Set([...document.querySelectorAll('#hv-svg [role=button]')]"
                   ".map(n => n.getAttribute('data-id')))]")
    assert set(ids) == set(drawn) and len(ids) >= 9
    copies = p.eval("[...document.querySelectorAll('#hv-svg [role=button]')]"
                    ".filter(n => n.tabIndex < 0).length")
    assert copies > 0  # the second panel's copies: focusable, not Tab stops


def _many_people_html() -> str:
    hg = Hypergraph()
    names = [f"Person {i:02d}" for i in range(60)]
    for n in names:
        hg.add_entity(Entity(name=n))
    hg.add_hyperedge(Hyperedge(members=[n.lower() for n in names[:30]], description="a"))
    hg.add_hyperedge(Hyperedge(members=[n.lower() for n in names[30:]], description="b"))
    return render_html(make_export(hg, ("bi-inc",)))


def test_search_is_a_combobox_with_a_status_line(open_page: Any, sample_html: str) -> None:
    p = open_page(sample_html)
    box = p.page.locator("#hv-search")
    assert box.get_attribute("role") == "combobox"
    assert box.get_attribute("aria-expanded") == "false"
    listbox = p.page.locator("#" + str(box.get_attribute("aria-controls")))
    assert listbox.get_attribute("role") == "listbox"
    p.page.fill("#hv-search", "e")
    assert box.get_attribute("aria-expanded") == "true"
    roles = p.eval("[...document.querySelectorAll('#hv-search-results [role=option]')]"
                   ".map(o => o.tabIndex)")
    assert roles and set(roles) == {-1}  # roving focus: the arrows, not Tab
    status = p.page.locator("#hv-search-wrap [role=status]")
    assert re.search(r"\d+ match", status.inner_text())
    p.page.focus("#hv-search")
    p.page.keyboard.press("ArrowDown")
    p.page.keyboard.press("ArrowDown")
    option = p.page.locator("#hv-search-results [aria-selected=true]")
    assert option.count() == 1 and p.eval("document.activeElement.getAttribute('role')") == \
        "option"
    p.page.keyboard.press("Escape")  # closes the list and goes back to the box
    assert p.active() == "input#hv-search."
    assert box.get_attribute("aria-expanded") == "false" and not listbox.is_visible()
    assert box.input_value() == "e"
    p.page.fill("#hv-search", "no such entity")
    assert status.inner_text() == "No entity matches"
    assert "No entity matches" in listbox.inner_text()
    many = open_page(_many_people_html())
    many.page.fill("#hv-search", "person")
    text = many.page.locator("#hv-search-wrap [role=status]").inner_text()
    assert "+10 more" in text and "60 matches" in text


def test_focus_shows_the_tooltip_and_controls_are_named(open_page: Any,
                                                        sample_html: str) -> None:
    p = open_page(sample_html)
    tip = p.page.locator("#hv-tooltip")
    _tab_to(p, "#hv-svg .hv-ent")
    eid = p.eval("document.activeElement.getAttribute('data-id')")
    assert tip.is_visible() and tip.inner_text().startswith(f"{eid} · ")
    ent = p.page.locator(f'#hv-svg .hv-ent[data-id="{eid}"]')
    assert {ent.nth(i).get_attribute("aria-pressed") for i in range(ent.count())} == {"false"}
    p.page.keyboard.press("Enter")
    assert {ent.nth(i).get_attribute("aria-pressed") for i in range(ent.count())} == {"true"}
    p.page.keyboard.press("Escape")
    assert ent.first.get_attribute("aria-pressed") == "false"
    p.page.focus("#hv-search")  # focus leaves the drawing: the tooltip goes
    assert not tip.is_visible()
    names = p.eval("['hv-zoom-in', 'hv-zoom-out', 'hv-zoom-reset']"
                   ".map(i => document.getElementById(i).getAttribute('aria-label'))")
    assert names == ["Zoom in", "Zoom out", "Reset zoom"]
    assert "Hover or focus a node" in p.page.inner_text("#hv-details")
    assert "Enter" in p.page.inner_text("#hv-details")


def test_png_overlay_is_hidden_from_screen_readers_and_output_is_stable() -> None:
    export = make_export(sample_hypergraph(), ("set-force",))
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    page = render_html(export, png=png)
    assert re.search(r'<image id="hv-png"[^>]*aria-hidden="true"', page)
    assert render_html(export, png=png) == page
