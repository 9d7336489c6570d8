"""What an extension developer and a scale review found (2026-12-04). Models, embedders and
extractors written with sync methods only work: their async twins
run the sync method in a worker thread (an extension developer's review, 2026-12-04: they
were accepted, then every document failed with "object has no attribute 'aembed'")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hyperviz_core.rag import (
    ChunkExtraction,
    ChunkTheme,
    HashingEmbedder,
    HeuristicExtractor,
    HeuristicThemeExtractor,
    VizRAG,
)
from hyperviz_core.rag.index.indexer import Indexer

DOCS = ["Marie Curie won the Nobel Prize in 1903.", "Albert Einstein worked in Bern."]


class SyncEmbedder:
    name, dim = "sync-emb", 512

    def embed(self, texts: Any) -> Any:
        return HashingEmbedder().embed(list(texts))


class SyncChat:  # no model_name either: named by its class
    def __init__(self) -> None:
        self.calls = 0

    def complete(self, prompt: str, **kw: Any) -> str:
        self.calls += 1
        return json.dumps({"entities": [], "hyperedges": [], "keywords": ["Curie"],
                           "theme": "science", "key_entities": []})


class SyncExtractor:
    def extract(self, chunk: Any) -> ChunkExtraction:
        return HeuristicExtractor().extract(chunk)


class SyncTheme:
    def theme(self, chunk: Any, extraction: Any, image: bytes | None = None) -> ChunkTheme:
        return HeuristicThemeExtractor().theme(chunk, extraction, image)


def test_a_sync_only_embedder_and_extractors_index(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", embedder=SyncEmbedder(), extractor=SyncExtractor(),
                theme_extractor=SyncTheme(), show_progress=False) as rag:
        report = rag.insert(DOCS)
        assert (report.documents_added, report.errors) == (2, [])
        assert report.entities > 0 and report.themes == 2
        assert rag.retrieve("Who won the Nobel Prize?", top_k=1).chunks


def test_a_sync_only_chat_model_indexes_and_answers_async(tmp_path: Path) -> None:
    chat = SyncChat()
    with VizRAG(tmp_path / "s", chat=chat, show_progress=False) as rag:
        report = rag.insert(DOCS)
        assert (report.documents_added, report.errors) == (2, []) and chat.calls > 0
        result = asyncio.run(rag.aquery("Who won the Nobel Prize?"))
        assert result.answer_kind == "llm" and "SyncChat" in repr(rag)


def test_the_indexer_takes_them_too(tmp_path: Path) -> None:
    indexer = Indexer(str(tmp_path / "s"), extractor=SyncExtractor(),
                      theme_extractor=SyncTheme(), embedder=SyncEmbedder(), show_progress=False)
    from hyperviz_core.rag import Document

    report = indexer.index([Document(text=t) for t in DOCS])
    assert (report.documents_added, report.errors) == (2, [])


def test_the_engine_s_prompts_reach_the_indexing_extractors(tmp_path: Path) -> None:
    """``VizRAG(prompts=...)`` governed only the query stages: indexing sent the default
    extract and theme prompts (an extension developer's review, 2026-12-04)."""
    from hyperviz_core.rag import Prompts

    sent: list[str] = []

    class Spy:
        model_name = "spy"

        def complete(self, prompt: str, **kw: Any) -> str:
            sent.append(prompt)
            return '{"entities": [], "hyperedges": []}'

    prompts = Prompts(extract="MY EXTRACT {text}", theme="MY THEME {text}",
                      keyword="MY KEYWORDS {query}")
    with VizRAG(tmp_path / "s", chat=Spy(), prompts=prompts, show_progress=False) as rag:
        rag.insert(DOCS[:1])
        assert sent and all(p.startswith(("MY EXTRACT", "MY THEME")) for p in sent), sent
        assert any(p.startswith("MY THEME") for p in sent)


class Overlap:
    """Counts how many calls of a model overlap (``most``: at once, at the worst)."""

    def __init__(self) -> None:
        import threading

        self.now = self.most = 0
        self.guard = threading.Lock()

    def busy(self, seconds: float = 0.02) -> None:
        import time

        with self.guard:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(seconds)
        with self.guard:
            self.now -= 1


class Flaky:
    """Good while indexing; at query time returns ``mode``'s broken vectors."""

    name, dim = "flaky-emb", 512

    def __init__(self) -> None:
        self.mode = ""

    def embed(self, texts: Any) -> Any:
        import numpy as np

        out = HashingEmbedder().embed(list(texts))
        if self.mode == "nan":
            out[:] = np.nan
        elif self.mode == "rows":
            out = np.vstack([out, out])
        elif self.mode == "width":
            out = out[:, :100]
        return out


def test_query_time_embeddings_are_checked(tmp_path: Path) -> None:
    """NaN vectors at query time gave arbitrary passages with a warning blaming the query,
    an extra row a zip() error, a narrower width a silently partial score. (``naive`` reads
    the first row of the question's one text, so extra rows do not reach it.)"""
    import pytest

    emb = Flaky()
    with VizRAG(tmp_path / "s", embedder=emb, show_progress=False) as rag:
        rag.insert(DOCS)
        for mode, said in (("nan", "NaN or infinite"), ("rows", "vectors for"),
                           ("width", "not its dim 512")):
            emb.mode = mode
            for how in ("vizrag", "hyper-lite", "naive")[: 2 if mode == "rows" else 3]:
                with pytest.raises(ValueError, match=f"embedder 'flaky-emb' returned .*{said}"):
                    rag.retrieve("Who won the Nobel Prize?", mode=how)
        emb.mode = ""
        assert rag.retrieve("Who won the Nobel Prize?").chunks


def test_a_store_missing_members_is_named(tmp_path: Path) -> None:
    """A delegating store wrapper missing one member got "must be ... StoreProtocol, got
    Wrapped" (and StoreError "not a store: Wrapped" from the Indexer): now the member."""
    import pytest

    from hyperviz_core.rag import HypergraphStore
    from hyperviz_core.rag.store import StoreError

    class Wrapped:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            if name == "cache_items":
                raise AttributeError(name)
            return getattr(self.inner, name)

    with HypergraphStore(tmp_path / "s") as store:
        with pytest.raises(TypeError, match="Wrapped lacks cache_items of StoreProtocol"):
            VizRAG(Wrapped(store))
        with pytest.raises(StoreError, match="Wrapped lacks cache_items of StoreProtocol"):
            Indexer(Wrapped(store))


def test_a_streamed_answer_fires_its_model_call_events(tmp_path: Path) -> None:
    """``stream``/``astream`` fired no ``model_call`` events for the answer (query() did),
    so the wrappers' traces lacked the streamed LLM call."""

    class Streamer:
        model_name = "streamer"

        def complete(self, prompt: str, **kw: Any) -> str:
            return '{"keywords": ["Curie"]}' if "keyword" in prompt.lower() else "Curie."

        def stream(self, prompt: str, **kw: Any) -> Any:
            yield from ("Marie ", "Curie.")

        async def astream(self, prompt: str, **kw: Any) -> Any:
            for piece in ("Marie ", "Curie."):
                yield piece

    events: list[tuple[str, str, Any]] = []

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == "model_call" and payload.get("stage") == "answer":
            events.append((name, phase, payload.get("images")))

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(DOCS)
    with VizRAG(tmp_path / "s", chat=Streamer(), hooks=[hook], show_progress=False) as rag:
        assert "".join(rag.stream("Who won the Nobel Prize?")) == "Marie Curie."

        async def collect() -> str:
            return "".join([p async for p in rag.astream("Who won the Nobel Prize?")])

        assert asyncio.run(collect()) == "Marie Curie."
    assert [(n, p) for n, p, _ in events] == [("model_call", "start"), ("model_call", "end")] * 2


def test_the_extractive_answer_quotes_no_markdown_heading(tmp_path: Path) -> None:
    """A Markdown file's heading was glued onto the first quoted sentence
    ("- # Hello Love (song) "Hello Love" is a 1974 single by Hank Snow. [1]")."""
    from hyperviz_core.rag import Document

    text = '# Hello Love (song)\n\n"Hello Love" is a 1974 single by Hank Snow.\n'
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="hello", text=text)])
        answer = rag.query("Who performed Hello Love?").answer or ""
    assert '- "Hello Love" is a 1974 single by Hank Snow. [1]' in answer and "#" not in answer


def test_a_keyword_extractor_plugs_in(tmp_path: Path) -> None:
    """The exported ``KeywordExtractor`` protocol had no parameter to plug into: the
    keywords came from the chat model's prompt or the heuristic only."""
    from hyperviz_core.rag import KeywordExtractor

    class Fixed:
        def keywords(self, query: str) -> list[str]:
            return ["Albert Einstein", "Bern"]

        async def akeywords(self, query: str) -> list[str]:
            return self.keywords(query)

    class Broken:
        def keywords(self, query: str) -> list[str]:
            raise RuntimeError("quota")

    class OneString:  # a str is no list of keywords (it gave one-letter keywords)
        def keywords(self, query: str) -> Any:
            return "Albert Einstein Bern"

    assert isinstance(Fixed(), KeywordExtractor)
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(DOCS)
    with VizRAG(tmp_path / "s", keyword_extractor=Fixed(), show_progress=False) as rag:
        result = rag.retrieve("Where did he work?")
        assert result.keywords == ["Albert Einstein", "Bern"]
        assert "Bern" in result.chunks[0].text
    with VizRAG(tmp_path / "s", keyword_extractor=Broken(), show_progress=False) as rag:
        result = rag.retrieve("Where did Albert Einstein work?")
        assert any("keyword extractor Broken failed (RuntimeError: quota)" in w
                   for w in result.warnings) and result.keywords
    with VizRAG(tmp_path / "s", keyword_extractor=OneString(), show_progress=False) as rag:
        result = rag.retrieve("Where did Albert Einstein work?")
        assert any("keyword extractor OneString returned 'Albert Einstein Bern', not a list"
                   in w for w in result.warnings)
        assert all(len(k) > 1 for k in result.keywords)


def test_a_custom_extractor_s_bug_keeps_its_traceback(tmp_path: Path,
                                                      caplog: Any) -> None:
    """A user's extractor raising ``KeyError('entities')`` was logged as "failed: 'entities'"
    (no class), no traceback at any level, and ``raise_for_failures`` chained nothing."""
    import logging

    import pytest

    from hyperviz_core.rag.index.errors import IndexingError

    class Buggy:
        def extract(self, chunk: Any) -> Any:
            return {}["entities"]

    with (caplog.at_level(logging.DEBUG, logger="hyperviz_core.rag"),
          VizRAG(tmp_path / "s", extractor=Buggy(), show_progress=False) as rag):
        report = rag.insert(DOCS[:1])
    assert report.errors and "KeyError: 'entities'" in report.errors[0]
    assert any("KeyError: 'entities'" in r.getMessage() for r in caplog.records
               if r.levelno == logging.WARNING)
    assert any(r.exc_info and "Buggy" not in r.getMessage() and r.levelno == logging.DEBUG
               for r in caplog.records)
    with pytest.raises(IndexingError) as err:
        report.raise_for_failures()
    assert isinstance(err.value.__cause__, KeyError)


def test_a_sync_only_model_is_called_once_at_a_time_unless_thread_safe(tmp_path: Path) -> None:
    """Its async twin ran the sync method in up to ``concurrency`` threads at once (6 on a
    12-document insert), which a local model often does not survive."""

    class Counting(SyncEmbedder, Overlap):
        def embed(self, texts: Any) -> Any:
            self.busy()
            return super().embed(texts)

    docs = [f"Person {i} met Marie Curie in Paris in {1890 + i}." for i in range(12)]
    for safe, allowed in ((False, 1), (True, 12)):
        emb = Counting()
        emb.thread_safe = safe  # type: ignore[attr-defined]
        with VizRAG(tmp_path / f"s{safe}", embedder=emb, show_progress=False) as rag:
            assert rag.insert(docs).documents_added == 12
        assert emb.most <= allowed and (emb.most > 1 if safe else emb.most == 1)


def test_one_lock_per_model_object_re_entrant_and_picklable() -> None:
    """One object wrapped twice (given as both extractors) had two locks; ``embed_query``
    ran unlocked; a method calling back through the wrapper deadlocked; the wrapper could
    not be pickled (a review of the day's last commits)."""
    import pickle

    from hyperviz_core.rag.providers.protocols import with_async

    class Both(Overlap):
        wrapper: Any = None

        def extract(self, chunk: Any) -> str:
            self.busy()
            return "e"

        def theme(self, chunk: Any, extraction: Any = None, image: Any = None) -> str:
            self.busy()
            return self.wrapper.extract(chunk) if chunk == "again" else "t"

    model = Both()
    first, second = with_async(model), with_async(model)
    model.wrapper = first

    async def both() -> list[str]:
        return list(await asyncio.gather(first.aextract(1), second.atheme(1),
                                         first.atheme("again")))

    assert asyncio.run(both()) == ["e", "t", "e"] and model.most == 1
    copy = pickle.loads(pickle.dumps(with_async(SyncEmbedder())))
    assert copy.embed(["a"]).shape == (1, 512)


def test_the_lock_registry_keeps_no_model_alive_and_asks_no_eq() -> None:
    """A dataclass or pydantic model (unhashable) was held forever by the lock registry;
    equal models shared a lock; ``embed_query = None`` stopped falling back to ``embed``."""
    import dataclasses
    import gc
    import weakref

    from hyperviz_core.rag.providers import protocols
    from hyperviz_core.rag.providers.protocols import embed_query, with_async

    @dataclasses.dataclass
    class Model:  # unhashable (eq=True), equal to any other Model
        name: str = "dc-emb"
        dim: int = 512
        embed_query: Any = None

        def embed(self, texts: Any) -> Any:
            return HashingEmbedder().embed(list(texts))

    a, b = Model(), Model()
    wa, wb = with_async(a), with_async(b)
    assert wa._lock is not wb._lock  # equal, but two objects: two locks
    assert embed_query(wa, "Ada").shape == (512,)
    ref, key = weakref.ref(a), id(a)
    assert key in protocols._LOCKS
    del a, wa
    gc.collect()
    assert ref() is None and key not in protocols._LOCKS
