"""Importing a Hyper-RAG working dir into a VizRAG store (mapping, no-op re-import, errors)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from interop_fakes import HYPERRAG_DIR, fixture_copy, queries

from hyperviz_core.interop import (
    HyperRAGFormatError,
    import_hyperrag,
    read_workdir,
    write_workdir,
)
from hyperviz_core.interop.hyperrag_import import _reusable
from hyperviz_core.interop.hyperrag_map import build_plan
from hyperviz_core.interop.hyperrag_read import VdbFile
from hyperviz_core.model import hyperedge_id
from hyperviz_core.rag import (
    Chunk,
    ChunkExtraction,
    ChunkTheme,
    HashingEmbedder,
    HypergraphStore,
    VizRAG,
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("store")
    import_hyperrag(HYPERRAG_DIR, store, show_progress=False)
    return store


def test_counts_match_the_pickle(imported: Path) -> None:
    with HypergraphStore(imported) as store:
        s = store.stats()
        assert (s.documents, s.chunks, s.entities, s.relation_hyperedges) == (28, 29, 348, 666)
        assert s.theme_hyperedges == 29  # G_top: one theme per imported chunk
        assert store.embedder_info() == (HashingEmbedder().name, 512)
        assert all(store.stats().vectors[s] > 0 for s in store.vector_spaces())


def test_mapping_of_vertices_and_hyperedges(imported: Path) -> None:
    with HypergraphStore(imported) as store:
        g = store.bottom()
        strauss = g.entities["j. strauss ii"]
        assert strauss.name == "J. Strauss II"  # casing restored from the chunk text
        assert strauss.metadata["hyperrag_name"] == "J. STRAUSS II"
        unknown = [e for e in g.entities.values() if e.type == "unknown"]
        assert len(unknown) == 32 and all(e.description == "" for e in unknown)
        types = {e.type for e in g.entities.values()}
        assert {"person", "concept", "organization", "geo", "event", "role"} <= types
        # a hyperedge merged by Hyper-RAG from 4 chunks: <SEP> fields split, weight kept
        edge = g.hyperedges[hyperedge_id(["austria", "vienna"])]
        assert edge.weight == 23.0
        assert len(edge.description.splitlines()) == 4
        assert len(edge.source_ids) == 4
        assert "grandmaster" in edge.keywords and "<SEP>" not in " ".join(edge.keywords)
        vienna = g.entities["vienna"]
        assert all(not line.count("<SEP>") for line in vienna.description.splitlines())
        sizes = sorted(len(h.members) for h in g.hyperedges.values())
        assert sizes.count(2) == 593 and sizes[-1] == 9


def test_reimport_is_a_noop(imported: Path) -> None:
    with HypergraphStore(imported) as store:
        before = (store.bottom().to_hif(), store.top().to_hif(), store.stats().vectors)
    rep = import_hyperrag(HYPERRAG_DIR, imported, show_progress=False)
    assert (rep.documents_added, rep.documents_skipped, rep.embedded) == (0, 28, 0)
    with HypergraphStore(imported) as store:
        after = (store.bottom().to_hif(), store.top().to_hif(), store.stats().vectors)
    assert after == before
    assert rep.store_stats is not None and rep.store_stats.entities == 348


def test_a_description_rewritten_as_a_summary_replaces_its_stale_lines(tmp_path: Path) -> None:
    """Hyper-RAG rewrites a long merged description as a summary: re-importing must not keep
    the old lines merged in (the unchanged documents that carried them are written again),
    so the store equals a fresh import; a no-op re-import stays one."""
    import pickle

    from hyperviz_core.interop.hyperrag_pickle import restricted_loads

    wd = fixture_copy(tmp_path / "wd")
    store = tmp_path / "store"
    import_hyperrag(wd, store, show_progress=False)
    hgdb = wd / "hypergraph_chunk_entity_relation.hgdb"
    graph = restricted_loads(hgdb.read_bytes())
    name = next(n for n, v in sorted(graph["v_data"].items()) if "<SEP>" in v["description"])
    graph["v_data"][name]["description"] = "Summarised: one line instead of the old ones."
    hgdb.write_bytes(pickle.dumps(graph, protocol=4))
    rep = import_hyperrag(wd, store, show_progress=False)
    assert rep.documents_replaced >= 1 and rep.documents_added == 0
    fresh = tmp_path / "fresh"
    import_hyperrag(wd, fresh, show_progress=False)
    with HypergraphStore(store) as a, HypergraphStore(fresh) as b:
        assert a.bottom().to_hif() == b.bottom().to_hif()
        key = next(k for k, e in a.bottom().entities.items()
                   if e.metadata.get("hyperrag_name") == name)
        assert a.bottom().entities[key].description == (
            "Summarised: one line instead of the old ones.")
    again = import_hyperrag(wd, store, show_progress=False)
    assert (again.documents_replaced, again.documents_skipped) == (0, 28)


EXPECTED = {  # query index -> titles of the documents holding its gold evidence
    0: {"Aschenbrödel", "Austria"},
    1: {"Friedrich Hayek", "Botanical Garden of the University of Vienna",
        "Margraviate of Austria"},
    2: {"Karel Purkyně", "Prague astronomical clock"},
    3: {"Rudolf Palme", "Stefan Kindermann"},
    4: {"Warsaw Pact", "Warsaw Pact invasion of Czechoslovakia"},
}


def test_retrieval_over_the_imported_store(imported: Path) -> None:
    qs = queries()
    with VizRAG(imported, show_progress=False) as rag:
        titles = {d.id: d.text.splitlines()[0] for d in rag.store.documents()}
        for i, expected in EXPECTED.items():
            result = rag.retrieve(qs[i]["query"], top_k=10, render=False)
            got = {titles[c.doc_id] for c in result.chunks}
            assert got & expected, (qs[i]["query"], sorted(got))


def test_reuse_embeddings_when_dimensions_match(tmp_path: Path) -> None:
    rep = import_hyperrag(HYPERRAG_DIR, tmp_path / "s", embedder=HashingEmbedder(dim=64),
                          reuse_embeddings=True, show_progress=False)
    assert rep.embeddings == "reused"
    with HypergraphStore(tmp_path / "s") as store:
        kept = store.vector_spaces()  # new stores keep no hyperedge vectors
    expected = {"entity": 316, "hyperedge": 666, "chunk": 29}
    assert rep.reused_vectors == {k: n for k, n in expected.items() if k in kept}
    assert rep.embedded == 32 + 29  # UNKNOWN vertices (no vdb row) and the themes
    wd = read_workdir(HYPERRAG_DIR)
    row = wd.vdb["entity"].meta.index({"__id__": wd.vdb["entity"].ids[0],
                                       "entity_name": "VIENNA WALZER ORCHESTRA"})
    with HypergraphStore(tmp_path / "s") as store:
        _, mat = store.vectors("entity", ["vienna walzer orchestra"])
        assert wd.vdb["entity"].matrix is not None
        # the store may keep vectors at reduced precision: compare with a tolerance
        np.testing.assert_allclose(mat[0], wd.vdb["entity"].matrix[row], atol=2e-3)
        other = wd.vdb["entity"].matrix[row + 1]
        assert not np.allclose(mat[0], other, atol=2e-3)


def test_reuse_refused_on_dimension_mismatch(tmp_path: Path) -> None:
    rep = import_hyperrag(HYPERRAG_DIR, tmp_path / "s", reuse_embeddings=True,
                          show_progress=False)
    assert rep.embeddings == "embedded"
    assert "64-d but" in rep.embedding_note and rep.reused_vectors == {}
    with HypergraphStore(tmp_path / "s") as store:
        kept = store.vector_spaces()
        assert rep.embedded == sum(n for space, n in store.stats().vectors.items()
                                   if space in kept)
    counts = {"entity": 348, "hyperedge": 666, "theme": 29, "chunk": 29}
    assert rep.embedded == sum(counts[s] for s in kept)


def test_singleton_and_case_collapsed_hyperedges(tmp_path: Path) -> None:
    wd = read_workdir(HYPERRAG_DIR)
    chunk = wd.graph.vertices["VIENNA"]["source_id"].split("<SEP>")[0]
    # Hyper-RAG upper-cases "Vienna"/"VIENNA" into one name: a 1-member hyperedge whose vdb
    # id_set keeps the duplicate name
    wd.graph.edges[("VIENNA",)] = {"description": "Vienna and VIENNA.", "keywords": "city",
                                   "source_id": chunk, "weight": 1.0}
    rel = wd.vdb["hyperedge"]
    assert rel.matrix is not None
    wd.vdb["hyperedge"] = VdbFile(rel.dim, [*rel.ids, "rel-x"],
                                  [*rel.meta, {"__id__": "rel-x", "id_set": ["VIENNA", "VIENNA"]}],
                                  np.vstack([rel.matrix, rel.matrix[:1]]))
    write_workdir(wd, tmp_path / "wd")
    rep = import_hyperrag(tmp_path / "wd", tmp_path / "s", embedder=HashingEmbedder(dim=64),
                          reuse_embeddings=True, show_progress=False)
    assert rep.singleton_hyperedges == 1
    back = read_workdir(tmp_path / "wd")  # the vdb id_set ["VIENNA", "VIENNA"] finds the edge
    index, _ = _reusable(back, build_plan(back), ("hyperedge",))["hyperedge"]
    assert hyperedge_id(["vienna"]) in index and len(index) == 667
    with HypergraphStore(tmp_path / "s") as store:
        g = store.bottom()
        assert len(g.hyperedges) == 667
        assert g.hyperedges[hyperedge_id(["vienna"])].members == ["vienna"]


def _corrupt(wd: Path, name: str, text: str) -> None:
    (wd / name).write_text(text, "utf-8")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("kv_store_text_chunks.json", None, r"kv_store_text_chunks.json: malformed JSON \(line"),
        ("kv_store_full_docs.json", '{"doc-1": {"content": 5}}', "has no string 'content'"),
        ("kv_store_full_docs.json", "[1, 2]", "expected a JSON object"),
        ("vdb_relationships.json", None, r"vdb_relationships.json: malformed JSON"),
        ("vdb_chunks.json", '{"embedding_dim": 64, "data": [{"__id__": "c"}], "matrix": "AAAA"}',
         "expected 1 rows x 64 float32"),
        ("vdb_entities.json", '{"data": []}', "not a nano-vectordb file"),
    ],
)
def test_malformed_files_give_one_line_errors_and_write_nothing(
    tmp_path: Path, name: str, content: str | None, message: str
) -> None:
    wd = fixture_copy(tmp_path)
    if content is None:  # truncate mid-file
        raw = (wd / name).read_text("utf-8")
        content = raw[: len(raw) // 2]
    _corrupt(wd, name, content)
    store = tmp_path / "store"
    with pytest.raises(HyperRAGFormatError, match=message) as err:
        import_hyperrag(wd, store, show_progress=False)
    assert "\n" not in str(err.value)
    assert not store.exists()


def test_missing_file_and_orphan_chunk(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    (wd / "vdb_entities.json").unlink()
    # needed only to reuse Hyper-RAG's vectors (tests/test_interop_s45.py: without)
    with pytest.raises(HyperRAGFormatError, match=r"vdb_entities.json: missing"):
        import_hyperrag(wd, tmp_path / "s", show_progress=False, reuse_embeddings=True)
    wd = fixture_copy(tmp_path / "b")
    chunks = json.loads((wd / "kv_store_text_chunks.json").read_text("utf-8"))
    next(iter(chunks.values()))["full_doc_id"] = "doc-gone"
    _corrupt(wd, "kv_store_text_chunks.json", json.dumps(chunks))
    with pytest.raises(HyperRAGFormatError, match="names document 'doc-gone'"):
        import_hyperrag(wd, tmp_path / "s", show_progress=False)
    assert not (tmp_path / "s").exists()


def test_unknown_files_are_ignored(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    (wd / "HyperRAG.log").write_text("2026-06-27 started\n")
    got = read_workdir(wd, vectors=False)
    assert len(got.docs) == 28 and got.llm_cache_entries is None


class _TitleThemes:
    """A configured theme extractor: theme = the chunk's first line."""

    def theme(self, chunk: Chunk, extraction: ChunkExtraction, image: bytes | None = None
              ) -> ChunkTheme:
        keys = [e.key for e in extraction.entities[:2]]
        return ChunkTheme(chunk_id=chunk.id, theme=chunk.text.splitlines()[0], key_entities=keys)


def test_configured_theme_extractor_builds_g_top(tmp_path: Path) -> None:
    import_hyperrag(HYPERRAG_DIR, tmp_path / "s", theme_extractor=_TitleThemes(),
                    show_progress=False)
    with HypergraphStore(tmp_path / "s") as store:
        themes = {t.theme for t in store.themes()}
        assert "Vienna Walzer Orchestra" in themes and "Passage 1:" in themes
        top = store.top()
        assert len(top.hyperedges) == 29
        assert set(top.entities) <= set(store.bottom().entities)
