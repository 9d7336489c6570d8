"""The SQLite store: transactions, merge/delete, graphs, vectors, cache, opening checks."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hyperviz_core.model import Entity, Hyperedge
from hyperviz_core.rag.store import HypergraphStore, StoreError
from hyperviz_core.rag.store.sqlite.schema import SCHEMA_VERSION
from hyperviz_core.rag.types import Chunk, ChunkExtraction, ChunkTheme, Document
from hyperviz_core.rag.vectors import ExactVectorIndex


class TinyEmbedder:
    """Deterministic bag-of-letters embedder (26 dims) that counts its calls."""

    def __init__(self, dim: int = 26, name: str = "tiny") -> None:
        self.dim, self.name, self.texts = dim, name, []  # type: ignore[var-annotated]

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t.lower():
                if "a" <= ch <= "z":
                    out[i, (ord(ch) - 97) % self.dim] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1
        return out / norms


def make_doc(doc_id: str, people: list[str], place: str, theme: str, text: str = "") -> tuple:
    """A one-chunk document whose chunk mentions ``people`` in ``place``."""
    text = text or f"{' and '.join(people)} lived in {place}."
    doc = Document(id=doc_id, text=text, title=doc_id.upper())
    chunk = Chunk(id=f"{doc_id}-c0", doc_id=doc_id, text=text, end=len(text))
    ents = [Entity(name=p, type="person", description=f"{p} in {doc_id}") for p in people]
    ents.append(Entity(name=place, type="location", description=f"{place} ({doc_id})"))
    edges = [Hyperedge(members=[*people, place], description=f"{doc_id}: lived together")]
    ex = ChunkExtraction(chunk_id=chunk.id, entities=ents, hyperedges=edges)
    th = ChunkTheme(chunk_id=chunk.id, theme=theme, key_entities=[people[0], place],
                    keywords=[theme.split()[0]])
    return doc, [chunk], [ex], [th]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HypergraphStore]:
    s = HypergraphStore(tmp_path / "st")
    yield s
    s.close()


def test_add_creates_both_layers(store: HypergraphStore) -> None:
    emb = TinyEmbedder()
    w = store.add_document(*make_doc("d1", ["Ann", "Bob"], "Paris", "family life"), embedder=emb)
    assert w.status == "added" and w.chunks == 1
    s = store.stats()
    assert (s.documents, s.chunks, s.entities, s.relation_hyperedges) == (1, 1, 3, 1)
    assert (s.theme_hyperedges, s.key_entities, s.themes) == (1, 2, 1)
    # a new store keeps only the spaces retrieval reads (issue 17: no hyperedge vectors)
    assert s.vectors == {"entity": 3, "hyperedge": 0, "theme": 1, "chunk": 1}
    assert s.embedder == "tiny" and s.embedding_dim == 26
    bot, top = store.bottom(), store.top()
    assert sorted(bot.entities) == ["ann", "bob", "paris"]
    (edge,) = bot.hyperedges.values()
    assert edge.members == ["ann", "bob", "paris"] and edge.kind == "relation"
    assert edge.source_ids == ["d1-c0"]
    assert sorted(top.entities) == ["ann", "paris"]
    (theme,) = top.hyperedges.values()
    assert theme.kind == "theme" and theme.description == "family life"
    assert bot.entities["ann"].type == "person" and bot.entities["ann"].source_ids == ["d1-c0"]
    bot.check_consistency()
    top.check_consistency()
    assert store.check() == []


def test_identical_document_is_noop_and_changed_one_replaces(store: HypergraphStore) -> None:
    emb = TinyEmbedder()
    parts = make_doc("d1", ["Ann", "Bob"], "Paris", "family life")
    store.add_document(*parts, embedder=emb)
    n_calls = len(emb.texts)
    assert store.add_document(*parts, embedder=emb).status == "skipped"
    assert len(emb.texts) == n_calls
    new = make_doc("d1", ["Cyd", "Bob"], "Rome", "travel", text="Cyd and Bob went to Rome.")
    assert store.add_document(*new, embedder=emb).status == "replaced"
    assert sorted(store.bottom().entities) == ["bob", "cyd", "rome"]
    assert store.stats().documents == 1
    assert store.stats().vectors["chunk"] == 1
    assert store.bottom().entities["bob"].description == "Bob in d1"
    assert store.check() == []


def test_shared_entities_merge_and_delete_rebuilds(store: HypergraphStore) -> None:
    emb = TinyEmbedder()
    store.add_document(*make_doc("d1", ["Ann", "Bob"], "Paris", "family life"), embedder=emb)
    store.add_document(*make_doc("d2", ["Ann", "Eve"], "Paris", "work"), embedder=emb)
    ann = store.bottom().entities["ann"]
    assert ann.description == "Ann in d1\nAnn in d2"
    assert ann.source_ids == ["d1-c0", "d2-c0"]
    assert store.stats().entities == 4
    idx = store.vector_index("entity")
    assert isinstance(idx, ExactVectorIndex)
    before = idx.vector("ann")
    counts = store.delete_document("d1", embedder=emb)
    assert counts["documents"] == 1 and counts["chunks"] == 1
    assert counts["entities"] == 1  # bob only
    assert counts["relation_hyperedges"] == 1 and counts["theme_hyperedges"] == 0
    bot = store.bottom()
    assert sorted(bot.entities) == ["ann", "eve", "paris"]
    assert bot.entities["ann"].description == "Ann in d2"
    assert bot.entities["ann"].source_ids == ["d2-c0"]
    assert bot.entities["paris"].description == "Paris (d2)"
    # the loaded vector index followed the delete and the re-embedding
    assert "bob" not in idx and "ann" in idx
    assert not np.allclose(before, idx.vector("ann"))
    assert store.stats().vectors["chunk"] == 1
    assert store.delete_document("nope")["documents"] == 0
    assert store.check() == []


def test_same_theme_members_merge_into_one_theme_hyperedge(store: HypergraphStore) -> None:
    store.add_document(*make_doc("d1", ["Ann", "Bob"], "Paris", "family life"))
    store.add_document(*make_doc("d2", ["Ann", "Cy"], "Paris", "art school"))
    top = store.top()
    assert len(top.hyperedges) == 1
    (theme,) = top.hyperedges.values()
    assert theme.description == "family life\nart school"
    assert theme.source_ids == ["d1-c0", "d2-c0"]
    assert store.theme_hyperedge_chunks() == {theme.id: ["d1-c0", "d2-c0"]}
    assert [t.theme for t in store.themes()] == ["family life", "art school"]


def test_merge_is_independent_of_insertion_order(tmp_path: Path) -> None:
    docs = [make_doc(f"d{i}", ["Ann", f"P{i}"], "Paris", f"t{i}") for i in range(4)]
    a, b = HypergraphStore(tmp_path / "a"), HypergraphStore(tmp_path / "b")
    for d in docs:
        a.add_document(*d)
    for d in reversed(docs):
        b.add_document(*d)
    ga, gb = a.bottom(), b.bottom()
    assert ga.model_dump() == gb.model_dump()
    assert a.top().model_dump() == b.top().model_dump()


def test_failed_write_rolls_back(store: HypergraphStore) -> None:
    store.add_document(*make_doc("d1", ["Ann", "Bob"], "Paris", "family life"))

    class Boom:
        name, dim = "tiny", 26

        def embed(self, texts: list[str]) -> np.ndarray:
            raise RuntimeError("embedder down")

    with pytest.raises(RuntimeError, match="embedder down"):
        store.add_document(*make_doc("d2", ["Eve", "Bob"], "Oslo", "x"), embedder=Boom())
    s = store.stats()
    assert (s.documents, s.chunks, s.entities) == (1, 1, 3)
    assert not store.has_document("d2")
    assert store.bottom().entities["bob"].source_ids == ["d1-c0"]
    assert store.check() == []


def test_invalid_writes_are_refused(store: HypergraphStore) -> None:
    doc, chunks, ex, th = make_doc("d1", ["Ann", "Bob"], "Paris", "t")
    with pytest.raises(StoreError, match="not a chunk of document"):
        store.add_document(doc, chunks, [ex[0].model_copy(update={"chunk_id": "zz"})], th)
    other = chunks[0].model_copy(update={"doc_id": "d9"})
    with pytest.raises(StoreError, match="do not belong"):
        store.add_document(doc, [other], [], [])
    assert store.stats().documents == 0


def test_hyperedge_member_without_entity_is_created(store: HypergraphStore) -> None:
    doc = Document(id="d", text="x")
    ch = Chunk(id="c", doc_id="d", text="x")
    ex = ChunkExtraction(chunk_id="c", entities=[Entity(name="Ann")],
                         hyperedges=[Hyperedge(members=["Ann", "Zed"], description="knows")])
    store.add_document(doc, [ch], [ex], [ChunkTheme(chunk_id="c", theme="t",
                                                    key_entities=["Quinn", ""])])
    bot = store.bottom()
    assert sorted(bot.entities) == ["ann", "quinn", "zed"]
    assert store.top().entities["quinn"].name == "Quinn"
    bot.check_consistency()


def test_embedding_dimension_mismatch_is_refused(store: HypergraphStore) -> None:
    store.add_document(*make_doc("d1", ["Ann", "Bob"], "Paris", "t"), embedder=TinyEmbedder())
    with pytest.raises(StoreError, match="26-dimensional"):
        store.add_document(*make_doc("d2", ["Ann", "Bo"], "Oslo", "t"),
                           embedder=TinyEmbedder(dim=8, name="small"))
    with pytest.raises(StoreError, match="8-dimensional"):
        store.check_embedder("small", 8)
    assert store.stats().documents == 1


def test_vector_search_and_external_refresh(tmp_path: Path) -> None:
    emb = TinyEmbedder()
    a = HypergraphStore(tmp_path / "s")
    a.add_document(*make_doc("d1", ["Ann", "Bob"], "Paris", "family life"), embedder=emb)
    hits = a.search("entity", emb.embed(["Paris: Paris (d1)"])[0], k=2)
    assert hits[0][0] == "paris" and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert a.vector_index("chunk").search(emb.embed(["zzz"])[0], 5)[0][0] == "d1-c0"
    # a second connection (another process, e.g. the CLI) writes; the first sees it
    b = HypergraphStore(tmp_path / "s")
    b.add_document(*make_doc("d2", ["Zoe", "Quill"], "Oslo", "winter"), embedder=emb)
    b.close()
    assert "zoe" in a.bottom().entities
    ids = [i for i, _ in a.search("entity", emb.embed(["Zoe"])[0], k=10)]
    assert "zoe" in ids and len(ids) == 6
    a.close()


def test_set_vector_index_forwards_writes(store: HypergraphStore) -> None:
    emb = TinyEmbedder()
    store.add_document(*make_doc("d1", ["Ann", "Bob"], "Paris", "t"), embedder=emb)
    custom = ExactVectorIndex()
    store.set_vector_index("entity", custom)
    assert len(custom) == 3
    store.add_document(*make_doc("d2", ["Cat", "Dan"], "Oslo", "t"), embedder=emb)
    assert len(custom) == 6
    with pytest.raises(StoreError, match="unknown vector space"):
        store.vector_index("nope")


def test_given_vectors_are_used(store: HypergraphStore) -> None:
    doc, chunks, ex, th = make_doc("d1", ["Ann", "Bob"], "Paris", "t")
    mat = np.eye(4, dtype=np.float32)[:1]
    store.add_document(doc, chunks, ex, th, {"chunk": ([chunks[0].id], mat)})
    ids, got = store.vectors("chunk")
    assert ids == [chunks[0].id] and got.shape == (1, 4)
    assert store.stats().vectors["entity"] == 0  # no embedder given


def test_cache_roundtrip_and_threads(store: HypergraphStore) -> None:
    assert store.cache_get("k") is None
    store.cache_put("k", "v", model="m")
    assert store.cache_get("k") == "v"

    def put(i: int) -> None:
        for j in range(20):
            store.cache_put(f"{i}-{j}", "x" * j, model="m")

    threads = [threading.Thread(target=put, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.cache_size() == 81


def test_documents_and_chunks_roundtrip(store: HypergraphStore) -> None:
    doc, chunks, ex, th = make_doc("d1", ["Ann", "Bob"], "Paris", "t")
    doc = doc.model_copy(update={"metadata": {"url": "http://x", "n": 1}})
    store.add_document(doc, chunks, ex, th)
    (back,) = store.documents()
    assert back == doc and store.get_document("d1") == doc and store.get_document("x") is None
    assert store.chunks() == chunks and store.chunks(["nope", chunks[0].id]) == chunks
    assert store.chunk_ids("d1") == [chunks[0].id]
    assert store.chunk_doc_ids() == {chunks[0].id: "d1"}
    assert store.document_hash("d1") == doc.hash


def test_reopen_keeps_everything(tmp_path: Path) -> None:
    s = HypergraphStore(tmp_path / "store.sqlite")
    s.add_document(*make_doc("d1", ["Ann", "Bob"], "Paris", "t"), embedder=TinyEmbedder())
    before = s.stats()
    s.close()
    assert (tmp_path / "store.sqlite").is_file()
    with HypergraphStore(tmp_path / "store.sqlite") as again:
        assert again.stats() == before


def test_opening_bad_files_gives_clear_errors(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable VizRAG store"):
        HypergraphStore(junk)
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not a VizRAG store"):
        HypergraphStore(other)
    newer = tmp_path / "newer"
    HypergraphStore(newer).close()
    con = sqlite3.connect(newer / "vizrag.sqlite")
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="newer VizRAG"):
        HypergraphStore(newer)
    assert issubclass(StoreError, ValueError)


def test_no_pickle_in_store_modules() -> None:
    import hyperviz_core.rag as rag

    root = Path(rag.__file__).parent
    paths = [*sorted((root / "store").rglob("*.py")), root / "vectors.py"]
    assert len(paths) > 5
    for path in paths:
        text = path.read_text()
        assert "import pickle" not in text and "pickle." not in text, path


def test_exact_vector_index_basics() -> None:
    idx = ExactVectorIndex()
    assert idx.search(np.ones(3), 5) == []
    idx.add(["a", "b", "c"], np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]], dtype=np.float32))
    assert [i for i, _ in idx.search(np.array([1, 0.1, 0]), 2)] == ["a", "c"]
    idx.remove(["a", "zz"])
    assert len(idx) == 2 and [i for i, _ in idx.search(np.array([1, 0, 0]), 5)] == ["c", "b"]
    idx.add(["b"], np.array([[0, 0, 2]], dtype=np.float32))  # replace
    assert idx.search(np.array([0, 0, 1]), 1) == [("b", pytest.approx(1.0))]
    with pytest.raises(ValueError, match="dimension"):
        idx.add(["d"], np.ones((1, 4), dtype=np.float32))
    # ties are broken by id, and zero queries score 0
    tie = ExactVectorIndex()
    tie.add(["z", "y", "x"], np.ones((3, 2), dtype=np.float32))
    assert [i for i, _ in tie.search(np.ones(2), 2)] == ["x", "y"]
    assert all(s == 0 for _, s in tie.search(np.zeros(2), 3))
    big = ExactVectorIndex()
    rng = np.random.default_rng(0)
    mat = rng.normal(size=(500, 16)).astype(np.float32)
    big.add([f"v{i:03d}" for i in range(500)], mat)
    q = rng.normal(size=16)
    want = np.argsort(-(mat / np.linalg.norm(mat, axis=1, keepdims=True)) @ q)[:10]
    assert [i for i, _ in big.search(q, 10)] == [f"v{i:03d}" for i in want]


def test_two_connections_writing_the_same_documents(tmp_path: Path) -> None:
    docs = [make_doc(f"d{i}", ["Ann", f"P{i}"], "Paris", f"t{i}") for i in range(15)]
    errors: list[BaseException] = []

    def writer(order: list[int]) -> None:
        s = HypergraphStore(tmp_path / "s")
        try:
            for i in order:
                s.add_document(*docs[i], embedder=TinyEmbedder())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            s.close()

    HypergraphStore(tmp_path / "s").close()
    threads = [threading.Thread(target=writer, args=(o,))
               for o in (list(range(15)), list(reversed(range(15))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with HypergraphStore(tmp_path / "s") as s:
        assert s.stats().documents == 15 and s.check() == []
        assert s.bottom().entities["ann"].source_ids == sorted(f"d{i}-c0" for i in range(15))


def test_empty_document_is_stored_without_chunks(store: HypergraphStore) -> None:
    doc = Document(id="empty", text="   ")
    assert store.add_document(doc, []).status == "added"
    assert store.add_document(doc, []).status == "skipped"
    assert store.check() == [] and store.stats().chunks == 0


def test_write_page_cache_is_raised_only_while_writing(tmp_path: Path) -> None:
    """A batch write runs with the larger write cache and gives the default back; a size a
    caller set with ``page_cache`` is kept through the write."""
    from hyperviz_core.rag.store.sqlite.schema import CACHE_KIB, WRITE_CACHE_KIB

    seen: list[int] = []
    with HypergraphStore(tmp_path) as store:
        size = lambda: int(store._conn.execute("PRAGMA cache_size").fetchone()[0])  # noqa: E731
        original = store._write_batch

        def spy(*args: object, **kwargs: object) -> object:
            seen.append(size())
            return original(*args, **kwargs)  # type: ignore[arg-type]

        store._write_batch = spy  # type: ignore[method-assign]
        doc = Document(id="d1", text="Ada Falk founded the library.")
        store.add_document(doc, [Chunk(id="c1", doc_id="d1", text=doc.text)], [])
        assert size() == -CACHE_KIB
        with store.page_cache(2048):
            doc2 = Document(id="d2", text="Bruno Dorn joined it.")
            store.add_document(doc2, [Chunk(id="c2", doc_id="d2", text=doc2.text)], [])
            assert size() == -2048
        assert size() == -CACHE_KIB
    assert seen == [-WRITE_CACHE_KIB, -2048]
