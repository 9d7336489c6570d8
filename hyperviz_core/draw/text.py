"""Text as vector paths: measuring and drawing labels fast and deterministically.

Matplotlib ``Text`` artists cost milliseconds each to lay out and rasterise; a rendering has
~200 labels. Instead every glyph of the bundled DejaVu Sans is turned into a path once
(matplotlib's ``text_to_path``, cached) and a label is the glyph paths placed at
their advance widths, so measuring is a sum and drawing is one ``PathCollection``. Boxes from
:func:`measure` are exactly what :func:`text_path` draws. A letter with combining marks that
have no precomposed form ("Москва́", "q̃", Hebrew points, Arabic harakat) is shaped as one
unit in the letter's font (cached per cluster), so each mark sits on its letter rather than
on a dotted circle after it; text without combining marks is drawn exactly as before. A
label holding right-to-left letters (Arabic, Hebrew ...) is laid out whole by matplotlib's
text layout (libraqm: the bidi order, Arabic's joined letter forms, the marks), where one
font has all its characters (:func:`unshaped` names the letters drawn otherwise).

A character DejaVu lacks (Chinese, Japanese, Korean) is drawn from an installed fallback
font (:mod:`.fonts`). Hostile text never fails a rendering: format and control characters
(zero-width space and joiner, soft hyphen, bidi controls, BOM, tag characters, lone
surrogates) are dropped — but for the joiners and the bidi isolates, which steer how a
label holding right-to-left letters is laid out and cannot reverse a word —, glyphs with
an empty outline draw nothing, and a glyph the font machinery fails on is drawn as a hollow
box.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
import warnings
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.ft2font import FT2Font, LoadFlags
from matplotlib.path import Path
from matplotlib.textpath import text_to_path

from ..items import INVISIBLE_CATEGORIES
from ..unitext import boundary, cluster_cut, cut_back, truncate
from .fonts import fallback_font

if TYPE_CHECKING:  # (matplotlib 3.11's stubs; 3.10 has no such name)
    from matplotlib.ft2font import GlyphIndexType

__all__ = ["FONT_FAMILY", "boundary", "cluster_cut", "cut_back", "drawable", "font", "measure",
           "right_to_left", "text_path", "truncate", "unshaped"]

FONT_FAMILY = "DejaVu Sans"

_EM = 100.0
ASCENT = 0.928
DESCENT = 0.236
CAP = 0.729


@lru_cache(maxsize=4)
def font(size: float = _EM, bold: bool = False) -> FontProperties:
    """The (bundled) DejaVu Sans font at ``size`` points, upright: every property given, so
    none is read from the host's settings (``font.style: italic`` in a ``matplotlibrc``
    made every label italic, and the glyph caches kept it for the process)."""
    return FontProperties(family=FONT_FAMILY, size=size, weight="bold" if bold else "normal",
                          style="normal", variant="normal", stretch="normal")


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


def _dejavu(bold: bool) -> tuple[FontProperties, FT2Font]:
    """DejaVu Sans (bold or not) at ``_EM``: its properties and font object."""
    prop = font(_EM, bold)
    return prop, get_font(findfont(prop))


def _fallback(path: str) -> tuple[FontProperties, FT2Font]:
    """The fallback font file ``path`` (:mod:`.fonts`) at ``_EM``, upright."""
    return FontProperties(fname=path, size=_EM, style="normal", variant="normal",
                          stretch="normal"), get_font(path)


def _font_for(ch: str, bold: bool) -> tuple[FontProperties, FT2Font]:
    """The font ``ch`` is drawn in: DejaVu Sans, or the fallback font (:mod:`.fonts`) that
    has a glyph DejaVu lacks (DejaVu when none has: its missing-glyph box)."""
    prop, ft = _dejavu(bold)
    if not ch.isspace() and not ft.get_char_index(ord(ch)):
        path = fallback_font(ch)  # DejaVu has no glyph: an installed font that has one
        if path is not None:
            return _fallback(path)
    return prop, ft


def _outline(prop: FontProperties, text: str, adv: float) -> _Glyph:
    """The outline of ``text`` (one character or one cluster) shaped by matplotlib."""
    # ``get_text_path`` rather than ``TextPath``: the latter crashes on an empty outline.
    verts, codes = text_to_path.get_text_path(prop, text)
    v = np.asarray(verts, dtype=float).reshape(-1, 2)
    c = np.asarray(codes, dtype=np.uint8).reshape(-1)
    if len(v) != len(c):
        raise ValueError(f"{len(v)} vertices but {len(c)} path codes")
    return v * (_EM / text_to_path.FONT_SCALE), c, float(adv)


def _load_glyph(ch: str, bold: bool) -> _Glyph:
    prop, ft = _font_for(ch, bold)
    ft.set_size(_EM, 72)
    with warnings.catch_warnings():  # a missing glyph is drawn as the font's box
        warnings.simplefilter("ignore", UserWarning)
        try:
            adv = ft.load_char(ord(ch), flags=LoadFlags.NO_HINTING).linearHoriAdvance / 65536.0
        except (RuntimeError, ValueError):  # pragma: no cover - glyph missing
            adv = _EM * 0.6
        if ch.isspace():
            return _empty(adv)
        return _outline(prop, ch, adv)


_JOINERS = frozenset("\u200c\u200d")  # kept in a shaped cluster: they steer its shaping
#: the bidi isolates (LRI, RLI, FSI, PDI), kept in a label laid out whole: they set the
#: direction of the text between them (:func:`~hyperviz_core.unitext.isolate`, which the
#: title puts around its query) and cannot reverse a word, as overrides can (dropped)
_ISOLATES = frozenset("\u2066\u2067\u2068\u2069")
_NON_SPACING = ("Mn", "Me", "Cf")  # no advance of their own once shaped onto a letter


def _shaped(text: str) -> str:
    """``text`` as it is shaped (a letter with its marks, a label laid out whole): without
    its invisible characters, but for the joiners that steer the shaping (``تازه‌اش``) and
    the bidi isolates that steer the order (a grapheme of their own, so never in a cluster
    with a letter)."""
    return "".join(ch for ch in text
                   if ch in _JOINERS or ch in _ISOLATES or not invisible(ch))


def _mark(ch: str) -> bool:
    """Whether ``ch`` is a visible combining mark (an accent, a vowel sign, a virama ...)."""
    return unicodedata.category(ch)[0] == "M" and not invisible(ch)


@lru_cache(maxsize=4096)
def _cluster_glyph(cluster: str, bold: bool) -> _Glyph | None:
    """Outline and advance of a letter with its combining marks, shaped as one unit in the
    letter's font, so that each mark sits on the letter (shaped alone, a mark is drawn on a
    dotted circle U+25CC); None when that font lacks one of its characters (the cluster
    is then drawn character by character). The advance is that of the letters and spacing
    marks. Never raises.

    >>> g = _cluster_glyph("a\u0301", False)
    >>> g[2] == _glyph("a", False)[2], len(g[0]) < len(_glyph("\u0301", False)[0])
    (True, True)
    """
    try:
        with _LOCK:
            prop, ft = _font_for(cluster[0], bold)
            if not all(ft.get_char_index(ord(ch)) for ch in cluster if ch not in _JOINERS):
                return None
            ft.set_size(_EM, 72)
            adv = 0.0
            for ch in cluster:
                if unicodedata.category(ch) not in _NON_SPACING:
                    adv += ft.load_char(ord(ch), flags=LoadFlags.NO_HINTING).linearHoriAdvance
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return _outline(prop, cluster, adv / 65536.0)
    except Exception as exc:  # a font-level failure must never fail a rendering
        _LOG.warning("cluster %s cannot be drawn (%s); drawing a box",
                     " ".join(f"U+{ord(ch):04X}" for ch in cluster), exc)
        return _placeholder()


def _cluster_pieces(cluster: str) -> list[str]:
    """One user-perceived character (:func:`boundary`) as drawn: a letter with visible
    combining marks is one piece, shaped as a unit (without its invisible characters but
    for joiners); anything else is one piece per character, drawn as before."""
    shaped = _shaped(cluster).lstrip("\u200c\u200d")
    seen = [ch for ch in shaped if ch not in _JOINERS]
    if len(seen) > 1 and not _mark(seen[0]) and any(map(_mark, seen[1:])):
        return [shaped]
    return list(cluster)


@lru_cache(maxsize=4096)
def _pieces(text: str) -> tuple[str, ...]:
    """``text`` cut into what is drawn as one glyph (:func:`_cluster_pieces`)."""
    pieces: list[str] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or boundary(text, i):
            pieces += _cluster_pieces(text[start:i])
            start = i
    return tuple(pieces)


@lru_cache(maxsize=1)
def _marks() -> frozenset[str]:
    """Every visible combining mark (:func:`_mark`), built once (10 ms): all are below
    U+20000 (above are only variation selectors, drawn as nothing)."""
    return frozenset(chr(cp) for cp in range(0x300, 0x20000) if _mark(chr(cp)))


def _plain(text: str) -> bool:
    """Whether ``text`` has no visible combining mark: drawn one character after another."""
    return text.isascii() or _marks().isdisjoint(text)


#: the blocks of the right-to-left scripts: Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan,
#: Mandaic and Arabic's supplements (U+0590-U+08FF), Hebrew's and Arabic's presentation
#: forms, and the supplementary planes' (Old Hungarian ... Adlam); their digits and marks too
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe"
                  "\U00010800-\U00010fff\U0001e800-\U0001efff]")


def right_to_left(text: str) -> bool:
    """Whether ``text`` holds a right-to-left letter (Hebrew, Arabic, Syriac, Thaana ...).

    >>> right_to_left("Cairo القاهرة"), right_to_left("Zürich"), right_to_left("תל אביב")
    (True, False, True)
    """
    return not text.isascii() and _RTL.search(text) is not None


#: matplotlib's text layout (libraqm, matplotlib 3.11): bidi order and shaping
_LAYOUT = hasattr(FT2Font, "_layout")


def _run_font(shaped: str, bold: bool) -> tuple[FontProperties, FT2Font] | None:
    """The font a label is laid out in: DejaVu Sans if it has every character, else the
    first fallback font (:mod:`.fonts`) of a character it lacks that has every one (Urdu's
    ``ے`` and ``ہ``, which DejaVu lacks: a font such as Amiri); None when no one font has
    them all. Under ``_LOCK``."""
    if not _LAYOUT or _RTL.search(shaped) is None:
        return None
    needed = [ch for ch in dict.fromkeys(shaped) if not ch.isspace() and not invisible(ch)]
    prop, ft = _dejavu(bold)
    lacking = [ch for ch in needed if not ft.get_char_index(ord(ch))]
    if not lacking:
        return prop, ft
    for path in dict.fromkeys(fallback_font(ch) for ch in lacking):
        if path is not None:
            other = _fallback(path)
            if all(other[1].get_char_index(ord(ch)) for ch in needed):
                return other
    return None


#: advances (font units at ``_EM``) of laid-out glyphs by (font file, glyph index): a
#: label's letters repeat, and loading a glyph costs as much as laying the label out (as
#: many entries at most as the fonts drawn with have glyphs)
_GLYPH_ADVANCES: dict[tuple[str, int], float] = {}


def _glyph_advance(ft: FT2Font, index: GlyphIndexType) -> float:
    """The advance of glyph ``index`` of ``ft`` (set to ``_EM``); under ``_LOCK``."""
    key = (str(ft.fname), int(index))
    adv = _GLYPH_ADVANCES.get(key)
    if adv is None:
        glyph = ft.load_glyph(index, flags=LoadFlags.NO_HINTING)
        adv = _GLYPH_ADVANCES[key] = glyph.linearHoriAdvance / 65536.0
    return adv


@lru_cache(maxsize=16384)
def _run_layout(text: str, bold: bool) -> tuple[FontProperties, str, float] | None:
    """The font, the text as shaped and the advance of ``text`` laid out whole
    (:func:`_run_glyph`), without its outline (a label's cuts are measured many times, drawn
    once); None where it cannot be laid out. Never raises."""
    shaped = _shaped(text)
    try:
        with _LOCK:
            found = _run_font(shaped, bold)
            if found is None:
                return None
            prop, ft = found
            ft.set_size(_EM, 72)
            adv = 0.0
            for item in ft._layout(shaped, LoadFlags.NO_HINTING):
                if item.char not in _ISOLATES:  # laid out with no advance of their own
                    adv = max(adv, item.x + _glyph_advance(item.ft_object, item.glyph_index))
            return prop, shaped, adv
    except Exception as exc:  # a font-level failure must never fail a rendering
        _LOG.warning("%r cannot be laid out (%s); drawing it character by character",
                     text, exc)
        return None


@lru_cache(maxsize=4096)
def _run_glyph(text: str, bold: bool) -> _Glyph | None:
    """Outline and advance of ``text`` — a label holding right-to-left letters — laid out
    whole by matplotlib's text layout (libraqm: right-to-left runs in their visual order,
    Arabic letters in their joined forms, marks on their letters), in one font
    (:func:`_run_font`); None where that layout is missing (matplotlib before 3.11) or no
    one font has all its characters (the label is then drawn as before: character by
    character). Invisible characters are left out, but for the joiners. Never raises.

    >>> g = _run_glyph("سلام", False)
    >>> g is not None and g[2] < sum(_glyph(ch, False)[2] for ch in "سلام")  # joined
    True
    """
    laid = _run_layout(text, bold)
    if laid is None:
        return None
    try:
        with _LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return _outline(*laid)
    except Exception as exc:  # a font-level failure must never fail a rendering
        _LOG.warning("%r cannot be laid out (%s); drawing it character by character",
                     text, exc)
        return None


def unshaped(text: str, bold: bool = False) -> str:
    """The right-to-left letters of ``text`` that are drawn left to right and unjoined
    (:func:`_run_glyph` could not lay it out), in order; empty for any other text.

    >>> unshaped("Cairo القاهرة"), unshaped("Zürich")
    ('', '')
    """
    if not right_to_left(text) or _run_layout(text, bold) is not None:
        return ""
    return "".join(_RTL.findall(text))


def _units(text: str, bold: bool) -> list[_Glyph]:
    """The glyphs of ``text`` in drawing order: one per character (so text without combining
    marks is drawn byte for byte as before they were shaped), but one per letter with
    combining marks (:func:`_cluster_glyph`) where its font has them all, and one for a
    label holding right-to-left letters (:func:`_run_glyph`) where it can be laid out."""
    if right_to_left(text):
        run = _run_glyph(text, bold)
        if run is not None:
            return [run]
    if _plain(text):
        return [_glyph(ch, bold) for ch in text]
    units: list[_Glyph] = []
    for piece in _pieces(text):
        glyph = _cluster_glyph(piece, bold) if len(piece) > 1 else _glyph(piece, bold)
        units += [glyph] if glyph is not None else [_glyph(ch, bold) for ch in piece]
    return units


def _px(size_pt: float, dpi: int) -> float:
    return size_pt * dpi / 72.0


#: advances (font units) of measured texts by (text, bold), summed from the glyphs of the
#: glyph caches as they were since their miss counts were ``_ADVANCE_STAMP`` (or more)
_ADVANCES: dict[tuple[str, bool], float] = {}
_ADVANCE_STAMP: list[tuple[int, int, int]] = [(0, 0, 0)]
_ADVANCES_MAX = 16384


def _advance(text: str, bold: bool) -> float:
    """The advance of ``text`` in font units, remembered per (text, bold): a rendering
    measures the same IDs, names and legend words many times (and every rendering the same
    IDs again). The memory is dropped when a glyph cache was cleared (say, for other
    fallback fonts: its miss count went down since the last measurement), so it never
    outlives the glyphs it was summed from."""
    stamp = (_glyph.cache_info().misses, _cluster_glyph.cache_info().misses,
             _run_layout.cache_info().misses)
    last = _ADVANCE_STAMP[0]
    if any(a < b for a, b in zip(stamp, last, strict=True)) or len(_ADVANCES) >= _ADVANCES_MAX:
        _ADVANCES.clear()
    _ADVANCE_STAMP[0] = stamp
    key = (text, bold)
    adv = _ADVANCES.get(key)
    if adv is None:
        laid = _run_layout(text, bold) if right_to_left(text) else None
        adv = _ADVANCES[key] = (laid[2] if laid is not None
                                else sum(g[2] for g in _units(text, bold)))
    return adv


def measure(text: str, size: float, bold: bool = False, dpi: int = 100) -> tuple[float, float]:
    """(width, height) in pixels of one line of ``text`` at ``size`` points."""
    if not text:
        return 0.0, 0.0
    em = _px(size, dpi)
    adv = _advance(text, bold)
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
    for v, c, adv in _units(text, bold):
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
