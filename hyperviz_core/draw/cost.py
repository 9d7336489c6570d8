"""The visual occupation cost C of drawn panels (paper §3.1), measured on the geometry.

``C = Σ_v A_v·w_v + Σ_e L_e·w_e`` over every panel: ``A_v = π·r²`` the area of an entity's
node disk, ``L_e`` the drawn length of a hyperedge — the boundary length of its region
(exterior and holes) plus its connectors in a set panel, the length of its incidence
segments plus the perimeter of its square node in an induced panel. Clique-expansion edges
(``cli-exp``) belong to no hyperedge and are not counted. :func:`hyperviz_core.metrics.
visual_cost` computes the same number from an export.

Example:
    >>> from hyperviz_core.draw.scene import PanelScene
    >>> s = PanelScene(index=0, layout="x", bbox=(0, 0, 100, 100), radius=10.0,
    ...                nodes={"a": (20.0, 20.0)})
    >>> round(scene_cost(s, 1.0, 1.0), 1), panel_area(s)
    (314.2, 10000)
"""

from __future__ import annotations

import math

from .scene import PanelScene

__all__ = ["panel_area", "scene_cost"]


def scene_cost(scene: PanelScene, w_v: float, w_e: float) -> float:
    """C of one panel in px² (see the module docstring)."""
    r = round(scene.radius, 2)  # as exported, so the export recomputes the same number
    node = math.pi * r**2 * len(scene.nodes)
    length = 0.0
    for reg in scene.regions.values():
        length += float(reg.geom.length)
        length += sum(math.dist(a, b) for a, b in reg.connectors)
    for m, h in scene.incidence:
        length += math.dist(scene.nodes[m], scene.hnodes[h])
    hr = round(scene.hnode_half * math.sqrt(2.0), 2)  # exported as the square's circumradius
    length += 4.0 * math.sqrt(2.0) * hr * len(scene.hnodes)
    return node * w_v + length * w_e


def panel_area(scene: PanelScene) -> float:
    """Area of the panel's box in px²."""
    x0, y0, x1, y1 = scene.bbox
    return max(0.0, x1 - x0) * max(0.0, y1 - y0)
