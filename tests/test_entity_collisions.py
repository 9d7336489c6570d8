"""Entity and theme hits of the hashed offline embedder are scored without its hash
collisions.

Guards: "w:ada" and "w:iron" share bucket 381 (same sign) at dim 512, so the entity Ada
scored 0.61 for the keyword "Iron Maiden" and was drawn in the view, linked to nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.providers.offline import HashingEmbedder, exact_cosine
from hyperviz_core.rag.retrieve.begin import state_of
from hyperviz_core.rag.retrieve.collisions import checked_search
from hyperviz_core.rag.store.sqlite.merge import entity_text

DOCS = [
    Document(id="im", title="Iron Maiden",
             text="Iron Maiden formed in Leyton, East London in 1975 by bassist Steve Harris."),
    Document(id="mj", title="Maiden Japan",
             text="Maiden Japan is a live EP by Iron Maiden recorded in Nagoya, Japan."),
    Document(id="sh", title="Steve Harris",
             text="Steve Harris is an English musician born in Leytonstone."),
    Document(id="ada", title="Ada",
             text="Ada Lovelace wrote the first algorithm for Charles Babbage's Analytical "
                  "Engine."),
]


@pytest.fixture(scope="module")
def rag(tmp_path_factory: pytest.TempPathFactory) -> VizRAG:
    engine = VizRAG(tmp_path_factory.mktemp("collisions") / "store", show_progress=False)
    engine.insert(DOCS)
    return engine


def test_the_colliding_words_really_collide() -> None:
    e = HashingEmbedder()
    v = e.embed(["Iron Maiden", "Ada"])
    assert float(v[0] @ v[1]) > 0.5  # what the vector search sees
    assert exact_cosine(e.exact_features("Iron Maiden"), e.exact_features("Ada")) == 0.0
    assert e.cosine_to(e.exact_features("Iron Maiden"), "Ada") == 0.0


@pytest.mark.parametrize("mode", ["hyper-lite", "vizrag"])
def test_an_entity_sharing_nothing_with_the_query_is_not_retrieved(rag: VizRAG,
                                                                   mode: str) -> None:
    """Nor a theme: in ``vizrag`` mode Ada came into the top view as a member of the Ada
    Lovelace theme, which a hash collision brought in."""
    res = rag.retrieve("Iron Maiden", mode=mode, top_k=2, hops=0, render=False)
    keys = [e.key for e in res.entities]
    assert "iron maiden" in keys
    assert "ada" not in keys  # hyper-lite: it came in at 0.585, above 'japan'
    assert not [h for h in res.hyperedges if "ada" in h.members]


def test_hits_are_rescored_and_filtered(rag: VizRAG) -> None:
    state = state_of(rag.retriever, "Iron Maiden", {"mode": "hyper-lite"}, lazy=True)
    vectors = rag.embedder.embed(["Iron Maiden"])
    hashed = [key for key, _ in state.store.search("entity", vectors[0], 5)]
    assert "ada" in hashed  # the hashed search finds it ...
    (hits,) = checked_search(state, "entity", ["Iron Maiden"], vectors, 5)
    assert "ada" not in dict(hits)  # ... the check leaves it out
    texts = state.corpus.entity_texts(dict(hits))
    e = HashingEmbedder()
    want = sorted((-e.cosine_to(e.exact_features("Iron Maiden"), texts[k]), k)
                   for k in dict(hits))
    assert hits == [(k, -s) for s, k in want] and all(s > 0 for _, s in hits)


def test_entity_texts_are_what_the_store_embeds(rag: VizRAG) -> None:
    bottom = rag.store.bottom()
    keys = sorted(bottom.entities)
    texts = rag.store.entity_texts(keys)  # the lookup lazy retrieval reads
    assert texts == {k: entity_text(bottom.entities[k].name, bottom.entities[k].description)
                     for k in keys}
    e = HashingEmbedder()
    ids, mat = rag.store.vectors("entity")
    stored = dict(zip(ids, mat, strict=True))
    for key in keys:  # the stored vector (kept at lower precision) embeds that text
        vec = stored[key] / np.linalg.norm(stored[key])
        assert float(e.embed([texts[key]])[0] @ vec) > 0.9999


def test_theme_texts_are_what_the_store_embeds(rag: VizRAG) -> None:
    top = rag.store.top()
    hids = sorted(top.hyperedges)
    lazy = rag.store.theme_texts(hids)  # the lookup lazy retrieval reads
    state = state_of(rag.retriever, "Iron Maiden", {}, lazy=False)  # the loaded corpus
    assert state.corpus.theme_texts(hids) == lazy and sorted(lazy) == hids
    e = HashingEmbedder()
    ids, mat = rag.store.vectors("theme")
    stored = dict(zip(ids, mat, strict=True))
    for hid in hids:
        vec = stored[hid] / np.linalg.norm(stored[hid])
        assert float(e.embed([lazy[hid]])[0] @ vec) > 0.9999


def test_another_embedder_keeps_the_vector_search_hits(tmp_path: Path) -> None:
    class Plain:
        """A hashed embedder by another class: not checked."""
        name, dim = "plain-hash", 512

        def __init__(self) -> None:
            self.inner = HashingEmbedder()

        def embed(self, texts: list[str]):  # type: ignore[no-untyped-def]
            return self.inner.embed(texts)

    with VizRAG(tmp_path / "s", embedder=Plain(), show_progress=False) as engine:
        engine.insert(DOCS)
        res = engine.retrieve("Iron Maiden", mode="hyper-lite", top_k=2, hops=0,
                              render=False)
        assert "ada" in [e.key for e in res.entities]
