"""SVG of the canvas: the matplotlib figure the PNG is drawn from, saved as a vector image.

Every text of a rendering (names, IDs, legend, title, footer) is a filled path of the
figure (:func:`~.text.text_path`), so the SVG holds no ``<text>``: a hostile name (say
``</text><script>…``) becomes glyph outlines, never markup. The file is deterministic: the
ids matplotlib derives for clip paths and shared paths are hashed with a fixed salt (not a
random one per run) and the ``Date`` metadata is left out.

Example:
    >>> from matplotlib.figure import Figure
    >>> svg = figure_svg(Figure(figsize=(1, 1), dpi=100))
    >>> svg.startswith(b"<?xml"), b"<dc:date>" in svg, svg == figure_svg(Figure(figsize=(1, 1)))
    (True, False, True)
"""

from __future__ import annotations

import io
import re

from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

from .rc import default_rc

__all__ = ["SVG_HASHSALT", "figure_svg"]

#: matplotlib's ``svg.hashsalt`` while an SVG is written (unset, it is a random UUID)
SVG_HASHSALT = "hyperviz"
#: the root element's size in points, as matplotlib writes it (the viewBox stays)
_PT_SIZE = re.compile(rb'width="[0-9.]+pt" height="[0-9.]+pt"')


def figure_svg(fig: Figure) -> bytes:
    """``fig`` as SVG bytes (UTF-8), byte-identical for equal figures: a fixed
    ``svg.hashsalt`` and no ``Date`` in the metadata; ``width``/``height`` in pixels, those
    of the PNG (the ``viewBox`` keeps matplotlib's points)."""
    buf = io.BytesIO()
    dpi = fig.dpi  # (print_svg leaves the figure at 72 dpi)
    w, h = (round(v * dpi) for v in fig.get_size_inches())
    with default_rc({"svg.hashsalt": SVG_HASHSALT, "svg.id": None, "svg.fonttype": "path",
                     "svg.image_inline": True}):
        FigureCanvasSVG(fig).print_svg(buf, metadata={"Date": None})
    fig.set_dpi(dpi)
    # sized in pixels as the PNG is (matplotlib says points: 1536 px at 100 dpi = 1105.92pt)
    return _PT_SIZE.sub(f'width="{w}" height="{h}"'.encode(), buf.getvalue(), count=1)
