"""The HTML viewer in headless Chromium: tooltips, highlighting, evidence, search, zoom, CSP.

Uses Debian's ``/usr/bin/chromium`` (or ``$VIZRAG_CHROMIUM``, then only that path) through
Playwright; never downloads a browser. Skips, with the reason, only when Playwright or Chromium
cannot be found or launched -- and under ``CI=true`` (or 1/yes) fails instead, so that a CI
image without Chromium cannot pass with the viewer untested.
"""

from __future__ import annotations

import importlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from viewer_fixtures import (
    SAMPLE_CHUNKS,
    XSS_PAYLOADS,
    expected_ids,
    full_depth,
    hop_diameter,
    hostile_hypergraph,
    make_export,
    sample_hypergraph,
)

from hyperviz_core import IdMap
from hyperviz_core.viewer import render_html

pytestmark = pytest.mark.browser

LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}


def _unavailable(reason: str) -> NoReturn:
    """Skip, or under CI fail: browser tests must run there."""
    if _in_ci():
        pytest.fail(f"{reason} -- CI is set, so the browser tests must run, not skip",
                    pytrace=False)
    pytest.skip(reason)


def _chromium() -> str | None:
    explicit = os.environ.get("VIZRAG_CHROMIUM")
    if explicit:  # an explicit choice is the only candidate
        return explicit if Path(explicit).exists() else None
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        sync_api = importlib.import_module("playwright.sync_api")
    except ImportError:
        _unavailable("playwright is not installed")
    exe = _chromium()
    if exe is None:
        _unavailable("Chromium not found (install Debian's chromium or set VIZRAG_CHROMIUM)")
    with sync_api.sync_playwright() as pw:
        try:
            b = pw.chromium.launch(executable_path=exe, args=LAUNCH_ARGS)
        except Exception as exc:  # pragma: no cover - depends on the machine
            _unavailable(f"Chromium at {exe} cannot be launched: {exc}")
        yield b
        b.close()


class Viewer:
    """A page with the viewer loaded, plus what it logged."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.console: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, html: str, path: Path) -> None:
        path.write_text(html, encoding="utf-8")
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("html[data-hv-ready]", state="attached", timeout=10_000)

    def centre(self, selector: str) -> tuple[float, float]:
        box = self.page.locator(selector).first.bounding_box()
        assert box, selector
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def hover(self, selector: str) -> None:
        self.page.mouse.move(*self.centre(selector))

    def click(self, selector: str) -> None:
        self.page.mouse.click(*self.centre(selector))

    def ids(self, selector: str) -> set[str]:
        found = self.page.eval_on_selector_all(
            selector, "els => els.map(e => e.getAttribute('data-id'))"
        )
        return set(found)

    def highlighted(self) -> tuple[set[str], set[str]]:
        return self.ids(".hv-ent.hv-hl"), self.ids(".hv-hnode.hv-hl, .hv-region.hv-hl")

    def hop_status(self) -> tuple[str, str | None, str | None]:
        """The toolbar's hop line: (text, data-hops, data-max)."""
        loc = self.page.locator("#hv-hop-status")
        return loc.inner_text(), loc.get_attribute("data-hops"), loc.get_attribute("data-max")

    def set_max_hops(self, value: str) -> None:
        self.page.select_option("#hv-hops", value)

    def cleared(self) -> bool:
        return (
            self.ids(".hv-hl, .hv-dim, .hv-sel") == set()
            and "hv-focus" not in (self.page.get_attribute("#hv-svg", "class") or "")
            and self.page.get_attribute("#hv-details", "data-selected") is None
            and self.hop_status() == ("no entity selected", None, None)
        )

    def transform(self) -> str:
        return str(self.page.get_attribute("#hv-viewport", "transform"))

    def csp_messages(self) -> list[str]:
        return [m for m in self.console if "Content Security Policy" in m]


@pytest.fixture
def viewer(browser: Any) -> Iterator[Viewer]:
    context = browser.new_context(viewport={"width": 1400, "height": 860})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield Viewer(page)
    context.close()


@pytest.fixture(scope="module")
def sample() -> tuple[Any, dict[str, Any], str]:
    hg = sample_hypergraph()
    export = make_export(hg, ("set-force", "bi-inc"), chunk_texts=SAMPLE_CHUNKS)
    return hg, export, render_html(export)


def _ent(eid: str) -> str:
    return f'circle.hv-ent[data-id="{eid}"]'


def test_hover_entity_and_hyperedge_tooltips(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    hg, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    ids = IdMap.build(hg)
    eid = ids.entities["marie curie"]
    viewer.hover(_ent(eid))
    tip = viewer.page.locator("#hv-tooltip")
    assert tip.is_visible()
    text = tip.inner_text()
    ent = hg.entities["marie curie"]
    assert f"{eid} · {ent.name}" in text
    assert f"type: {ent.type}" in text
    assert f"degree: {hg.degree('marie curie')}" in text
    assert ent.description in text
    hid = ids.hyperedges["r2"]
    viewer.hover(f'rect.hv-hnode[data-id="{hid}"]')
    text = tip.inner_text()
    assert hid in text and "discovered elements" in text
    for key in hg.members("r2"):
        assert f"{ids.entities[key]} {hg.entities[key].name}" in text
    viewer.page.mouse.move(2, 200)  # off the drawing
    assert not tip.is_visible()
    assert viewer.errors == [] and viewer.csp_messages() == []


def test_click_entity_expands_one_hop_per_click_then_resets(
    viewer: Viewer, sample: Any, tmp_path: Path
) -> None:
    hg, export, html = sample
    viewer.open(html, tmp_path / "view.html")
    ids = IdMap.build(hg)
    key = "henri becquerel"
    eid = ids.entities[key]
    top = full_depth(hg, key)  # N(v, G): the default ("all") maximum
    assert top >= 3  # the fixture's chain needs several clicks
    assert viewer.page.input_value("#hv-hops") == "all"
    assert viewer.hop_status() == ("no entity selected", None, None)
    assert viewer.page.is_disabled("#hv-expand")
    all_ids = {e["id"] for e in export["entities"]}
    previous: tuple[set[str], set[str]] = (set(), set())
    for hops in range(1, top + 1):
        viewer.click(_ent(eid))
        expected = expected_ids(hg, key, hops)
        assert viewer.highlighted() == expected, hops
        assert expected[0] >= previous[0] and expected != previous  # each click adds something
        previous = expected
        unit = "hop" if hops == 1 else "hops"
        assert viewer.hop_status() == (f"{eid}: {hops} {unit} (of {top})", str(hops), str(top))
        assert viewer.ids(".hv-ent.hv-sel") == {eid}
        assert viewer.page.get_attribute("#hv-details", "data-selected") == eid
        assert viewer.ids(".hv-ent.hv-dim") == all_ids - expected[0]  # dimmed = everything else
        assert f"within {hops} {unit} (of {top})" in viewer.page.inner_text("#hv-details")
        if hops == 1:  # first click: the entity, its hyperedges and their other members
            assert expected[1] == {ids.hyperedges[h] for h in hg.neighbors(key)}
            members = {ids.entities[m] for h in hg.neighbors(key) for m in hg.members(h)}
            assert expected[0] == members | {eid}
    # at the maximum everything reachable is lit; one more click resets
    assert previous == expected_ids(hg, key, len(hg.entities))
    assert "Everything reachable" in viewer.page.inner_text("#hv-details")
    assert viewer.page.is_disabled("#hv-expand")
    viewer.click(_ent(eid))
    assert viewer.cleared()
    # and the next click starts again at 1 hop
    viewer.click(_ent(eid))
    assert viewer.highlighted() == expected_ids(hg, key, 1)
    assert viewer.hop_status()[1:] == ("1", str(top))


def test_another_entity_starts_at_one_hop(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    hg, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    ids = IdMap.build(hg)
    a, b = ids.entities["henri becquerel"], ids.entities["warsaw"]
    viewer.click(_ent(a))
    viewer.click(_ent(a))
    assert viewer.highlighted() == expected_ids(hg, "henri becquerel", 2)
    viewer.click(_ent(b))
    assert viewer.highlighted() == expected_ids(hg, "warsaw", 1)
    assert viewer.ids(".hv-ent.hv-sel") == {b}
    assert viewer.hop_status() == (f"{b}: 1 hop (of {full_depth(hg, 'warsaw')})", "1",
                                   str(full_depth(hg, "warsaw")))  # fmt: skip
    # a hyperedge selection in between does not count as a hop either
    viewer.click(f'rect.hv-hnode[data-id="{ids.hyperedges["r1"]}"]')
    viewer.click(_ent(b))
    assert viewer.highlighted() == expected_ids(hg, "warsaw", 1)


def test_hop_control_limits_expansion(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    hg, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    ids = IdMap.build(hg)
    key = "henri becquerel"
    eid = ids.entities[key]
    options = viewer.page.eval_on_selector_all("#hv-hops option", "os => os.map(o => o.value)")
    assert options == [str(n) for n in range(1, hop_diameter(hg) + 1)] + ["all"]
    viewer.set_max_hops("2")
    viewer.click(_ent(eid))
    assert viewer.highlighted() == expected_ids(hg, key, 1)
    assert viewer.hop_status() == (f"{eid}: 1 hop (of 2)", "1", "2")
    viewer.click(_ent(eid))
    assert viewer.highlighted() == expected_ids(hg, key, 2)
    assert viewer.hop_status() == (f"{eid}: 2 hops (of 2)", "2", "2")
    assert '"max hops" limit' in viewer.page.inner_text("#hv-details")
    assert viewer.page.is_disabled("#hv-expand")
    viewer.click(_ent(eid))  # the limit, not N(v, G), is the maximum: this click resets
    assert viewer.cleared()
    # "+1 hop" follows the same rule: one hop more per press, disabled at the maximum
    viewer.set_max_hops("3")
    viewer.click(_ent(eid))
    viewer.page.click("#hv-expand")
    assert viewer.highlighted() == expected_ids(hg, key, 2)
    viewer.page.click("#hv-expand")
    assert viewer.highlighted() == expected_ids(hg, key, 3)
    assert viewer.hop_status()[1:] == ("3", "3")
    assert viewer.page.is_disabled("#hv-expand")
    # lowering the limit shrinks the highlight; "all" raises the maximum back to N(v, G)
    viewer.set_max_hops("1")
    assert viewer.highlighted() == expected_ids(hg, key, 1)
    assert viewer.hop_status()[1:] == ("1", "1")
    viewer.set_max_hops("all")
    assert viewer.hop_status()[1:] == ("1", str(full_depth(hg, key)))
    assert viewer.page.is_enabled("#hv-expand")
    viewer.click(_ent(eid))
    assert viewer.highlighted() == expected_ids(hg, key, 2)
    # a limit beyond the entity's own depth is capped by it
    near = "warsaw"
    viewer.page.keyboard.press("Escape")
    viewer.set_max_hops(str(hop_diameter(hg)))
    viewer.click(_ent(ids.entities[near]))
    assert viewer.hop_status()[2] == str(min(hop_diameter(hg), full_depth(hg, near)))


def test_escape_resets(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    hg, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    eid = IdMap.build(hg).entities["marie curie"]
    viewer.click(_ent(eid))
    viewer.click(_ent(eid))
    assert viewer.highlighted() == expected_ids(hg, "marie curie", 2)
    viewer.page.keyboard.press("Escape")
    assert viewer.cleared()
    assert "Escape resets" in viewer.page.inner_text("#hv-details")
    viewer.click(_ent(eid))  # starts again at 1 hop
    assert viewer.highlighted() == expected_ids(hg, "marie curie", 1)
    viewer.page.keyboard.press("Escape")
    assert viewer.cleared()


def test_click_hyperedge_shows_evidence(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    hg, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    ids = IdMap.build(hg)
    hid = ids.hyperedges["r4"]  # sources: c3 (text known) and c-missing (no text)
    viewer.click(f'rect.hv-hnode[data-id="{hid}"]')
    details = viewer.page.locator("#hv-details")
    assert details.get_attribute("data-selected") == hid
    text = details.inner_text()
    assert "located in Paris" in text
    for key in hg.members("r4"):
        assert f"{ids.entities[key]} — {hg.entities[key].name}" in text
    assert "Chunk c3" in text and SAMPLE_CHUNKS["c3"] in text
    assert viewer.page.inner_text('.hv-evidence[data-chunk="c3"]') == SAMPLE_CHUNKS["c3"]
    assert "Chunk c-missing" in text and "not included" in text
    assert viewer.highlighted() == ({ids.entities[k] for k in hg.members("r4")}, {hid})
    # a region in the set panel works too, and a member chip selects that entity
    viewer.page.keyboard.press("Escape")
    hid1 = ids.hyperedges["r1"]
    viewer.page.click(f'.hv-legend-item[data-goto="{hid1}"]')
    assert details.get_attribute("data-selected") == hid1
    assert (
        SAMPLE_CHUNKS["c1"] in details.inner_text() and SAMPLE_CHUNKS["c2"] in details.inner_text()
    )
    member = ids.entities["nobel prize"]
    viewer.page.click(f'#hv-details .hv-chip[data-goto="{member}"]')
    assert viewer.ids(".hv-ent.hv-sel") == {member}


def test_region_click_selects_hyperedge(viewer: Viewer, tmp_path: Path) -> None:
    export = make_export(layouts=("set-force",))
    viewer.open(render_html(export), tmp_path / "view.html")
    h = export["hyperedges"][0]
    # click the region's own H# label (inside the region)
    viewer.click(f'text.hv-label[data-id="{h["id"]}"]')
    assert viewer.page.get_attribute("#hv-details", "data-selected") == h["id"]
    assert viewer.ids(".hv-region.hv-sel") == {h["id"]}


def test_search_by_name_and_id(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    hg, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    ids = IdMap.build(hg)
    before = viewer.transform()
    viewer.page.fill("#hv-search", "sorb")
    results = viewer.page.locator("#hv-search-results")
    assert results.is_visible()
    assert f"{ids.entities['sorbonne']} — Sorbonne" in results.inner_text()
    viewer.page.press("#hv-search", "Enter")
    assert viewer.ids(".hv-ent.hv-sel") == {ids.entities["sorbonne"]}
    assert viewer.transform() != before  # centred on the result
    viewer.page.keyboard.press("Escape")
    eid = ids.entities["warsaw"]
    viewer.page.fill("#hv-search", eid.lower())
    viewer.page.click(f'#hv-search-results button[data-goto="{eid}"]')
    assert viewer.ids(".hv-ent.hv-sel") == {eid}
    viewer.page.fill("#hv-search", "no such entity")
    assert "No entity matches" in results.inner_text()


def test_zoom_and_pan(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    _, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    reset = viewer.transform()
    assert reset == "translate(0.000 0.000) scale(1.00000)"
    viewer.page.click("#hv-zoom-in")
    zoomed = viewer.transform()
    assert zoomed != reset and "scale(1.40000)" in zoomed
    viewer.page.click("#hv-zoom-reset")
    assert viewer.transform() == reset
    x, y = viewer.centre("#hv-svg")
    viewer.page.mouse.move(x, y)
    viewer.page.mouse.wheel(0, -300)
    viewer.page.wait_for_function(
        "t => document.getElementById('hv-viewport').getAttribute('transform') !== t", arg=reset
    )
    wheel = viewer.transform()
    assert float(wheel.split("scale(")[1].rstrip(")")) > 1.0
    viewer.page.mouse.move(x + 5, y + 5)
    viewer.page.mouse.down()
    viewer.page.mouse.move(x + 80, y + 60, steps=5)
    viewer.page.mouse.up()
    assert viewer.transform() != wheel  # panned
    assert viewer.ids(".hv-sel") == set()  # a drag is not a click
    viewer.page.keyboard.press("0")
    assert viewer.transform() == reset


def test_screenshot_is_a_real_image(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    hg, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    eid = IdMap.build(hg).entities["henri becquerel"]
    viewer.click(_ent(eid))
    viewer.click(_ent(eid))  # 2 hops: the status line and highlight show in the picture
    assert viewer.hop_status()[1] == "2"
    shot = tmp_path / "view.png"
    data = viewer.page.screenshot(path=str(shot))
    assert data.startswith(PNG_SIGNATURE) and len(data) > 20_000
    svg_box = viewer.page.locator("#hv-svg").bounding_box()
    assert svg_box and svg_box["width"] > 500 and svg_box["height"] > 300
    # the drawing is visible (non-zero sized, painted circles)
    r = viewer.page.eval_on_selector(_ent("E1"), "e => e.getBoundingClientRect().width")
    assert r > 5


def test_collage_of_many_panels(viewer: Viewer, tmp_path: Path) -> None:
    hg = sample_hypergraph()
    layouts = ("set-force", "set-hier", "set-radial", "bi-inc", "ra-cen", "cli-exp")
    export = make_export(hg, layouts)
    viewer.open(render_html(export), tmp_path / "collage.html")
    ids = IdMap.build(hg)
    eid = ids.entities["paris"]
    viewer.click(_ent(eid))
    exp_e, exp_h = expected_ids(hg, "paris", 1)
    n = viewer.page.locator(".hv-ent.hv-hl").count()
    assert n == len(exp_e) * len(layouts)  # highlighted in every panel
    assert viewer.page.locator(".hv-ent.hv-sel").count() == len(layouts)
    assert viewer.highlighted() == (exp_e, exp_h)


def test_png_overlay_toggle(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    _, export, _ = sample
    png = viewer.page.screenshot()  # any PNG will do
    viewer.open(render_html(export, png=png), tmp_path / "view.html")
    assert "hv-off" in (viewer.page.get_attribute("#hv-png", "class") or "")
    viewer.page.check("#hv-show-png")
    assert "hv-off" not in (viewer.page.get_attribute("#hv-png", "class") or "")
    assert viewer.csp_messages() == []


def test_injection_runs_no_script_and_shows_text(viewer: Viewer, tmp_path: Path) -> None:
    hg, chunks = hostile_hypergraph()
    export = make_export(hg, ("set-force", "bi-inc", "cli-exp"), chunk_texts=chunks)
    export["title"] = XSS_PAYLOADS[3]
    html = render_html(export)
    # escaping alone must hold: also load the page with its CSP removed
    stripped = "\n".join(line for line in html.split("\n") if "Content-Security-Policy" not in line)
    assert stripped != html
    for variant, page_html in (("csp", html), ("nocsp", stripped)):
        viewer.open(page_html, tmp_path / f"x-{variant}.html")
        ids = IdMap.build(hg)
        page = viewer.page
        assert page.title() == XSS_PAYLOADS[3]
        assert page.inner_text("#hv-title") == XSS_PAYLOADS[3]
        for i, payload in enumerate(XSS_PAYLOADS):
            key = hg.entities[next(k for k in hg.entities if k.endswith(f"#{i}"))].key
            eid = ids.entities[key]
            viewer.hover(_ent(eid))
            title = page.eval_on_selector("#hv-tooltip .hv-tt-title", "e => e.textContent")
            assert title == f"{eid} · {payload} #{i}"
            assert f"desc {payload}" in page.eval_on_selector("#hv-tooltip", "e => e.textContent")
        hid = ids.hyperedges["x1"]
        viewer.click(f'rect.hv-hnode[data-id="{hid}"]')
        details = page.locator("#hv-details")
        assert f"rel {XSS_PAYLOADS[1]}" in details.inner_text()
        evidence = page.eval_on_selector_all(".hv-evidence", "els => els.map(e => e.textContent)")
        assert f"evidence {XSS_PAYLOADS[1]}" in evidence
        assert f"Chunk id {XSS_PAYLOADS[1]}" in details.inner_text()
        page.fill("#hv-search", "<script>")
        assert "window.__pwned = 1" in page.inner_text("#hv-search-results")
        page.press("#hv-search", "Enter")
        page.wait_for_timeout(100)
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
        assert page.evaluate("document.scripts.length") == 2
        assert viewer.dialogs == []
        assert viewer.errors == []


def test_csp_blocks_foreign_code_but_not_ours(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    _, _, html = sample
    requests: list[str] = []
    viewer.page.on("request", lambda req: requests.append(req.url))
    viewer.open(html, tmp_path / "view.html")
    assert [u for u in requests if not u.startswith("data:")] == [
        (tmp_path / "view.html").resolve().as_uri()
    ]  # offline: the page itself is the only thing loaded
    viewer.click(_ent("E1"))  # our script runs (it added the ready flag and handles clicks)
    viewer.page.keyboard.press("Escape")
    assert viewer.csp_messages() == []
    assert viewer.errors == []
    # positive control: an injected inline script is refused by the policy
    viewer.page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.__injected = 1'; document.body.appendChild(s); }"
    )
    viewer.page.wait_for_timeout(100)
    assert viewer.page.evaluate("typeof window.__injected") == "undefined"
    assert viewer.csp_messages(), viewer.console


# ---------------------------------------------------------------- real renderings


@pytest.fixture(scope="module")
def real() -> Any:
    from hyperviz_core.render import HyperViz

    hg = sample_hypergraph()
    return hg, HyperViz().render(hg, chunk_texts=SAMPLE_CHUNKS)


def test_real_rendering_in_browser(viewer: Viewer, real: Any, tmp_path: Path) -> None:
    hg, r = real
    path = tmp_path / "real.html"
    r.save_html(path)
    viewer.page.goto(path.resolve().as_uri())
    viewer.page.wait_for_selector("html[data-hv-ready]", state="attached")
    ids = r.id_map
    key = "sorbonne"
    eid = ids.entities[key]
    viewer.hover(_ent(eid))
    assert "University in Paris." in viewer.page.inner_text("#hv-tooltip")
    viewer.click(_ent(eid))
    assert viewer.highlighted() == expected_ids(hg, key, 1, ids)
    viewer.click(_ent(eid))
    assert viewer.highlighted() == expected_ids(hg, key, 2, ids)
    assert viewer.hop_status() == (f"{eid}: 2 hops (of {full_depth(hg, key)})", "2",
                                   str(full_depth(hg, key)))  # fmt: skip
    viewer.page.keyboard.press("Escape")
    hid = ids.hyperedges["r2"]
    viewer.click(f'rect.hv-hnode[data-id="{hid}"]')
    details = viewer.page.inner_text("#hv-details")
    assert "discovered elements" in details and SAMPLE_CHUNKS["c2"] in details
    viewer.page.keyboard.press("Escape")
    # the set panel's region of the same hyperedge selects it too (click its H# label)
    viewer.click(f'.hv-panel[data-panel="0"] text.hv-label[data-id="{hid}"]')
    assert viewer.page.get_attribute("#hv-details", "data-selected") == hid
    shot = viewer.page.screenshot(path=str(tmp_path / "real.png"))
    assert shot.startswith(PNG_SIGNATURE) and len(shot) > 20_000
    assert viewer.errors == [] and viewer.csp_messages() == [] and viewer.dialogs == []


def test_real_rendering_of_hostile_text(viewer: Viewer, tmp_path: Path) -> None:
    from hyperviz_core.render import HyperViz

    hg, chunks = hostile_hypergraph()
    r = HyperViz().render(hg, layouts=("set-force", "bi-inc"), chunk_texts=chunks,
                          title=XSS_PAYLOADS[0])  # fmt: skip
    viewer.open(r.to_html(), tmp_path / "hostile.html")
    page = viewer.page
    # the renderer's (shortened) name labels are in the SVG as literal text
    names = page.eval_on_selector_all(".hv-label-name", "els => els.map(e => e.textContent)")
    expected = [lab["text"] for lab in r.export()["labels"] if lab["kind"] == "name"]
    assert names and names == expected
    for key, eid in r.id_map.entities.items():
        viewer.hover(_ent(eid))
        title = page.eval_on_selector("#hv-tooltip .hv-tt-title", "e => e.textContent")
        assert title == f"{eid} · {hg.entities[key].name}"
    hid = r.id_map.hyperedges["x3"]
    page.click(f'.hv-legend-item[data-goto="{hid}"]')
    assert f"rel {XSS_PAYLOADS[3]}" in page.inner_text("#hv-details")
    assert f"evidence {XSS_PAYLOADS[3]}" in page.inner_text("#hv-details")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
    assert viewer.dialogs == [] and viewer.errors == [] and viewer.csp_messages() == []


def test_two_inline_viewers_on_one_page_both_work(viewer: Viewer, sample: Any,
                                                  tmp_path: Path) -> None:
    """``InlineViewer`` (what ``Rendering.viewer()`` returns for a notebook) keeps each
    viewer in its own sandboxed iframe: two on one page both zoom, the host page's own
    style is untouched."""
    from hyperviz_core.viewer import InlineViewer

    _, _, html = sample
    host = ("<!DOCTYPE html><html><head><style>body{background:rgb(1, 2, 3)}</style></head>"
            f"<body><p id='cell'>notebook</p>{InlineViewer(html)}{InlineViewer(html)}"
            "</body></html>")
    (tmp_path / "host.html").write_text(host, encoding="utf-8")
    viewer.page.goto((tmp_path / "host.html").resolve().as_uri())
    frames = [viewer.page.frame_locator("iframe").nth(i) for i in (0, 1)]
    for frame in frames:
        frame.locator("html[data-hv-ready]").wait_for(state="attached")
        frame.locator("#hv-zoom-in").click()
        assert "scale(1.40000)" in str(frame.locator("#hv-viewport").get_attribute("transform"))
    assert viewer.page.evaluate("getComputedStyle(document.body).backgroundColor") == \
        "rgb(1, 2, 3)"
    assert viewer.page.evaluate("getComputedStyle(document.body).display") == "block"
    assert viewer.errors == []


def test_arrow_keys_in_an_editor_do_not_pan(viewer: Viewer, sample: Any, tmp_path: Path) -> None:
    """A contenteditable editor (a notebook's code cell) keeps its arrow keys and ``0``."""
    _, _, html = sample
    viewer.open(html, tmp_path / "view.html")
    reset = viewer.transform()
    viewer.page.evaluate("""() => { const d = document.createElement('div');
        d.id = 'editor'; d.contentEditable = 'true'; d.textContent = 'abcdef';
        document.body.prepend(d); }""")
    viewer.page.click("#editor")
    viewer.page.keyboard.press("End")
    for key in ("ArrowLeft", "ArrowLeft", "X", "0"):
        viewer.page.keyboard.press(key)
    assert viewer.page.inner_text("#editor") == "abcdX0ef"
    assert viewer.transform() == reset
    viewer.page.click("#hv-zoom-in")
    viewer.page.locator("#hv-svg").focus()
    viewer.page.keyboard.press("0")  # outside the editor the shortcut still works
    assert viewer.transform() == reset
