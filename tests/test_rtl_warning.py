"""A rendering holding right-to-left text (Arabic, Hebrew) that its PNG draws left to right
and unjoined says so (it did so silently; the HTML viewer shows it as written). Since stop 64
the PNG lays such labels out (``tests/test_rtl_shaping64.py``): only a label no one font
draws whole, or any of them with a matplotlib whose text layout does not shape, is said."""

from __future__ import annotations

import warnings

import pytest

from hyperviz_core import Hypergraph, HyperViz
from hyperviz_core.draw import text as text_mod
from hyperviz_core.draw.fonts import RightToLeftWarning
from hyperviz_core.model import Entity, Hyperedge


def _render(names: list[str]) -> list[warnings.WarningMessage]:
    hg = Hypergraph()
    for n in names:
        hg.add_entity(Entity(name=n))
    hg.add_hyperedge(Hyperedge(members=names, description="places"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        HyperViz().render(hg, layouts=("bi-inc",))
    return [w for w in seen if issubclass(w.category, RightToLeftWarning)]


def test_right_to_left_names_laid_out_say_nothing() -> None:
    assert _render(["Cairo", "القاهرة", "תל אביב", "علی رضایی"]) == []


def test_a_label_no_one_font_draws_is_said() -> None:
    """DejaVu Sans draws Hebrew but not Syriac, and no font has both: the label is drawn
    letter by letter."""
    said = _render(["Cairo", "תל ܐܒ"])
    assert len(said) == 1
    message = str(said[0].message)
    assert message.startswith("4 right-to-left characters (Hebrew, Syriac) are drawn left")
    assert "no one font has every character of their label" in message


def test_without_the_text_layout_every_one_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    """A matplotlib before 3.11 has no ``FT2Font._layout``: nothing is laid out."""
    monkeypatch.setattr(text_mod, "_LAYOUT", False)
    for name in ("_run_layout", "_run_glyph", "_shape", "_units"):
        clear = getattr(getattr(text_mod, name), "cache_clear", None)
        if clear is not None:
            clear()
    text_mod._ADVANCES.clear()
    try:
        said = _render(["Cairo", "القاهرة", "תל אביב"])
    finally:
        monkeypatch.undo()
        text_mod._run_layout.cache_clear()
        text_mod._run_glyph.cache_clear()
        text_mod._shape.cache_clear()
        text_mod._ADVANCES.clear()
    assert len(said) == 1
    assert "(Arabic, Hebrew) are drawn left to right and unjoined" in str(said[0].message)


def test_left_to_right_text_says_nothing() -> None:
    assert _render(["Cairo", "Zürich", "Москва"]) == []
