"""Renderings of filtered passages show no text of an excluded document.

A passage rendering (``render_passages``: the LangChain chain's image, the ``text``/``naive``
modes' image, the LlamaIndex postprocessor's) draws the store's entities of the passages with
their merged descriptions and the hyperedges among them. Under a tenant filter those held
another tenant's sentences ("Iron Maiden signed a secret deal with Acme Records ...") in the
image's caption and so in the prompt. Given the filter, the store's facts drawn are those all
of whose source chunks pass it, as a filtered query's own views are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.core.vector_stores import MetadataFilter, MetadataFilters
from test_langchain_chain import SpyChat

from hyperviz_core.rag import VizRAG, render_passages
from vizrag_langchain import VizRAGRetriever, VizRAGVectorStore, create_vizrag_chain
from vizrag_llamaindex import HyperVizPostprocessor, VizRAGIndex

SECRET = ("Iron Maiden signed a secret deal with Acme Records for 5 million dollars. "
          "Steve Harris approved the SECRETALPHA contract.")
PUBLIC = "Iron Maiden is a British heavy metal band founded by Steve Harris in Leyton."
QUERY = "Who founded Iron Maiden?"
BETA = {"tenant": "beta"}


def leaked(text: str) -> bool:
    return "SECRETALPHA" in text or "Acme" in text


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tenants") / "store"
    VizRAGRetriever.from_documents([Document(SECRET, metadata={"tenant": "alpha"}),
                                    Document(PUBLIC, metadata=BETA)], str(path), k=3).close()
    return path


def beta_passages(store: Path) -> list[tuple[str, str]]:
    with VizRAG(store, show_progress=False) as rag:
        res = rag.retrieve(QUERY, filters=BETA, render=False)
        assert [c.metadata["tenant"] for c in res.chunks] == ["beta"]
        return res.passages()


def test_core_rendering_under_the_filter(store: Path) -> None:
    with VizRAG(store, show_progress=False) as rag:
        passages = beta_passages(store)
        before = render_passages(passages, store=rag.store, query=QUERY)
        after = render_passages(passages, store=rag.store, query=QUERY, filters=BETA)
    assert leaked(before.caption)  # the store's merged facts: what the filter now keeps out
    assert not leaked(after.caption) and not leaked(str(after.export))
    assert after.entities and "Leyton" in after.caption


def chain_prompt(retriever: Any) -> str:
    spy = SpyChat()
    create_vizrag_chain(retriever, spy).invoke(QUERY)
    return str(spy.seen[-1][-1].content[0]["text"])  # type: ignore[index]


def test_langchain_chain_draws_under_its_retrievers_filter(store: Path) -> None:
    plain = VizRAGRetriever(store=str(store), k=3)
    assert leaked(chain_prompt(plain))  # no filter: the same store's facts, as before
    for retriever in (VizRAGRetriever(store=str(store), k=3, filter=BETA),
                      plain.bind(filter=BETA),
                      VizRAGVectorStore(str(store)).as_retriever(
                          search_kwargs={"k": 3, "filter": BETA})):
        text = chain_prompt(retriever)
        assert "Leyton" in text and not leaked(text), type(retriever).__name__


@pytest.mark.parametrize("mode", ["text", "naive"])
def test_langchain_image_document_of_a_mode_without_views(store: Path, mode: str) -> None:
    docs = VizRAGRetriever(store=str(store), k=3, mode=mode, include_image=True,
                           filter=BETA).invoke(QUERY)
    image = docs[-1]
    assert image.metadata["type"] == "hyperviz_image"
    assert not leaked(image.page_content) and not leaked(str(image.metadata["export"]))


@pytest.mark.parametrize("mode", ["text", "naive"])
def test_llamaindex_image_node_of_a_mode_without_views(store: Path, mode: str) -> None:
    index = VizRAGIndex(engine=VizRAG(store, show_progress=False))
    filters = MetadataFilters(filters=[MetadataFilter(key="tenant", value="beta")])
    nodes = index.as_retriever(top_k=3, mode=mode, filters=filters).retrieve(QUERY)
    assert nodes and not any(leaked(n.node.get_content()) for n in nodes)
    assert any(type(n.node).__name__ == "VizRAGImageNode" for n in nodes)


def test_llamaindex_postprocessor_takes_the_filters(store: Path) -> None:
    index = VizRAGIndex(engine=VizRAG(store, show_progress=False))
    nodes = [NodeWithScore(node=TextNode(id_=pid, text=text), score=1.0)
             for pid, text in beta_passages(store)]
    filters = MetadataFilters(filters=[MetadataFilter(key="tenant", value="beta")])
    plain = HyperVizPostprocessor(index=index).postprocess_nodes(nodes)
    assert leaked(plain[-1].node.get_content())
    for given in (filters, BETA):
        out = HyperVizPostprocessor(index=index, filters=given).postprocess_nodes(nodes)
        assert not leaked(out[-1].node.get_content()) and "Leyton" in out[-1].node.get_content()


def test_the_shared_subject_is_still_drawn(store: Path) -> None:
    """An entity the excluded document names too (Iron Maiden, Steve Harris) is drawn from
    the passing passage's own text, not dropped."""
    with VizRAG(store, show_progress=False) as rag:
        ctx = render_passages(beta_passages(store), store=rag.store, query=QUERY,
                              filters=BETA)
    names = {str(e.get("name")) for e in ctx.export["entities"]}
    assert {"Iron Maiden", "Steve Harris", "Leyton"} <= names and not leaked(ctx.caption)


def test_a_filter_given_per_run_draws_under_it(store: Path) -> None:
    """A ``configurable_fields`` filter set per run (``configurable``, ``with_config``) is the
    one the chain's image is drawn under; and a filter changed after the chain was built."""
    from langchain_core.runnables import ConfigurableField

    base = VizRAGRetriever(store=str(store), k=3)
    configurable = base.configurable_fields(filter=ConfigurableField(id="filter"))
    spy = SpyChat()
    chain = create_vizrag_chain(configurable, spy)
    chain.invoke(QUERY, config={"configurable": {"filter": BETA}})
    text = str(spy.seen[-1][-1].content[0]["text"])  # type: ignore[index]
    assert "Leyton" in text and not leaked(text)
    assert leaked(chain_prompt(configurable))  # no filter in this run: the whole store
    text = chain_prompt(configurable.with_config(configurable={"filter": BETA}))
    assert "Leyton" in text and not leaked(text)
    later = VizRAGRetriever(store=str(store), k=3)
    chain = create_vizrag_chain(later, spy)
    later.filter = VizRAGRetriever(store=str(store), filter=BETA).filter
    chain.invoke(QUERY)
    assert not leaked(str(spy.seen[-1][-1].content[0]["text"]))  # type: ignore[index]


def test_a_bad_postprocessor_filter_fails_when_made() -> None:
    with pytest.raises(ValueError, match=r"unknown operator\(s\) \['\$regex'\]"):
        HyperVizPostprocessor(filters={"year": {"$regex": "x"}})
    for bad in ("tenant=beta", 42):
        with pytest.raises(TypeError, match="filters= takes MetadataFilters"):
            HyperVizPostprocessor(filters=bad)


def test_stage_hooks_name_only_shown_entities(store: Path) -> None:
    """Under a filter the stage hook payloads (``linked``, ``located``, ``anchors``, the
    related stage's ``entities``) name only entities all of whose sources pass: what a
    LangChain ``astream_events`` consumer of another tenant could otherwise read."""
    from hyperviz_core.rag.retrieve.shown import NAMED

    def named(filters: Any) -> set[str]:
        ends: list[dict[str, Any]] = []

        def hook(stage: str, phase: str, payload: dict[str, Any]) -> None:
            if phase == "end":
                ends.append(payload)

        with VizRAG(store, show_progress=False) as rag:
            rag.retrieve(QUERY, filters=filters, render=False, hooks=[hook])
            sources = rag.store.entity_chunks(
                {k for p in ends for f in NAMED
                 for k in (p.get(f) if isinstance(p.get(f), list) else [])})
            tenants = {c.id: c.metadata["tenant"] for c in rag.store.chunks(
                [c for ids in sources.values() for c in ids])}
        return {f"{k}:{','.join(sorted({tenants[c] for c in ids}))}"
                for k, ids in sources.items()}

    assert any("alpha" in k for k in named(None))  # the unfiltered payloads name them
    shown = named(BETA)
    assert shown and all(k.endswith(":beta") for k in shown), shown
