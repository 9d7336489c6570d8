"""Retrieval settings: the modes and :class:`RetrievalConfig` (every knob of the stages).

Example:
    >>> RetrievalConfig(mode="naive", top_k=3).mode
    'naive'
    >>> check_mode("graph")
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.retrieve.config.UnknownModeError: unknown retrieval mode 'graph'; ...
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .filters import ChunkFilter, as_filter
from .rank import RankWeights

__all__ = [
    "MAX_HOPS",
    "MODES",
    "MODE_VIEWS",
    "Mode",
    "RetrievalConfig",
    "UnknownModeError",
    "check_hops",
    "check_mode",
    "drawn_views",
    "render_decision",
]


Mode = Literal["vizrag", "text", "hyper-lite", "naive"]


MODES: tuple[str, ...] = ("vizrag", "text", "hyper-lite", "naive")

#: the six built-in layouts (``hyperviz_core.layouts``; checked equal by the tests), known
#: here without importing the drawing stack
BUILTIN_LAYOUTS = ("set-hier", "set-radial", "set-force", "bi-inc", "ra-cen", "cli-exp")

#: the views each mode has (``naive`` has no sub-hypergraph view)
MODE_VIEWS: dict[str, tuple[str, ...]] = {
    "vizrag": ("top", "bottom"), "text": ("top", "bottom"), "hyper-lite": ("bottom",),
    "naive": (),
}


class UnknownModeError(ValueError):
    """A retrieval mode that does not exist."""


def check_mode(mode: str) -> str:
    """``mode`` if valid, else :class:`UnknownModeError` listing the valid modes."""
    if mode not in MODES:
        raise UnknownModeError(f"unknown retrieval mode {mode!r}; valid modes: {', '.join(MODES)}")
    return mode


#: the widest sub-hypergraph radius a retrieval takes
MAX_HOPS = 3


def check_hops(hops: object) -> int:
    """``hops`` if an integer from 0 to :data:`MAX_HOPS`, else ``ValueError`` naming it
    (what the framework wrappers check when they are built, before any retrieval).

    >>> check_hops(2)
    2
    """
    if isinstance(hops, bool) or not isinstance(hops, int) or not 0 <= hops <= MAX_HOPS:
        raise ValueError(f"hops must be an integer from 0 to {MAX_HOPS}, got {hops!r}")
    return hops


class RetrievalConfig(BaseModel):
    """Knobs of the retrieval pipeline (defaults used by the benchmark and the demo)."""

    model_config = ConfigDict(extra="forbid")

    mode: Mode = "vizrag"
    top_k: int = Field(default=5, ge=1)
    hops: int = Field(default=1, ge=0, le=MAX_HOPS)
    theme_k: int = Field(default=3, ge=1)
    """Top-k theme hyperedges per keyword (top retrieval)."""
    entity_k: int = Field(default=3, ge=1)
    """Top-k G_bot entities per anchor (bottom retrieval) or per keyword (hyper-lite)."""
    locate_k: int = Field(default=8, ge=1)
    """Entities the locator may name (offline: G_top's best entities by importance, drawn
    or not)."""
    max_keywords: int = Field(default=10, ge=1)
    max_themes: int = Field(default=12, ge=1)
    max_anchors: int = Field(default=8, ge=1)
    max_entities: int = Field(default=40, ge=2)
    """Cap of each h-hop sub-hypergraph that ranking sees (highest-scoring entities kept)."""
    render_max_entities: int = Field(default=80, ge=2)
    """Hard safety limit of the *rendered* bottom sub-hypergraph: what I_bot draws is decided
    by the renderer's congestion budget, not by ``max_entities`` (reported by the
    ``bottom_view`` stage as ``render_limit``/``render_limited``)."""
    render_max_hyperedges: int = Field(default=100, ge=1)
    """Hard safety limit of the hyperedges the *rendered* bottom view I_bot is given: the
    best-scored are kept, entities left in none of them go (the query's anchors stay). A
    dense neighbourhood — hundreds of facts around a few hub entities — otherwise takes
    most of a minute to lay out. Reported by the ``bottom_view`` stage as
    ``render_hyperedge_limit``/``render_hyperedges_limited``; the result's entity and
    hyperedge lists are not limited."""
    render_max_themes: int = Field(default=30, ge=1)
    """The same safety limit for the theme hyperedges of the rendered top view I_top
    (``top_view`` stage: ``render_hyperedge_limit``/``render_hyperedges_limited``)."""
    hop_decay: float = Field(default=0.5, ge=0, le=1)
    chunk_vector_k: int = Field(default=50, ge=0)
    retrieval_visualization: bool = True
    """Send the renderings to the model (False = the paper's w/o-visualization ablation)."""
    congestion_control: bool = True
    dual_view: bool = True
    layouts: tuple[str, ...] = ("set-force", "bi-inc")
    render: bool | None = None
    """Render I_top/I_bot: ``None`` (default) renders only when a consumer reads them (a
    chat/vision model in ``vizrag``/``hyper-lite`` with ``retrieval_visualization``);
    ``True`` always but in ``text`` mode (it sends listings, no images) or with
    ``retrieval_visualization=False`` (:func:`render_decision`; ``--out``, the viewer, an
    image node); ``False`` never. What was not
    rendered is named, with the reason, in :attr:`RetrievalResult.skipped_views`."""
    render_views: tuple[Literal["top", "bottom"], ...] = ("top", "bottom")
    """The views ``render=True`` draws when no model reads them (e.g. ``("bottom",)`` for
    an image of I_bot alone: I_top's drawing is not made); with a chat/vision model both
    are drawn, since the model reads them. A view not drawn is named in
    :attr:`RetrievalResult.skipped_views`."""
    weights: RankWeights = Field(default_factory=RankWeights)
    filters: ChunkFilter | None = None
    """Return only chunks whose metadata passes this filter (:mod:`.filters`; a
    :class:`~.filters.MetadataCondition` or a dict of either is taken too): the ranking is
    masked, not changed; the views, entities and hyperedges show only facts of passing
    chunks (:mod:`.shown`)."""

    @field_validator("filters", mode="before")
    @classmethod
    def _filter(cls, value: object) -> object:
        return as_filter(value)

    @field_validator("render_views")
    @classmethod
    def _some_views(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("render_views needs 'top', 'bottom' or both (render=False "
                             "draws nothing)")
        return value

    @field_validator("layouts")
    @classmethod
    def _known_layouts(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        """Layouts are checked when the config is made, not at the first rendering (the
        layout registry, which loads the drawing stack, only for a name not built in)."""
        if not 1 <= len(value) <= 12:
            raise ValueError(f"1 to 12 layouts are needed, got {len(value)}")
        twice = sorted({n for n in value if value.count(n) > 1})
        if twice:
            raise ValueError(f"layout {twice[0]!r} is given twice: each layout draws one panel")
        for name in value:
            if name not in BUILTIN_LAYOUTS:
                from ...layouts.base import get_layout

                get_layout(name)  # a registered one, else a ValueError naming the known
        return value


def drawn_views(cfg: RetrievalConfig, render: bool, reader: bool) -> tuple[str, ...]:
    """The views of ``cfg.mode`` to draw: none without rendering, all of them for a model
    that reads them, else those in ``cfg.render_views``."""
    if not render:
        return ()
    views = MODE_VIEWS[cfg.mode]
    return views if reader else tuple(v for v in views if v in cfg.render_views)


def render_decision(cfg: RetrievalConfig, has_chat: bool) -> tuple[bool, str]:
    """Whether I_top/I_bot are rendered, and why not when they are not.

    ``render=None`` renders only when a model reads the images (a chat/vision model in
    ``vizrag``/``hyper-lite`` with ``retrieval_visualization``); offline nothing reads them
    (the offline locator is structural), so they are skipped.

    >>> render_decision(RetrievalConfig(), has_chat=False)[0]
    False
    >>> render_decision(RetrievalConfig(), has_chat=True)
    (True, '')
    >>> render_decision(RetrievalConfig(render=True), has_chat=False)
    (True, '')
    >>> render_decision(RetrievalConfig(mode="text", render=True), has_chat=True)[1]
    'text mode sends no images (the model reads E#/H# listings)'
    """
    if cfg.mode == "text":
        return False, "text mode sends no images (the model reads E#/H# listings)"
    if not cfg.retrieval_visualization:
        return False, "retrieval_visualization=False (the without-visualization ablation)"
    if cfg.render is False:
        return False, "render=False"
    if cfg.render is None and not has_chat:
        return False, ("offline: no vision model reads it (the offline locator is "
                       "structural); pass render=True, --render or --out to draw it")
    return True, ""
