"""LangChain parity with the LlamaIndex changes of 785064d: an exception raised after the
VizRAG retrieval of ``create_vizrag_chain`` (the chat model's call, its streamed tokens, the
rendering) carries the retrieval's model usage, its type and message unchanged; closing a
retriever or vector store whose queries still run gives one ``RuntimeWarning`` (the core's:
the wrappers own no temporary directory and add none). Offline: LangChain's fake models."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from held_queries import close_past_held, runtime_warnings
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.retrievers import BaseRetriever
from test_langchain_retriever import QUERY, VisionSpy, build_store

from hyperviz_core.rag import UsageReport, usage_of
from vizrag_langchain import (
    HyperVizRunnable,
    VizRAGRetriever,
    VizRAGVectorStore,
    create_vizrag_tool,
)
from vizrag_langchain import create_vizrag_chain as _create_vizrag_chain
from vizrag_langchain.chain_usage import documents_usage


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("lc-s47"))


# ---------------------------------------------------------------------- usage on failure
class AnswerDown(RuntimeError):
    """What the answer's chat model raises."""


class FailingChat(GenericFakeChatModel):
    """A chat model whose answer fails (streamed: after its first token)."""

    messages: Iterator[AIMessage] = iter(())

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        raise AnswerDown("the answer's model is down")

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        yield ChatGenerationChunk(message=AIMessageChunk(content="Steve "))
        raise AnswerDown("the answer's model is down")


def create_vizrag_chain(*args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CaptionOnlyWarning of a completion model
        return _create_vizrag_chain(*args, **kwargs)


def _timeless(exc: BaseException) -> UsageReport | None:
    """``usage_of(exc)`` but its ``seconds`` (which differ from one retrieval to the next)."""
    got = usage_of(exc)
    return None if got is None else got.model_copy(update={"seconds": 0.0})


def _check(exc: BaseException, expected: UsageReport | None) -> None:
    """The answer model's exception as it raised it, carrying ``expected`` usage."""
    assert type(exc) is AnswerDown and str(exc) == "the answer's model is down"
    assert _timeless(exc) == expected


@pytest.fixture()
def retriever(store_dir: Path) -> Iterator[VizRAGRetriever]:
    """A retriever whose retrieval asks its engine's chat model (keywords, locate)."""
    with VizRAGRetriever(store=store_dir, k=2, chat=VisionSpy()) as retriever:
        yield retriever


def _usage(retriever: VizRAGRetriever) -> UsageReport:
    """What one retrieval of ``QUERY`` costs (each costs the same: the spy's two calls)."""
    usage = documents_usage(retriever.invoke(QUERY))
    assert usage is not None and usage.calls == 2 and usage.prompt_tokens > 0, usage
    return usage.model_copy(update={"seconds": 0.0})


@pytest.mark.parametrize("sources", [False, True])
def test_a_failed_answer_carries_the_retrievals_usage(retriever: VizRAGRetriever,
                                                      sources: bool) -> None:
    """It raised the chat model's exception with no usage: the retrieval's calls unsaid."""
    expected = _usage(retriever)
    chain = create_vizrag_chain(retriever, FailingChat(), return_sources=sources)
    with pytest.raises(AnswerDown) as err:
        chain.invoke(QUERY)
    _check(err.value, expected)
    with pytest.raises(AnswerDown) as aerr:
        asyncio.run(chain.ainvoke({"question": QUERY, "chat_history": [("human", "Hi")]}))
    _check(aerr.value, expected)


@pytest.mark.parametrize("sources", [False, True])
def test_a_failed_stream_carries_the_retrievals_usage(retriever: VizRAGRetriever,
                                                      sources: bool) -> None:
    expected = _usage(retriever)
    chain = create_vizrag_chain(retriever, FailingChat(), return_sources=sources)
    got: list[Any] = []
    with pytest.raises(AnswerDown) as err:
        for chunk in chain.stream(QUERY):
            got.append(chunk)
    _check(err.value, expected)
    assert "Steve " in (got if not sources else [c.get("answer") for c in got])

    async def main() -> None:
        async for _ in chain.astream(QUERY):
            pass

    with pytest.raises(AnswerDown) as aerr:
        asyncio.run(main())
    _check(aerr.value, expected)


def test_batch_failures_carry_their_own_retrievals_usage(retriever: VizRAGRetriever) -> None:
    expected = _usage(retriever)
    chain = create_vizrag_chain(retriever, FailingChat())
    outs = chain.batch([QUERY, QUERY], return_exceptions=True)
    assert [type(e) for e in outs] == [AnswerDown, AnswerDown]
    assert [_timeless(e) for e in outs] == [expected, expected]
    with pytest.raises(AnswerDown) as err:
        chain.batch([QUERY])
    _check(err.value, expected)
    aouts = asyncio.run(chain.abatch([QUERY, QUERY], return_exceptions=True))
    assert [_timeless(e) for e in aouts] == [expected, expected]


def test_usage_is_added_to_what_the_exception_carried(retriever: VizRAGRetriever) -> None:
    """An exception that carried a usage report already (a VizRAG model's, say) gets the
    retrieval's added to it; one whose ``usage`` is something else is left alone."""
    expected = _usage(retriever)

    class Carrying(FailingChat):
        usage: Any = None

        def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                      run_manager: Any = None, **kwargs: Any) -> ChatResult:
            exc = AnswerDown("the answer's model is down")
            exc.usage = self.usage  # type: ignore[attr-defined]
            raise exc

    own = UsageReport(calls=1, prompt_tokens=7)
    with pytest.raises(AnswerDown) as err:
        create_vizrag_chain(retriever, Carrying(usage=own)).invoke(QUERY)
    got = _timeless(err.value)
    assert got is not None and (got.calls, got.prompt_tokens) == (
        3, expected.prompt_tokens + 7)
    with pytest.raises(AnswerDown) as other:
        create_vizrag_chain(retriever, Carrying(usage="n/a")).invoke(QUERY)
    assert other.value.usage == "n/a"  # type: ignore[attr-defined]


def test_a_failed_rendering_carries_the_retrievals_usage(retriever: VizRAGRetriever,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    expected = _usage(retriever)

    def broken(self: HyperVizRunnable, *args: Any, **kwargs: Any) -> Any:
        raise AnswerDown("the answer's model is down")

    monkeypatch.setattr(HyperVizRunnable, "_render", broken)
    with pytest.raises(AnswerDown) as err:
        create_vizrag_chain(retriever, FailingChat()).invoke(QUERY)
    _check(err.value, expected)


def test_a_failed_tool_rendering_carries_the_retrievals_usage(
        retriever: VizRAGRetriever, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _usage(retriever)

    def broken(self: HyperVizRunnable, *args: Any, **kwargs: Any) -> Any:
        raise AnswerDown("the answer's model is down")

    monkeypatch.setattr(HyperVizRunnable, "_render", broken)
    monkeypatch.setattr(HyperVizRunnable, "_arender", broken)
    tool = create_vizrag_tool(retriever, "search", "Search the notes.")
    with pytest.raises(AnswerDown) as err:
        tool.invoke({"query": QUERY})
    _check(err.value, expected)
    with pytest.raises(AnswerDown) as aerr:
        asyncio.run(tool.ainvoke({"query": QUERY}))
    _check(aerr.value, expected)


def test_astream_events_failure_carries_the_retrievals_usage(retriever: VizRAGRetriever
                                                             ) -> None:
    expected = _usage(retriever)
    chain = create_vizrag_chain(retriever, FailingChat())

    async def main() -> list[str]:
        return [ev["event"] async for ev in chain.astream_events(QUERY, version="v2")]

    with pytest.raises(AnswerDown) as err:
        asyncio.run(main())
    _check(err.value, expected)


def test_an_offline_retrieval_adds_no_usage(store_dir: Path) -> None:
    with VizRAGRetriever(store=store_dir, k=2) as offline:
        chain = create_vizrag_chain(offline, FailingChat())
        with pytest.raises(AnswerDown) as err:
            chain.invoke(QUERY)
        _check(err.value, None)
        with pytest.raises(AnswerDown) as serr:
            list(chain.stream(QUERY))
        _check(serr.value, None)


class Fixed(BaseRetriever):
    """Another retriever: its documents' ``usage`` metadata is the user's own."""

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return [Document("Marie Curie worked in Paris.", metadata={"usage": "CC-BY"}),
                Document("Pierre Curie worked in Paris.",
                         metadata={"usage": {"calls": "many"}})]


def test_other_retrievers_documents_add_nothing() -> None:
    with pytest.raises(AnswerDown) as err:
        create_vizrag_chain(Fixed(), FailingChat()).invoke("Who worked in Paris?")
    _check(err.value, None)


def test_a_working_chain_is_unchanged(retriever: VizRAGRetriever) -> None:
    answer = GenericFakeChatModel(messages=iter([AIMessage("Steve Harris [1]")] * 4))
    chain = create_vizrag_chain(retriever, answer)
    assert chain.invoke(QUERY) == "Steve Harris [1]"
    assert "".join(chain.stream(QUERY)) == "Steve Harris [1]"
    out = create_vizrag_chain(retriever, answer, return_sources=True).invoke(QUERY)
    assert out["answer"] == "Steve Harris [1]" and len(out["documents"]) == 2

    async def starts() -> list[tuple[str, int]]:
        return [(ev["name"], len(ev["parent_ids"]))
                async for ev in chain.astream_events(QUERY, version="v2",
                                                     exclude_tags=["vizrag"])
                if ev["event"].endswith("_start")]

    names = asyncio.run(starts())  # the steps after the retrieval: one child run
    assert ("vizrag_answer", 1) in names and ("GenericFakeChatModel", 2) in names, names


# ---------------------------------------------------------------------- one close warning
DOCS = [Document(page_content="Ada Lovelace worked with Charles Babbage in London.", id="ada"),
        Document(page_content="Marie Curie worked with Pierre Curie in Paris.", id="curie")]
ADA = "Who worked with Charles Babbage?"


def _closable(kind: str, root: Path) -> tuple[Any, VizRAGRetriever]:
    """(what is closed, the retriever that queries): a retriever, or a vector store and its
    ``vizrag_retriever``, over a store they opened."""
    if kind == "retriever":
        retriever = VizRAGRetriever.from_documents(DOCS, root / "s", k=1)
        return retriever, retriever
    vs = VizRAGVectorStore.from_documents(DOCS, embedding=None, store=str(root / "s"))
    return vs, vs.vizrag_retriever


@pytest.mark.parametrize("kind", ["retriever", "vectorstore"])
def test_close_timeout_warns_once(kind: str, tmp_path: Path) -> None:
    closable, retriever = _closable(kind, tmp_path)
    caught = close_past_held(retriever.engine.add_hook, lambda: retriever.invoke(ADA),
                             lambda: closable.close(timeout=0.01))
    said = runtime_warnings(caught)
    assert len(said) == 1 and said[0].startswith("VizRAG.close(timeout=0.01): queries were "
                                                 "still running in 1 thread"), said
    # named at this line, not inside the wrapper (it named vizrag_langchain/engine.py)
    assert [w.filename for w in caught if w.category is RuntimeWarning] == [__file__]


@pytest.mark.parametrize("kind", ["retriever", "vectorstore"])
def test_aclose_timeout_warns_once(kind: str, tmp_path: Path) -> None:
    closable, retriever = _closable(kind, tmp_path)
    said = runtime_warnings(close_past_held(retriever.engine.add_hook,
                                            lambda: retriever.invoke(ADA),
                                            lambda: closable.aclose(timeout=0.01)))
    assert len(said) == 1 and said[0].startswith("VizRAG.close(timeout=0.01)"), said


@pytest.mark.parametrize("kind", ["retriever", "vectorstore"])
def test_sync_close_on_the_loop_thread_warns_once(kind: str, tmp_path: Path) -> None:
    closable, retriever = _closable(kind, tmp_path)

    async def main() -> list[warnings.WarningMessage]:
        entered, gate = asyncio.Event(), asyncio.Event()

        def hook(name: str, phase: str, payload: dict[str, Any]) -> Any:
            if name == "keywords" and phase == "start":
                entered.set()
                return gate.wait()
            return None

        retriever.engine.add_hook(hook)
        task = asyncio.create_task(retriever.ainvoke(ADA))
        await asyncio.wait_for(entered.wait(), 20)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            closable.close()
        gate.set()
        await asyncio.gather(task, return_exceptions=True)
        return caught

    said = runtime_warnings(asyncio.run(main()))
    assert len(said) == 1 and said[0].startswith("VizRAG.close() was called on the thread "
                                                 "of a running event loop"), said
