"""LangChain review of 2026-12-05: the chain draws from the store of the retriever that ran
(``configurable_alternatives``, ``with_fallbacks``); ``HyperVizRunnable`` takes per-call
options (``.bind(filter=...)``) and refuses misspelt ones; a store of LangChain vectors is
never queried by the offline embedder; path-built objects pickle; a ``None`` filter value is
a plain error naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding

from hyperviz_core.rag import StoreError
from vizrag_langchain import VizRAGRetriever, VizRAGVectorStore

DOCS = [Document("Ada Lovelace wrote notes on the Analytical Engine.", id="a"),
        Document("Iron Maiden formed in Leyton in 1975.", id="b")]


def test_a_store_of_langchain_vectors_is_not_opened_without_its_embeddings(
        tmp_path: Path) -> None:
    """Of the same dimension (512) the offline embedder used to open it with a warning,
    and searches compared its hashed query vectors with the stored model's."""
    VizRAGVectorStore.from_documents(DOCS, DeterministicFakeEmbedding(size=512),
                                     store=str(tmp_path / "s")).close()
    for make in (lambda: VizRAGVectorStore(str(tmp_path / "s")),
                 lambda: VizRAGRetriever(store=str(tmp_path / "s"))):
        with pytest.raises(StoreError, match="a LangChain embedder cannot be made again"):
            make()
    again = VizRAGVectorStore(str(tmp_path / "s"), DeterministicFakeEmbedding(size=512))
    assert again.similarity_search("Iron Maiden", k=1)[0].id == "b"
    again.close()


def _tenants(tmp_path: Path) -> tuple[VizRAGRetriever, VizRAGRetriever]:
    """Two stores whose documents share the ids "1" and "2"; A holds a secret."""
    a = [Document("Ada Lovelace wrote notes on the Analytical Engine.", id="1"),
         Document("Secret: tenant A salary of Bob Smith is 90000 dollars.", id="2")]
    b = [Document("Iron Maiden formed in Leyton under Steve Harris.", id="1"),
         Document("Marie Curie discovered radium in Paris.", id="2")]
    return (VizRAGRetriever.from_documents(a, str(tmp_path / "A"), k=2, one_chunk=True),
            VizRAGRetriever.from_documents(b, str(tmp_path / "B"), k=2, one_chunk=True))


def _prompt_of(chain: Any, config: dict[str, Any]) -> tuple[str, list[str]]:
    from langchain_core.callbacks import BaseCallbackHandler

    seen: list[str] = []

    class Catch(BaseCallbackHandler):
        def on_chat_model_start(self, serialized: Any, messages: Any, **kw: Any) -> None:
            seen.append(messages[0][-1].content[0]["text"])

    out = chain.invoke("Where did Iron Maiden form?", config={**config, "callbacks": [Catch()]})
    return seen[0], [d.page_content for d in out["documents"]]


def test_the_chain_draws_from_the_store_of_the_alternative_that_ran(tmp_path: Path) -> None:
    from itertools import cycle

    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import ConfigurableField

    from vizrag_langchain import create_vizrag_chain

    ra, rb = _tenants(tmp_path)
    llm = GenericFakeChatModel(messages=cycle([AIMessage("ok [1]")]))
    switch = ra.configurable_alternatives(ConfigurableField(id="tenant"), default_key="A",
                                          B=rb)
    prompt, docs = _prompt_of(create_vizrag_chain(switch, llm, return_sources=True),
                              {"configurable": {"tenant": "B"}})
    assert "Iron Maiden formed in Leyton" in docs[0]
    assert "Secret" not in prompt and "salary" not in prompt
    assert "Leyton" in prompt.split("CAPTION")[-2]  # B's facts drawn
    fallback = ra.bind(hops=-1).with_fallbacks([rb])  # hops=-1: the first one fails
    prompt, docs = _prompt_of(create_vizrag_chain(fallback, llm, return_sources=True), {})
    assert "Iron Maiden formed in Leyton" in docs[0]
    assert "Secret" not in prompt and "salary" not in prompt


def test_hypervizrunnable_takes_call_options_and_refuses_misspelt_ones(tmp_path: Path) -> None:
    from vizrag_langchain import HyperVizRunnable

    docs = [Document("Marie Curie worked with Pierre Curie in Paris.", metadata={"lang": "fr"}),
            Document("Ada Lovelace visited Paris with Charles Babbage.", metadata={"lang": "en"})]
    vs = VizRAGVectorStore.from_documents(docs, store=str(tmp_path / "s"))
    found = vs.as_retriever(search_kwargs={"k": 2, "filter": {"lang": "fr"}}).invoke(
        "Marie Curie")
    hv = HyperVizRunnable(store=str(tmp_path / "s"))
    assert hv.bind(image_format="image_url").invoke(found)["image"]["type"] == "image_url"
    assert "Lovelace" in hv.invoke(found)["caption"]  # Paris's merged description
    caption = hv.bind(filter={"lang": "fr"}).invoke(found)["caption"]
    assert "Curie" in caption and "Lovelace" not in caption and "Babbage" not in caption
    with pytest.raises(TypeError, match="did you mean 'image_format'"):
        hv.invoke(found, imge_format="image_url")
    with pytest.raises(ValueError, match="image_format must be"):
        hv.invoke(found, image_format="png")


def test_objects_built_from_a_path_pickle(tmp_path: Path) -> None:
    """README: pickling keeps the options and reopens the store path. Built from a path
    through ``from_documents`` or ``VizRAGVectorStore(path)``, they were refused as built
    over an open engine."""
    import pickle

    path = str(tmp_path / "s")
    r = VizRAGRetriever.from_documents(DOCS, path, k=1)
    assert pickle.loads(pickle.dumps(r)).invoke("Iron Maiden")[0].page_content.startswith(
        "Iron Maiden")
    emb = DeterministicFakeEmbedding(size=64)
    vs = VizRAGVectorStore.from_documents(DOCS, emb, store=str(tmp_path / "v"))
    for obj in (vs, vs.as_retriever(search_kwargs={"k": 1}), vs.vizrag_retriever):
        back = pickle.loads(pickle.dumps(obj))
        hits = (back.similarity_search("Iron Maiden", k=1) if isinstance(back, VizRAGVectorStore)
                else back.invoke("Iron Maiden"))
        assert "Iron Maiden" in hits[0].page_content
    with pytest.raises(TypeError, match="cannot be pickled"):  # over an open engine: refused
        pickle.dumps(VizRAGRetriever(store=vs.vizrag_retriever.engine))
