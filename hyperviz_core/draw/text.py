"""Text as vector paths: measuring and drawing labels fast and deterministically.

Matplotlib ``Text`` artists cost milliseconds each to lay out and rasterise; a rendering has
~200 labels. Instead every glyph of the bundled DejaVu Sans is turned into a path once
(:class:`~matplotlib.textpath.TextPath`, cached) and a label is the glyph paths placed at
their advance widths, so measuring is a sum and drawing is one ``PathCollection``. Boxes from
:func:`measure` are exactly what :func:`text_path` draws.
"""

from __future__ import annotations

import threading
import warnings
from functools import lru_cache

import numpy as np
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.ft2font import LoadFlags
from matplotlib.path import Path
from matplotlib.textpath import TextPath

__all__ = ["FONT_FAMILY", "font", "measure", "text_path", "truncate"]

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


@lru_cache(maxsize=4096)
def _glyph(ch: str, bold: bool) -> tuple[np.ndarray, np.ndarray, float]:
    with _LOCK:
        return _load_glyph(ch, bold)


def _load_glyph(ch: str, bold: bool) -> tuple[np.ndarray, np.ndarray, float]:
    prop = font(_EM, bold)
    ft = get_font(findfont(prop))
    ft.set_size(_EM, 72)
    with warnings.catch_warnings():  # a missing glyph is drawn as the font's box
        warnings.simplefilter("ignore", UserWarning)
        try:
            adv = ft.load_char(ord(ch), flags=LoadFlags.NO_HINTING).linearHoriAdvance / 65536.0
        except (RuntimeError, ValueError):  # pragma: no cover - glyph missing
            adv = _EM * 0.6
        if ch.isspace():
            return np.zeros((0, 2)), np.zeros(0, dtype=np.uint8), float(adv)
        tp = TextPath((0, 0), ch, size=_EM, prop=prop)
    return np.asarray(tp.vertices, dtype=float), np.asarray(tp.codes, dtype=np.uint8), float(adv)


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


def truncate(text: str, max_chars: int) -> str:
    """One line, at most ``max_chars`` characters (an ellipsis marks the cut)."""
    line = " ".join(str(text).split())
    if max_chars <= 0:
        return ""
    if len(line) <= max_chars:
        return line
    return line[: max(1, max_chars - 1)].rstrip() + "…"
