"""What a rendering's PNG was drawn from: ``rasterize``'s arguments (the canvas plan, the
scenes, ..., the title as drawn, the footer), for tests of text drawn otherwise than the
rendering reports it (an isolated query, an isolated legend mark)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from hyperviz_core import Hypergraph, HyperViz, render
from hyperviz_core.draw.raster import rasterize


def render_spied(monkeypatch: pytest.MonkeyPatch, viz: HyperViz, hg: Hypergraph,
                 **kw: Any) -> tuple[Any, tuple[Any, ...]]:
    """``viz.render(hg, **kw)`` (warnings ignored) and the arguments its PNG was drawn
    from."""
    seen: list[tuple[Any, ...]] = []

    def spy(*args: Any) -> bytes:
        seen.append(args)
        return rasterize(*args)

    monkeypatch.setattr(render, "rasterize", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = viz.render(hg, **kw)
    assert len(seen) == 1
    return result, seen[0]
