"""Deleting several documents is one transaction: all of them, or — on any failure — none.

``delete_documents`` (both backends) deletes a batch with one rebuild of what it touched; the
engine's ``delete_many``, LlamaIndex's ``delete_ref_doc``/``delete_nodes`` and LangChain's
``delete(ids)`` use it. Before, each document was its own transaction, so a failure midway
(a provider error while re-embedding, a store error, another writer) left a ref doc half
deleted. A failure "midway" is injected as a trigger that raises when the second document's
row is deleted (after the first one's rows went), or as an embedder/summariser that raises
during the rebuild. The PostgreSQL server is started by the test suite (``pg_server.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from hyperviz_core.model import Entity, Hyperedge
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store import DocumentInput, StoreProtocol, open_store
from hyperviz_core.rag.types import Chunk, ChunkExtraction, ChunkTheme, Document

BACKENDS = ("sqlite", "postgres")
_names = itertools.count()

# document → (people, place, theme): Marie Curie and Paris are shared by several documents
CORPUS = {
    "d1": (["Marie Curie", "Pierre Curie"], "Paris", "radioactivity research"),
    "d2": (["Marie Curie", "Irene Curie"], "Paris", "radioactivity research"),
    "d3": (["Albert Einstein"], "Bern", "patent office"),
    "d4": (["Marie Curie", "Albert Einstein"], "Solvay", "physics conference"),
    "d5": (["Niels Bohr"], "Copenhagen", "quantum theory"),
}


class ShaEmbedder:
    """Deterministic: a vector from the SHA-256 of the exact text."""

    name, dim = "sha", 8

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8)
                for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim) + 1


class FailingEmbedder(ShaEmbedder):
    """A provider that fails (the rebuild re-embeds the shared entities)."""

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        raise RuntimeError("provider down")


def _item(doc_id: str) -> DocumentInput:
    people, place, theme = CORPUS[doc_id]
    text = f"{' and '.join(people)} worked in {place} on {theme}."
    chunk = Chunk(id=f"{doc_id}-c0", doc_id=doc_id, text=text, end=len(text))
    ents = [Entity(name=p, type="person", description=f"{p} in {doc_id}") for p in people]
    ents.append(Entity(name=place, type="location", description=f"{place} ({doc_id})"))
    edges = [Hyperedge(members=[*people, place], description=f"{doc_id}: worked together")]
    return DocumentInput(
        doc=Document(id=doc_id, text=text, title=doc_id.upper()), chunks=[chunk],
        extractions=[ChunkExtraction(chunk_id=chunk.id, entities=ents, hyperedges=edges)],
        themes=[ChunkTheme(chunk_id=chunk.id, theme=theme, key_entities=[people[0], place])])


@pytest.fixture(params=BACKENDS)
def new_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A factory of fresh stores (each holding the corpus) of the backend."""
    opened: list[StoreProtocol] = []

    def make() -> StoreProtocol:
        if request.param == "postgres":
            spec = _new_database(request.getfixturevalue("pg_server"))
        else:
            spec = str(tmp_path / f"s{next(_names)}")
        store = open_store(spec)
        opened.append(store)
        store.add_documents([_item(d) for d in CORPUS], embedder=ShaEmbedder())
        return store

    yield make
    for store in opened:
        store.close()


def _new_database(server: str) -> str:
    from pg_server import fresh_database

    return fresh_database(server, "vizrag_delete")


def _snapshot(store: StoreProtocol) -> dict[str, Any]:
    """Everything observable of a store's contents."""
    out: dict[str, Any] = {
        "documents": [d.model_dump() for d in store.documents()],
        "chunks": [c.model_dump() for c in store.chunks()],
        "themes": [t.model_dump() for t in store.themes()],
        "bottom": store.bottom().model_dump(),
        "top": store.top().model_dump(),
        "stats": store.stats().model_dump(exclude={"path"}),
    }
    for space in ("entity", "hyperedge", "theme", "chunk"):
        ids, mat = store.vectors(space)
        out[space] = sorted(zip(ids, np.round(mat, 5).tolist(), strict=True))
    return out


def _fail_on_delete(store: Any, doc_id: str) -> None:
    """Make deleting the row of ``doc_id`` raise ``boom`` (another connection adds a trigger)."""
    if str(store.path).startswith("postgresql"):
        import psycopg

        with psycopg.connect(store.url, autocommit=True) as c:
            c.execute("CREATE FUNCTION boom() RETURNS trigger AS $$ BEGIN "
                      f"IF OLD.id = '{doc_id}' THEN RAISE EXCEPTION 'boom'; END IF; "
                      "RETURN OLD; END $$ LANGUAGE plpgsql")
            c.execute("CREATE TRIGGER boom BEFORE DELETE ON documents FOR EACH ROW "
                      "EXECUTE FUNCTION boom()")
        return
    with sqlite3.connect(store.path) as c:
        c.execute(f"CREATE TRIGGER boom BEFORE DELETE ON documents WHEN OLD.id = '{doc_id}' "
                  "BEGIN SELECT RAISE(ABORT, 'boom'); END")


def _repair(store: Any) -> None:
    if str(store.path).startswith("postgresql"):
        import psycopg

        with psycopg.connect(store.url, autocommit=True) as c:
            c.execute("DROP TRIGGER boom ON documents")
        return
    with sqlite3.connect(store.path) as c:
        c.execute("DROP TRIGGER boom")


def test_batch_equals_one_by_one(new_store: Any) -> None:
    batch, single = new_store(), new_store()
    got = batch.delete_documents(["d2", "d1", "unknown", "d2", "d4"], embedder=ShaEmbedder())
    summed: dict[str, int] = {}
    for doc_id in ("d2", "d1", "d4"):
        for k, v in single.delete_document(doc_id, embedder=ShaEmbedder()).items():
            summed[k] = summed.get(k, 0) + v
    assert got["documents"] == 3
    updated = got.pop("updated_entities")
    # each removed item is removed once either way; a surviving entity is rebuilt once in a
    # batch, once per delete one by one
    assert got == {k: v for k, v in summed.items() if k != "updated_entities"}
    assert 0 < updated <= summed["updated_entities"]
    assert _snapshot(batch) == _snapshot(single)
    assert [d.id for d in batch.documents()] == ["d3", "d5"]
    assert batch.check() == [] and single.check() == []
    assert batch.delete_documents(["d1", "d2"]) == dict.fromkeys(got | {"updated_entities": 0},
                                                                 0)


def test_failure_midway_deletes_nothing(new_store: Any) -> None:
    store = new_store()
    before = _snapshot(store)
    _fail_on_delete(store, "d2")  # d1's rows are deleted first, then d2's raise
    with pytest.raises(Exception, match="boom"):
        store.delete_documents(["d1", "d2", "d4"], embedder=ShaEmbedder())
    assert _snapshot(store) == before
    assert store.check() == []
    _repair(store)
    assert store.delete_documents(["d1", "d2", "d4"], embedder=ShaEmbedder())["documents"] == 3
    assert [d.id for d in store.documents()] == ["d3", "d5"]


@pytest.mark.parametrize("fails", ["embedder", "summarize"])
def test_provider_error_in_the_rebuild_deletes_nothing(new_store: Any, fails: str) -> None:
    store = new_store()
    before = _snapshot(store)

    def summarize(name: str, description: str) -> str:
        raise RuntimeError("provider down")

    store.summary_threshold = 1  # every rebuilt description goes to the summariser
    with pytest.raises(RuntimeError, match="provider down"):
        if fails == "embedder":  # Marie Curie and Paris survive (d4, d1): re-embedded
            store.delete_documents(["d2", "d3"], embedder=FailingEmbedder())
        else:
            store.delete_documents(["d2", "d3"], embedder=ShaEmbedder(), summarize=summarize)
    assert _snapshot(store) == before
    assert store.check() == []


def test_ids_are_checked_first(tmp_path: Path) -> None:
    with open_store(tmp_path / "s") as store:
        store.add_documents([_item(d) for d in CORPUS])
        with pytest.raises(TypeError, match=r"not int 5"):
            store.delete_documents(["d1", 5])  # type: ignore[list-item]
        with pytest.raises(TypeError, match=r"iterable of document ids.*'d1'"):
            store.delete_documents("d1")
        with pytest.raises(TypeError, match=r"list of document ids, got NoneType None"):
            store.delete_documents(None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="not NoneType None"):
            store.delete_document(None)  # type: ignore[arg-type]
        assert len(store.documents()) == len(CORPUS)  # nothing deleted
        assert store.delete_documents([])["documents"] == 0
        assert store.delete_documents(["nope"])["documents"] == 0
        assert store.delete_document("d5")["documents"] == 1


def test_engine_delete_many(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id=i, text=f"Marie Curie lived in Paris. Text {i}.")
                    for i in ("a", "b", "c")])
        with pytest.raises(TypeError, match="use delete"):
            rag.delete_many("a")
        with pytest.raises(TypeError, match="one document id"):
            rag.delete(["a"])  # type: ignore[arg-type]
        before = _snapshot(rag.store)
        real = rag.indexer.embedder
        rag.indexer.embedder = Down(real)
        with pytest.raises(RuntimeError, match="provider down"):
            rag.delete_many(["a", "b"])  # Marie Curie survives in c: re-embedded
        assert _snapshot(rag.store) == before
        rag.indexer.embedder = real
        assert rag.delete_many(["a", "b", "a"])["documents"] == 2
        assert [d.id for d in rag.store.documents()] == ["c"]
        assert {c.doc_id for c in rag.retrieve("Marie Curie", render=False).chunks} == {"c"}


class Down:
    """The engine's embedder, failing (same name and dimension)."""

    def __init__(self, real: Any) -> None:
        self.name, self.dim = real.name, real.dim

    def embed(self, texts: list[str]) -> Any:
        raise RuntimeError("provider down")

    async def aembed(self, texts: list[str]) -> Any:
        raise RuntimeError("provider down")


# ------------------------------------------------------------------ wrappers
def test_llamaindex_ref_doc_delete_failing_midway_keeps_every_node() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document as LIDocument
    from llama_index.core.node_parser import SentenceSplitter

    from vizrag_llamaindex import VizRAGIndex
    from vizrag_llamaindex.documents import ref_doc_of

    text = "Marie Curie worked with Pierre Curie in Paris. She studied radium. " * 12
    index = VizRAGIndex.from_documents(
        [LIDocument(text=text, id_="curie"), LIDocument(text="Bohr was Danish.", id_="bohr")],
        transformations=[SentenceSplitter(chunk_size=64, chunk_overlap=0)])
    store = index.engine.store

    def curie_nodes() -> list[str]:  # the engine documents of the curie nodes
        return sorted(d.id for d in store.documents() if ref_doc_of(d) == "curie")

    nodes = curie_nodes()
    assert len(nodes) >= 3
    before = _snapshot(store)
    _fail_on_delete(store, nodes[1])  # the first node goes, then the second fails
    with pytest.raises(Exception, match="boom"):
        index.delete_ref_doc("curie")
    with pytest.raises(Exception, match="boom"):
        index.delete_nodes(nodes[:2])
    with pytest.raises(Exception, match="boom"):
        asyncio.run(index.adelete_ref_doc("curie"))
    with pytest.raises(Exception, match="boom"):
        asyncio.run(index.adelete_nodes(nodes))
    assert curie_nodes() == nodes
    assert _snapshot(store) == before
    assert store.check() == []
    _repair(store)
    index.delete_nodes(nodes[:2])
    assert curie_nodes() == nodes[2:]
    index.delete_ref_doc("curie")
    assert sorted(index.ref_doc_info) == ["bohr"]
    index.close()


def test_langchain_delete_failing_midway_keeps_every_document(tmp_path: Path) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document as LCDocument

    from vizrag_langchain import VizRAGRetriever

    docs = [LCDocument(page_content=f"Marie Curie lived in Paris. Part {i}.", id=f"p{i}")
            for i in range(3)]
    with VizRAGRetriever.from_documents(docs, tmp_path / "s") as retriever:
        store = retriever.engine.store
        before = _snapshot(store)
        _fail_on_delete(store, "p1")
        with pytest.raises(Exception, match="boom"):
            retriever.delete(["p0", "p1", "p2"])
        assert _snapshot(store) == before
        assert store.check() == []
        _repair(store)
        retriever.delete(["p0", "p1"])
        assert [d.id for d in store.documents()] == ["p2"]
