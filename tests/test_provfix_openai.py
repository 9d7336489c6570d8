"""The built-in OpenAI-compatible chat model: a ``temperature`` the model refuses (OpenAI's
reasoning models) is left out from then on; answers stream over server-sent events (sync and
async, through ``VizRAG.stream``); images go with ``detail: "high"`` by default; the warning
about a refused parameter quotes the server as it wrote. Local fake servers only."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from hyperviz_core.rag import Document, ProviderError, VizRAG
from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel, OpenAIEmbedder
from tests.provider_fakes import FakeOpenAI, LocalServer, completion

pytest.importorskip("openai")

_NO_TEMPERATURE = {"error": {
    "message": "Unsupported value: 'temperature' does not support 0.0 with this model. Only "
               "the default (1) value is supported.",
    "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}
_NO_JSON_OBJECT = {"error": {"message": "Invalid 'response_format.type': must be "
                                        "'json_schema' or 'text'",
                              "type": "invalid_request_error"}}


def _sse(pieces: list[str]) -> bytes:
    """A streamed chat completion of ``pieces`` (the last chunk carries usage)."""
    chunks = [{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": p},
                            "finish_reason": None}]} for p in pieces]
    chunks.append({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


class Reasoner:
    """A server like OpenAI's for o-series models: a request with ``temperature`` is HTTP
    400; ``strict_json`` also refuses ``response_format`` (as LM Studio). Streams
    ``pieces`` when asked to stream. ``bodies``: every request body."""

    def __init__(self, pieces: list[str] | None = None, strict_json: bool = False) -> None:
        self.pieces = ["Ada ", "wrote ", "notes [1]."] if pieces is None else pieces
        self.strict_json = strict_json
        self.bodies: list[dict[str, Any]] = []
        self.server = LocalServer(self.respond)

    def respond(self, path: str, headers: dict[str, str], raw: bytes
                ) -> tuple[int, bytes, dict[str, str]]:
        body = json.loads(raw)
        self.bodies.append(body)
        js = {"Content-Type": "application/json"}
        if "temperature" in body:
            return 400, json.dumps(_NO_TEMPERATURE).encode(), js
        if self.strict_json and "response_format" in body:
            return 400, json.dumps(_NO_JSON_OBJECT).encode(), js
        if body.get("stream"):
            return 200, _sse(self.pieces), {"Content-Type": "text/event-stream"}
        return 200, json.dumps(completion("".join(self.pieces))).encode(), js


def test_refused_temperature_is_left_out_from_then_on() -> None:
    fake = Reasoner()
    with fake.server:
        chat = OpenAIChatModel("o4-mini", base_url=fake.server.url, api_key="k")
        assert chat.complete("q") == "Ada wrote notes [1]."
        assert chat.complete("q again") == "Ada wrote notes [1]."
    assert ["temperature" in b for b in fake.bodies] == [True, False, False]
    assert chat.temperature is None


def test_refused_temperature_async_and_with_json_mode_refused_too() -> None:
    fake = Reasoner(strict_json=True)
    with fake.server:
        chat = OpenAIChatModel("o3", base_url=fake.server.url, api_key="k")
        assert asyncio.run(chat.acomplete("q", json_mode=True)) == "Ada wrote notes [1]."
        assert asyncio.run(chat.acomplete("q", json_mode=True)) == "Ada wrote notes [1]."
    sent = [("temperature" in b, "response_format" in b) for b in fake.bodies]
    assert sent == [(True, True), (False, True), (False, False), (False, False)]


def test_other_http_400_is_still_an_error() -> None:
    def respond(path: str, headers: dict[str, str], raw: bytes
                ) -> tuple[int, bytes, dict[str, str]]:
        return 400, json.dumps({"error": {"message": "context length exceeded"}}).encode(), {
            "Content-Type": "application/json"}

    with LocalServer(respond) as server:
        chat = OpenAIChatModel("m", base_url=server.url, api_key="k")
        with pytest.raises(ProviderError, match="context length") as err:
            chat.complete("q")
    assert err.value.status == 400 and chat.temperature == 0.0


def test_refusal_warning_quotes_the_server_as_written(caplog: pytest.LogCaptureFixture) -> None:
    fake = Reasoner(strict_json=True)
    with fake.server, caplog.at_level(logging.WARNING):
        OpenAIChatModel("m", base_url=fake.server.url, api_key="k",
                        temperature=None).complete("q", json_mode=True)
    assert "Invalid 'response_format.type': must be 'json_schema' or 'text'" in caplog.text
    assert "Unsupported value: 'temperature'" not in caplog.text  # none was sent


def test_stream_yields_the_pieces_of_a_streamed_request() -> None:
    fake = Reasoner(pieces=["Ada ", "wrote ", "notes [1]."])
    with fake.server:
        chat = OpenAIChatModel("m", base_url=fake.server.url, api_key="k", temperature=None)
        got = list(chat.stream("q", images=[b"\x89PNG"], system="be brief"))
    assert got == ["Ada ", "wrote ", "notes [1]."]
    (body,) = fake.bodies
    assert body["stream"] is True and body["messages"][0] == {"role": "system",
                                                               "content": "be brief"}
    image = body["messages"][1]["content"][1]["image_url"]
    assert image["url"].startswith("data:image/png;base64,") and image["detail"] == "high"


def test_astream_yields_the_pieces_and_drops_a_refused_temperature() -> None:
    fake = Reasoner(pieces=["one ", "two"])
    with fake.server:
        chat = OpenAIChatModel("gpt-5", base_url=fake.server.url, api_key="k")

        async def pieces() -> list[str]:
            return [p async for p in chat.astream("q")]

        assert asyncio.run(pieces()) == ["one ", "two"]
    assert [b.get("stream") for b in fake.bodies] == [True, True]
    assert ["temperature" in b for b in fake.bodies] == [True, False]


def test_an_empty_stream_is_a_provider_error() -> None:
    fake = Reasoner(pieces=[])
    with fake.server:
        chat = OpenAIChatModel("m", base_url=fake.server.url, api_key="k", temperature=None)
        with pytest.raises(ProviderError, match="empty answer"):
            list(chat.stream("q"))


def test_vizrag_stream_passes_the_streamed_pieces_through(tmp_path: Any) -> None:
    pieces = ["<think>plan", "</think>", "Ada ", "wrote ", "notes [1]."]
    stream_fake = Reasoner(pieces=pieces)
    with FakeOpenAI(dim=8) as fake, stream_fake.server:
        chat = OpenAIChatModel("m", base_url=fake.url, api_key="k")
        embedder = OpenAIEmbedder("e", base_url=fake.url, api_key="k", dimensions=8)
        rag = VizRAG(str(tmp_path / "s"), chat=chat, embedder=embedder, show_progress=False)
        rag.insert([Document(id="a", text="Ada Lovelace wrote notes on the Engine.")])
        rag.close()
        rag_stream = VizRAG(str(tmp_path / "s"), embedder=embedder, show_progress=False,
                            chat=OpenAIChatModel("m", base_url=stream_fake.server.url,
                                                 api_key="k", temperature=None))
        got = list(rag_stream.stream("What did Ada write?"))
        rag_stream.close()
    assert got == ["Ada ", "wrote ", "notes [1]."]  # piece by piece, the reasoning left out
    assert [b.get("stream") for b in stream_fake.bodies][-1] is True  # the answer streamed


def test_image_detail_defaults_to_high_and_can_be_changed_or_left_out() -> None:
    def detail(chat: OpenAIChatModel) -> Any:
        req = chat._request("p", [b"png"], None, False)
        return req["messages"][-1]["content"][1]["image_url"].get("detail", "none")

    assert detail(OpenAIChatModel("m", api_key="k", client=object(),
                                  async_client=object())) == "high"
    assert detail(OpenAIChatModel("m", api_key="k", image_detail="low", client=object(),
                                  async_client=object())) == "low"
    assert detail(OpenAIChatModel("m", api_key="k", image_detail=None, client=object(),
                                  async_client=object())) == "none"


class OpenedThink(Reasoner):
    """A DeepSeek-R1-like server whose template opened ``<think>``: every reply starts with
    reasoning and an unpaired ``</think>``."""

    def __init__(self) -> None:
        super().__init__(pieces=["The user asks. SECRET-", "THOUGHT</thi", "nk>\n\nAda ",
                                 "wrote ", "notes [1]."])

    def respond(self, path: str, headers: dict[str, str], raw: bytes
                ) -> tuple[int, bytes, dict[str, str]]:
        body = json.loads(raw)
        if body.get("stream") or path.endswith("/embeddings"):
            return super().respond(path, headers, raw)
        self.bodies.append(body)
        return 200, json.dumps(completion("SECRET-THOUGHT E1?</think>\nE1")).encode(), {
            "Content-Type": "application/json"}


def test_a_model_opening_think_in_its_prompt_streams_no_reasoning() -> None:
    fake = OpenedThink()
    with fake.server:
        told = OpenAIChatModel("r1", base_url=fake.server.url, api_key="k", temperature=None,
                               think_in_prompt=True)
        assert "".join(told.stream("q")) == "\n\nAda wrote notes [1]."
        learnt = OpenAIChatModel("r1", base_url=fake.server.url, api_key="k",
                                 temperature=None)
        assert learnt.think_in_prompt is None
        assert "SECRET" in "".join(learnt.stream("q"))  # not known yet: shown as it comes
        learnt.complete("locate")  # a reply with an unpaired </think>: now known
        assert learnt.think_in_prompt is True

        async def pieces() -> list[str]:
            return [p async for p in learnt.astream("q")]

        got = asyncio.run(pieces())
    assert "".join(got) == "\n\nAda wrote notes [1]." and got[1:] == ["wrote ", "notes [1]."]


def test_vizrag_stream_of_a_model_opening_think_in_its_prompt(tmp_path: Any) -> None:
    fake = OpenedThink()
    with FakeOpenAI(dim=8) as emb, fake.server:
        embedder = OpenAIEmbedder("e", base_url=emb.url, api_key="k", dimensions=8)
        with VizRAG(str(tmp_path / "s"), show_progress=False, embedder=embedder,
                    chat=OpenAIChatModel("m", base_url=emb.url, api_key="k")) as rag:
            rag.insert([Document(id="a", text="Ada Lovelace wrote notes on the Engine.")])
        chat = OpenAIChatModel("r1", base_url=fake.server.url, api_key="k", temperature=None)
        with VizRAG(str(tmp_path / "s"), show_progress=False, embedder=embedder,
                    chat=chat) as rag:
            got = list(rag.stream("What did Ada write?"))  # its locate call tells
    assert "SECRET" not in "".join(got) and "".join(got).strip() == "Ada wrote notes [1]."
    assert len(got) > 1
