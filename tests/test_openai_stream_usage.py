"""The OpenAI-compatible client's streams ask for their token counts
(``stream_options.include_usage``: OpenAI sends the last chunk's ``usage`` only when asked),
so a streamed answer's tokens are counted, not estimated; a server that refuses the
parameter with HTTP 400 is asked without it from then on. Local fake servers only."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel
from hyperviz_core.rag.query_usage import CountedChat, counted
from tests.provider_fakes import LocalServer

pytest.importorskip("openai")
SSE = {"Content-Type": "text/event-stream"}


def _event(body: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(body)}\n\n".encode()


def _chunk(content: str, finish: str | None = None) -> bytes:
    return _event({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                   "choices": [{"index": 0, "delta": {"content": content},
                                "finish_reason": finish}]})


def _stream(body: dict[str, Any]) -> bytes:
    """The answer; with ``stream_options.include_usage`` a last chunk without choices that
    carries the counts (as OpenAI sends it)."""
    out = _chunk("Ada ") + _chunk("Lovelace", finish="stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        out += _event({"id": "c", "object": "chat.completion.chunk", "created": 0,
                       "model": "m", "choices": [],
                       "usage": {"prompt_tokens": 321, "completion_tokens": 7,
                                 "total_tokens": 328}})
    return out + b"data: [DONE]\n\n"


def test_a_stream_asks_for_its_token_counts_and_they_are_counted() -> None:
    bodies: list[dict[str, Any]] = []

    def respond(path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, Any]:
        bodies.append(json.loads(raw))
        return 200, _stream(bodies[-1]), SSE

    async def astream(chat: CountedChat) -> str:
        return "".join([p async for p in chat.astream("Who?")])

    with LocalServer(respond) as srv:
        chat = counted(OpenAIChatModel("m", base_url=srv.url, api_key="k"))  # as a query
        assert "".join(chat.stream("Who?")) == "Ada Lovelace"  # counts its answer's calls
        assert asyncio.run(astream(chat)) == "Ada Lovelace"
    assert [b["stream_options"] for b in bodies] == [{"include_usage": True}] * 2
    report = chat.report()
    assert report is not None
    assert (report.calls, report.prompt_tokens, report.completion_tokens,
            report.estimated_calls) == (2, 642, 14, 0)


def test_a_server_refusing_stream_options_is_asked_without_it_from_then_on() -> None:
    bodies: list[dict[str, Any]] = []

    def respond(path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, Any]:
        bodies.append(json.loads(raw))
        if "stream_options" in bodies[-1]:
            error = {"error": {"message": "Unrecognized request argument supplied: "
                                          "stream_options", "type": "invalid_request_error"}}
            return 400, json.dumps(error).encode(), {"Content-Type": "application/json"}
        return 200, _stream(bodies[-1]), SSE

    with LocalServer(respond) as srv:
        chat = OpenAIChatModel("m", base_url=srv.url, api_key="k")
        assert "".join(chat.stream("q")) == "Ada Lovelace"
        assert "".join(chat.stream("q")) == "Ada Lovelace"
    assert ["stream_options" in b for b in bodies] == [True, False, False]
    assert chat.stream_usage is False and all(b["stream"] for b in bodies)


def test_a_plain_completion_sends_no_stream_options() -> None:
    bodies: list[dict[str, Any]] = []

    def respond(path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, Any]:
        bodies.append(json.loads(raw))
        answer = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                  "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": "Ada"}}]}
        return 200, json.dumps(answer).encode(), {"Content-Type": "application/json"}

    with LocalServer(respond) as srv:
        assert OpenAIChatModel("m", base_url=srv.url, api_key="k").complete("q") == "Ada"
    assert "stream_options" not in bodies[0] and "stream" not in bodies[0]
