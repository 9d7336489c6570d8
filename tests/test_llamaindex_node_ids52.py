"""Nodes of LlamaIndex ``transformations`` keep their ids from run to run (stop 52).

A node parser names its nodes with random UUIDs by default, new ones each run, so every
refresh of a document through ``transformations`` stored all its nodes as new documents:
extracted and embedded again even when only its metadata had changed. ``VizRAGIndex`` now
renames such nodes after their document and text (:mod:`vizrag_llamaindex.node_ids`).
"""

from __future__ import annotations

from pathlib import Path

from llama_index.core import Document, MockEmbedding
from llama_index.core.node_parser import (
    HierarchicalNodeParser,
    MarkdownNodeParser,
    SentenceSplitter,
)
from llama_index.core.schema import NodeRelationship

from hyperviz_core.rag.extract import HeuristicExtractor
from vizrag_llamaindex import VizRAGIndex
from vizrag_llamaindex.node_ids import stable_node_ids

TEXT = " ".join(f"{n} studied in {c} and wrote about {t}." for n, c, t in [
    ("Marie Curie", "Paris", "radium"), ("Lise Meitner", "Vienna", "fission"),
    ("Niels Bohr", "Copenhagen", "atoms"), ("Emmy Noether", "Erlangen", "rings"),
    ("Alan Turing", "Cambridge", "machines"), ("Ada Lovelace", "London", "engines")] * 2)


def _index(tmp_path: Path, transformations: list) -> VizRAGIndex:
    return VizRAGIndex.from_documents(
        [Document(text=TEXT, id_="sci", metadata={"v": 1})], transformations=transformations,
        embed_model=MockEmbedding(embed_dim=8), store_dir=tmp_path / "s", show_progress=False)


def test_a_refresh_with_new_metadata_extracts_nothing_again(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls: list[str] = []
    original = HeuristicExtractor.extract_text

    def counted(self, text, *args, **kw):  # type: ignore[no-untyped-def]
        calls.append(text)
        return original(self, text, *args, **kw)

    monkeypatch.setattr(HeuristicExtractor, "extract_text", counted)
    index = _index(tmp_path, [SentenceSplitter(chunk_size=32, chunk_overlap=0)])
    ids = sorted(index.ref_doc_info["sci"].node_ids)
    assert len(ids) >= 3 and all(i.startswith("sci#") for i in ids)
    calls.clear()
    assert index.refresh_ref_docs([Document(text=TEXT, id_="sci", metadata={"v": 1})]) == [
        False]
    assert index.refresh_ref_docs([Document(text=TEXT, id_="sci", metadata={"v": 2})]) == [
        True]
    assert calls == [] and sorted(index.ref_doc_info["sci"].node_ids) == ids
    hits = index.as_retriever(similarity_top_k=2).retrieve("Where did Lise Meitner study?")
    passages = [h.node for h in hits if h.node.node_id in ids]  # (besides the rendering)
    assert passages and all(p.metadata["v"] == 2 for p in passages)
    index.close()


def test_links_between_nodes_are_renamed_alike() -> None:
    doc = Document(text=TEXT * 3, id_="sci")
    nodes = HierarchicalNodeParser.from_defaults(chunk_sizes=[128, 32]).get_nodes_from_documents(
        [doc])
    stable_node_ids(nodes, ["sci"] * len(nodes))
    ids = {n.node_id for n in nodes}
    assert len(ids) == len(nodes) and all(i.startswith("sci#") for i in ids)
    linked = [info.node_id for n in nodes for rel, info in n.relationships.items()
              if rel != NodeRelationship.SOURCE
              for info in (info if isinstance(info, list) else [info])]
    assert linked and set(linked) <= ids  # every parent, child, previous and next link
    assert {n.relationships[NodeRelationship.SOURCE].node_id for n in nodes} == {"sci"}


def test_sections_a_parser_numbers_alike_get_distinct_ids() -> None:
    """``MarkdownNodeParser`` calls ``id_func`` with position 0 for every section: a
    position-based id would repeat; the text-based one does not."""
    doc = Document(text="# A\nMarie Curie won.\n\n# B\nLise Meitner won.\n\n# C\nMarie Curie won.",
                   id_="md")
    nodes = MarkdownNodeParser().get_nodes_from_documents([doc])
    stable_node_ids(nodes, ["md"] * len(nodes))
    assert len({n.node_id for n in nodes}) == len(nodes) == 3


def test_ids_of_your_own_id_func_are_kept(tmp_path: Path) -> None:
    splitter = SentenceSplitter(chunk_size=32, chunk_overlap=0,
                                id_func=lambda i, doc: f"{doc.id_}-{i}")
    index = _index(tmp_path, [splitter])
    ids = sorted(index.ref_doc_info["sci"].node_ids)
    assert ids and all(i.startswith("sci-") for i in ids)
    index.close()
