"""Text as vector paths: measuring and drawing labels fast and deterministically.

Matplotlib ``Text`` artists cost milliseconds each to lay out and rasterise; a rendering has
~200 labels. Instead every glyph of the bundled DejaVu Sans is turned into a path once
(matplotlib's ``text_to_path``, cached) and a label is the glyph paths placed at
their advance widths, so measuring is a sum and drawing is one ``PathCollection``. Boxes from
:func:`measure` are exactly what :func:`text_path` draws.

A character DejaVu lacks (Chinese, Japanese, Korean) is drawn from an installed fallback
font (:mod:`.fonts`). Hostile text never fails a rendering: format and control characters
(zero-width space and joiner, soft hyphen, bidi controls, BOM, tag characters, lone
surrogates) are dropped, glyphs with an empty outline draw nothing, and a glyph the font
machinery fails on is drawn as a hollow box.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
import warnings
from functools import lru_cache

import numpy as np
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.ft2font import LoadFlags
from matplotlib.path import Path
from matplotlib.textpath import text_to_path

from ..items import INVISIBLE_CATEGORIES
from ..unitext import boundary, cluster_cut, cut_back, truncate
from .fonts import fallback_font

__all__ = ["FONT_FAMILY", "boundary", "cluster_cut", "cut_back",
           "drawable", "font", "measure", "text_path", "truncate"]

FONT_FAMILY = "DejaVu Sans"

_EM = 100.0
ASCENT = 0.928
DESCENT = 0.236
CAP = 0.729


@lru_cache(maxsize=4)
def font(size: float = _EM, bold: bool = False) -> FontProperties:
    """The (bundled) DejaVu Sans font at ``size`` points."""
    return FontProperties(family=FONT_FAMILY, size=size, weight="bold" if bold else "normal")


_LOCK = threading.Lock()  # FreeType font objects are shared and not thread-safe
_LOG = logging.getLogger(__name__)

#: Variation selectors (category Mn) only pick a glyph variant: drawn as nothing too.
_VARIATION_SELECTORS = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0x180B, 0x180F))


def invisible(ch: str) -> bool:
    """Whether ``ch`` is drawn as nothing (no ink, no advance).

    >>> [invisible(c) for c in ("\\u200b", "\\u200d", "\\ufe0f", "a", "\\u0301")]
    [True, True, True, False, False]
    """
    if unicodedata.category(ch) in INVISIBLE_CATEGORIES:
        return True
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _VARIATION_SELECTORS)

_Glyph = tuple[np.ndarray, np.ndarray, float]


def _empty(adv: float = 0.0) -> _Glyph:
    return np.zeros((0, 2)), np.zeros(0, dtype=np.uint8), float(adv)


def _placeholder() -> _Glyph:
    """A hollow box, drawn for a glyph the font machinery failed on (never an exception)."""
    x0, x1, y0, y1, t = 6.0, 54.0, 0.0, 72.9, 5.0
    outer = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    inner = [(x0 + t, y0 + t), (x0 + t, y1 - t), (x1 - t, y1 - t), (x1 - t, y0 + t),
             (x0 + t, y0 + t)]  # opposite winding: the box is hollow
    verts = np.array(outer + inner, dtype=float)
    one = [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY]
    return verts, np.array(one + one, dtype=np.uint8), _EM * 0.6


@lru_cache(maxsize=4096)
def _glyph(ch: str, bold: bool) -> _Glyph:
    """Outline and advance of one character; never raises.

    Invisible characters (:func:`invisible`) are empty and zero-width; a
    character the font has no outline for (zero-width glyph) has an empty path and its own
    advance; any font-level failure gives a visible placeholder box.

    >>> _glyph("\\u200d", False)[2], len(_glyph("\\u200b", False)[0])
    (0.0, 0)
    >>> _glyph("a", False)[2] > 0
    True
    """
    if invisible(ch):
        return _empty()
    try:
        with _LOCK:
            return _load_glyph(ch, bold)
    except Exception as exc:  # a font-level failure must never fail a rendering
        _LOG.warning("glyph U+%04X cannot be drawn (%s); drawing a box", ord(ch), exc)
        return _placeholder()


@lru_cache(maxsize=4)
def _charmap(bold: bool) -> frozenset[int]:
    """The code points DejaVu Sans (bold or not) has a glyph for (read once per font)."""
    with _LOCK:
        return frozenset(get_font(findfont(font(_EM, bold))).get_charmap())


@lru_cache(maxsize=8192)
def drawable(ch: str, bold: bool = False) -> bool:
    """Whether ``ch`` is drawn as itself rather than as a box: drawn as nothing
    (:func:`invisible`, white space), in DejaVu Sans, or in a fallback font (:mod:`.fonts`).

    >>> drawable("a"), drawable("\u200d"), drawable("\U000E0001")
    (True, True, True)
    """
    if invisible(ch) or ch.isspace() or ord(ch) in _charmap(bold):
        return True
    with _LOCK:  # FreeType font objects are shared
        return fallback_font(ch) is not None


def _load_glyph(ch: str, bold: bool) -> _Glyph:
    prop = font(_EM, bold)
    ft = get_font(findfont(prop))
    if not ch.isspace() and not ft.get_char_index(ord(ch)):
        path = fallback_font(ch)  # DejaVu has no glyph: an installed font that has one
        if path is not None:
            prop = FontProperties(fname=path, size=_EM)
            ft = get_font(path)
    ft.set_size(_EM, 72)
    with warnings.catch_warnings():  # a missing glyph is drawn as the font's box
        warnings.simplefilter("ignore", UserWarning)
        try:
            adv = ft.load_char(ord(ch), flags=LoadFlags.NO_HINTING).linearHoriAdvance / 65536.0
        except (RuntimeError, ValueError):  # pragma: no cover - glyph missing
            adv = _EM * 0.6
        if ch.isspace():
            return _empty(adv)
        # ``get_text_path`` rather than ``TextPath``: the latter crashes on an empty outline.
        verts, codes = text_to_path.get_text_path(prop, ch)
    v = np.asarray(verts, dtype=float).reshape(-1, 2)
    c = np.asarray(codes, dtype=np.uint8).reshape(-1)
    if len(v) != len(c):
        raise ValueError(f"{len(v)} vertices but {len(c)} path codes")
    return v * (_EM / text_to_path.FONT_SCALE), c, float(adv)


def _px(size_pt: float, dpi: int) -> float:
    return size_pt * dpi / 72.0


def measure(text: str, size: float, bold: bool = False, dpi: int = 100) -> tuple[float, float]:
    """(width, height) in pixels of one line of ``text`` at ``size`` points."""
    if not text:
        return 0.0, 0.0
    em = _px(size, dpi)
    adv = sum(_glyph(ch, bold)[2] for ch in text)
    return adv * em / _EM, (ASCENT + DESCENT) * em


def text_path(
    text: str, x: float, y: float, size: float, bold: bool = False, dpi: int = 100,
    ha: str = "center",
) -> Path | None:
    """The path of ``text`` centred vertically on ``y`` (pixels, y down); ``ha`` = left/center."""
    shape = _shape(text, size, bold, dpi, ha)
    if shape is None:
        return None
    verts, codes = shape
    return Path(verts + np.array([x, y]), codes)


@lru_cache(maxsize=4096)
def _shape(
    text: str, size: float, bold: bool, dpi: int, ha: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """Vertices (relative to the anchor point) and codes of ``text``."""
    if not text:
        return None
    em = _px(size, dpi)
    scale = em / _EM
    width = measure(text, size, bold, dpi)[0]
    pen = -width / 2.0 if ha == "center" else 0.0
    base = CAP * em / 2.0
    verts: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    for ch in text:
        v, c, adv = _glyph(ch, bold)
        if len(v):
            out = np.empty_like(v)
            out[:, 0] = pen + v[:, 0] * scale
            out[:, 1] = base - v[:, 1] * scale
            verts.append(out)
            codes.append(c)
        pen += adv * scale
    if not verts:
        return None
    return np.concatenate(verts), np.concatenate(codes)
