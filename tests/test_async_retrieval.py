"""``aretrieve`` keeps the event loop free while it renders (the slow steps run in a worker
thread), and concurrent retrievals on one engine — async or from threads — give the same
results as one after another."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from rag_fakes import demo_documents, store_with

from hyperviz_core.rag import HashingEmbedder, VizRAG
from hyperviz_core.render import HyperViz

QUESTIONS = [
    "Where did the band form that made the live album Maiden Japan?",
    "Who produced the album?",
    "Which city is the band from?",
    "When was the live album released?",
]


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_with(tmp_path_factory.mktemp("async-store"), demo_documents(0, 12))


class WaitingViz(HyperViz):
    """Renders only once the test's coroutine has run while the rendering was under way."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.release = threading.Event()
        self.threads: set[int] = set()

    def render(self, *args: Any, **kwargs: Any) -> Any:
        self.threads.add(threading.get_ident())
        self.started.set()
        if not self.release.wait(10):
            raise TimeoutError("nothing ran on the event loop while this rendered")
        return super().render(*args, **kwargs)


def test_rendering_does_not_block_the_event_loop(store_dir: Path) -> None:
    viz = WaitingViz()

    async def main() -> Any:
        with VizRAG(store_dir, renderer=viz, show_progress=False) as rag:
            task = asyncio.create_task(rag.aretrieve(QUESTIONS[0], render=True))
            while not viz.started.is_set():  # the loop runs while the stage renders
                await asyncio.sleep(0.005)
            viz.release.set()
            return await task, threading.get_ident()

    res, loop_thread = asyncio.run(main())
    assert res.top_view is not None and res.bottom_view is not None
    assert loop_thread not in viz.threads


class WaitingEmbedder(HashingEmbedder):
    """Embeds (as the store's embedder did) only once the event loop has run meanwhile: an
    embedder is a provider's network call or a local model's CPU time."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[int] = set()
        self.release = threading.Event()

    def embed(self, texts: list[str]) -> Any:
        self.threads.add(threading.get_ident())
        if not self.release.wait(10):
            raise TimeoutError("nothing ran on the event loop while this embedded")
        return super().embed(texts)


def test_embedding_does_not_block_the_event_loop(store_dir: Path) -> None:
    emb = WaitingEmbedder()

    async def main() -> Any:
        with VizRAG(store_dir, embedder=emb, show_progress=False) as rag:
            emb.release.set()  # the engine's dimension probe
            emb.threads.clear()
            emb.release.clear()
            task = asyncio.create_task(rag.aretrieve(QUESTIONS[0], render=False))
            while not emb.threads:  # the loop runs while the stage embeds
                await asyncio.sleep(0.005)
            emb.release.set()
            res, threads = await task, set(emb.threads)
            return res, threads, threading.get_ident(), rag.retrieve(QUESTIONS[0],
                                                                     render=False)

    res, threads, loop_thread, sync = asyncio.run(main())
    assert threads and loop_thread not in threads
    assert _fingerprint(res) == _fingerprint(sync)


def _fingerprint(res: Any) -> tuple[Any, ...]:
    return ([c.chunk_id for c in res.chunks], [round(c.score, 9) for c in res.chunks],
            res.top_view.sha256 if res.top_view else None,
            res.bottom_view.sha256 if res.bottom_view else None)


def test_concurrent_retrievals_match_sequential_ones(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag:
        alone = [_fingerprint(rag.retrieve(q, render=True)) for q in QUESTIONS]

        async def together() -> list[Any]:
            return list(await asyncio.gather(*(rag.aretrieve(q, render=True)
                                               for q in QUESTIONS * 2)))

        gathered = [_fingerprint(r) for r in asyncio.run(together())]
        with ThreadPoolExecutor(4) as pool:
            threaded = [_fingerprint(r) for r in
                        pool.map(lambda q: rag.retrieve(q, render=True), QUESTIONS * 2)]
    assert gathered == alone * 2
    assert threaded == alone * 2


@pytest.mark.parametrize("inner_api", ["sync", "async"])
def test_a_stage_that_retrieves_again_does_not_deadlock(store_dir: Path, inner_api: str) -> None:
    inner: list[Any] = []

    class Nested(HyperViz):
        """A renderer that asks the same engine a question while it draws (``retrieve``, or
        ``asyncio.run(aretrieve(...))`` in the rendering thread)."""

        def render(self, *args: Any, **kwargs: Any) -> Any:
            if not inner:
                q = QUESTIONS[1]
                inner.append(rag.retrieve(q, render=False) if inner_api == "sync"
                             else asyncio.run(rag.aretrieve(q, render=False)))
            return super().render(*args, **kwargs)

    with VizRAG(store_dir, renderer=Nested(), show_progress=False) as rag:
        worker = threading.Thread(target=lambda: inner.append(
            rag.retrieve(QUESTIONS[0], render=True)), daemon=True)
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), "deadlocked on the engine's stage lock"
        assert asyncio.run(rag.aretrieve(QUESTIONS[2], render=True)).bottom_view is not None
    assert len(inner) == 2 and inner[0].chunks and inner[1].bottom_view is not None


class WaitingQueryEmbedder(WaitingEmbedder):
    """A semantic embedder (its chunk-vector score counts) with a query embedding of its
    own, as a provider's (``embed_query``): the ranking stage embeds the question."""

    semantic = True

    def __init__(self) -> None:
        super().__init__()
        self.query_threads: set[int] = set()

    def embed_query(self, text: str) -> Any:
        self.query_threads.add(threading.get_ident())
        return super().embed([text])[0]


@pytest.mark.parametrize("mode", ["vizrag", "naive"])
def test_embedding_the_question_does_not_block_the_event_loop(store_dir: Path,
                                                               mode: str) -> None:
    emb = WaitingQueryEmbedder()

    async def main() -> Any:
        with VizRAG(store_dir, embedder=emb, show_progress=False) as rag:
            emb.release.set()
            return await rag.aretrieve(QUESTIONS[0], mode=mode, render=False), \
                threading.get_ident()

    res, loop_thread = asyncio.run(main())
    assert res.chunks and emb.query_threads and loop_thread not in emb.query_threads
