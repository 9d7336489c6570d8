"""The VizRAG facade: insert/delete/stats, query (offline and with a recording model),
async and streaming answers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rag_fakes import PNG_MAGIC, ParrotChat, demo_documents

from hyperviz_core.rag.answer import EXTRACTIVE_LABEL
from hyperviz_core.rag.engine import VizRAG

Q = "When was the astronomical clock built in the city where Karel Purkyně died?"


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engine")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(20, 40))
    return path


def test_insert_is_incremental_and_delete_removes_the_document(tmp_path: Path) -> None:
    docs = demo_documents(20, 30)
    with VizRAG(tmp_path, show_progress=False) as rag:
        first = rag.insert(docs)
        assert first.documents_added == 10 and rag.stats().documents == 10
        again = rag.insert(docs)
        assert again.documents_skipped == 10 and again.documents_added == 0
        target = next(d for d in docs if d.title == "Karel Purkyně")
        hit = rag.retrieve("Karel Purkyně painter", render=False)
        assert hit.chunks[0].doc_id == target.id
        rag.delete(target.id)
        assert rag.stats().documents == 9
        after = rag.retrieve("Karel Purkyně painter", render=False)
        assert target.id not in {c.doc_id for c in after.chunks}


def test_offline_query_gives_a_labelled_extractive_summary(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag:
        res = rag.query(Q)
    assert res.answer_kind == "extractive"
    assert res.answer is not None and res.answer.startswith(EXTRACTIVE_LABEL)
    assert "[1]" in res.answer or "[2]" in res.answer
    titles = [c.title for c in res.chunks[:3]]
    assert "Karel Purkyně" in titles and "Prague astronomical clock" in titles


def test_answer_gets_i_bot_and_the_ids_of_its_idmap(store_dir: Path) -> None:
    chat = ParrotChat()
    with VizRAG(store_dir, chat=chat, show_progress=False) as rag:
        res = rag.query(Q)
    call = chat.by_stage("answer")[0]
    assert res.bottom_view is not None
    assert call["images"] == [res.bottom_view.png] and call["images"][0].startswith(PNG_MAGIC)
    assert call["system"] and "precise" in call["system"]
    id_map = res.bottom_view.id_map()
    named = set(re.findall(r"\b[EH]\d+\b", call["prompt"]))
    assert named and named <= set(id_map)
    by_key = {e.key: e.visual_id for e in res.entities if e.layer == "bottom"}
    listing = call["prompt"].split("<<<ENTITIES\n", 1)[1].split("\nENTITIES>>>")[0]
    for line in listing.splitlines()[:5]:
        vid = line.split(" ", 1)[0]
        assert by_key[id_map[vid]] == vid
    assert res.answer_kind == "llm" and res.answer.startswith("Parrot answer citing E")
    assert [p.stage for p in res.prompts] == ["keywords", "locate", "answer"]
    assert res.prompts[2].images == [res.bottom_view.sha256]
    assert "[1]" in call["prompt"] and res.chunks[0].text.strip()[:40] in call["prompt"]


async def test_aquery_and_streams(store_dir: Path) -> None:
    chat = ParrotChat()
    with VizRAG(store_dir, chat=chat, show_progress=False) as rag:
        res = await rag.aquery(Q, render=False)
        assert res.answer_kind == "llm" and res.answer
        pieces = list(rag.stream(Q, render=False))
        assert len(pieces) > 1 and "".join(pieces).strip() == res.answer
        apieces = [p async for p in rag.astream(Q, render=False)]
        assert "".join(apieces) == "".join(pieces)


def test_stream_without_model_streaming_yields_whole_answer(store_dir: Path) -> None:
    chat = ParrotChat(streaming=False)
    with VizRAG(store_dir, chat=chat, show_progress=False) as rag:
        retrieved = rag.retrieve(Q, render=False)
        pieces = list(rag.stream(Q, result=retrieved))
    assert len(pieces) == 1 and pieces[0].startswith("Parrot answer")
    assert retrieved.answer == pieces[0].strip() and retrieved.answer_kind == "llm"


def test_offline_stream_yields_the_extractive_summary(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag:
        pieces = list(rag.stream(Q, render=False))
    assert len(pieces) == 1 and pieces[0].startswith(EXTRACTIVE_LABEL)


def test_defaults_apply_and_can_be_overridden(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False, mode="hyper-lite", top_k=2) as rag:
        res = rag.retrieve(Q, render=False)
        assert res.mode == "hyper-lite" and len(res.chunks) == 2
        assert len(rag.retrieve(Q, mode="vizrag", top_k=4, render=False).chunks) == 4


def test_embedder_mismatch_is_a_clear_error(store_dir: Path) -> None:
    from hyperviz_core.rag.providers.offline import HashingEmbedder

    with pytest.raises(ValueError, match="dimensional"):
        VizRAG(store_dir, embedder=HashingEmbedder(dim=64))


def test_without_an_embedder_a_store_is_read_with_the_one_it_recorded(tmp_path: Path) -> None:
    from hyperviz_core.rag import Document
    from hyperviz_core.rag.providers.offline import HashingEmbedder

    docs = [Document(id="hopper", text="Grace Hopper created COBOL at Remington Rand.")]
    with VizRAG(tmp_path / "s", embedder=HashingEmbedder(dim=128), show_progress=False) as rag:
        rag.insert(docs)
    with VizRAG(tmp_path / "s", show_progress=False) as rag:  # no embedder= needed
        assert rag.embedder.name == "hashing-v5-d128-c34"
        assert rag.retrieve("Who created COBOL?", render=False).chunks[0].doc_id == "hopper"
    with VizRAG(tmp_path / "new", show_progress=False) as rag:  # an empty store: the default
        assert rag.embedder.name == HashingEmbedder().name


def test_ranked_chunks_carry_their_documents_metadata(tmp_path: Path) -> None:
    from hyperviz_core.rag import Document, StoreError

    rag = VizRAG(tmp_path / "meta", show_progress=False)
    rag.insert([Document(id="curie", title="Marie Curie", text="Marie Curie worked in Paris.",
                         metadata={"source": "notes/curie.md", "year": 1903})])
    chunk = rag.retrieve("Where did Marie Curie work?", mode="naive", render=False).chunks[0]
    assert chunk.metadata == {"source": "notes/curie.md", "year": 1903, "title": "Marie Curie"}
    rag.close()
    # the message says how to go on (it said "open it again": a closed object cannot be)
    with pytest.raises(StoreError, match="is closed: a closed object is not reopened; make a "
                                         "new one over the same path"):
        rag.retrieve("Where did Marie Curie work?")
    rag.close()  # a second close is a no-op


def test_a_metadata_only_change_replaces_the_document(tmp_path: Path) -> None:
    from hyperviz_core.rag import Document

    def doc(year: int) -> Document:
        return Document(id="curie", title="Marie Curie", text="Marie Curie worked in Paris.",
                        metadata={"source": "notes/curie.md", "year": year})

    with VizRAG(tmp_path / "meta", show_progress=False) as rag:
        rag.insert([doc(1903)])
        assert rag.insert([doc(1903)]).documents_skipped == 1
        report = rag.insert([doc(1911)])
        assert report.documents_replaced == 1 and rag.stats().documents == 1
        chunk = rag.retrieve("Where did Marie Curie work?", mode="naive", render=False).chunks[0]
        assert chunk.metadata["year"] == 1911
        assert rag.store.get_document("curie").metadata["year"] == 1911  # type: ignore[union-attr]


def test_a_query_nothing_matches_says_so(tmp_path: Path) -> None:
    from hyperviz_core.rag import Document, extractive_summary

    with VizRAG(tmp_path / "zero", show_progress=False) as rag:
        rag.insert([Document(id="a", text="Marie Curie worked in Paris."),
                    Document(id="b", text="Albert Einstein lived in Bern.")])
        res = rag.retrieve("🚀", render=False)
        assert res.chunks and all(c.score == 0 for c in res.chunks)
        assert any("no passage matched the query" in w for w in res.warnings)
        assert extractive_summary(res).endswith("(no passage matched the question)")
        hit = rag.retrieve("Where did Marie Curie work?", render=False)
        assert not any("no passage matched" in w for w in hit.warnings)
        assert "Marie Curie worked in Paris." in extractive_summary(hit)
        with pytest.raises(TypeError, match="one document id"):
            rag.delete(["a"])  # type: ignore[arg-type]


def test_chunk_links_name_the_chunks_entities_and_hyperedges_best_first() -> None:
    from hyperviz_core.rag.result import (
        RankedChunk,
        RenderedView,
        RetrievalResult,
        RetrievedEntity,
        RetrievedHyperedge,
    )

    chunk = RankedChunk(chunk_id="c1", doc_id="d", score=1.0, rank=1, text="t",
                        entities=["radium", "marie curie"])
    result = RetrievalResult(
        query="q", mode="vizrag", chunks=[chunk],
        entities=[RetrievedEntity(key="marie curie", name="Marie Curie", visual_id="E1"),
                  RetrievedEntity(key="radium", name="Radium")],
        hyperedges=[RetrievedHyperedge(id="h2", source_ids=["c1"], visual_id="H1"),
                    RetrievedHyperedge(id="h9", source_ids=["c7"], visual_id="H2"),
                    RetrievedHyperedge(id="h1", source_ids=["c1", "c7"])])
    assert result.chunk_links(chunk) == {
        "entities": ["radium", "marie curie"], "entity_ids": {"marie curie": "E1"},
        "hyperedges": ["h2", "h1"], "hyperedge_ids": {"h2": "H1"}}
    # I_top numbers its themes from H1 too: only the labels of the views drawn are given
    result.hyperedges.append(RetrievedHyperedge(id="t1", kind="theme", source_ids=["c1"],
                                                visual_id="H1"))
    view = RenderedView(png_base64="", width=1, height=1)
    for top, bottom, labels in ((None, None, {"h2": "H1"}), (None, view, {"h2": "H1"}),
                                (view, None, {"t1": "H1"}),
                                (view, view, {"h2": "H1", "t1": "H1"})):
        result.top_view, result.bottom_view = top, bottom
        links = result.chunk_links(chunk)
        assert links["hyperedges"] == ["h2", "h1", "t1"]
        assert links["hyperedge_ids"] == labels
        assert links["entity_ids"] == ({} if top and not bottom else {"marie curie": "E1"})
