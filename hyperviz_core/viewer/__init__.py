"""Interactive, self-contained HTML viewer of a HyperViz rendering (paper App. B.1).

``render_html(export)`` turns a rendering's export dict into one offline HTML file: the same
panels, positions, colours and ``E#``/``H#`` IDs as the PNG, drawn as SVG, with zoom/pan,
tooltips, neighbourhood highlighting (one hop per click on an entity, up to a chosen maximum or
everything reachable; one more click or Escape resets), hyperedge evidence, search, legend and
the pruning report. ``Rendering.to_html()`` calls it; ``Rendering.viewer()`` (an
:class:`InlineViewer`) shows it inside a notebook.
"""

from __future__ import annotations

from .files import write_views
from .html import content_security_policy, hop_depth, json_for_script, render_html
from .inline import InlineViewer

__all__ = [
    "InlineViewer", "content_security_policy", "hop_depth", "json_for_script", "render_html",
    "write_views",
]
