"""A letter with combining marks is drawn as one shaped unit: the marks sit on their letter.

Before the fix ``draw/text.py`` turned each character into a path on its own
(``text_to_path.get_text_path(prop, ch)``). A combining mark with no precomposed form
(Russian stress "Москва́", "q̃uery", "n̈", Yoruba "Àyọ̀ká", Hebrew points, Arabic harakat),
shaped alone, is drawn by matplotlib's text layout (libraqm, matplotlib 3.11) on a dotted
circle U+25CC, at zero advance, over the following character. Now the letter and its marks
are shaped together (:func:`hyperviz_core.draw.text._cluster_glyph`). Text without
combining marks is drawn exactly as before (character by character).
"""

from __future__ import annotations

import itertools
import unicodedata
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from matplotlib.path import Path
from matplotlib.textpath import text_to_path

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.draw import text as text_mod
from hyperviz_core.draw.text import measure, text_path
from hyperviz_core.render import HyperViz

NAMES = ["Москва́", "Àyọ̀ká", "q̃uery", "n̈", "שָׁלוֹם", "مُحَمَّد"]
#: (base letter, its combining marks): none has a precomposed form
CLUSTERS = [("а", "\u0301"), ("q", "\u0303"), ("n", "\u0308"), ("ọ", "\u0300"),
            ("ש", "\u05b8\u05c1"), ("ו", "\u05b9"), ("م", "\u064f"), ("م", "\u064e\u0651"),
            ("x", "\u0301\u0302")]
_CACHES = ("_glyph", "_shape", "_cluster_glyph", "_pieces", "_units")


def _clear() -> None:
    for name in _CACHES:  # (the cluster caches are new with the fix)
        clear = getattr(getattr(text_mod, name, None), "cache_clear", None)
        if clear is not None:
            clear()


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    _clear()
    yield
    _clear()


def _contours(path: Path) -> set[tuple[float, ...]]:
    """Each closed outline of ``path``, moved to the origin (a shape, wherever it is)."""
    shapes: set[tuple[float, ...]] = set()
    verts, codes = np.asarray(path.vertices), np.asarray(path.codes)
    starts = [int(i) for i in np.flatnonzero(codes == Path.MOVETO)] + [len(codes)]
    for a, b in itertools.pairwise(starts):
        v = verts[a:b][codes[a:b] != Path.CLOSEPOLY]
        shapes.add(tuple(np.round(v - v.min(axis=0), 3).ravel()))
    return shapes


def _has_dotted_circle(path: Path | None) -> bool:
    """Whether ``path`` holds the dots of U+25CC DOTTED CIRCLE (at any place)."""
    circle = text_path("\u25cc", 0.0, 0.0, 100.0, dpi=72, ha="left")
    assert circle is not None
    dots = _contours(circle)
    return path is not None and len(dots & _contours(path)) >= len(dots) // 2


def test_the_dotted_circle_is_recognised() -> None:
    assert _has_dotted_circle(text_path("a\u25ccb", 0.0, 0.0, 100.0, dpi=72, ha="left"))
    assert not _has_dotted_circle(text_path("Москва", 0.0, 0.0, 100.0, dpi=72, ha="left"))


@pytest.mark.parametrize("name", NAMES)
def test_no_mark_is_drawn_on_a_dotted_circle(name: str) -> None:
    assert any(unicodedata.category(ch) == "Mn" for ch in name)
    assert not _has_dotted_circle(text_path(name, 0.0, 0.0, 100.0, dpi=72, ha="left"))


@pytest.mark.parametrize(("base", "marks"), CLUSTERS)
def test_marks_lie_over_their_letter(base: str, marks: str) -> None:
    """The marks take no room and their ink stays over the letter (before the fix it began
    where the letter ends, a dotted circle wide)."""
    size = 40.0
    width = measure(base, size)[0]
    assert measure(base + marks, size)[0] == width
    letter = text_path(base, 0.0, 0.0, size, ha="left")
    both = text_path(base + marks, 0.0, 0.0, size, ha="left")
    assert letter is not None and both is not None
    ink, own = both.get_extents(), letter.get_extents()
    assert ink.x0 >= min(0.0, own.x0) - 1.0
    assert ink.x1 <= max(width, own.x1) + 1.0, (ink.x1, width)


def test_a_label_keeps_its_marks_within_its_measured_box() -> None:
    for name in NAMES:
        drawn = text_path(name, 0.0, 0.0, 20.0, ha="left")
        assert drawn is not None
        assert drawn.get_extents().x1 <= measure(name, 20.0)[0] + 1.0, name


def _hypergraph(names: list[str]) -> Hypergraph:
    ents = [Entity(name=n, description="a place") for n in names]
    keys = [e.key for e in ents]
    edges = [Hyperedge(id=f"h{i}", members=[a, b], description=f"{a} with {b}")
             for i, (a, b) in enumerate(itertools.pairwise(keys))]
    return Hypergraph(entities=ents, hyperedges=edges)


def test_a_rendering_never_shapes_a_mark_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every string the rendering turns into a path starts with a letter, not a mark."""
    shaped: list[str] = []
    real = text_to_path.get_text_path

    def spy(prop: object, s: str, *a: object, **k: object) -> object:
        shaped.append(s)
        return real(prop, s, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(text_to_path, "get_text_path", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # right-to-left names: a RightToLeftWarning
        r = HyperViz().render(_hypergraph(NAMES), query="Москва́", title="Москва́")
    assert r.png.startswith(b"\x89PNG")
    alone = sorted({s for s in shaped if unicodedata.category(s[0]).startswith("M")})
    assert not alone, [f"U+{ord(s[0]):04X}" for s in alone]
    assert "а\u0301" in shaped and "q\u0303" in shaped


def _per_character(text: str, size: float) -> tuple[np.ndarray, np.ndarray]:
    """The drawing before combining marks were shaped: glyph after glyph, centred."""
    em = size * 100 / 72.0  # 100 dpi
    scale = em / 100.0
    glyphs = [text_mod._glyph(ch, False) for ch in text]
    pen = -(sum(g[2] for g in glyphs) * em / 100.0) / 2.0
    base = text_mod.CAP * em / 2.0
    verts, codes = [], []
    for v, c, adv in glyphs:
        if len(v):
            verts.append(np.column_stack([pen + v[:, 0] * scale, base - v[:, 1] * scale]))
            codes.append(c)
        pen += adv * scale
    return np.concatenate(verts), np.concatenate(codes)


@pytest.mark.parametrize("text", [
    "Marie Curie", "Zürich Hauptbahnhof", "Москва", "北京大学", "ab\u200bcd\ufe0f",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467 family",
])
def test_text_without_combining_marks_is_drawn_as_before(text: str) -> None:
    """(Right-to-left text is laid out whole since stop 64: ``tests/test_rtl_shaping64.py``.)"""
    drawn = text_path(text, 0.0, 0.0, 12.0)
    assert drawn is not None
    verts, codes = _per_character(text, 12.0)
    assert np.array_equal(np.asarray(drawn.vertices), verts)
    assert np.array_equal(np.asarray(drawn.codes), codes)


@pytest.mark.parametrize("text", [
    " \u0301", "\u0301", "\u0301\u0302", "a\u200d\u0301", "a\ufe0f\u0301", "a\u0301\u200db",
    "\u0915\u094d\u0937", "\u5317\u0301", "\U0001f44d\u0301", "\ud800\u0301", "e\u0301" * 40,
])
def test_odd_clusters_never_fail(text: str) -> None:
    width = measure(text, 12.0)[0]
    assert width >= 0.0
    drawn = text_path(text, 0.0, 0.0, 12.0)
    assert drawn is not None and np.isfinite(drawn.vertices).all()
