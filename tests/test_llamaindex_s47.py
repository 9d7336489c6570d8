"""Closing a ``VizRAGIndex`` whose queries still run warns once (the index's warning, naming
the temporary directory; the engine's close is asked not to warn too), an exception past
the retrieval of ``as_query_engine`` carries the retrieval's model usage, and the modules
split out of ``vizrag_llamaindex.index`` keep its names. Offline: LlamaIndex's ``MockLLM``."""

from __future__ import annotations

import asyncio
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from held_queries import async_gate, close_past_held, gone, held_in_thread, runtime_warnings
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen
from llama_index.core.base.response.schema import AsyncStreamingResponse, StreamingResponse
from llama_index.core.llms import MockLLM
from llama_index.core.llms.callbacks import llm_completion_callback
from test_llamaindex_lifecycle46 import DOCS, QUESTION, _tmp_dir

from hyperviz_core.rag import usage_of
from vizrag_llamaindex import VizRAGIndex


def _loop_close(index: VizRAGIndex) -> list[warnings.WarningMessage]:
    """A sync ``index.close()`` on the loop's thread while an ``aretrieve`` task runs: the
    warnings it gave."""
    async def main() -> list[warnings.WarningMessage]:
        entered, gate, hook = async_gate()
        index.engine.add_hook(hook)
        task = asyncio.create_task(index.as_retriever(top_k=1).aretrieve(QUESTION))
        await asyncio.wait_for(entered.wait(), 20)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            index.close()
        gate.set()
        await asyncio.gather(task, return_exceptions=True)
        return caught
    return asyncio.run(main())


# ---------------------------------------------------------------------- one close warning
def test_sync_close_on_the_loop_thread_warns_once_naming_the_directory_and_aclose() -> None:
    """It warned twice: the core's VizRAG.close() warning, then the index's."""
    index = VizRAGIndex.from_documents(DOCS)
    tmp = _tmp_dir(index)
    said = runtime_warnings(_loop_close(index))
    assert len(said) == 1, said
    assert said[0].startswith("VizRAGIndex.close(): queries or writes still run in 1 thread "
                              "or task (not waited for"), said
    assert str(tmp) in said[0] and "`await index.aclose()`" in said[0], said
    assert "left to them" in said[0]
    assert gone(tmp)


def test_loop_thread_close_of_an_index_over_a_store_dir_warns_once(tmp_path: Path) -> None:
    """No temporary directory: the core's warning alone."""
    index = VizRAGIndex.from_documents(DOCS, store_dir=tmp_path / "s")
    said = runtime_warnings(_loop_close(index))
    assert len(said) == 1 and said[0].startswith("VizRAG.close() was called"), said
    assert (tmp_path / "s").exists()


def _held(index: VizRAGIndex) -> tuple[threading.Thread, threading.Event]:
    """A retrieval of ``index`` in a thread, held at its keywords stage."""
    return held_in_thread(index.engine.add_hook, _retrieval(index))


def _retrieval(index: VizRAGIndex) -> Callable[[], object]:
    return lambda: index.as_retriever(top_k=1).retrieve(QUESTION)


def _close_past_held(index: VizRAGIndex, close: Callable[[], object]
                     ) -> list[warnings.WarningMessage]:
    """The warnings of ``close()`` while a retrieval of ``index`` is held."""
    return close_past_held(index.engine.add_hook, _retrieval(index), close)


def test_close_timeout_warns_once_naming_the_directory() -> None:
    index = VizRAGIndex.from_documents(DOCS)
    tmp = _tmp_dir(index)
    caught = _close_past_held(index, lambda: index.close(timeout=0.01))
    said = runtime_warnings(caught)
    assert len(said) == 1, said
    assert said[0].startswith("VizRAGIndex.close(): queries or writes still run in 1 thread "
                              "or task (past timeout=0.01; their next model call raises "
                              "EngineClosedError)"), said
    assert str(tmp) in said[0] and "left to them" in said[0]
    assert [w.filename for w in caught if w.category is RuntimeWarning] == [__file__]  # ours
    assert gone(tmp)


def test_aclose_timeout_warns_once_naming_the_directory() -> None:
    index = VizRAGIndex.from_documents(DOCS)
    tmp = _tmp_dir(index)
    said = runtime_warnings(_close_past_held(index, lambda: index.aclose(timeout=0.01)))
    assert len(said) == 1, said
    assert said[0].startswith("VizRAGIndex.aclose(): queries or writes still run"), said
    assert str(tmp) in said[0]
    assert gone(tmp)


def test_engine_close_warn_false_says_nothing_of_the_queries_left(tmp_path: Path) -> None:
    """``VizRAG.close(timeout, warn=False)``: what a wrapper that warns itself calls; the
    queries left are still halted, and ``queries_running()`` still counts them."""
    index = VizRAGIndex.from_documents(DOCS, store_dir=tmp_path / "s")
    thread, gate = _held(index)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index.engine.close(timeout=0.01, warn=False)
    assert index.engine.queries_running() == 1
    gate.set()
    thread.join(20)
    assert runtime_warnings(caught) == []
    with pytest.raises(ValueError, match="timeout"):
        index.engine.close(timeout=-1, warn=False)


# ---------------------------------------------------------------------- usage on failure
class SynthError(RuntimeError):
    """What the synthesizer's LLM raises."""


class FailingLLM(MockLLM):
    """A LlamaIndex LLM whose every answer fails (streamed: at its first token)."""

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False,
                 **kwargs: Any) -> CompletionResponse:
        raise SynthError("the answer's model is down")

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False,
                        **kwargs: Any) -> CompletionResponseGen:
        def tokens() -> Iterator[CompletionResponse]:
            raise SynthError("the answer's model is down")
            yield CompletionResponse(text="")  # pragma: no cover
        return tokens()


def _llm_index() -> VizRAGIndex:
    with warnings.catch_warnings():  # the mock's extraction answers are not records
        warnings.simplefilter("ignore")
        return VizRAGIndex.from_documents(DOCS, llm=MockLLM(max_tokens=8))


def _engine(index: VizRAGIndex, chat: bool, streaming: bool = False) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CaptionOnlyWarning
        return index.as_query_engine(llm=FailingLLM(is_chat_model=chat), top_k=2,
                                     streaming=streaming)


def _check(err: pytest.ExceptionInfo[SynthError]) -> None:
    assert type(err.value) is SynthError and str(err.value) == "the answer's model is down"
    usage = usage_of(err.value)
    assert usage is not None and usage.calls >= 1 and usage.prompt_tokens > 0, usage


@pytest.mark.parametrize("chat", [False, True])
def test_a_failed_synthesizer_call_carries_the_retrievals_usage(chat: bool) -> None:
    with closing(_llm_index()) as index:
        engine = _engine(index, chat)
        with pytest.raises(SynthError) as err:
            engine.query(QUESTION)
        _check(err)
        with pytest.raises(SynthError) as aerr:
            asyncio.run(engine.aquery(QUESTION))
        _check(aerr)


@pytest.mark.parametrize("chat", [False, True])
def test_a_failed_streamed_answer_carries_the_retrievals_usage(chat: bool) -> None:
    with closing(_llm_index()) as index:
        engine = _engine(index, chat, streaming=True)
        response = engine.query(QUESTION)
        assert isinstance(response, StreamingResponse)
        with pytest.raises(SynthError) as err:
            response.get_response()
        _check(err)

        async def main() -> None:
            response = await engine.aquery(QUESTION)
            assert isinstance(response, AsyncStreamingResponse)
            await response.get_response()

        with pytest.raises(SynthError) as aerr:
            asyncio.run(main())
        _check(aerr)


def test_an_offline_retrieval_adds_no_usage_to_a_failure() -> None:
    with closing(VizRAGIndex.from_documents(DOCS)) as index:
        with pytest.raises(SynthError) as err:
            _engine(index, True).query(QUESTION)
        assert usage_of(err.value) is None


# ---------------------------------------------------------------------- the split modules
def test_the_index_module_keeps_its_names() -> None:
    from vizrag_llamaindex import index as module
    from vizrag_llamaindex.index import (  # noqa: F401
        INDEX_TYPE,
        IndexVizRAG,
        VizRAGIndex,
        ref_doc_of,
        to_engine_document,
    )
    from vizrag_llamaindex.writes import IndexWrites

    assert INDEX_TYPE == "vizrag" and IndexVizRAG().get_type() == "vizrag"
    assert issubclass(VizRAGIndex, IndexWrites) and not VizRAGIndex.__abstractmethods__
    for name in module.__all__:
        assert hasattr(module, name), name
