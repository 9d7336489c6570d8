"""The start of a retrieval: its options checked, its result begun, then what it reads
loaded between the ``load`` hook events.

:func:`begin` checks the query and the options (a bad one raises before any hook event),
makes the :class:`~..result.RetrievalResult` with its settings and the views it skips, then
loads the corpus the query reads (:meth:`~.retriever.Retriever.query_corpus`: the lazily
read store, else the layers loaded into memory) between ``load`` ``start`` and ``end``
events. A store that fails to load (closed, damaged, replaced) gives a ``load`` ``error``
event with the error and the time spent before the exception propagates, as a failing stage
does (:func:`~.stages.run_stage`).

The ``end`` payload says what was read: ``lazy`` (the store read on demand) or the loaded
layers, ``chunks`` (how many the query ranks) and ``elapsed_ms`` (what
``result.timings["load"]`` holds).
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any, Protocol

from ...surrogates import check_text
from ..hooks import HookEvent, elapsed_ms, error_text
from ..prompts import Prompts
from ..providers.protocols import ChatModel, Embedder
from ..result import RetrievalResult
from ..store.protocol import StoreProtocol
from . import loaded as ld
from .config import MODE_VIEWS, RetrievalConfig, check_mode, drawn_views, render_decision
from .lazy import LazyCorpus
from .stages import MODE_STAGES
from .state import Corpus, RetrievalState

__all__ = ["begin", "checked_config", "state_of"]


class Source(Protocol):
    """What a retrieval starts from (a :class:`~.retriever.Retriever`)."""

    config: RetrievalConfig
    store: StoreProtocol
    embedder: Embedder
    chat: ChatModel | None
    prompts: Prompts
    keyword_extractor: Any

    def renderer(self, congestion_control: bool) -> Any: ...

    def query_corpus(self, lazy: bool = True, spaces: tuple[str, ...] = ()
                     ) -> Corpus | LazyCorpus: ...


def checked_config(base: RetrievalConfig, query: str, overrides: dict[str, Any]
                   ) -> RetrievalConfig:
    """``base`` with the ``overrides`` that are not None; a query that is no text, a mode
    or an option that does not exist raises (a misspelt option must not run with the
    defaults)."""
    check_text(query, "the query")  # no string: TypeError; a lone surrogate: ValueError
    given = {k: v for k, v in overrides.items() if v is not None}
    check_mode(given.get("mode", base.mode))
    valid = sorted(RetrievalConfig.model_fields)
    unknown = sorted(set(given) - set(valid))
    if unknown:
        raise TypeError(f"unknown retrieval option(s) {unknown}; valid: {valid}")
    return RetrievalConfig.model_validate({**base.model_dump(), **given})


def begin(r: Source, query: str, overrides: dict[str, Any], lazy: bool = True
          ) -> Generator[HookEvent, Any, RetrievalState]:
    """The state a retrieval by ``r`` starts from (see the module doc); yields the ``load``
    hook events."""
    cfg = checked_config(r.config, query, overrides)
    visual = cfg.mode in ("vizrag", "hyper-lite") and cfg.retrieval_visualization
    render, why = render_decision(cfg, r.chat is not None)
    views = drawn_views(cfg, render, reader=r.chat is not None)
    res = RetrievalResult(query=query, mode=cfg.mode, top_k=cfg.top_k, settings={
        "hops": cfg.hops, "theme_k": cfg.theme_k, "entity_k": cfg.entity_k,
        "retrieval_visualization": cfg.retrieval_visualization,
        "congestion_control": cfg.congestion_control, "dual_view": cfg.dual_view,
        "images": visual and r.chat is not None, "rendered": bool(views),
        "chat": getattr(r.chat, "model_name", None), "embedder": r.embedder.name,
        **({"filters": cfg.filters.model_dump(mode="json")} if cfg.filters else {})})
    res.skipped_views = {v: why or "not in render_views (no model reads it)"
                         for v in MODE_VIEWS[cfg.mode] if v not in views}
    yield HookEvent("load", "start", {"mode": cfg.mode})
    t0 = time.perf_counter()
    try:
        corpus = r.query_corpus(lazy, ld.query_spaces(cfg, MODE_STAGES[cfg.mode], r.embedder))
        chunks = len(corpus)
    except Exception as exc:
        yield HookEvent("load", "error", {"error": error_text(exc), "elapsed_ms": elapsed_ms(t0)})
        raise
    res.timings["load"] = elapsed_ms(t0)
    yield HookEvent("load", "end", {"lazy": isinstance(corpus, LazyCorpus), "chunks": chunks,
                                    "elapsed_ms": res.timings["load"]})
    return RetrievalState(query=query, cfg=cfg, res=res, corpus=corpus, store=r.store,
                          embedder=r.embedder, chat=r.chat, prompts=r.prompts,
                          renderer=r.renderer, visual=visual, views=views,
                          keyword_extractor=r.keyword_extractor)


def state_of(r: Source, query: str, overrides: dict[str, Any], lazy: bool = True
             ) -> RetrievalState:
    """What :func:`begin` returns, its hook events dropped: the state a retrieval by ``r``
    starts from, for a tool or a test that runs single stages on it."""
    gen = begin(r, query, overrides, lazy)
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            state: RetrievalState = stop.value
            return state
