"""Right-to-left labels in the PNG (stop 64): laid out whole, in their visual order, Arabic
letters joined.

The PNG drew every character on its own, left to right: ``תל אביב`` read ``ביבא לת`` and
Arabic's letters stood apart in their isolated forms, reversed — what a multimodal model
reads of an Arabic, Persian or Hebrew hypergraph. A label holding right-to-left letters is
now laid out by matplotlib's text layout (libraqm) as one unit (``draw.text._run_glyph``),
measured as drawn; text without such letters is drawn exactly as before
(``tests/test_draw_combining_marks.py``).
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz
from hyperviz_core.draw import text as text_mod
from hyperviz_core.draw.fonts import fallback_font
from hyperviz_core.draw.text import measure, right_to_left, text_path, unshaped

NAMES = ["القاهرة", "الإسكندرية", "علی رضایی", "תל אביב", "کتاب تازه‌اش", "مُحَمَّد",
         "Cairo (القاهرة)"]


def test_right_to_left_letters_are_told() -> None:
    assert [right_to_left(t) for t in ("القاهرة", "תל", "ܐܒ", "Zürich", "Cairo", "")] == [
        True, True, True, False, False, False]


def test_hebrew_runs_right_to_left() -> None:
    """``אב`` (alef, bet) is drawn bet first from the left, alef after it."""
    run = text_mod._run_glyph("אב", False)
    alef, bet = text_mod._glyph("א", False), text_mod._glyph("ב", False)
    assert run is not None
    assert run[2] == pytest.approx(alef[2] + bet[2])
    moved = alef[0] + np.array([bet[2], 0.0])
    assert np.allclose(run[0], np.concatenate([bet[0], moved]), atol=1e-6)


def test_arabic_letters_are_joined() -> None:
    """Joined forms are narrower than the isolated ones drawn side by side; a Latin word
    before them stays on the left (its letters kerned by the layout, so compared by its
    first letter)."""
    for word in ("سلام", "القاهرة", "علی"):
        run = text_mod._run_glyph(word, False)
        assert run is not None
        assert run[2] < sum(text_mod._glyph(ch, False)[2] for ch in word), word
    mixed = text_path("Cairo القاهرة", 0.0, 0.0, 20.0, ha="left")
    latin = text_path("Cairo", 0.0, 0.0, 20.0, ha="left")
    assert mixed is not None and latin is not None
    n = len(text_mod._glyph("C", False)[0])
    assert np.allclose(mixed.vertices[:n], latin.vertices[:n], atol=1e-6)
    assert mixed.get_extents().x1 > latin.get_extents().x1 + 20.0  # Arabic to its right


@pytest.mark.parametrize("name", NAMES)
def test_a_label_is_drawn_within_its_measured_box(name: str) -> None:
    width = measure(name, 20.0)[0]
    drawn = text_path(name, 0.0, 0.0, 20.0, ha="left")
    assert drawn is not None and unshaped(name) == ""
    box = drawn.get_extents()
    assert box.x0 >= -1.0 and box.x1 <= width + 1.0, (name, box, width)


def test_persian_joiner_steers_the_joining() -> None:
    """The zero-width non-joiner of ``تازه‌اش`` keeps ``ه`` unjoined from ``ا``: dropped
    (as other invisible characters are), the word would be drawn otherwise."""
    kept = text_mod._run_glyph("تازه\u200cاش", False)
    joined = text_mod._run_glyph("تازهاش", False)
    assert kept is not None and joined is not None
    assert not np.array_equal(kept[0], joined[0])


def test_bidi_controls_are_left_out() -> None:
    """A right-to-left override in a name cannot reorder its label (dropped, as elsewhere)."""
    plain = text_mod._run_glyph("القاهرة abc", False)
    forced = text_mod._run_glyph("\u202eالقاهرة abc\u202c", False)
    assert plain is not None and forced is not None
    assert np.array_equal(plain[0], forced[0]) and plain[2] == forced[2]


def test_a_label_no_one_font_draws_is_drawn_as_before() -> None:
    """DejaVu Sans has Hebrew and no Syriac, and no font has both: the label is drawn
    character by character."""
    assert text_mod._run_glyph("תל ܐܒ", False) is None
    assert unshaped("תל ܐܒ") == "תלܐܒ"
    assert text_mod._units("תל ܐܒ", False) == [text_mod._glyph(ch, False) for ch in "תל ܐܒ"]


URDU = "کراچی پاکستان کا سب سے بڑا شہر ہے"  # Karachi is Pakistan's largest city
HAS_URDU_FONT = fallback_font("\u06d2") is not None  # ے, which DejaVu Sans lacks


@pytest.mark.skipif(not HAS_URDU_FONT, reason="no font with Urdu's letters (fonts-hosny-amiri)")
def test_urdu_is_laid_out_in_a_font_that_has_its_letters() -> None:
    """DejaVu lacks ``ے`` and ``ہ``: the label is laid out whole in the first fallback font
    that has every one of its characters (Amiri, after ``make setup``), its regular style."""
    found = text_mod._run_font(URDU, False)
    assert found is not None and found[0].get_file() == fallback_font("\u06d2")
    assert "bold" not in str(found[0].get_file()).lower()
    assert unshaped(URDU) == "" and unshaped(f"Karachi {URDU}") == ""
    run = text_mod._run_glyph(URDU, False)
    assert run is not None and run[2] == measure(URDU, 100.0, dpi=72)[0]


def _hypergraph() -> Hypergraph:
    ents = [Entity(name=n, description="a place") for n in NAMES]
    keys = [e.key for e in ents]
    edges = [Hyperedge(id="h1", members=keys[:3], description="القاهرة هي عاصمة مصر وأكبر مدنها"),
             Hyperedge(id="h2", members=keys[2:5], description="תל אביב היא עיר בישראל"),
             Hyperedge(id="h3", members=keys[4:], description="Cairo and کتاب")]
    return Hypergraph(entities=ents, hyperedges=edges)


def test_rendering_lays_them_out_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RightToLeftWarning (or any) fails the test
        result = HyperViz().render(_hypergraph(), layouts=["bi-inc", "set-hier"])
    assert result.png.startswith(b"\x89PNG")
    assert result.metrics["label_label_collisions"] == 0


_PNG_SHA = """
import hashlib, sys
sys.path.insert(0, sys.argv[1])
import test_rtl_shaping64 as t
from hyperviz_core import HyperViz
print(hashlib.sha256(HyperViz().render(t._hypergraph(), layouts=["bi-inc"]).png).hexdigest())
"""


def test_the_png_is_byte_identical_whatever_the_hash_seed() -> None:
    here = str(__import__("pathlib").Path(__file__).parent)
    digests = {subprocess.run([sys.executable, "-c", _PNG_SHA, here], check=True,
                              capture_output=True, text=True,
                              env={**__import__("os").environ, "PYTHONHASHSEED": seed}
                              ).stdout.strip() for seed in ("0", "12345")}
    assert len(digests) == 1 and len(next(iter(digests))) == 64
