"""Vision-enhanced top-down retrieval (paper §4.2) over a store, as named stages.

Given a query ``q`` (mode ``vizrag``), the stages of :mod:`.stages` run in this order, after
``load`` (:mod:`.begin`: the options checked, the store's state read):

1. ``keywords`` — X = LLM(P_keyword(q)); offline :func:`heuristic_keywords`; never empty;
2. ``themes`` — for each keyword the ``theme_k`` most similar G_top themes → E_rel;
3. ``top_view`` — the h-hop G_top sub-hypergraph around E_rel, rendered: I_top;
4. ``locate`` — the MLLM names the entity IDs (``E#``) it sees in I_top, mapped back through
   the rendering's :class:`~hyperviz_core.idmap.IdMap` (unknown IDs are ignored and logged);
   offline (or if it names none) G_top's best by importance. Anchors V̂ = located ∪ E_rel's;
5. ``bottom_entities`` — for each anchor the ``entity_k`` most similar G_bot entities → V_rel,
   and the score-bounded h-hop G_bot sub-hypergraph around it;
6. ``rank`` — chunks by :func:`~.rank.rank_chunks`;
7. ``bottom_view`` — that sub-hypergraph rendered: I_bot, whose congestion control keeps the
   ranked passages' facts first (:mod:`.drawing`).

The chunk score: :class:`~.rank.RankWeights` (BM25, hypergraph evidence, feedback; chunk
vectors when weighted). The answer (step 8) is :mod:`hyperviz_core.rag.answer`.

Other modes: ``text`` (same stages, no image anywhere: the model reads E#/H# listings),
``hyper-lite`` (keywords → bottom_entities → rank → bottom_view), ``naive`` (rank only).

The stages are generators that *yield* model requests and hook events, so the sync
(:meth:`Retriever.retrieve`) and async (:meth:`Retriever.aretrieve`) drivers share every line
of them; the drivers call the model and the stage hooks (:mod:`hyperviz_core.rag.hooks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Generator, Iterable
from typing import Any, cast

from ...view_settings import saved_view_settings
from ..hooks import (
    Hook,
    HookEvent,
    HookList,
    abandoned,
    afire,
    call_event,
    elapsed_ms,
    error_text,
    fire,
)
from ..prompts import Prompts
from ..providers.protocols import ChatModel, Embedder, reply_text
from ..query_usage import counted
from ..result import RetrievalResult
from ..store.protocol import StoreProtocol
from . import loaded as ld
from .begin import begin
from .chunk_index import ChunkIndex
from .collect import collect
from .config import RetrievalConfig
from .lazy import LazyCorpus, lazy_corpus_for, prepare_lazy
from .search import replaced_index, unit_vectors
from .stages import MODE_STAGES, run_stage
from .state import EMPTY_STORE, Corpus, LLMRequest, RetrievalState
from .steps import PIN, AsyncSteps, Pin, Pipeline
from .steps import advance as _advance

__all__ = ["Pipeline", "Retriever"]

#: lazy attempts of one query while other writers commit under it; then the loaded corpus
LAZY_ATTEMPTS = 3

#: ``lazy=None`` (auto) reads lazily from this many chunks on. Below it the loaded corpus is
#: faster per query and small (MuSiQue, 1,939 chunks: ~9 vs ~15 ms p50, 247 vs 168 MiB peak
#: RSS, ``scale_bench.py --lazy off/on``); above it, it grows with the store (5 MB, 4,989
#: chunks: 444 vs 195 MiB, before the query footprint work; 50 MB: 3.2 GiB).
LAZY_MIN_CHUNKS = 4_000


#: stages run in a worker thread under :meth:`Retriever.aretrieve`: the store's load and
#: rendering (seconds) and the three that call the embedder (``rank`` embeds the question),
#: not to block the loop
SLOW_STAGES = frozenset({"load", "render", "keywords", "bottom_entities", "rank"})


#: the search copies of vector spaces in the loaded corpus (:func:`.search.search`'s own)
_COPIES = ld.SpaceCopies(replaced_index, unit_vectors)


class Retriever:
    """Runs the retrieval stages over a store; caches per-store-state indexes.

    ``hooks`` are stage hooks (see :mod:`hyperviz_core.rag.hooks`); :meth:`add_hook` /
    :meth:`remove_hook` change them, ``retrieve(q, hooks=[...])`` adds some for one call.
    """

    def __init__(
        self,
        store: StoreProtocol,
        *,
        embedder: Embedder,
        chat: ChatModel | None = None,
        renderer: Any = None,
        prompts: Prompts | None = None,
        config: RetrievalConfig | None = None,
        hooks: Iterable[Hook] | HookList = (),
        lazy: bool | None = None,
        keyword_extractor: Any = None,
    ) -> None:
        self.store = store
        self.keyword_extractor = keyword_extractor  #: the query's keywords (else chat/offline)
        self.embedder = embedder
        self.chat = chat
        self.prompts = prompts or Prompts()
        self.config = config or RetrievalConfig()
        self.hooks = hooks if isinstance(hooks, HookList) else HookList(hooks)
        self._renderer = renderer
        self._corpus: Corpus | None = None
        self._corpus_generation: tuple[int, int, int] | None = None  # the state it was read at
        self._lazy: LazyCorpus | None = None
        self._generation: tuple[int, int, int] | None = None
        #: read only what each query needs when the store allows it (see :mod:`.lazy`);
        #: False loads both layers and every chunk, as before; None (auto) reads lazily
        #: from :data:`LAZY_MIN_CHUNKS` chunks on, and once a loaded store was written
        self.lazy = lazy
        self._size: tuple[Any, int] | None = None
        self._loaded = False  # a query loaded the store (the loaded path ran)
        self._written = False  # auto mode: the loaded store changed after a query
        #: one retrieval's stage step at a time (async steps run in worker threads);
        #: reentrant, so a stage that itself retrieves (a custom renderer) cannot deadlock
        self._stages_lock = threading.RLock()
        self._pinned_loops: list[asyncio.AbstractEventLoop] = []  # (:meth:`_check_loop`)
        ld.fork_safe(self)  # a forked child's queries do not wait for the parent's threads

    def add_hook(self, hook: Hook) -> None:
        """Register a stage hook ``hook(name, phase, payload)``."""
        self.hooks.add(hook)

    def remove_hook(self, hook: Hook) -> None:
        """Unregister a stage hook (:class:`ValueError` if absent)."""
        self.hooks.remove(hook)

    # ------------------------------------------------------------------ state
    def refresh(self) -> None:
        """Forget cached indexes (the next query rebuilds them from the store)."""
        self._corpus = None
        self._corpus_generation = None
        self._lazy = None
        self._generation = None

    def query_corpus(self, lazy: bool = True, spaces: tuple[str, ...] = ()
                     ) -> Corpus | LazyCorpus:
        """What the next query reads: the :class:`~.lazy.LazyCorpus` when the store has
        indexed lookups (and ``lazy`` is on, here and on the retriever), else the loaded
        :class:`Corpus` (with the vector ``spaces`` the query searches)."""
        if lazy and self._lazy_wanted():
            self._lazy, self._generation = lazy_corpus_for(self.store, self._lazy,
                                                           self._generation)
            if self._lazy is not None:
                if self._corpus is not None:  # loaded by a fallback: let that memory go
                    self._corpus = None
                    release = getattr(self.store, "release_layers", None)
                    if callable(release):
                        release()
                return self._lazy
        return self.corpus(spaces)

    def prepare(self) -> bool:
        """Build ahead of the first query what a lazily read store derives for queries (see
        :meth:`~hyperviz_core.rag.engine.VizRAG.prepare_queries`); False, doing nothing,
        when queries load the store instead (small, ``lazy=False``, or no indexed lookups)."""
        generation = getattr(self.store, "query_generation", None)
        if generation is None or not self._lazy_wanted():
            return False
        self._generation = generation()  # read first, as lazy_corpus_for does
        self._lazy = prepare_lazy(self.store)
        return self._lazy is not None

    def _lazy_wanted(self) -> bool:
        """``lazy``, or in auto mode whether the store is big enough to read lazily (its
        chunk count, looked up again only when its generation moves)."""
        if self.lazy is not None:
            return self.lazy
        generation = getattr(self.store, "query_generation", None)
        if generation is None:
            return False  # no indexed lookups: the loaded corpus anyway
        gen = generation()
        if self._size is None or self._size[0] != gen:
            # a loaded store written since (by another process, or this one) reads lazily
            # from then on: each write made the loaded path load the whole store again
            self._written |= self._size is not None and self._loaded
            self._size = (gen, self.store.stats().chunks)
        return self._written or self._size[1] >= LAZY_MIN_CHUNKS

    def corpus(self, spaces: tuple[str, ...] = ()) -> Corpus:
        """The per-store-state :class:`Corpus` (rebuilt when the store's layers changed),
        with the vector ``spaces``: of one store state (:func:`~.loaded.read_loaded`)."""
        bottom, top = self.store.bottom(), self.store.top()
        c, store = self._corpus, self.store
        if c is not None and c.bottom is bottom and c.top is top and ld.fill_spaces(
                store, c.matrices, c.matrices_epochs, spaces, _COPIES, self._corpus_generation):
            return c
        got = ld.read_loaded(store, spaces, _COPIES)
        chunks = ChunkIndex(got.chunks, got.titles, got.bottom)
        self._corpus = Corpus(got.bottom, got.top, chunks, got.matrices, got.made_at)
        self._corpus_generation, self._loaded = got.generation, True
        return self._corpus

    def renderer(self, congestion_control: bool) -> Any:
        """The HyperViz used for I_top/I_bot (created lazily; no budget when disabled)."""
        from ...prune import Budget
        from ...render import HyperViz

        if self._renderer is not None:
            return self._renderer
        saved = saved_view_settings(self.store)  # `vizrag tune` results, if any
        budget = saved.make_budget() if saved else Budget()
        return HyperViz(budget=budget if congestion_control else Budget(enabled=False))

    # ------------------------------------------------------------------ drivers
    def retrieve(self, query: str, *, hooks: Iterable[Hook] | None = None,
                 **overrides: Any) -> RetrievalResult:
        """Run the stages synchronously (``overrides`` = :class:`RetrievalConfig` fields;
        ``hooks`` = extra stage hooks for this call)."""
        self._check_loop()
        hk = self.hooks.with_extra(hooks)
        try:
            return self._drive(hk, self.pipeline(query, **overrides))
        except BaseException as exc:  # Ctrl-C, a failure: what began ends with an error
            for event in abandoned(hk, exc):
                fire(hk, event)
            raise

    def _check_loop(self) -> None:
        """Refuse a sync retrieval on the thread of an event loop on which an
        :meth:`aretrieve` of this engine holds the store's read snapshot (with the stages
        lock): it would wait for that query, which cannot go on while the loop waits."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if loop in self._pinned_loops:
            raise RuntimeError(
                "retrieve() was called on the thread of a running event loop while an "
                "aretrieve() of this engine on that loop holds the store's read snapshot: it "
                "would wait for that query, which cannot go on until retrieve() returns; use "
                "`await aretrieve()` in async code")

    def _drive(self, hk: list[Hook], gen: Pipeline) -> RetrievalResult:
        done, item = _advance(self._stages_lock, gen)
        chat = counted(self.chat)  # this query's model calls: result.usage
        while not done:
            if isinstance(item, HookEvent | Pin):  # (every step runs in this thread)
                if isinstance(item, HookEvent):
                    fire(hk, item)
                done, item = _advance(self._stages_lock, gen)
                continue
            fire(hk, call_event(item, "start"))
            t0 = time.perf_counter()
            try:
                answer = reply_text(chat.complete(
                    item.prompt, images=item.images, system=item.system,
                    json_mode=item.json_mode))
            except Exception as exc:  # provider failure: the stage falls back
                fire(hk, call_event(item, "error", t0, error=error_text(exc)))
                done, item = _advance(self._stages_lock, gen, throw=exc)
                continue
            fire(hk, call_event(item, "end", t0, response_chars=len(answer)))
            done, item = _advance(self._stages_lock, gen, answer)
        return chat.add_to(cast(RetrievalResult, item))

    async def aretrieve(self, query: str, *, hooks: Iterable[Hook] | None = None,
                        **overrides: Any) -> RetrievalResult:
        """Async :meth:`retrieve` (model calls via ``acomplete``, async hooks awaited).

        The slow steps — the first (it opens the store's current state: seconds on a large
        store), every rendering and the stages that call the embedder (:data:`SLOW_STAGES`)
        — run in a worker thread, so the event loop serves other tasks meanwhile; the others
        take milliseconds. Steps of concurrent retrievals on one engine run one at a time."""
        hk = self.hooks.with_extra(hooks)
        try:
            result: RetrievalResult = await self._adrive(hk, self.pipeline(query, **overrides))
        except BaseException as exc:  # cancelled (a timeout): as retrieve
            for event in abandoned(hk, exc):
                await afire(hk, event)
            raise
        return result

    async def _adrive(self, hk: list[Hook], gen: Pipeline) -> RetrievalResult:
        steps = AsyncSteps(self._stages_lock, gen, self._pinned_loops)
        try:
            done, item = await steps.step(slow=True)
            chat = counted(self.chat)  # this query's model calls: result.usage
            while not done:
                if isinstance(item, Pin):  # the attempt's steps: one thread of their own
                    steps.pin()
                    done, item = await steps.step()
                    continue
                if isinstance(item, HookEvent):
                    await afire(hk, item)
                    slow = item.phase == "start" and item.name in SLOW_STAGES
                    done, item = await steps.step(slow=slow)
                    continue
                await afire(hk, call_event(item, "start"))
                t0 = time.perf_counter()
                try:
                    answer = reply_text(await chat.acomplete(
                        item.prompt, images=item.images, system=item.system,
                        json_mode=item.json_mode))
                except Exception as exc:
                    await afire(hk, call_event(item, "error", t0, error=error_text(exc)))
                    done, item = await steps.step(throw=exc)
                    continue
                await afire(hk, call_event(item, "end", t0, response_chars=len(answer)))
                done, item = await steps.step(answer)
        finally:
            steps.close()
        return chat.add_to(cast(RetrievalResult, item))

    # ------------------------------------------------------------------ pipeline
    def pipeline(self, query: str, **overrides: Any) -> Pipeline:
        """The stages of the mode as one generator of :class:`LLMRequest` and hook events.

        A lazy query the store changed under (another process committed) runs again: once,
        in the store's ``read_snapshot()`` (announced by a :data:`~.steps.PIN`: the
        attempt's steps must run in one thread); on a store without one up to
        :data:`LAZY_ATTEMPTS` times, then loaded. A result thus always comes from one store
        state. The snapshot is held together with the stages' lock, so another query waits
        before its next step, not inside it for what the snapshot holds (SQLite's one
        connection; one of PostgreSQL's few pooled ones, each pinned attempt its own) while
        holding the lock the pinned query needs: both waited forever."""
        t_all = time.perf_counter()
        pin = callable(getattr(self.store, "read_snapshot", None))
        asked: dict[tuple[Any, ...], Any] = {}  # the providers' answers, across the attempts
        for attempt in range(LAZY_ATTEMPTS + 1):
            pinned = pin and attempt > 0
            if pinned:
                yield PIN
            with (self._stages_lock if pinned else contextlib.nullcontext()), \
                    ld.one_state(self.store, pinned):
                st = yield from begin(self, query, overrides,
                                      lazy=pinned or attempt < LAZY_ATTEMPTS)
                st.asked = asked
                seen = self._generation if isinstance(st.corpus, LazyCorpus) else None
                try:
                    yield from self._stages(query, st)
                except Exception:
                    if pinned or seen is None or not self._moved(seen):
                        raise  # not a store that changed under the query: a real error
                    continue
            if pinned or seen is None or not self._moved(seen):
                break
        st.res.timings["total"] = elapsed_ms(t_all)
        return st.res

    def _moved(self, seen: tuple[int, int, int]) -> bool:
        """Whether the store changed since the lazy corpus of generation ``seen`` was read."""
        current = getattr(self.store, "query_generation", None)
        return current is not None and current() != seen

    def _stages(self, query: str, st: RetrievalState) -> Generator[
            LLMRequest | HookEvent, Any, None]:
        res = st.res
        if not query.strip() or not len(st.corpus):
            res.warnings.append("empty query" if not query.strip() else EMPTY_STORE)
            return
        for name, stage in MODE_STAGES[st.cfg.mode]:
            yield from run_stage(name, stage, st)
        collect(st)
