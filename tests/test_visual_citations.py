"""The wrappers read the ``E#``/``H#`` an answer names back, against what the images their
prompts carried label (``cited_items``): the core's ``visual_citations``, the LlamaIndex query
engine's ``response.metadata`` and the LangChain chain's ``return_sources`` output."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import PrivateAttr

pytest.importorskip("llama_index.core")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockLLM
from test_langchain_retriever import QUERY as LC_QUERY
from test_langchain_retriever import build_store
from test_llamaindex_citations import curie_index

from hyperviz_core.rag import (
    LabelledItem,
    export_legend,
    labelled_items,
    visual_citations,
    visual_ids,
)
from vizrag_langchain import HyperVizRunnable, VizRAGRetriever, create_vizrag_chain
from vizrag_llamaindex import VizRAGImageNode, VizRAGIndex

QUERY = "Who worked with Marie Curie in Paris?"
ANSWER = "Pierre Curie (E1, H1) [1]; also Ｅ２ and H99."


class Saying(MockLLM):
    """A chat mock that answers ``text`` (streamed a few characters at a time)."""

    _text: str = PrivateAttr(default=ANSWER)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any
                 ) -> CompletionResponse:
        return CompletionResponse(text=self._text)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any
                        ) -> CompletionResponseGen:
        def gen() -> CompletionResponseGen:
            for i in range(0, len(self._text), 4):
                yield CompletionResponse(text=self._text[:i + 4], delta=self._text[i:i + 4])
        return gen()


def saying(text: str = ANSWER) -> Saying:
    llm = Saying(is_chat_model=True)  # type: ignore[call-arg]  # (pydantic plugin)
    llm._text = text
    return llm


@pytest.fixture(scope="module")
def index() -> VizRAGIndex:
    return curie_index()


def labels(response: Any) -> dict[tuple[str, str], str]:
    """(view, E#/H#) → entity key / hyperedge id, from the response's image nodes."""
    out: dict[tuple[str, str], str] = {}
    for n in response.source_nodes:
        if isinstance(n.node, VizRAGImageNode):
            meta = n.node.metadata
            for key, vid in [*meta["entity_ids"].items(), *meta["hyperedge_ids"].items()]:
                out[(meta["view"], vid)] = key
    return out


def test_core_reads_only_what_was_drawn() -> None:
    top = labelled_items("top", {"ada": "E1", "babbage": "E2"}, {"h-1": "H1"})
    bottom = labelled_items("bottom", {"lovelace": "E1"}, {})
    c, items = visual_citations("Ada (E1) [2]; H1, Ｈ１ again; E5.", carried=2,
                                drawn=[*top, *bottom])
    assert c.passages == [2] and c.ids == ["E1", "H1"] and c.unknown == ["E5"]
    assert items == [LabelledItem(id="E1", kind="entity", key="ada", view="top"),
                     LabelledItem(id="E1", kind="entity", key="lovelace", view="bottom"),
                     LabelledItem(id="H1", kind="hyperedge", key="h-1", view="top")]
    assert "E5" in (c.warning() or "")
    # no rendering carried: no prompt named an ID, so none is read (nor made up)
    c, items = visual_citations("H2 gas [1]", carried=1, drawn=[])
    assert (c.ids, c.unknown, items) == ([], [], [])


def test_core_reads_mixed_brackets_and_merges_repeats() -> None:
    """``[1, H1]`` cites passage 1 and H1; the same item drawn by two images comes once."""
    drawn = [*labelled_items("top", {"ada": "E1"}, {"h-1": "H1"}, image="a"),
             *labelled_items("top", {"ada": "E1"}, {}, image="a")]
    for answer in ("Ada [1, H1] and E1.", "Ada [H1; 1] and [E1].", "Ada [1、H1] E1",
                   "Ada [1-H1] (E1/H1)", "エイダ[1]はE1とH1です"):
        c, items = visual_citations(answer, carried=1, drawn=drawn)
        assert c.passages == [1] and sorted(c.ids) == ["E1", "H1"], answer
        assert sorted(i.id for i in items) == ["E1", "H1"], answer


@pytest.mark.parametrize("text", [
    "vitamin E 400 IU", "the E-2 Hawkeye", "<h1>Title</h1>", "a ratio of E1.5",
    "sales in H1-2024", "the chess move e4", "Table H 1"])
def test_running_text_is_no_citation(text: str) -> None:
    drawn = labelled_items("top", {f"k{i}": f"E{i}" for i in range(1, 6)},
                           {f"h{i}": f"H{i}" for i in range(1, 8)})
    c, items = visual_citations(text, carried=0, drawn=drawn)
    assert (c.ids, c.unknown, items) == ([], [], []), text


def test_image_nodes_name_what_they_label(index: VizRAGIndex) -> None:
    nodes = index.as_retriever(top_k=2).retrieve(QUERY)
    image = next(n.node for n in nodes if isinstance(n.node, VizRAGImageNode))
    ents, edges = image.metadata["entity_ids"], image.metadata["hyperedge_ids"]
    assert ents and edges and len(ents) == image.metadata["entities"]
    for key, vid in ents.items():  # the caption's legend names the same E#
        assert any(line.startswith(f"{vid} ") and key in line.lower()
                   for line in image.text.splitlines())
    assert {"entity_ids", "hyperedge_ids", "legend"} <= set(image.excluded_llm_metadata_keys)
    legend = image.metadata["legend"]
    assert set(legend) == set(ents.values()) | set(edges.values())
    assert all(legend[vid].split(" (")[0].lower() in image.text.lower()
               for vid in ents.values())


def check(response: Any) -> None:
    meta = response.metadata
    drawn = labels(response)
    assert meta["citations"].ids == ["E1", "H1", "E2"]
    assert meta["citations"].unknown == ["H99"]
    assert "H99" in meta["citation_warning"]
    got = [(i.view, i.id, i.key) for i in meta["cited_items"]]
    want = [(view, vid, drawn[(view, vid)]) for vid in ("E1", "H1", "E2")
            for view in ("top", "bottom") if (view, vid) in drawn]
    assert got == want and got
    assert meta["cited_items"][0].kind == "entity"
    images = {n.node.node_id: n.node for n in response.source_nodes
              if isinstance(n.node, VizRAGImageNode)}
    for item in meta["cited_items"]:  # each names its image, and what it labels there
        assert item.text == images[item.image].metadata["legend"][item.id]


def test_query_engine_reads_the_ids(index: VizRAGIndex) -> None:
    check(index.as_query_engine(llm=saying(), top_k=2).query(QUERY))


def test_streaming_and_async_read_the_ids(index: VizRAGIndex) -> None:
    streaming: Any = index.as_query_engine(llm=saying(), streaming=True, top_k=2).query(QUERY)
    assert "".join(streaming.response_gen) == ANSWER
    check(streaming)

    async def main() -> Any:
        engine = index.as_query_engine(llm=saying(), streaming=True, top_k=2)
        response: Any = await engine.aquery(QUERY)
        assert "".join([t async for t in response.async_response_gen()]) == ANSWER
        return response

    check(asyncio.run(main()))


def test_both_views_give_both_items_of_one_id(index: VizRAGIndex) -> None:
    response: Any = index.as_query_engine(llm=saying("E1 [1]"), top_k=2,
                                          image_view="both").query(QUERY)
    views = [i.view for i in response.metadata["cited_items"]]
    drawn = labels(response)
    assert views == [v for v in ("top", "bottom") if (v, "E1") in drawn] and len(views) == 2


def test_without_an_image_no_id_is_read(index: VizRAGIndex) -> None:
    response: Any = index.as_query_engine(llm=saying(), top_k=2,
                                          include_image=False).query(QUERY)
    meta = response.metadata
    assert meta["citations"].ids == [] and meta["cited_items"] == []
    assert meta["citations"].unknown == [] and meta["citation_warning"] is None


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> VizRAGRetriever:
    return VizRAGRetriever(store=build_store(tmp_path_factory.mktemp("lc-ids")), k=3)


def test_langchain_chain_reads_the_ids(retriever: VizRAGRetriever) -> None:
    llm = GenericFakeChatModel(messages=iter([AIMessage("It was E2 with H1 [1], not E77.")]))
    out = create_vizrag_chain(retriever, llm, return_sources=True).invoke(LC_QUERY)
    rendering = HyperVizRunnable(store=retriever.engine).invoke(
        {"documents": out["documents"], "question": LC_QUERY})  # what the chain rendered
    key_of = {v: k for m in visual_ids(rendering["export"]) for k, v in m.items()}
    legend = export_legend(rendering["export"])
    assert out["citations"].ids == ["E2", "H1"] and out["citations"].unknown == ["E77"]
    assert out["cited_items"] == [
        LabelledItem(id="E2", kind="entity", key=key_of["E2"], view="passages",
                     text=legend["E2"]),
        LabelledItem(id="H1", kind="hyperedge", key=key_of["H1"], view="passages",
                     text=legend["H1"])]
    assert legend["H1"].startswith("[") and all(out["cited_items"][i].text for i in (0, 1))
    assert "E77" in out["warning"]


def test_langchain_image_document_keeps_its_view(retriever: VizRAGRetriever) -> None:
    with_image = retriever.model_copy(update={"include_image": True})
    llm = GenericFakeChatModel(messages=iter([AIMessage("E1 [1]")]))
    out = create_vizrag_chain(with_image, llm, return_sources=True).invoke(LC_QUERY)
    image = next(d for d in with_image.invoke(LC_QUERY) if d.metadata.get("type")
                 == "hyperviz_image")
    assert [(i.id, i.view) for i in out["cited_items"]] == [("E1", image.metadata["view"])]
    assert out["cited_items"][0].key == {v: k for k, v in
                                         image.metadata["entity_ids"].items()}["E1"]


def test_prompts_ask_for_the_ids(index: VizRAGIndex, retriever: VizRAGRetriever) -> None:
    """The wrappers' prompts ask for the E#/H# they read back."""
    from vizrag_langchain.chain import DEFAULT_PROMPT
    from vizrag_llamaindex.prompt_views import REFINE_TEMPLATE, SYSTEM_PROMPT

    for prompt in (SYSTEM_PROMPT, DEFAULT_PROMPT):
        assert "(H2, [1])" in prompt and "E#" in prompt
    assert "E#/H#" in REFINE_TEMPLATE


@pytest.mark.parametrize("view", ["bottom", "top", "both"])
def test_chunks_carry_the_ids_of_the_first_image(index: VizRAGIndex, view: str) -> None:
    """A chunk node's ``entity_ids``/``hyperedge_ids`` are the E#/H# of the first image node
    sent (I_top for ``"top"`` and ``"both"``), so a cited ID leads back to its passages."""
    nodes = index.as_retriever(top_k=2, image_view=view).retrieve(QUERY)
    images = [n.node for n in nodes if isinstance(n.node, VizRAGImageNode)]
    assert images[0].metadata["view"] == ("bottom" if view == "bottom" else "top")
    first = images[0].metadata
    linked = 0
    for n in nodes:
        if isinstance(n.node, VizRAGImageNode):
            continue
        meta = n.node.metadata
        for key, vid in meta["entity_ids"].items():
            assert first["entity_ids"][key] == vid, (view, key)
            linked += 1
        for hid, vid in meta["hyperedge_ids"].items():
            assert first["hyperedge_ids"][hid] == vid, (view, hid)
    assert linked
