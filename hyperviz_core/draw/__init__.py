"""Drawing: panel geometry (fit, regions, labels), canvas composition and rasterising."""

from __future__ import annotations

from .legend import CanvasPlan, LegendEntry, edge_colors, edge_dash, plan_canvas
from .raster import rasterize
from .regions import Region, build_regions
from .scene import PanelScene, build_geometry, build_panel, place_labels, visual_order

__all__ = [
    "CanvasPlan",
    "LegendEntry",
    "PanelScene",
    "Region",
    "build_geometry",
    "build_panel",
    "build_regions",
    "edge_colors",
    "edge_dash",
    "place_labels",
    "plan_canvas",
    "rasterize",
    "visual_order",
]
