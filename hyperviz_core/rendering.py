"""What :class:`~hyperviz_core.render.HyperViz` returns: the image (PNG, and SVG on request)
plus everything needed to read it (IDs, caption, pruning report, metrics, export geometry).

Example:
    >>> from hyperviz_core.render import HyperViz
    >>> from hyperviz_core.testing import random_hypergraph
    >>> r = HyperViz().render(random_hypergraph(6, 3, seed=1))
    >>> r.to_svg()[:5], r.to_svg() == r.to_svg()
    (b'<?xml', True)
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from .atomic import atomic_write_bytes, atomic_write_pair
from .idmap import IdMap
from .prune import PruneReport

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .viewer import InlineViewer

__all__ = ["IMAGE_SUFFIXES", "Redraw", "Rendering"]

#: the image formats :meth:`Rendering.save` writes, by the path's suffix
IMAGE_SUFFIXES = (".png", ".svg")


class Redraw:
    """Draws a rendering's canvas again as a matplotlib figure, from the very inputs its
    PNG was drawn from (what :meth:`Rendering.to_svg` saves). Shared, not copied, by a
    deep copy: the inputs are never changed after the rendering."""

    __slots__ = ("draw",)

    def __init__(self, draw: Callable[[], Figure]) -> None:
        self.draw = draw

    def __call__(self) -> Figure:
        return self.draw()

    def __deepcopy__(self, memo: dict[int, Any]) -> Redraw:
        return self


class Rendering(BaseModel):
    """A rendered image plus everything needed to read it (IDs, caption, geometry)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, ser_json_bytes="base64",
                              val_json_bytes="base64")  # model_dump_json: PNG as base64

    png: bytes
    width: int
    height: int
    id_map: IdMap
    caption: str
    title: str = ""
    layouts: list[str] = Field(default_factory=list)
    pruning: PruneReport = Field(default_factory=PruneReport)
    metrics: dict[str, float | int] = Field(default_factory=dict)
    _export: dict[str, Any] = PrivateAttr(default_factory=dict)
    #: the canvas drawn again (for the SVG); None in a rendering read back from JSON
    _redraw: Redraw | None = PrivateAttr(default=None)

    @model_serializer(mode="wrap")
    def _with_export(self, handler: SerializerFunctionWrapHandler,
                     info: SerializationInfo) -> dict[str, Any]:
        """The dumps carry the export under ``"export"`` (whole, unless ``include``/``exclude``
        leave it out), so a rendering read back can still be saved and viewed."""
        data: dict[str, Any] = handler(self)
        include, exclude = info.include, info.exclude
        if (include is None or "export" in include) and not (exclude and "export" in exclude):
            data["export"] = copy.deepcopy(self._export)
        return data

    @model_validator(mode="wrap")
    @classmethod
    def _export_back(cls, data: Any, handler: ModelWrapValidatorHandler[Rendering]) -> Rendering:
        export = data.get("export") if isinstance(data, dict) else None
        out = handler(data)
        if isinstance(export, dict):
            out._export = export
        return out

    def __eq__(self, other: object) -> bool:
        """Equal fields and export (whether the canvas can be drawn again, for the SVG,
        does not count: a rendering read back from JSON equals the one dumped)."""
        if not isinstance(other, Rendering):
            return NotImplemented
        return (type(self) is type(other) and self.__dict__ == other.__dict__
                and self._export == other._export)

    def export(self) -> dict[str, Any]:
        """The JSON-serialisable export (a copy; schema in ``docs/contracts.md``)."""
        return copy.deepcopy(self._export)

    def to_svg(self) -> bytes:
        """The image as SVG (UTF-8 bytes): the same matplotlib figure as the PNG, saved as
        vectors; every text is a path (no ``<text>``, so no name can become markup), and
        the bytes are deterministic (:func:`~hyperviz_core.draw.vector.figure_svg`).

        Raises ``ValueError`` for a rendering read back from JSON (its figure's inputs
        are not in the dump): render it again."""
        if self._redraw is None:
            raise ValueError("this rendering has no drawing to export as SVG (read back from "
                             "JSON or built by hand): render the hypergraph again")
        from .draw.vector import figure_svg

        return figure_svg(self._redraw())

    def save(self, path: str | Path) -> Path:
        """Write the image to ``path`` — a PNG for ``.png``, an SVG (:meth:`to_svg`) for
        ``.svg`` — and the export JSON beside it (same stem, ``.json``).

        Both files are written before either is replaced
        (:func:`~hyperviz_core.atomic.atomic_write_pair`): an export that cannot be made or
        written leaves an earlier pair at that path as it was."""
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix not in IMAGE_SUFFIXES:
            raise ValueError(f"save() writes a PNG: give a path ending in .png (or .svg for "
                             f"an SVG), got {str(p)!r}")
        image = self.png if suffix == ".png" else self.to_svg()
        data = json.dumps(self._export, ensure_ascii=False, indent=1, sort_keys=True,
                          allow_nan=False).encode("utf-8")
        atomic_write_pair((p, image), (p.with_suffix(".json"), data))
        return p

    def to_html(self) -> str:
        """A self-contained HTML viewer of this rendering."""
        from .viewer import render_html

        return str(render_html(self.export(), png=self.png))

    def save_html(self, path: str | Path) -> Path:
        """Write :meth:`to_html` to ``path`` (replaced whole)."""
        return atomic_write_bytes(path, self.to_html().encode("utf-8"))

    def viewer(self, height: int = 640) -> InlineViewer:
        """The viewer for a notebook: :meth:`to_html` inside a sandboxed ``<iframe>``
        (``r.viewer()`` as a cell's last line shows it; a bare rendering shows the PNG)."""
        from .viewer import InlineViewer

        return InlineViewer(self.to_html(), height=height)

    def _repr_png_(self) -> bytes:  # Jupyter
        return self.png

    def __repr__(self) -> str:
        return (f"Rendering({self.width}x{self.height}, layouts={self.layouts}, "
                f"{len(self.id_map.entities)} entities, {len(self.id_map.hyperedges)} "
                f"hyperedges, {len(self.png)} PNG bytes)")

    __str__ = __repr__
