"""create_vizrag_chain: chat history in the input, and ``return_sources=True`` (the documents,
what the answer cites, the made-up-citation warning), invoked and streamed."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from test_langchain_chain import SpyChat
from test_langchain_retriever import QUERY, build_store

from hyperviz_core.rag.result import Citations
from vizrag_langchain import VizRAGRetriever, create_vizrag_chain
from vizrag_langchain.chain import format_passages

ANSWER = "Steve Harris founded it [2], in Leyton [1]; see also [2] and [9]."


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> VizRAGRetriever:
    return VizRAGRetriever(store=build_store(tmp_path_factory.mktemp("lc-sources")), k=3)


def fake(answer: str = ANSWER, times: int = 1) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(answer)] * times))


def prompt_text(spy: SpyChat) -> str:
    return str(spy.seen[-1][-1].content[0]["text"])  # type: ignore[index]


def test_chat_history_goes_before_the_multimodal_message(retriever: VizRAGRetriever) -> None:
    spy = SpyChat()
    chain = create_vizrag_chain(retriever, spy)
    history: list[Any] = [SystemMessage("Be brief."), ("human", "Who founded it?"),
                          ("ai", "Steve Harris [1]"), HumanMessage("And where?")]
    out = chain.invoke({"question": QUERY, "chat_history": history})
    assert isinstance(out, str) and out.startswith("1 image(s); 3 passages")
    sent = spy.seen[-1]
    assert [m.type for m in sent] == ["system", "human", "ai", "human", "human"]
    assert [m.content for m in sent[:4]] == ["Be brief.", "Who founded it?",
                                             "Steve Harris [1]", "And where?"]
    text = prompt_text(spy)
    assert f"Question: {QUERY}\n" in text and "Who founded it?" not in text
    # the retriever reads the question alone: the passages are those of the plain question
    assert format_passages(retriever.invoke(QUERY)) in text
    # "input" (create_retrieval_chain's name) is the question too; no history is as a string
    assert chain.invoke({"input": QUERY}) == chain.invoke(QUERY)
    assert len(spy.seen[-1]) == 1


def test_a_bad_input_is_named(retriever: VizRAGRetriever) -> None:
    chain = create_vizrag_chain(retriever, SpyChat())
    with pytest.raises(ValueError, match="unknown keys 'context', 'query'"):
        chain.invoke({"question": QUERY, "query": QUERY, "context": []})
    with pytest.raises(ValueError, match="both 'question' and 'input'"):
        chain.invoke({"question": QUERY, "input": QUERY})
    with pytest.raises(ValueError, match="needs a 'question'"):
        chain.invoke({"chat_history": []})
    with pytest.raises(TypeError, match="must be a string, not int"):
        chain.invoke({"question": 3})
    with pytest.raises(TypeError, match=r"chat_history\[1\] must be a BaseMessage"):
        chain.invoke({"question": QUERY, "chat_history": [("human", "hi"), "hello"]})
    with pytest.raises(TypeError, match="chat_history must be a list"):
        chain.invoke({"question": QUERY, "chat_history": "hi"})


def test_return_sources_reads_the_citations(retriever: VizRAGRetriever,
                                            caplog: pytest.LogCaptureFixture) -> None:
    chain = create_vizrag_chain(retriever, fake(), return_sources=True)
    with caplog.at_level(logging.WARNING, logger="vizrag_langchain.chain_output"):
        out = chain.invoke({"question": QUERY, "chat_history": [("human", "hi")]})
    assert set(out) == {"question", "chat_history", "documents", "answer", "cited",
                        "cited_items", "citations", "warning"}
    assert out["question"] == QUERY and out["answer"] == ANSWER
    assert [m.content for m in out["chat_history"]] == ["hi"]
    docs = out["documents"]
    assert [d.page_content for d in docs] == [d.page_content for d in retriever.invoke(QUERY)]
    assert out["cited"] == [docs[1], docs[0]]
    assert out["citations"] == Citations(passages=[2, 1], unknown=["[9]"], carried=3)
    assert out["warning"] == ("the answer cites [9], which its prompt did not give "
                              "(passages [1]-[3])")
    assert out["warning"] in caplog.text


def test_the_documents_are_numbered_as_the_prompt_numbers_them(
        retriever: VizRAGRetriever) -> None:
    spy = SpyChat()
    out = create_vizrag_chain(retriever, spy, return_sources=True).invoke(QUERY)
    assert format_passages(out["documents"]) in prompt_text(spy)
    assert out["cited"] == [] and out["warning"] is None


def test_no_passages_in_the_prompt_means_every_number_is_made_up(
        retriever: VizRAGRetriever) -> None:
    chain = create_vizrag_chain(retriever, fake("Leyton [1]."), prompt="Q: {question}",
                                return_sources=True)
    out = chain.invoke(QUERY)
    assert out["cited"] == [] and out["citations"].unknown == ["[1]"]
    assert out["warning"] is not None and "(no passages)" in out["warning"]


def test_stream_with_sources_yields_dict_chunks(retriever: VizRAGRetriever) -> None:
    chain = create_vizrag_chain(retriever, fake(times=2), return_sources=True)
    chunks = list(chain.stream(QUERY))
    assert all(isinstance(c, dict) and "visual" not in c for c in chunks)
    answers = [c["answer"] for c in chunks if "answer" in c]
    assert len(answers) > 3 and "".join(answers) == ANSWER
    first_answer = next(i for i, c in enumerate(chunks) if "answer" in c)
    before = {k for c in chunks[:first_answer] for k in c}
    assert before == {"question", "chat_history", "documents"}
    assert set(chunks[-1]) == {"cited", "cited_items", "citations", "warning"}
    total: Any = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk  # AddableDict chunks add up to the invoked output
    assert total == chain.invoke(QUERY)


async def test_astream_and_ainvoke_with_sources(retriever: VizRAGRetriever) -> None:
    chain = create_vizrag_chain(retriever, fake(times=2), return_sources=True)
    chunks = [c async for c in chain.astream({"input": QUERY})]
    assert "".join(c["answer"] for c in chunks if "answer" in c) == ANSWER
    assert chunks[-1]["citations"].passages == [2, 1]
    out = await chain.ainvoke(QUERY)
    assert out["cited"] == [out["documents"][1], out["documents"][0]]
    assert out["warning"] is not None


def test_a_follow_up_is_rewritten_before_the_chain(retriever: VizRAGRetriever) -> None:
    """The documented composition: the chain retrieves with the question alone, so a
    history-aware rewrite goes before it (``RunnablePassthrough.assign(question=...)``)."""
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
    from langchain_core.runnables import RunnablePassthrough

    condense = (ChatPromptTemplate.from_messages([
        MessagesPlaceholder("chat_history"),
        ("human", "Rewrite as a standalone question: {question}")])
        | fake(QUERY) | StrOutputParser())
    spy = SpyChat()
    chain = RunnablePassthrough.assign(question=condense) | create_vizrag_chain(retriever, spy)
    out = chain.invoke({"question": "And where?", "chat_history": [("human", "Who?")]})
    assert out.startswith("1 image(s); 3 passages")
    assert [m.content for m in spy.seen[-1][:-1]] == ["Who?"]
    text = prompt_text(spy)
    assert f"Question: {QUERY}\n" in text
    assert format_passages(retriever.invoke(QUERY)) in text


def test_the_image_document_is_no_numbered_passage(retriever: VizRAGRetriever) -> None:
    from vizrag_langchain import is_image_document

    spy = SpyChat()
    bound = retriever.bind(include_image=True)
    assert any(is_image_document(d) for d in bound.invoke(QUERY))
    out = create_vizrag_chain(bound, spy, return_sources=True).invoke(QUERY)
    assert len(out["documents"]) == 3
    assert not any(is_image_document(d) for d in out["documents"])
    assert format_passages(out["documents"]) in prompt_text(spy)
    out = create_vizrag_chain(bound, fake("Leyton [3], [4]."), return_sources=True).invoke(QUERY)
    assert out["cited"] == [out["documents"][2]] and out["citations"].unknown == ["[4]"]
