"""Light or dark: the relative luminance of a ``#rrggbb`` colour (WCAG 2), pure Python.

The PNG renderer and the HTML viewer both choose their text greys by it, so a dark
``Style.background`` gets light text in both.

Example:
    >>> is_dark("#ffffff"), is_dark("#1e1e1e"), is_dark("#000080")
    (False, True, True)
"""

from __future__ import annotations

__all__ = ["DARK_BELOW", "is_dark", "relative_luminance"]

DARK_BELOW = 0.18
"""A background darker than this (about mid grey ``#767676``) gets light text."""


def relative_luminance(color: str) -> float:
    """WCAG relative luminance (0 black … 1 white) of ``#rrggbb`` (or ``#rgb``).

    >>> relative_luminance("#000"), relative_luminance("#ffffff")
    (0.0, 1.0)
    """
    text = color.strip().lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    if len(text) != 6:
        raise ValueError(f"not a #rrggbb colour: {color!r}")
    channels = [int(text[i:i + 2], 16) / 255.0 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def is_dark(color: str) -> bool:
    """Whether text on ``color`` should be light (luminance below :data:`DARK_BELOW`)."""
    return relative_luminance(color) < DARK_BELOW
