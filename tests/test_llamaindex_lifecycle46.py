"""VizRAGIndex's lifecycle (``close(timeout=)``, ``aclose``, ``with`` / ``async with``, the
temporary store removed only after the queries in flight), the retrieval's model usage
through the LlamaIndex API (node metadata, ``response.metadata["usage"]``,
``TokenCountingHandler``) and the score cut-off recipe. Offline: LlamaIndex's ``MockLLM``."""

from __future__ import annotations

import asyncio
import threading
import warnings
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from held_queries import async_gate, gone
from llama_index.core import Document
from llama_index.core.callbacks import CallbackManager, TokenCountingHandler
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor import SimilarityPostprocessor

from hyperviz_core.rag import EngineClosedError
from hyperviz_core.rag.store import StoreClosedError, StoreReplacedError
from vizrag_llamaindex import HyperVizPostprocessor, VizRAGIndex, VizRAGTextNode
from vizrag_llamaindex import nodes as li_nodes

USAGE_KEY: str = getattr(li_nodes, "USAGE_KEY", "vizrag_usage")

DOCS = [
    Document(text="Ada Lovelace worked with Charles Babbage in London on the Analytical "
                  "Engine.", id_="ada"),
    Document(text="Marie Curie worked with Pierre Curie in Paris on radium.", id_="curie"),
]
QUESTION = "Who worked with Charles Babbage?"


def _tmp_dir(index: VizRAGIndex) -> Path:
    path = Path(index.store.path).parent
    assert path.name.startswith("vizrag-llamaindex-") and path.exists()
    return path


# ---------------------------------------------------------------------- lifecycle
def test_sync_close_on_the_loop_thread_leaves_the_temp_store_to_its_tasks() -> None:
    """A sync ``close()`` in an async service (a sync shutdown hook on the loop's thread)
    cannot wait for the loop's ``aquery`` tasks: the temporary store is not deleted under
    them (they failed with a misleading StoreReplacedError), a RuntimeWarning says so, and
    it is removed once they have ended."""
    index = VizRAGIndex.from_documents(DOCS)
    tmp = _tmp_dir(index)

    async def main() -> object:
        entered, gate, hook = async_gate()
        index.engine.add_hook(hook)
        task = asyncio.create_task(index.as_retriever(top_k=1).aretrieve(QUESTION))
        await asyncio.wait_for(entered.wait(), 20)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            index.close()
        assert any("left to them" in str(w.message) for w in caught), caught
        assert tmp.exists()  # not deleted under the running task
        gate.set()
        return (await asyncio.gather(task, return_exceptions=True))[0]

    outcome = asyncio.run(main())
    # it ends (a small store is read whole before) or reads the closed store: never a store
    # "deleted or replaced by another process"
    assert isinstance(outcome, list | StoreClosedError), outcome
    assert not isinstance(outcome, StoreReplacedError)
    assert gone(tmp)
    index.close()  # closing again: a no-op


def test_aclose_waits_for_the_loop_tasks_then_removes_the_temp_store() -> None:
    """``async with`` / ``await index.aclose()``: the tasks in flight end normally, the
    temporary store goes after them, and a new query is an EngineClosedError."""

    async def main() -> None:
        async with VizRAGIndex.from_documents(DOCS) as index:
            tmp = _tmp_dir(index)
            entered, gate, hook = async_gate()
            index.engine.add_hook(hook)
            retriever = index.as_retriever(top_k=1)
            task = asyncio.create_task(retriever.aretrieve(QUESTION))
            await asyncio.wait_for(entered.wait(), 20)
            closing = asyncio.create_task(index.aclose())
            await asyncio.sleep(0.3)
            assert not closing.done() and tmp.exists()  # waiting for the task
            gate.set()
            nodes = await asyncio.wait_for(task, 20)
            assert nodes and nodes[0].node.ref_doc_id == "ada"
            await asyncio.wait_for(closing, 20)
            assert not tmp.exists()
            with pytest.raises(EngineClosedError):
                await retriever.aretrieve(QUESTION)
        assert not tmp.exists()  # (the block's own aclose: a no-op)

    asyncio.run(main())


def test_close_timeout_leaves_the_temp_store_until_the_query_ends() -> None:
    """``close(timeout=...)`` past its timeout closes the engine but leaves the temporary
    store to the query still running, removed once it ended; ``with`` closes the index."""
    index = VizRAGIndex.from_documents(DOCS)
    tmp = _tmp_dir(index)
    entered, gate = threading.Event(), threading.Event()

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == "keywords" and phase == "start":
            entered.set()
            gate.wait(20)

    index.engine.add_hook(hook)
    outcome: list[object] = []

    def query() -> None:
        try:
            outcome.append(index.as_retriever(top_k=1).retrieve(QUESTION))
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=query)
    thread.start()
    assert entered.wait(20)
    with pytest.warns(RuntimeWarning, match=r"timeout=0\.2"):
        index.close(timeout=0.2)
    assert tmp.exists()
    gate.set()
    thread.join(20)
    assert isinstance(outcome[0], list | StoreClosedError), outcome
    assert not isinstance(outcome[0], StoreReplacedError)
    assert gone(tmp)

    with VizRAGIndex.from_documents(DOCS) as other:
        other_tmp = _tmp_dir(other)
    assert not other_tmp.exists()
    with pytest.raises(EngineClosedError):
        other.as_retriever().retrieve(QUESTION)


def test_close_keeps_a_callers_engine_and_store_dir_open(tmp_path: Path) -> None:
    """An index over a caller's engine closes nothing of it; over ``store_dir`` the
    directory stays (only a temporary one is removed)."""
    with VizRAGIndex.from_documents(DOCS, store_dir=tmp_path / "s") as built:
        engine_index = VizRAGIndex(engine=built.engine)
        engine_index.close(timeout=1)
        assert built.as_retriever(top_k=1).retrieve(QUESTION)  # still open
    assert (tmp_path / "s").exists()


# ---------------------------------------------------------------------- usage
def _llm_index(llm: MockLLM) -> VizRAGIndex:
    with warnings.catch_warnings():  # the mock's extraction answers are not records
        warnings.simplefilter("ignore")
        return VizRAGIndex.from_documents(DOCS, llm=llm)


def test_usage_reaches_the_nodes_and_the_response_metadata() -> None:
    llm = MockLLM(max_tokens=8)
    with closing(_llm_index(llm)) as index:
        nodes = index.as_retriever(top_k=2).retrieve(QUESTION)
        chunks = [n.node for n in nodes if isinstance(n.node, VizRAGTextNode)]
        usage = chunks[0].metadata[USAGE_KEY]
        assert isinstance(usage, dict) and usage["calls"] >= 1 and usage["prompt_tokens"] > 0
        assert all(c.metadata[USAGE_KEY] == usage for c in chunks)
        assert USAGE_KEY in chunks[0].excluded_llm_metadata_keys
        assert USAGE_KEY in chunks[0].excluded_embed_metadata_keys
        assert USAGE_KEY in chunks[0].query_metadata_keys  # not in the hash

        for chat in (False, True):  # UsageQueryEngine / VizRAGQueryEngine
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # CaptionOnlyWarning
                engine = index.as_query_engine(llm=MockLLM(max_tokens=4, is_chat_model=chat),
                                               top_k=2)
            response = engine.query("Who worked with Ada Lovelace in London?")
            got = response.metadata["usage"]
            assert isinstance(got, dict) and got["calls"] >= 1, got
            aresponse = asyncio.run(engine.aquery("Who worked with Marie Curie in Paris?"))
            assert aresponse.metadata["usage"]["calls"] >= 1

        # a cut-off that drops every node keeps the usage (read before the postprocessors)
        cut = index.as_query_engine(llm=MockLLM(is_chat_model=True), top_k=2,
                                    node_postprocessors=[
                                        SimilarityPostprocessor(similarity_cutoff=99.0)])
        response = cut.query("Which engine did Babbage build?")
        assert response.source_nodes == [] and response.metadata["usage"]["calls"] >= 1


def test_usage_is_none_offline() -> None:
    with closing(VizRAGIndex.from_documents(DOCS)) as index:
        nodes = index.as_retriever(top_k=1).retrieve(QUESTION)
        assert nodes[0].node.metadata[USAGE_KEY] is None
        response = index.as_query_engine(llm=MockLLM(is_chat_model=True), top_k=1,
                                         streaming=True).query(QUESTION)
        assert "usage" in response.metadata and response.metadata["usage"] is None


def test_token_counting_handler_on_the_llm_counts_vizrag_model_calls() -> None:
    """What docs/llamaindex.md says: VizRAG's calls through the LLM adapter reach the LLM's
    own callback manager (a TokenCountingHandler there counts them)."""
    counter = TokenCountingHandler()
    llm = MockLLM(max_tokens=8, callback_manager=CallbackManager([counter]))
    with closing(_llm_index(llm)) as index:
        counter.reset_counts()
        nodes = index.as_retriever(top_k=1).retrieve(QUESTION)
        usage = nodes[0].node.metadata[USAGE_KEY]
        assert usage["calls"] >= 1 and counter.llm_token_counts  # (MockLLM: 2 events a call,
        # its chat runs its complete, each with its own callback; a chat LLM sends one)
        assert all("knowledge-extraction" in e.prompt for e in counter.llm_token_counts)


# ---------------------------------------------------------------------- score cut-off
def test_similarity_cutoff_then_hyperviz_postprocessor_keeps_an_image() -> None:
    """The documented recipe: a cut-off that keeps some chunks drops the image node (scored
    like the weakest chunk); a ``HyperVizPostprocessor(index=index)`` after it draws the
    chunks kept."""
    with closing(VizRAGIndex.from_documents(DOCS)) as index:
        nodes = index.as_retriever(top_k=2).retrieve(QUESTION)
        scores = sorted(n.score or 0.0 for n in nodes if isinstance(n.node, VizRAGTextNode))
        assert scores[0] < scores[-1]
        cutoff = (scores[0] + scores[-1]) / 2
        cut = SimilarityPostprocessor(similarity_cutoff=cutoff).postprocess_nodes(nodes)
        assert [type(n.node).__name__ for n in cut] == ["VizRAGTextNode"]
        again = HyperVizPostprocessor(index=index).postprocess_nodes(cut)
        assert [type(n.node).__name__ for n in again] == ["VizRAGTextNode", "VizRAGImageNode"]
        assert again[-1].node.metadata["view"] == "passages"


def test_lifecycle_docstring_example_runs() -> None:
    import doctest

    from vizrag_llamaindex import lifecycle

    result = doctest.testmod(lifecycle, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
