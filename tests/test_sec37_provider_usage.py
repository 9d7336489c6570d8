"""Token counts a provider gets wrong (a string, ``1e308``, negative, NaN, a bool) are ignored:
never a crashed ``vizrag index`` after the document was stored, never a failed document.
Local fake servers only (:mod:`provider_fakes`)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from provider_fakes import FakeOpenAI, LocalServer

from hyperviz_core.cli import main
from hyperviz_core.rag import UsageTracker, report_usage
from hyperviz_core.rag.index.report import usage_numbers
from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel
from hyperviz_core.rag.providers.openai_stream import stream_piece
from hyperviz_core.rag.providers.protocols import token_count

pytest.importorskip("openai")

BAD = ["x", 1e308, 10**400, -5, float("nan"), float("inf"), True, None, [3], "9" * 5000]


class Reporting:
    """A chat model whose calls report the given token counts (as an adapter does)."""

    model_name = "reporting"

    def __init__(self, prompt_tokens: object, completion_tokens: object) -> None:
        self.counts = (prompt_tokens, completion_tokens)

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        report_usage(*self.counts)
        return "ok"


@pytest.mark.parametrize("bad", BAD, ids=lambda v: ascii(v)[:12])
def test_a_count_that_is_not_a_count_is_ignored(bad: object) -> None:
    assert token_count(bad) is None
    tracker = UsageTracker()
    tracker.tracked_complete(Reporting(bad, 7), "prompt")  # the other count still counts
    tracker.tracked_complete(Reporting(bad, bad), "abcdefgh")  # neither: estimated (len/4)
    r = tracker.report()
    assert (r.calls, r.prompt_tokens, r.completion_tokens, r.estimated_calls) == (2, 2, 8, 1)
    numbers = usage_numbers(tracker)
    assert all(math.isfinite(v) for v in numbers.values())


def test_counts_a_server_may_send_as_it_should_still_count() -> None:
    assert [token_count(v) for v in (0, 12, 12.0, "12", 10**9)] == [0, 12, 12, 12, 10**9]
    tracker = UsageTracker()
    tracker.record_call("p", "a", usage=(1e308, "x"))  # type: ignore[arg-type]
    tracker.record_call("p", "a", usage=(3, 4))
    r = tracker.report()
    assert (r.prompt_tokens, r.completion_tokens, r.estimated_calls) == (4, 5, 1)


def test_huge_counts_twice_do_not_overflow_the_run_report() -> None:
    tracker = UsageTracker()
    for _ in range(3):
        tracker.tracked_complete(Reporting(1e308, 1e308), "prompt")
    numbers = usage_numbers(tracker)  # an OverflowError here crashed ``vizrag index``
    assert numbers["prompt_tokens"] == 3 * 2 and all(math.isfinite(v) for v in numbers.values())


def test_a_streamed_chunk_with_bad_usage_is_ignored() -> None:
    chunk = SimpleNamespace(usage=SimpleNamespace(prompt_tokens="x", completion_tokens=1e308),
                            choices=[SimpleNamespace(delta=SimpleNamespace(content="hi"))])

    class Streaming(Reporting):
        def complete(self, prompt: str, **kw: Any) -> str:
            return stream_piece(chunk)

    tracker = UsageTracker()
    assert tracker.tracked_complete(Streaming(0, 0), "abcd") == "hi"
    assert tracker.report().estimated_calls == 1


def _usage_server(usage: dict[str, Any]) -> LocalServer:
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "ok"}}], "usage": usage}

    def respond(path: str, headers: dict[str, str], raw: bytes
                ) -> tuple[int, bytes, dict[str, str]]:
        return 200, json.dumps(body).encode(), {"Content-Type": "application/json"}

    return LocalServer(respond)


@pytest.mark.parametrize("usage", [{"prompt_tokens": "x"},
                                   {"prompt_tokens": 1e308, "completion_tokens": -5,
                                    "total_tokens": 1.5}], ids=["string", "1e308"])
def test_the_openai_client_ignores_bad_usage(usage: dict[str, Any]) -> None:
    with _usage_server(usage) as server:
        tracker = UsageTracker(OpenAIChatModel("m", base_url=server.url, api_key="k"))
        assert tracker.complete("hello") == "ok"
        assert tracker.complete("hello") == "ok"
    r = tracker.report()
    assert r.calls == 2 and r.prompt_tokens < 100 and r.completion_tokens < 100
    assert all(math.isfinite(v) for v in usage_numbers(tracker).values())


def test_vizrag_index_with_1e308_tokens_per_answer_indexes(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Marie Curie worked with Pierre Curie in Paris.", "utf-8")

    class Fake(FakeOpenAI):
        def answer(self, kind: str, req: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
            status, body, headers = super().answer(kind, req)
            if kind == "chat":
                body["usage"] = {"prompt_tokens": 1e308, "completion_tokens": "x"}
            return status, body, headers

    with Fake() as fake:
        code = main(["index", str(docs), "--store", str(tmp_path / "s"), "--no-progress",
                     "--json", "--llm", f"openai:m@{fake.url}", "--embed", f"openai:e@{fake.url}"])
    out = capsys.readouterr()
    assert code == 0, out.err
    report = json.loads(out.out)
    assert report["documents_added"] == 1 and report["documents_failed"] == 0
    assert 0 < report["tokens"] < 10**6  # estimated, not 1e308
