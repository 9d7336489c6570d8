"""Layout results and the layout registry.

A layout maps a hypergraph to abstract positions (y axis pointing *up*, any unit); the drawing
layer fits them to a panel. ``kind="set"`` layouts draw hyperedges as regions around their
members (``hyperedges`` then holds optional *anchors* that guide the contours); ``"induced"``
layouts draw hyperedges as square nodes linked to their members by incidence edges.

Example:
    >>> from hyperviz_core.layouts import LayoutResult, available_layouts, register_layout
    >>> def grid(hg, order):
    ...     pos = {k: (float(i % 5), float(i // 5)) for i, k in enumerate(order.entities)}
    ...     return LayoutResult(kind="set", entities=pos)
    >>> register_layout("my-grid", grid, replace=True)
    >>> "my-grid" in available_layouts()
    True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ..model import Hypergraph

__all__ = [
    "PANEL_ASPECT",
    "LayoutFn",
    "LayoutOrder",
    "LayoutResult",
    "available_layouts",
    "get_layout",
    "layout_kind",
    "register_layout",
]

Point = tuple[float, float]


PANEL_ASPECT = 1.25
"""Width / height of a typical panel: the :attr:`LayoutOrder.aspect` of a layout called
without one, and the shape ``set-hier`` picks its rank direction by."""


@dataclass(frozen=True)
class LayoutOrder:
    """Entity keys and hyperedge ids in visual-ID order (E1.., H1..): iterate these, not sets."""

    entities: list[str]
    hyperedges: list[str]
    aspect: float = PANEL_ASPECT
    """Width / height of the panel the layout will be drawn into. A layout may shape itself
    to it (``ra-cen`` stretches its shells into ellipses as wide as the panel); its
    positions are still fitted with one uniform scale for x and y."""


@dataclass
class LayoutResult:
    """Positions produced by a layout (abstract units, y up)."""

    kind: Literal["set", "induced"]
    entities: dict[str, Point]
    hyperedges: dict[str, Point] = field(default_factory=dict)
    clique_edges: list[tuple[str, str]] = field(default_factory=list)
    uniform: bool = True
    """Ignored since the drawing layer always fits with one uniform scale for x and y
    (paper §3.1); kept so custom layouts that set it keep working."""
    rings: list[float] = field(default_factory=list)
    """Radii of guide rings around ``center`` (radial layouts), in layout units."""
    ring_stretch: Point = (1.0, 1.0)
    """x and y factors of the rings: ring ``i`` is the ellipse around ``center`` with
    half-axes ``rings[i] * ring_stretch[0]`` and ``rings[i] * ring_stretch[1]`` (circles by
    default)."""
    center: Point | None = None
    ring_names: list[str] = field(default_factory=list)
    """Labels of the rings (default ``d=1``, ``d=2`` ...)."""
    engine: str = ""
    columns: tuple[list[str], list[str]] | None = None
    """Two-layer layouts: the entity column and the hyperedge column, each top to bottom.
    When set, the drawing layer places the columns itself in pixels with a capacity rule
    (each column dealt over as many sub-columns as the panel height needs, so no two nodes
    overlap) instead of fitting ``entities``/``hyperedges``, which remain the abstract
    positions for other consumers."""


LayoutFn = Callable[[Hypergraph, LayoutOrder], LayoutResult]

_REGISTRY: dict[str, LayoutFn] = {}


def register_layout(name: str, fn: LayoutFn, *, replace: bool = False) -> None:
    """Register a layout under ``name`` (``replace=True`` to override an existing one)."""
    if not name or not isinstance(name, str):
        raise ValueError("a layout name must be a non-empty string")
    if name in _REGISTRY and not replace:
        raise ValueError(f"layout {name!r} is already registered (pass replace=True)")
    if not callable(fn):
        raise TypeError(f"layout {name!r} is not callable")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without one: called as it is
        signature = None
    if signature is not None:
        try:
            signature.bind(None, None)
        except TypeError:
            raise TypeError(f"layout {name!r} must take two arguments, fn(hg, order) "
                            f"(a Hypergraph and a LayoutOrder); it takes {signature}") from None
    _REGISTRY[name] = fn


def available_layouts() -> list[str]:
    """Names of the registered layouts, built-ins first (registration order)."""
    return list(_REGISTRY)


def get_layout(name: str) -> LayoutFn:
    """The layout function registered under ``name``; ``ValueError`` if unknown."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"unknown layout {name!r}; available: {', '.join(available_layouts())}"
        ) from None


_KINDS: dict[str, Literal["set", "induced"]] = {}


def layout_kind(name: str) -> Literal["set", "induced"] | None:
    """``"set"``/``"induced"`` for built-in layouts, None for custom ones (known after a run)."""
    return _KINDS.get(name)


def _builtin(name: str, kind: Literal["set", "induced"], fn: LayoutFn) -> None:
    _KINDS[name] = kind
    register_layout(name, fn, replace=True)
