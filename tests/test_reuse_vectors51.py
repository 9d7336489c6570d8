"""A document indexed again embeds only its chunks whose text changed (stop 51).

Before, a replaced document's chunks were all embedded again: a metadata change, a moved
corpus folder (the ``source`` changes) or one edited paragraph paid the provider for every
chunk of the document. Since stop 52 a document whose text is unchanged is updated in
place when its extractors say which metadata they read (``tests/test_metadata_inplace52.py``);
the metadata changes here go through an extractor that does not say, so they are replaced.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bench_import import bench_module

from hyperviz_core.cli import main as cli_main
from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract import HeuristicExtractor
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.store.base import chunk_text

SENTENCES = [f"{name} studied in {city} and wrote about {topic}."
             for name, city, topic in [
                 ("Marie Curie", "Paris", "radium"), ("Lise Meitner", "Vienna", "fission"),
                 ("Niels Bohr", "Copenhagen", "atoms"), ("Emmy Noether", "Erlangen", "rings"),
                 ("Alan Turing", "Cambridge", "machines"), ("Ada Lovelace", "London", "engines"),
                 ("Enrico Fermi", "Rome", "neutrons"), ("Max Planck", "Berlin", "quanta")]]
TEXT = "\n\n".join(" ".join([s] * 3) for s in SENTENCES)


def counting(name: str = "counting-hash") -> Any:
    """A hashed embedder (64 dimensions) recording every text it embeds in ``texts``:
    ``benchmarks/reindex_bench.py``'s."""
    return bench_module("reindex_bench").CountingEmbedder(dim=64, name=name)


class AnyMetadata(HeuristicExtractor):
    """The offline extractor, not saying which chunk metadata it reads (it may read any):
    a metadata change replaces the document whole."""

    metadata_keys = None


def _engine(store: str | Path, emb: Any) -> VizRAG:
    return VizRAG(store, embedder=emb, extractor=AnyMetadata(), chunk_size=300,
                  chunk_overlap=0, index_visualization=False, show_progress=False)


def _chunk_texts(rag: VizRAG) -> dict[str, str]:
    return {c.id: chunk_text(c) for c in rag.store.chunks()}


def _reindex_keeps_vectors(store: str | Path) -> None:
    emb = counting()
    with _engine(store, emb) as rag:
        rag.insert(Document(id="d", title="Scientists", text=TEXT, metadata={"v": 1}))
        texts = _chunk_texts(rag)
        ids, before = rag.store.vectors("chunk", sorted(texts))
        assert len(texts) >= 4 and set(texts.values()) <= set(emb.texts)
        hits = [c.chunk_id for c in rag.retrieve("Where did Lise Meitner study?").chunks]
        emb.texts.clear()
        report = rag.insert(Document(id="d", title="Scientists", text=TEXT, metadata={"v": 2}))
        assert not set(texts.values()) & set(emb.texts)  # no chunk embedded again
        assert report.documents_replaced == 1
        assert report.chunk_vectors_reused == len(texts) == report.chunks
        assert f"{len(texts)} chunks ({len(texts)} kept their vectors)" in report.summary()
        assert rag.store.get_document("d").metadata == {"v": 2}  # type: ignore[union-attr]
        again, after = rag.store.vectors("chunk", ids)
        assert again == ids and np.array_equal(before, after)
        assert [c.chunk_id for c in rag.retrieve("Where did Lise Meitner study?").chunks] == hits
        # one paragraph edited: only the chunks whose text changed are embedded
        emb.texts.clear()
        edited = TEXT.replace("Max Planck studied in Berlin", "Max Born studied in Breslau")
        report = rag.insert(Document(id="d", title="Scientists", text=edited))
        now = _chunk_texts(rag)
        changed = {i for i, t in now.items() if texts.get(i) != t}
        assert changed and len(changed) < len(now)
        assert report.chunk_vectors_reused == len(now) - len(changed)
        assert sorted(t for t in emb.texts if t in now.values()) == sorted(
            now[i] for i in changed)
        assert rag.store.check() == []


def test_a_replaced_document_keeps_the_vectors_of_its_unchanged_chunks(
        tmp_path: Path) -> None:
    _reindex_keeps_vectors(tmp_path / "s")


def test_postgres_keeps_them_too(pg_url: str) -> None:
    _reindex_keeps_vectors(pg_url)


def test_another_embedder_of_the_same_dimension_embeds_every_chunk(tmp_path: Path) -> None:
    with _engine(tmp_path / "s", counting()) as rag:
        rag.insert(Document(id="d", text=TEXT))
    other = counting("another-model")
    with _engine(tmp_path / "s", other) as rag:
        report = rag.insert(Document(id="d", text=TEXT, metadata={"v": 2}))
        texts = _chunk_texts(rag)
    assert report.chunk_vectors_reused == 0
    assert set(texts.values()) <= set(other.texts)


def test_a_moved_folder_is_updated_in_place(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = tmp_path / "notes"
    first.mkdir()
    for i, para in enumerate(TEXT.split("\n\n")[:4]):
        (first / f"n{i}.txt").write_text(para * 3, encoding="utf-8")
    store = str(tmp_path / "store")
    assert cli_main(["index", str(first), "--store", store, "--json", "--no-progress"]) == 0
    added = json.loads(capsys.readouterr().out)
    moved = tmp_path / "archive" / "notes"
    moved.parent.mkdir()
    shutil.move(first, moved)
    assert cli_main(["index", str(moved), "--store", store, "--json", "--no-progress"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["documents_replaced"] == again["metadata_updated"] == 4 and added["chunks"]
    assert again["chunks"] == again["chunk_vectors_reused"] == again["embedded"] == 0
    with HypergraphStore(store) as opened:
        sources = {str(d.metadata["source"]) for d in opened.documents()}
        chunk_sources = {str(c.metadata["source"]) for c in opened.chunks()}
    assert sources == chunk_sources == {str(moved / f"n{i}.txt") for i in range(4)}


def test_a_new_document_or_a_store_without_the_method_embeds_every_chunk(
        tmp_path: Path) -> None:
    import asyncio

    from hyperviz_core.rag.index.reuse import chunk_vectors
    from hyperviz_core.rag.types import Chunk

    chunks = [Chunk(id=f"c{i}", doc_id="d", index=i, text=s)
              for i, s in enumerate(SENTENCES[:3])]
    emb = counting()
    with _engine(tmp_path / "s", emb) as rag:
        rag.insert(Document(id="d", text="\n\n".join(SENTENCES[:3])))
        store = rag.store

        class Other:  # another backend: no unchanged_vectors
            def embedder_info(self) -> tuple[str, int] | None:
                return store.embedder_info()

        for target in (None, Other()):
            emb.texts.clear()
            vectors, reused = asyncio.run(chunk_vectors(target, emb, chunks))
            assert vectors is not None and reused == 0
            assert vectors["chunk"][0] == ["c0", "c1", "c2"] and len(emb.texts) == 3
