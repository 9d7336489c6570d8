"""Visual style of a HyperViz rendering (validated with pydantic).

Every option has a documented range; an out-of-range value raises ``pydantic.ValidationError``
(a ``ValueError``), so a bad ``style.json`` fails loudly instead of producing a broken image.
Colours are opaque: one with transparency (``"#ff000080"``, ``"none"``) is refused.

Example:
    >>> from hyperviz_core.style import Style
    >>> s = Style(background="white", palette="vivid", edge_width=1.5)
    >>> s.background_hex, s.width, s.height
    ('#ffffff', 1536, 768)
    >>> Style(margin=500)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    pydantic_core._pydantic_core.ValidationError: ...
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from matplotlib import colors as mcolors
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

__all__ = ["HYPEREDGE", "PALETTES", "Color", "Style", "to_hex"]

# Okabe-Ito + high-contrast hues (no pale tints) and a lighter pastel set. In "vivid" every
# two colours stay apart for normal vision and under simulated deuteranopia, protanopia and
# tritanopia (Machado et al. 2009, severity 1): CIE76 ΔE ≥ 13.5 (tests/test_viz_fix_palette.py).
# Entries 8–11 (olive, violet, wine, dark red) replaced #7f7f00, #9467bd, #17becf and #e31a1c,
# which collided with H4/H1/H6 and each other (ΔE 4.3–6.2 under those simulations).
PALETTES: dict[str, list[str]] = {
    "vivid": [
        "#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9",
        "#8c564b", "#999933", "#8a2ee6", "#aa3377", "#990000", "#4d4d4d",
    ],
    "pastel": [
        "#6fa8dc", "#f6b26b", "#93c47d", "#e06666", "#c27ba0", "#76a5af",
        "#b4a7d6", "#ffd966", "#a2c4c9", "#d5a6bd", "#b6d7a8", "#f9cb9c",
    ],
}

Color = str | tuple[float, float, float] | tuple[int, int, int]

#: ``Style.hyperedge_node_color`` that frames each hyperedge's square in its own colour
HYPEREDGE = "hyperedge"


def _opaque(value: Any) -> None:
    """A colour with transparency is refused: the PNG is drawn opaque (``to_hex`` would
    drop the alpha without a word)."""
    if isinstance(value, str) and mcolors.is_color_like(value):
        alpha = mcolors.to_rgba(value)[3]
        if alpha < 1.0:
            raise ValueError(f"colour {value!r} has transparency (alpha {alpha:.3g}); the "
                             "rendering is opaque: give an opaque colour such as '#rrggbb'")


def to_hex(value: Any) -> str:
    """Normalise a colour (name, ``#hex`` or RGB tuple in 0–1 or 0–255) to ``#rrggbb``."""
    if isinstance(value, list | tuple):
        if len(value) != 3:
            raise ValueError(f"an RGB colour needs 3 components, got {value!r}")
        comps = [float(c) for c in value]
        if any(c < 0 for c in comps):
            raise ValueError(f"negative RGB component in {value!r}")
        if any(c > 1 for c in comps):
            if any(c > 255 for c in comps):
                raise ValueError(f"RGB component above 255 in {value!r}")
            comps = [c / 255.0 for c in comps]
        return str(mcolors.to_hex((comps[0], comps[1], comps[2])))
    if not isinstance(value, str) or not mcolors.is_color_like(value):
        raise ValueError(f"not a colour: {value!r}")
    return str(mcolors.to_hex(value))


NodeShape = Literal["ellipse", "circle", "box", "polygon"]
LineStyle = Literal["solid", "dashed", "dotted"]


class Style(BaseModel):
    """Appearance options; see the field descriptions for ranges.

    ``width``/``height`` size the canvas of the dual view: 1536×768 by default, two panels
    side by side plus title, legend and footer strips. Other renderings derive their size
    from them (:class:`~hyperviz_core.render.HyperViz`):

    * one layout: ``max(200, width // 2)`` wide (one dual-view panel), ``height`` high;
    * three or more layouts, or :meth:`~hyperviz_core.render.HyperViz.render_collage`: a
      grid of ``cols`` cells, each ``max(200, width // 2)`` wide and 0.85 times that high,
      so the canvas is ``cols`` cells wide and grows in height with the rows and the legend
      (``height`` only bounds the legend's share);
    * the title is shrunk (down to ``font_size``) or cut to fit the width; a footer too long
      for one line (say, the pruning note of a one-layout image) wraps, and its strip takes
      the lines from the panels (the canvas keeps its size; a collage grows instead).

    ``node_outline`` strokes the entity nodes; left unset (``None``) it is
    ``entity_color``, the outline of earlier versions. ``hyperedge_node_color`` frames the
    hyperedge squares of induced views: ``"hyperedge"`` (the default) frames each in its
    own hyperedge colour; a colour frames them all in it (``"#e07b00"``, orange, was the
    default of earlier versions).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    width: Annotated[int, Field(ge=200, le=8192)] = 1536
    height: Annotated[int, Field(ge=200, le=8192)] = 768
    dpi: Annotated[int, Field(ge=50, le=600)] = 100
    background: Color = "white"
    node_shape: NodeShape = "circle"
    node_radius: Annotated[float, Field(ge=6, le=40)] = 11.0
    node_fill: Color = "white"
    node_outline: Color | None = None
    entity_color: Color = "#1f5fbf"
    hyperedge_node_color: Color = HYPEREDGE
    edge_width: Annotated[float, Field(ge=0.1, le=10)] = 1.8
    outline_style: LineStyle = "solid"
    incidence_style: LineStyle = "dashed"
    margin: Annotated[float, Field(ge=0, le=100)] = 12.0
    palette: Literal["vivid", "pastel"] | list[Color] = "vivid"
    region_alpha: Annotated[float, Field(ge=0.0, le=1.0)] = 0.13
    font_size: Annotated[float, Field(ge=4, le=24)] = 7.5
    label_font_size: Annotated[float, Field(ge=4, le=24)] = 8.0
    show_legend: bool = True
    show_title: bool = True
    show_footer: bool = True
    show_edge_labels: bool = True
    show_entity_names: bool = True
    name_max_chars: Annotated[int, Field(ge=0, le=80)] = 16
    legend_max_chars: Annotated[int, Field(ge=8, le=200)] = 60
    title: str | None = None

    @field_validator("background", "node_fill", "node_outline", "entity_color",
                     "hyperedge_node_color")
    @classmethod
    def _valid_color(cls, value: Any, info: ValidationInfo) -> Any:
        # None passes only node_outline's type check (= entity_color); "hyperedge" is
        # hyperedge_node_color's own colour of each hyperedge
        if value == HYPEREDGE and info.field_name == "hyperedge_node_color":
            return value
        if value is not None:
            to_hex(value)
            _opaque(value)
        return value

    @field_validator("palette")
    @classmethod
    def _valid_palette(cls, value: Any) -> Any:
        if isinstance(value, list):
            if not value:
                raise ValueError("a custom palette needs at least one colour")
            for c in value:
                to_hex(c)
                _opaque(c)
        return value

    @property
    def background_hex(self) -> str:
        """The background as ``#rrggbb``."""
        return to_hex(self.background)

    @property
    def outline_hex(self) -> str:
        """The entity node outline as ``#rrggbb``: ``node_outline``, or ``entity_color``
        when it is unset."""
        return to_hex(self.entity_color if self.node_outline is None else self.node_outline)

    def colors(self) -> list[str]:
        """The hyperedge palette as hex strings."""
        if isinstance(self.palette, str):
            return list(PALETTES[self.palette])
        return [to_hex(c) for c in self.palette]

    def hex(self, name: str) -> str:
        """One of the colour fields as ``#rrggbb`` (``style.hex("node_fill")``);
        ``hyperedge_node_color`` left at ``"hyperedge"`` (each square framed in its
        hyperedge's colour) is returned as it is."""
        value = getattr(self, name)
        return HYPEREDGE if value == HYPEREDGE and name == "hyperedge_node_color" \
            else to_hex(value)

    @classmethod
    def from_json_file(cls, path: str) -> Style:
        """Load a style from a JSON file (raises ``ValueError`` on bad content)."""
        import json
        from pathlib import Path

        try:  # (a byte-order mark, as Windows tools write one, skipped)
            data = json.loads(Path(path).read_bytes().decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise ValueError(f"style file {path} is not UTF-8 text (at byte {exc.start}; "
                             "save it as UTF-8)") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"style file {path} is not valid JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise ValueError(f"style file {path} must hold a JSON object")
        return cls.model_validate(data)
