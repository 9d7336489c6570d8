"""Readable text colours (WCAG 2 contrast), pure Python: the PNG renderer and the HTML viewer
pick their ID and legend text colours here, so both draw the same ones.

* :func:`on_fill`: black or white text on a fill (an entity ID on its node);
* :func:`readable`: a colour of the same hue, lightness moved just enough for
  :data:`MIN_CONTRAST` against every background it sits on (an ``H#`` label or a legend
  ``H#:`` in its hyperedge's palette colour; the outline keeps the palette colour);
* :func:`blend`: a translucent colour over an opaque one (a label box over the canvas).

Example:
    >>> on_fill("#ffffff"), on_fill("#000000")
    ('#000000', '#ffffff')
    >>> readable("#0072b2", "#ffffff")  # already 5.1:1: kept
    '#0072b2'
    >>> c = readable("#e69f00", "#ffffff"); c, contrast(c, "#ffffff") >= 4.5
    ('#9e6d00', True)
"""

from __future__ import annotations

import colorsys

from .luminance import relative_luminance

__all__ = ["LABEL_BOX_ALPHA", "MIN_CONTRAST", "blend", "contrast", "on_fill", "readable",
           "region_label_color"]

MIN_CONTRAST = 4.5
"""WCAG 2 AA for normal text: the ID labels are small (7.5–8 pt)."""

_STEPS = 200  # lightness steps from the colour to black or white


def _rgb(color: str) -> tuple[float, float, float]:
    text = color.strip().lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    if len(text) != 6:
        raise ValueError(f"not a #rrggbb colour: {color!r}")
    r, g, b = (int(text[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
    return r, g, b


def _hex(r: float, g: float, b: float) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c * 255))):02x}" for c in (r, g, b))


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours (1 … 21).

    >>> round(contrast("#000000", "#ffffff"), 1)
    21.0
    """
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def blend(color: str, under: str, alpha: float) -> str:
    """``color`` at opacity ``alpha`` over the opaque ``under`` (sRGB values mixed, as the
    rasteriser and the browser composite).

    >>> blend("#ffffff", "#000000", 0.85)
    '#d9d9d9'
    """
    top, bottom = _rgb(color), _rgb(under)
    return _hex(*(alpha * t + (1.0 - alpha) * u for t, u in zip(top, bottom, strict=True)))


def on_fill(fill: str) -> str:
    """``#000000`` or ``#ffffff``, whichever contrasts more with ``fill`` (black on a tie)."""
    return "#000000" if contrast("#000000", fill) >= contrast("#ffffff", fill) else "#ffffff"


def _worst(color: str, backgrounds: tuple[str, ...]) -> float:
    return min(contrast(color, bg) for bg in backgrounds)


def readable(color: str, *backgrounds: str, target: float = MIN_CONTRAST) -> str:
    """``color`` (``#rrggbb``) as text on ``backgrounds``: unchanged when it reaches ``target``
    against each of them, else the same hue and saturation (HLS) darkened (on a light
    background) or lightened (on a dark one) by the least step that reaches it; when neither
    direction can, black or white, whichever contrasts more. Deterministic."""
    color = _hex(*_rgb(color))
    if not backgrounds or _worst(color, backgrounds) >= target:
        return color
    h, lum, s = colorsys.rgb_to_hls(*_rgb(color))
    dark_first = min(relative_luminance(bg) for bg in backgrounds) >= 0.18
    for end in ((0.0, 1.0) if dark_first else (1.0, 0.0)):
        for i in range(1, _STEPS + 1):
            cand = _hex(*colorsys.hls_to_rgb(h, lum + (end - lum) * i / _STEPS, s))
            if _worst(cand, backgrounds) >= target:
                return cand
    return max(("#000000", "#ffffff"), key=lambda c: (_worst(c, backgrounds), c))


LABEL_BOX_ALPHA = 0.85
"""Opacity of the white box behind an ``H#`` label of a set panel (PNG and viewer)."""


def region_label_color(color: str, background: str, region_alpha: float) -> str:
    """The text colour of a set panel's ``H#`` label in hyperedge colour ``color``: readable
    (:func:`readable`) on its white :data:`LABEL_BOX_ALPHA` box over the ``background``, both
    where the region's tint (``region_alpha``) lies under the box and where it does not (a
    label placed outside its region).

    >>> region_label_color("#0072b2", "#ffffff", 0.13)
    '#0072b2'
    """
    tinted = blend(color, background, max(0.0, min(1.0, region_alpha)))
    boxes = (blend("#ffffff", background, LABEL_BOX_ALPHA),
             blend("#ffffff", tinted, LABEL_BOX_ALPHA))
    return readable(color, *boxes)
