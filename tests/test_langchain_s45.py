"""Review s45 (LangChain): a chat model behind a pre-step is a chat model, a completion model's
default prompt names no image, HyperVizRunnable refuses unknown input keys, and
``create_vizrag_tool`` sends an agent the picture."""

from __future__ import annotations

import asyncio
import base64
import warnings
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, trim_messages
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import BaseTool
from test_langchain_retriever import QUERY, build_store

from hyperviz_core.rag import CaptionOnlyWarning
from vizrag_langchain import (
    DEFAULT_PROMPT,
    DEFAULT_TEXT_PROMPT,
    HyperVizRunnable,
    VizRAGRetriever,
    create_vizrag_chain,
    create_vizrag_tool,
)
from vizrag_langchain.adapters import chat_model_of, model_label
from vizrag_langchain.chain import vizrag_message


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> VizRAGRetriever:
    return VizRAGRetriever(store=build_store(tmp_path_factory.mktemp("lc-s45")), k=2)


class _Fixed(BaseRetriever):
    """Any retriever (not VizRAG's): the same two passages for every query."""

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return [Document("Iron Maiden formed in Leyton, East London in 1975.",
                         metadata={"title": "Iron Maiden"}),
                Document("Steve Harris is an English musician born in Leytonstone.",
                         metadata={"title": "Steve Harris"})]


# 1. a chat model behind a pre-step; the text-only prompt


def _caught(build: Any) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [w for w in caught if issubclass(w.category, CaptionOnlyWarning)]


def test_a_sequence_ending_in_a_chat_model_gets_no_caption_only_warning(
        retriever: VizRAGRetriever) -> None:
    """``trim_messages(...) | chat`` and ``RunnableLambda(f) | chat`` send the image: no
    ``CaptionOnlyWarning`` (it said the image could not be sent, and sent it), and the chat
    model gets the image block and the default prompt."""
    seen: list[list[BaseMessage]] = []

    def spy(messages: list[BaseMessage]) -> list[BaseMessage]:
        seen.append(list(messages))
        return messages

    chat = FakeListChatModel(responses=["Leyton [1]"])
    for llm in (RunnableLambda(spy) | chat,
                RunnableLambda(spy) | trim_messages(max_tokens=10**6, token_counter=len)
                | chat.with_retry()):
        assert chat_model_of(llm) is chat
        chain: Any = None

        def build(model: Any = llm) -> None:
            nonlocal chain
            chain = create_vizrag_chain(retriever, model)

        assert _caught(build) == []
        assert chain.invoke(QUERY) == "Leyton [1]"
        content: Any = seen[-1][-1].content
        assert [part["type"] for part in content] == ["text", "image"]
        assert content[0]["text"].startswith(DEFAULT_PROMPT[:60])
    assert model_label(RunnableLambda(spy) | chat) == model_label(chat)


def test_a_sequence_not_ending_in_a_chat_model_still_warns(retriever: VizRAGRetriever) -> None:
    llm = RunnableLambda(lambda m: m) | FakeListLLM(responses=["ok"])
    assert chat_model_of(llm) is None
    assert len(_caught(lambda: create_vizrag_chain(retriever, llm))) == 1


class _Prompts(BaseCallbackHandler):
    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_llm_start(self, serialized: Any, prompts: list[str], **kwargs: Any) -> None:
        self.prompts.extend(prompts)


def test_a_completion_model_gets_a_prompt_naming_no_image(retriever: VizRAGRetriever) -> None:
    """A completion model gets text alone: its default prompt says nothing of an attached
    image (it did), and still gives passages and caption; a custom prompt is kept."""
    seen = _Prompts()
    with pytest.warns(CaptionOnlyWarning):
        chain = create_vizrag_chain(retriever, FakeListLLM(responses=["ok [1]"]))
    assert chain.invoke(QUERY, config={"callbacks": [seen]}) == "ok [1]"
    prompt = seen.prompts[-1]
    assert "image" not in prompt.split("Question:")[0].lower()
    assert "Hypergraph caption:" in prompt and "<<<CAPTION" in prompt
    assert "<<<PASSAGE 1" in prompt and "iVBOR" not in prompt
    assert prompt.split("Question:")[0].strip().endswith(
        DEFAULT_TEXT_PROMPT.split("Question:")[0].strip())
    custom = "Look at the attached image. {question}"
    with pytest.warns(CaptionOnlyWarning):
        chain = create_vizrag_chain(retriever, FakeListLLM(responses=["ok"]), custom)
    chain.invoke(QUERY, config={"callbacks": [seen]})
    assert "Look at the attached image. " + QUERY in seen.prompts[-1]


def test_no_image_block_no_image_in_the_default_prompt() -> None:
    """A rendering with nothing to show sends no image, so the default prompt becomes the
    text one; a custom prompt is used as it is."""
    inputs: dict[str, Any] = {"question": "q?",
                              "visual": {"documents": [], "caption": "", "image": None}}
    text = vizrag_message(inputs)[-1].content[0]["text"]  # type: ignore[index]
    assert text == DEFAULT_TEXT_PROMPT.format(question="q?", passages="(no passages)",
                                              caption="(no image)")
    shown = {**inputs, "visual": {**inputs["visual"], "image": {"type": "image"}}}
    assert vizrag_message(shown)[-1].content[0]["text"].startswith(  # type: ignore[index]
        DEFAULT_PROMPT[:60])
    assert vizrag_message(inputs, "Image? {question}")[-1].content[0] == {
        "type": "text", "text": "Image? q?"}


# 2. HyperVizRunnable's input keys


def test_hyperviz_runnable_refuses_unknown_input_keys(retriever: VizRAGRetriever) -> None:
    docs = retriever.invoke(QUERY)
    hv = HyperVizRunnable(store=retriever.engine)
    with pytest.raises(ValueError) as info:
        hv.invoke({"docs": docs, "qestion": QUERY, "extra": 1})
    message = str(info.value)
    assert "'docs' (did you mean 'documents'?)" in message
    assert "'qestion' (did you mean 'question'?)" in message
    assert "'extra'" in message and "it takes 'documents', 'question'" in message
    with pytest.raises(ValueError, match="unknown key 'query'"):
        asyncio.run(hv.ainvoke({"documents": docs, "query": QUERY}))
    out = hv.invoke({"documents": docs, "question": QUERY, "chat_history": []})
    assert "Query: " + QUERY in out["caption"]


# 3. create_vizrag_tool


def _call(query: str) -> dict[str, Any]:
    return {"type": "tool_call", "name": "search", "id": "c1", "args": {"query": query}}


def _check_message(message: Any, image_type: str = "image") -> None:
    assert isinstance(message, ToolMessage) and message.tool_call_id == "c1"
    content: Any = message.content
    text, image = content
    assert isinstance(text, dict) and isinstance(image, dict)
    assert text["type"] == "text" and "<<<PASSAGE 1" in text["text"]
    assert "<<<CAPTION" in text["text"] and "E1" in text["text"]
    assert image["type"] == image_type
    data = image["base64"] if image_type == "image" else image["image_url"]["url"].split(",")[1]
    assert base64.b64decode(data).startswith(b"\x89PNG")
    assert message.artifact and all(isinstance(d, Document) for d in message.artifact)


def test_vizrag_tool_sends_passages_and_the_image(retriever: VizRAGRetriever) -> None:
    tool = create_vizrag_tool(retriever, "search", "Search the band notes.")
    assert isinstance(tool, BaseTool) and tool.name == "search"
    assert set(tool.args) == {"query"}
    message = tool.invoke(_call(QUERY))
    _check_message(message)
    assert message.content[1]["mime_type"] == "image/png"
    again = asyncio.run(tool.ainvoke(_call(QUERY)))
    _check_message(again)
    assert again.content == message.content  # deterministic, async as sync


def test_vizrag_tool_image_url_any_retriever_and_an_image_document(
        retriever: VizRAGRetriever) -> None:
    _check_message(create_vizrag_tool(_Fixed(), "search", "d", image_format="image_url")
                   .invoke(_call("Where did Iron Maiden form?")), "image_url")
    with_image = VizRAGRetriever(store=retriever.engine, k=2, include_image=True)
    message = create_vizrag_tool(with_image, "search", "d").invoke(_call(QUERY))
    _check_message(message)  # the image document is sent as an image, not as its caption
    assert all(d.metadata.get("type") != "hyperviz_image" for d in message.artifact)


def test_a_multimodal_agent_loop_gets_the_picture(retriever: VizRAGRetriever) -> None:
    """A model's tool call → the tool's ToolMessage → the model sees an image block."""
    tool = create_vizrag_tool(retriever, "search", "Search the band notes.")
    model = GenericFakeChatModel(messages=iter([
        AIMessage("", tool_calls=[{"name": "search", "args": {"query": QUERY}, "id": "c1"}]),
        AIMessage("Steve Harris [1] (H1)")]))
    messages: list[BaseMessage] = [HumanMessage(QUERY)]
    ai = model.invoke(messages)
    messages += [ai, *(tool.invoke({**call, "type": "tool_call"}) for call in ai.tool_calls)]
    blocks = messages[-1].content_blocks
    assert [b["type"] for b in blocks] == ["text", "image"]
    assert model.invoke(messages).content == "Steve Harris [1] (H1)"


def test_vizrag_tool_runs_are_children_of_the_tool_run(retriever: VizRAGRetriever) -> None:
    events: list[tuple[str, Any]] = []

    class Spy(BaseCallbackHandler):
        def on_tool_start(self, serialized: Any, input_str: str, **kw: Any) -> None:
            events.append(("tool", kw["run_id"]))

        def on_retriever_start(self, serialized: Any, query: str, **kw: Any) -> None:
            events.append(("retriever", kw["parent_run_id"]))

    create_vizrag_tool(retriever, "search", "d").invoke(_call(QUERY),
                                                        config={"callbacks": [Spy()]})
    assert events[0][0] == "tool" and events[1] == ("retriever", events[0][1])
