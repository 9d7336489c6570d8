"""Per-query model usage: ``RetrievalResult.usage`` and ``vizrag query``'s usage line."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from rag_fakes import ParrotChat, demo_documents, store_with

from hyperviz_core.cli import main
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.providers.middleware import build_chat_stack
from hyperviz_core.rag.providers.protocols import ProviderError, report_usage
from hyperviz_core.rag.providers.usage import TrackingChatModel, UsageTracker
from hyperviz_core.rag.result import RetrievalResult

Q = "Who is the wife of Kim Jong-chul?"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_with(tmp_path_factory.mktemp("query_usage") / "store", demo_documents(40, 60))


class Reporting(ParrotChat):
    """ParrotChat whose calls report tokens as an adapter does: prompt = its length,
    completion = 5 (a streamed answer reports them at its end, as openai_stream does)."""

    def __init__(self, delay: float = 0.0, fail_once: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.delay, self.fail_once = delay, fail_once

    def _answer(self, prompt: str, images: Sequence[bytes], system: str | None) -> str:
        time.sleep(self.delay)
        if self.fail_once and self.stage(prompt) == self.fail_once:
            self.fail_once = None
            raise ProviderError("HTTP 503: busy", retryable=True, status=503)
        out = super()._answer(prompt, images, system)
        report_usage(len(prompt), 5)
        return out

    def stream(self, prompt: str, *, images: Sequence[bytes] = (),
               system: str | None = None) -> Iterator[str]:
        text = ParrotChat._answer(self, prompt, images, system)
        yield from (w + " " for w in text.split(" "))
        report_usage(len(prompt), 5)  # the final chunk's usage

    async def astream(self, prompt: str, *, images: Sequence[bytes] = (),
                      system: str | None = None) -> AsyncIterator[str]:
        for piece in self.stream(prompt, images=images, system=system):
            await asyncio.sleep(0)
            yield piece


def reported(result: RetrievalResult) -> int:
    return sum(len(p.prompt) for p in result.prompts)


def test_query_counts_keywords_locate_and_answer(store: Path) -> None:
    with VizRAG(store, chat=Reporting(), show_progress=False) as rag:
        result = rag.query(Q)
    stages = [p.stage for p in result.prompts]
    assert stages[0] == "keywords" and stages[-1] == "answer" and "locate" in stages
    u = result.usage
    assert u is not None
    assert (u.calls, u.failures, u.retries, u.estimated_calls) == (len(stages), 0, 0, 0)
    assert (u.prompt_tokens, u.completion_tokens) == (reported(result), 5 * len(stages))
    assert u.images == sum(len(p.images) for p in result.prompts) > 0 and u.seconds >= 0


def test_offline_query_has_no_usage_and_unreported_tokens_are_estimated(store: Path) -> None:
    with VizRAG(store, show_progress=False) as rag:
        assert rag.query(Q).usage is None and rag.retrieve(Q).usage is None
    with VizRAG(store, chat=ParrotChat(), show_progress=False) as rag:
        u = rag.retrieve(Q).usage
    assert u is not None and u.calls == u.estimated_calls == 2  # keywords, locate
    assert u.prompt_tokens > 0


def test_failed_call_is_counted(store: Path) -> None:
    with VizRAG(store, chat=Reporting(fail_stage="locate"), show_progress=False) as rag:
        u = rag.query(Q).usage
    assert u is not None and (u.calls, u.failures) == (2, 1)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_streamed_answer_is_counted(store: Path, asynchronous: bool) -> None:
    with VizRAG(store, chat=Reporting(), show_progress=False) as rag:
        res = rag.retrieve(Q)
        before = res.usage
        if asynchronous:
            async def consume() -> list[str]:
                return [p async for p in rag.astream(Q, result=res)]
            pieces = asyncio.run(consume())
        else:
            pieces = list(rag.stream(Q, result=res))
    assert len(pieces) > 1 and "Parrot answer" in "".join(pieces)  # streamed, not whole
    assert before is not None and res.usage is not None
    assert res.usage.calls == before.calls + 1 and res.usage.estimated_calls == 0
    assert res.usage.prompt_tokens == reported(res)


def test_concurrent_queries_keep_their_own_counts(store: Path) -> None:
    questions = ["Kim?", Q + " Tell me about the family, the years and the places. " * 8]
    results: dict[str, RetrievalResult] = {}
    with VizRAG(store, chat=Reporting(delay=0.02), show_progress=False) as rag:
        def ask(q: str) -> None:
            results[q] = rag.query(q)

        threads = [threading.Thread(target=ask, args=(q,)) for q in questions]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        async def both() -> list[RetrievalResult]:
            return list(await asyncio.gather(*(rag.aquery(q) for q in questions)))

        async_results = asyncio.run(both())
    for res in [*results.values(), *async_results]:
        assert res.usage is not None and res.usage.calls == len(res.prompts)
        assert res.usage.prompt_tokens == reported(res)
    small, big = (results[q].usage for q in questions)
    assert small is not None and big is not None and big.prompt_tokens > small.prompt_tokens


def test_user_tracker_keeps_counting_and_query_mirrors_it(store: Path) -> None:
    tracker = UsageTracker()
    chat = build_chat_stack(Reporting(fail_once="keywords"), tracker=tracker, max_retries=2,
                            seed=1)
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        result = rag.query(Q)
    mine, u = tracker.report(), result.usage
    assert u is not None
    assert (mine.calls, mine.retries, mine.failures, mine.estimated_calls) == (
        len(result.prompts), 1, 1, 0)
    assert mine.prompt_tokens == reported(result)  # the provider's numbers, not estimated
    assert u.model_dump(exclude={"seconds"}) == mine.model_dump(exclude={"seconds"})


def test_retries_of_the_query_above_a_users_tracker_are_counted(store: Path) -> None:
    """``UsageTracker(chat)`` given as it is: the engine's own retries sit above the user's
    tracker, and the query's report counts them as the failures it mirrors."""
    tracker = UsageTracker(Reporting(fail_once="keywords"))
    with VizRAG(store, chat=tracker, show_progress=False) as rag:
        u = rag.query(Q).usage
    mine = tracker.report()
    assert u is not None and (mine.failures, mine.retries) == (1, 0)  # the user's: below
    assert (u.failures, u.retries, u.calls) == (1, 1, mine.calls)


def test_nested_trackers_outer_receives_reported_tokens() -> None:
    inner = UsageTracker(Reporting())
    outer = UsageTracker(inner)
    outer.complete("Answer the question: x")
    outer_r, inner_r = outer.report(), inner.report()
    assert outer_r.calls == inner_r.calls == 1
    assert outer_r.estimated_calls == inner_r.estimated_calls == 0
    assert outer_r.prompt_tokens == inner_r.prompt_tokens == len("Answer the question: x")


class Hidden:
    """A user's model with a tracker inside that the engine cannot see (no ``.inner``)."""

    model_name = "hidden"

    def __init__(self) -> None:
        self.tracker = None  # not a UsageTracker: the query wraps the calls itself
        self.own = UsageTracker()
        self._model = TrackingChatModel(Reporting(), self.own)

    def complete(self, prompt: str, **kw: Any) -> str:
        return self._model.complete(prompt, **kw)

    async def acomplete(self, prompt: str, **kw: Any) -> str:
        return await self._model.acomplete(prompt, **kw)


def test_tracker_inside_the_query_tracker_both_get_reported_tokens(store: Path) -> None:
    chat = Hidden()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        result = rag.query(Q)
    own, u = chat.own.report(), result.usage
    assert u is not None and (u.calls, u.estimated_calls) == (own.calls, 0) == (3, 0)
    assert u.prompt_tokens == own.prompt_tokens == reported(result)


def test_openai_client_cassette_usage(store: Path) -> None:
    pytest.importorskip("openai")
    vcr = pytest.importorskip("vcr")
    from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel

    cassette = (Path(__file__).parent / "cassettes" / "test_openai_compat"
                / "test_chat_completion_with_image.yaml")  # its usage: 1187 + 42 tokens
    chat = OpenAIChatModel("gpt-4o-mini", api_key="sk-test-not-a-real-key")
    replay = vcr.VCR(record_mode="none", match_on=["method", "path"])  # no network
    with (replay.use_cassette(str(cassette), allow_playback_repeats=True),
          VizRAG(store, chat=chat, show_progress=False) as rag):
        result = rag.query(Q, mode="text")
    u, n = result.usage, len(result.prompts)
    assert u is not None and n >= 2
    assert (u.calls, u.prompt_tokens, u.completion_tokens, u.estimated_calls) == (
        n, 1187 * n, 42 * n, 0)


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    import hyperviz_core.cli.query as cli_query

    monkeypatch.setattr(cli_query, "make_chat",
                        lambda spec, **kw: Reporting() if spec else None)


def test_cli_prints_usage_line(store: Path, fake_llm: None,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", Q, "--store", str(store), "--llm", "openai:fake"]) == 0
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if "usage" in x]
    assert line.startswith("vizrag query: usage: 3 model calls, 0 failed, 0 retries, ")
    assert main(["query", Q, "--store", str(store)]) == 0
    assert "usage" not in capsys.readouterr().err


def test_cli_json_records_and_batch_total(store: Path, fake_llm: None, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    qs = tmp_path / "q.jsonl"
    qs.write_text("".join(json.dumps({"id": f"q{i}", "question": Q}) + "\n" for i in (1, 2)),
                  encoding="utf-8")
    args = ["query", "--store", str(store), "--questions", str(qs), "--json"]
    assert main([*args, "--llm", "openai:fake"]) == 0
    out = capsys.readouterr()
    records = [json.loads(x) for x in out.out.splitlines()]
    assert [r["usage"]["calls"] for r in records] == [3, 3]
    assert records[0]["usage"]["estimated_calls"] == 0
    total = sum(r["usage"]["prompt_tokens"] for r in records)
    (line,) = [x for x in out.err.splitlines() if "total usage" in x]
    assert line.startswith("vizrag query: total usage: 6 model calls") and f"{total}+30" in line
    assert main(args) == 0  # offline: no usage field, no total
    out = capsys.readouterr()
    assert all("usage" not in json.loads(x) for x in out.out.splitlines())
    assert "usage" not in out.err
