"""vizrag_llamaindex review fixes: stable node hashes (fusion), the document's metadata kept,
tree_summarize's image detail, strict retriever options, callback_manager, agent tools."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core.base.llms.types import ImageBlock
from llama_index.core.callbacks import CallbackManager
from llama_index.core.chat_engine import CondenseQuestionChatEngine
from llama_index.core.llms import LLMMetadata
from llama_index.core.llms.mock import MockLLM, MockLLMWithChatMemoryOfLastCall
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import MetadataMode, QueryBundle, TextNode
from llama_index.core.tools import QueryEngineTool, RetrieverTool

import hyperviz_core
import vizrag_llamaindex
from vizrag_llamaindex import (
    HyperVizPostprocessor,
    VizRAGImageNode,
    VizRAGIndex,
    VizRAGTextNode,
    vizrag_value,
)

QUERY = "Who worked with Marie Curie in Paris?"


class ChatLLM(MockLLMWithChatMemoryOfLastCall):
    """LlamaIndex's recording mock, as a chat model (so the image is sent)."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=128000, num_output=256, is_chat_model=True,
                           model_name="mock-chat")


@pytest.fixture(scope="module")
def index() -> VizRAGIndex:
    return VizRAGIndex.from_documents([
        Document(text="Marie Curie worked with Pierre Curie in Paris. Marie Curie won the "
                      "Nobel Prize in Physics.", id_="curie",
                 metadata={"title": "Curie", "rank": "gold", "entities": ["LEGAL-1"],
                           "chunk_id": "ext-7", "type": "contract"}),
        Document(text="Albert Einstein lived in Bern. Albert Einstein worked at the Patent "
                      "Office in Bern.", id_="einstein"),
        Document(text="Ada Lovelace worked with Charles Babbage in London on the Analytical "
                      "Engine.", id_="ada"),
    ])


def texts(nodes: list[Any]) -> list[Any]:
    return [n for n in nodes if not isinstance(n.node, VizRAGImageNode)]


def curie(nodes: list[Any]) -> Any:
    return next(n.node for n in nodes if n.node.ref_doc_id == "curie")


# ---------------------------------------------------------------- 1. stable hash, fusion
def test_a_chunk_hashes_the_same_whatever_the_query_or_mode(index: VizRAGIndex) -> None:
    got = [curie(index.as_retriever(top_k=3, mode=mode, include_image=False).retrieve(q))
           for mode in ("vizrag", "naive") for q in (QUERY, "Nobel Prize in Physics")]
    assert len({n.node_id for n in got}) == 1
    assert len({n.hash for n in got}) == 1
    # the per-query values are still in the metadata, and still differ
    assert len({(n.metadata["vizrag_score"], str(n.metadata["entity_ids"])) for n in got}) > 1
    node = got[0]
    assert isinstance(node, TextNode) and isinstance(node, VizRAGTextNode)
    stable = {k: v for k, v in node.metadata.items() if k not in node.query_metadata_keys}
    assert node.hash == TextNode(text=node.text, metadata=stable).hash
    assert {"title", "doc_id", "rank"} <= set(stable)  # the document's own "rank" counts
    # a change of text or of the document's metadata still changes the hash
    assert node.model_copy(update={"text": "other"}).hash != node.hash
    assert node.model_copy(update={"metadata": {**node.metadata, "title": "X"}}).hash \
        != node.hash


def test_query_fusion_fuses_one_chunk_from_two_retrievers(index: VizRAGIndex) -> None:
    a = index.as_retriever(top_k=3)
    b = index.as_retriever(top_k=3, mode="naive")
    fusion = QueryFusionRetriever([a, b], llm=MockLLM(), num_queries=1, use_async=False,
                                  mode="reciprocal_rerank", similarity_top_k=20)
    fused = fusion.retrieve(QUERY)
    top = fused[0]
    assert not isinstance(top.node, VizRAGImageNode)
    assert top.score == pytest.approx(2 / 60)  # ranked first by both retrievers
    ids = [n.node.node_id for n in fused]
    assert len(ids) == len(set(ids))
    # the images rank after every chunk (they are scored like the weakest chunk)
    kinds = [isinstance(n.node, VizRAGImageNode) for n in fused]
    assert any(kinds) and kinds == sorted(kinds)


@pytest.mark.parametrize("mode", ["relative_score", "dist_based_score", "simple"])
def test_images_do_not_take_the_top_slots_of_score_fusion(index: VizRAGIndex,
                                                          mode: str) -> None:
    fusion = QueryFusionRetriever(
        [index.as_retriever(top_k=3), index.as_retriever(top_k=3, mode="naive")],
        llm=MockLLM(), num_queries=1, use_async=False, mode=mode, similarity_top_k=20)
    fused = fusion.retrieve(QUERY)
    assert not isinstance(fused[0].node, VizRAGImageNode)
    assert not isinstance(fused[1].node, VizRAGImageNode)


def test_the_image_scores_like_the_weakest_chunk(index: VizRAGIndex) -> None:
    nodes = index.as_retriever(top_k=3).retrieve(QUERY)
    assert isinstance(nodes[-1].node, VizRAGImageNode)
    assert nodes[-1].score == min(n.score for n in texts(nodes))


# ---------------------------------------------------------------- 2. metadata kept
def test_the_documents_own_metadata_is_kept_as_inserted(index: VizRAGIndex) -> None:
    node = curie(index.as_retriever(top_k=3, include_image=False).retrieve(QUERY))
    meta = node.metadata
    assert (meta["rank"], meta["entities"], meta["chunk_id"], meta["type"], meta["title"]) \
        == ("gold", ["LEGAL-1"], "ext-7", "contract", "Curie")
    # VizRAG's values of the clashing keys: under vizrag_<key>
    assert isinstance(meta["vizrag_rank"], int) and meta["vizrag_chunk_id"] == node.node_id
    assert isinstance(meta["vizrag_entities"], list) and "vizrag_title" not in meta  # same
    assert vizrag_value(meta, "rank") == meta["vizrag_rank"]
    assert vizrag_value(meta, "title") == "Curie" and vizrag_value(meta, "doc_id") == "curie"
    assert vizrag_value(meta, "vizrag_score") == meta["vizrag_score"]
    # the document's keys reach the LLM as a document's do; VizRAG's large ones do not
    shown = node.get_content(metadata_mode=MetadataMode.LLM)
    assert "rank: gold" in shown and "type: contract" in shown
    assert "vizrag_rank" not in shown and "vizrag_entities" not in shown


def test_unclashed_nodes_keep_the_documented_keys(index: VizRAGIndex) -> None:
    nodes = texts(index.as_retriever(top_k=3, include_image=False).retrieve(QUERY))
    other = next(n.node for n in nodes if n.node.ref_doc_id != "curie")
    assert {"doc_id", "chunk_id", "rank", "vizrag_score", "entities", "entity_ids",
            "hyperedges", "hyperedge_ids"} <= set(other.metadata)
    assert not any(k.startswith("vizrag_vizrag") for k in other.metadata)


# ---------------------------------------------------------------- 4. tree_summarize
@pytest.mark.parametrize("mode", ["compact", "refine", "tree_summarize",
                                  "simple_summarize", "accumulate"])
def test_every_response_mode_sends_the_image_at_high_detail(index: VizRAGIndex,
                                                             mode: str) -> None:
    llm = ChatLLM(max_tokens=4)
    index.as_query_engine(llm=llm, top_k=2, response_mode=mode).query(QUERY)
    details = [b.detail for m in llm.last_chat_messages or [] for b in m.blocks
               if isinstance(b, ImageBlock)]
    assert details and set(details) == {"high"}


# ---------------------------------------------------------------- 5. strict options
def test_include_image_must_be_a_bool(index: VizRAGIndex) -> None:
    for bad in ("no", 1, None):
        with pytest.raises(TypeError, match="include_image must be True or False"):
            index.as_retriever(include_image=bad)


def test_a_misspelt_option_is_an_error(index: VizRAGIndex) -> None:
    with pytest.raises(TypeError, match=r"'topk' \(did you mean 'top_k'\?\)"):
        index.as_retriever(topk=3)
    with pytest.raises(TypeError, match="'topk'"):
        index.as_query_engine(llm=MockLLM(), topk=3)
    with pytest.raises(TypeError, match="'imageview'"):
        index.as_chat_engine(llm=ChatLLM(), imageview="top")
    with pytest.raises(ValueError, match="sparse_top_k"):  # still a ValueError, as documented
        index.as_retriever(sparse_top_k=2)


def test_llamaindex_own_engine_arguments_still_pass(index: VizRAGIndex) -> None:
    with pytest.warns(UserWarning):  # a completion LLM: caption only
        engine = index.as_query_engine(llm=MockLLM(), top_k=2, response_mode="compact",
                                       streaming=False, node_postprocessors=[],
                                       use_async=False, verbose=False)
    assert engine.retriever.top_k == 2
    # BaseIndex.as_chat_engine passes the chat engine's arguments to as_retriever too
    with pytest.warns(UserWarning):
        chat = index.as_chat_engine(chat_mode="context", llm=MockLLM(), system_prompt="Hi",
                                    top_k=2)
    assert chat is not None
    multimodal = index.as_chat_engine(chat_mode="context", llm=ChatLLM(),
                                      system_prompt="Hi", top_k=2)
    assert multimodal is not None


# ---------------------------------------------------------------- 8. callback_manager
def test_callback_manager_reaches_engine_and_retriever(index: VizRAGIndex) -> None:
    cm = CallbackManager([])
    with pytest.warns(UserWarning):
        engine = index.as_query_engine(llm=MockLLM(), callback_manager=cm)
    assert engine.callback_manager is cm and engine.retriever.callback_manager is cm
    with pytest.warns(UserWarning):
        chat = index.as_chat_engine(chat_mode="condense_question", llm=MockLLM(),
                                    callback_manager=cm)
    assert isinstance(chat, CondenseQuestionChatEngine)
    assert chat.chat("Who worked with Marie Curie?") is not None
    engine = index.as_query_engine(llm=ChatLLM(), callback_manager=cm)
    assert engine.callback_manager is cm


# ---------------------------------------------------------------- 7. agent tools
def test_agent_tools_from_the_docs(index: VizRAGIndex) -> None:
    # passages only: the caption (the image's legend) is left out of the tool's text
    text_tool = RetrieverTool.from_defaults(
        index.as_retriever(top_k=2, include_image=False), name="kb",
        description="Passages about scientists.")
    out = text_tool.call(input=QUERY)
    assert "Marie Curie" in out.content and "HyperViz rendering" not in out.content
    # the image read: a query engine over a vision chat LLM answers, the agent gets text
    llm = ChatLLM(max_tokens=4)
    qa_tool = QueryEngineTool.from_defaults(
        index.as_query_engine(llm=llm, top_k=2), name="kb_qa",
        description="Answers questions about scientists from passages and a hypergraph.")
    answer = qa_tool.call(input=QUERY)
    assert isinstance(answer.content, str)
    assert [b.detail for m in llm.last_chat_messages or [] for b in m.blocks
            if isinstance(b, ImageBlock)] == ["high"]


def test_fusion_of_text_retrievers_then_one_image(index: VizRAGIndex) -> None:
    fusion = QueryFusionRetriever(
        [index.as_retriever(top_k=3, include_image=False),
         index.as_retriever(top_k=3, mode="naive", include_image=False)],
        llm=MockLLM(), num_queries=1, use_async=False, mode="reciprocal_rerank")
    llm = ChatLLM(max_tokens=4)
    engine = RetrieverQueryEngine.from_args(
        fusion, llm=llm, multimodal=True,
        node_postprocessors=[HyperVizPostprocessor(index=index)])
    nodes = engine.retrieve(QueryBundle(QUERY))
    assert [isinstance(n.node, VizRAGImageNode) for n in nodes].count(True) == 1
    assert isinstance(nodes[-1].node, VizRAGImageNode)
    engine.query(QUERY)
    assert any(isinstance(b, ImageBlock) for m in llm.last_chat_messages or []
               for b in m.blocks)


# ---------------------------------------------------------------- 9. __version__
def test_version() -> None:
    assert vizrag_llamaindex.__version__ == hyperviz_core.__version__
