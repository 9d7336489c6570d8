"""create_vizrag_chain: streaming, the image reaching the model, batch, any retriever, events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field
from test_langchain_retriever import QUERY, build_store
from test_langchain_runnable import QUESTIONS, vector_retriever

from vizrag_langchain import VizRAGRetriever, create_vizrag_chain
from vizrag_langchain.chain import DEFAULT_PROMPT, format_passages


class SpyChat(BaseChatModel):
    """Records the messages ``_generate`` receives; answers with what it saw (deterministic)."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "spy"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        parts = images(messages[-1])
        text = messages[-1].content[0]["text"]  # type: ignore[index]
        answer = f"{len(parts)} image(s); {text.count(chr(10) + '[')} passages; {len(text)}"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def images(message: BaseMessage) -> list[dict[str, Any]]:
    """The image parts of a message (v1 ``image`` or legacy ``image_url``)."""
    content = message.content if isinstance(message.content, list) else []
    return [p for p in content if isinstance(p, dict) and p.get("type") in ("image", "image_url")]


def png_of(part: dict[str, Any]) -> str:
    if part["type"] == "image":
        return str(part.get("base64") or part.get("data"))
    return str(part["image_url"]["url"]).split(",", 1)[1]


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> VizRAGRetriever:
    return VizRAGRetriever(store=build_store(tmp_path_factory.mktemp("lc-chain")), k=3)


def test_stream_yields_tokens(retriever: VizRAGRetriever) -> None:
    answer = "Steve Harris founded Iron Maiden in Leyton in 1975 [1]."
    llm = GenericFakeChatModel(messages=iter([AIMessage(answer)]))
    pieces = list(create_vizrag_chain(retriever, llm).stream(QUERY))
    assert len(pieces) > 3 and "".join(pieces) == answer


async def test_astream_yields_tokens(retriever: VizRAGRetriever) -> None:
    answer = "Steve Harris [1]."
    llm = GenericFakeChatModel(messages=iter([AIMessage(answer)]))
    pieces = [p async for p in create_vizrag_chain(retriever, llm).astream(QUERY)]
    assert len(pieces) > 1 and "".join(pieces) == answer


@pytest.mark.parametrize("image_format", ["image", "image_url"])
def test_image_block_reaches_generate(retriever: VizRAGRetriever, image_format: str) -> None:
    spy = SpyChat()
    out = create_vizrag_chain(retriever, spy, image_format=image_format).invoke(QUERY)  # type: ignore[arg-type]
    assert out.startswith("1 image(s); 3 passages")
    (message,) = spy.seen[-1]
    (part,) = images(message)
    assert png_of(part).startswith("iVBORw0KGgo")  # base64 of the PNG signature
    text = message.content[0]["text"]  # type: ignore[index]
    assert f"Question: {QUERY}" in text and "HyperViz rendering" in text
    docs = retriever.invoke(QUERY)
    assert format_passages(docs) in text


def test_batch_equals_sequential(retriever: VizRAGRetriever) -> None:
    chain = create_vizrag_chain(retriever, SpyChat())
    sequential = [chain.invoke(q) for q in QUESTIONS]
    assert chain.batch(QUESTIONS, config={"max_concurrency": 8}) == sequential


async def test_any_retriever_and_abatch() -> None:
    chain = create_vizrag_chain(vector_retriever(k=2), SpyChat())
    out = await chain.ainvoke(QUERY)
    assert out.startswith("1 image(s); 2 passages")
    assert await chain.abatch(QUESTIONS[:3]) == [chain.invoke(q) for q in QUESTIONS[:3]]


def test_bound_retriever_and_custom_prompt(retriever: VizRAGRetriever) -> None:
    spy = SpyChat()
    chain = create_vizrag_chain(retriever.bind(k=1), spy, prompt="Q: {question}\n{passages}")
    assert chain.invoke(QUERY).startswith("1 image(s); 1 passages")
    text = spy.seen[-1][0].content[0]["text"]  # type: ignore[index]
    assert text.startswith(f"Q: {QUERY}\n[1] ") and "[2]" not in text
    assert "\n<<<PASSAGE 1\n" in text and text.rstrip().endswith("PASSAGE 1>>>")
    with pytest.raises(ValueError, match="unknown field"):
        create_vizrag_chain(retriever, spy, prompt="{question} {context}")
    with pytest.raises(ValueError, match="must contain"):
        create_vizrag_chain(retriever, spy, prompt="{passages}")
    assert "{question}" in DEFAULT_PROMPT


async def test_events_in_astream_events(retriever: VizRAGRetriever) -> None:
    llm = GenericFakeChatModel(messages=iter([AIMessage("ok")]))
    chain = create_vizrag_chain(retriever, llm)
    names: list[str] = []
    payloads: list[Sequence[Any]] = []
    async for event in chain.astream_events(QUERY, version="v2"):
        if event["event"] == "on_custom_event":
            names.append(event["name"])
            payloads.append(event["data"])
    assert "vizrag.render.end" in names
    assert all(n.startswith("vizrag.") for n in names)
    assert "iVBOR" not in repr(payloads)


def test_a_wrapped_chat_model_is_no_caption_only_model(retriever: VizRAGRetriever) -> None:
    """``llm.with_retry()``/``bind``/``with_fallbacks`` are chat models: no
    ``CaptionOnlyWarning`` (it said the image could not be sent, and sent it)."""
    import warnings

    spy = SpyChat()
    for wrapped in (spy.with_retry(), spy.bind(stop=["\n\n"]), spy.with_fallbacks([spy])):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = create_vizrag_chain(retriever, wrapped).invoke(QUERY)  # type: ignore[arg-type]
        assert out.startswith("1 image(s)")


def test_a_vizrag_vector_store_retriever_draws_from_its_store(tmp_path: Any) -> None:
    """``create_vizrag_chain(vs.as_retriever(), ...)`` renders from the store's hypergraph
    (it re-extracted the passages' text before: other entities, other types)."""
    from langchain_core.documents import Document

    from vizrag_langchain import VizRAGVectorStore
    from vizrag_langchain.chain import _vizrag_retriever

    with VizRAGVectorStore(tmp_path / "vs") as vs:
        vs.add_documents([Document("Iron Maiden formed in Leyton in 1975.")])
        assert _vizrag_retriever(vs.as_retriever(search_kwargs={"k": 1})) is vs.vizrag_retriever
        spy = SpyChat()
        out = create_vizrag_chain(vs.as_retriever(), spy).invoke("Where did Iron Maiden form?")  # type: ignore[arg-type]
        assert out.startswith("1 image(s)")


def test_the_retrievers_filter_error_says_why(retriever: VizRAGRetriever) -> None:
    with pytest.raises(TypeError, match="callable"):
        retriever.invoke(QUERY, filter=lambda d: True)
