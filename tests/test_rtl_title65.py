"""The PNG title isolates its query (stop 65), so a right-to-left question reads as typed.

The title is one left-to-right line, ``HyperViz: … · query: <query>``. Laid out whole
(``draw.text._run_glyph``), a Hebrew or Arabic question's final ``?`` and anything after a
right-to-left word (a year in parentheses) took the line's direction: the ``?`` was drawn at
the far right, after the question's first word, and ``(1948)`` between its words. The title
as drawn now holds the query between a first strong isolate and its pop
(``unitext.isolate``), as HTML's ``<bdi>`` does; the title a rendering reports
(``Rendering.title``, the export's ``title``) stays the plain text.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from render_spy import render_spied

from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz
from hyperviz_core.draw import text as text_mod
from hyperviz_core.draw.raster import rasterize
from hyperviz_core.draw.text import measure, text_path
from hyperviz_core.unitext import FSI, PDI, bidi_free, isolate

PREFIX = "HyperViz: bi-inc · query: "


def _hypergraph() -> Hypergraph:
    ents = [Entity(name=n, description="a place") for n in ("תל אביב", "Jaffa", "Haifa")]
    keys = [e.key for e in ents]
    return Hypergraph(entities=ents, hyperedges=[
        Hyperedge(id="h1", members=keys, description="cities of Israel")])


def _drawn(monkeypatch: pytest.MonkeyPatch, query: str | None, **kw: Any) -> tuple[Any, Any]:
    """The rendering and what its PNG was drawn from (``rasterize``'s arguments)."""
    return render_spied(monkeypatch, HyperViz(**kw), _hypergraph(), layouts=["bi-inc"],
                        query=query)


def _ends_with(run: tuple[np.ndarray, np.ndarray, float], ch: str) -> bool:
    """Whether the glyph drawn rightmost (last: glyphs come in visual order) is ``ch``."""
    glyph = text_mod._glyph(ch, False)[0]
    tail = run[0][-len(glyph):]
    return bool(len(run[0]) >= len(glyph)
                and np.allclose(tail - (tail[0] - glyph[0]), glyph, atol=1e-6))


def test_isolate_wraps_the_text_without_its_own_controls() -> None:
    assert isolate("מי?") == FSI + "מי?" + PDI
    assert isolate("\u2069abc\u202e\u2067") == FSI + "abc" + PDI  # cannot close ours early
    assert bidi_free("\u200fא\u2066b\u2069") == "אb"


def test_a_hebrew_question_keeps_its_question_mark_at_its_own_end() -> None:
    """Drawn plainly, the ``?`` is the rightmost glyph (after the question, in a
    left-to-right line); isolated, the question's first word ``מי`` ends the line on the
    right and the ``?`` sits at its left end, right after the prefix."""
    plain = text_mod._run_glyph(PREFIX + "מי?", False)
    isolated = text_mod._run_glyph(PREFIX + isolate("מי?"), False)
    assert plain is not None and isolated is not None
    assert _ends_with(plain, "?") and not _ends_with(plain, "מ")
    assert _ends_with(isolated, "מ") and not _ends_with(isolated, "?")
    assert isolated[2] == pytest.approx(plain[2])  # the isolates take no room


def test_the_isolated_title_is_drawn_within_its_measured_box() -> None:
    title = PREFIX + isolate("מי היה ראש הממשלה? (1948)")
    width = measure(title, 14.0, True)[0]
    drawn = text_path(title, 0.0, 0.0, 14.0, True, ha="left")
    assert drawn is not None
    box = drawn.get_extents()
    assert box.x0 >= -1.0 and box.x1 <= width + 1.0


def test_the_rendering_draws_the_query_isolated_and_reports_the_plain_title(
        monkeypatch: pytest.MonkeyPatch) -> None:
    query = "מי היה ראש הממשלה? (1948)"
    result, drawing = _drawn(monkeypatch, query)
    title = drawing[6]
    assert title.endswith(" · query: " + isolate(query))
    assert result.title == bidi_free(title) and FSI not in result.title
    assert result.export()["title"] == result.title


def test_the_isolates_change_only_right_to_left_titles(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Latin query's title is drawn byte for byte as its plain text (the isolates are
    invisible characters of the per-character path); a Hebrew one's is not."""
    for query, same in (("Where is Jaffa?", True), ("איפה יפו?", False)):
        result, drawing = _drawn(monkeypatch, query)
        plain = rasterize(*drawing[:6], result.title, *drawing[7:])
        assert (plain == result.png) is same, query


def test_a_title_without_a_query_or_given_is_drawn_as_it_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for query, kw in ((None, {}), ("איפה יפו?", {"title": "מפה"})):
        style_kw = {"style": HyperViz().style.model_copy(update=kw)} if kw else {}
        result, drawing = _drawn(monkeypatch, query, **style_kw)
        assert drawing[6] == result.title and FSI not in drawing[6]


def test_a_query_cut_off_the_title_is_not_isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only what of the query the title keeps is isolated (cut to 60 characters)."""
    query = "איפה " * 30
    result, drawing = _drawn(monkeypatch, query)
    assert drawing[6].count(FSI) == 1 and drawing[6].endswith("…" + PDI)
    assert result.title.endswith("…")
