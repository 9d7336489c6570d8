"""The caption's names and the printed passages of ``vizrag query`` and the demo are cut
between whole characters, as the PNG's labels are (a vowel sign or virama stays with its
letter); Latin text is cut as before."""

from __future__ import annotations

import unicodedata

from hyperviz_core.export import _short
from hyperviz_core.unitext import cluster_cut


def test_the_caption_keeps_combining_marks_with_their_letter() -> None:
    hindi = "अंतरराष्ट्रीय"  # a vowel sign or virama after most letters
    for n in range(2, len(hindi)):
        cut = _short(hindi, n).removesuffix("…")
        assert not cut or unicodedata.category(hindi[len(cut)]) not in ("Mn", "Mc"), (n, cut)


def test_latin_is_cut_as_before() -> None:
    text = "Marie Curie discovered polonium and radium in Paris."
    for n in range(2, len(text)):
        assert _short(text, n) == (text if len(text) <= n else text[: n - 1].rstrip() + "…")
        assert cluster_cut(text, n) == n
