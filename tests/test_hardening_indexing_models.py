"""Indexing hardening (audit): model output and vectors.

Non-text chat replies, ``<think>`` in summaries, relation members as one string, entity
names that are objects or booleans, non-finite and float16-overflowing vectors, progress bars
under ``--no-progress``, and local-minilm vectors that depend on the text alone.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import HashingEmbedder, Indexer, local_minilm_available
from hyperviz_core.rag.extract.llm import LLMDescriptionSummarizer
from hyperviz_core.rag.extract.parse.extraction import parse_extraction
from hyperviz_core.rag.store import HypergraphStore, StoreError
from hyperviz_core.rag.store.compact import decode, encode
from hyperviz_core.rag.types import Chunk, Document

DOC = Document(id="d", text="Marie Curie worked with Pierre Curie in Paris on radium.")


class Replies:
    """A chat model answering each call with the next of ``answers`` (the last repeats)."""

    model_name = "fake"

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)

    def _next(self) -> Any:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def complete(self, prompt: str, **kw: Any) -> Any:
        return self._next()

    async def acomplete(self, prompt: str, **kw: Any) -> Any:
        return self._next()


# ----------------------------------------------------------------------- chat replies
def test_a_chat_model_returning_none_fails_the_document_saying_so(tmp_path: Path) -> None:
    ix = Indexer(tmp_path / "store", chat=Replies(None), show_progress=False, max_retries=0)
    rep = ix.index([DOC])
    assert rep.documents_failed == 1
    assert rep.errors == ["d: ProviderError: the chat model returned NoneType, not text"]
    ix.store.close()


def test_summaries_drop_think_blocks_and_none() -> None:
    s = LLMDescriptionSummarizer(Replies("<think>long reasoning</think>\nA physicist."))
    assert s.summarize("Curie", ["one", "two"]) == "A physicist."
    s = LLMDescriptionSummarizer(Replies(None))
    assert s.summarize("Curie", ["one", "two"]) == "one\ntwo"  # not "None"
    import asyncio

    assert asyncio.run(s.asummarize("Curie", ["a"])) == "a"


# ----------------------------------------------------------------------- parsing
def test_relation_members_as_one_string() -> None:
    ext = parse_extraction('{"entities": [], "hyperedges": [{"members": "Marie Curie, Paris",'
                           ' "description": "Curie lived in Paris"}]}', "c")
    assert [h.members for h in ext.hyperedges] == [["marie curie", "paris"]]
    one = parse_extraction('{"members": "Marie Curie; Pierre Curie | Paris", '
                           '"description": "d"}', "c")
    assert len(one.hyperedges) == 1 and len(one.hyperedges[0].members) == 3


def test_entity_names_must_be_strings_or_numbers() -> None:
    ext = parse_extraction('{"entities": [{"name": {"first": "Marie"}}, {"name": true}, '
                           '{"name": ["a", "b"]}, {"name": "Paris"}, {"name": 1905}], '
                           '"hyperedges": [{"members": ["Paris", {"name": false}, 1905]}]}',
                           "c")
    assert sorted(e.name for e in ext.entities) == ["1905", "Paris"]
    assert ext.skipped == 4  # three entities, one member
    assert [h.members for h in ext.hyperedges] == [["paris", "1905"]]
    assert not any("{" in e.name or e.name in ("True", "False") for e in ext.entities)


# ----------------------------------------------------------------------- vectors
class Scaled(HashingEmbedder):
    """Hashed vectors times ``factor`` (NaN/inf make a broken embedder)."""

    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor
        self.name = f"scaled-{factor}"

    def embed(self, texts: Any) -> npt.NDArray[np.float32]:
        with np.errstate(invalid="ignore", over="ignore"):
            return (super().embed(texts) * np.float32(self.factor)).astype(np.float32)


@pytest.mark.parametrize("factor", [float("nan"), float("inf")])
def test_non_finite_vectors_fail_the_document(tmp_path: Path, factor: float) -> None:
    ix = Indexer(tmp_path / "store", embedder=Scaled(factor), show_progress=False)
    rep = ix.index([DOC, Document(id="e", text="Pierre Curie taught at the Sorbonne.")])
    assert rep.documents_failed == 2 and rep.documents_added == 0
    assert f"embedder 'scaled-{factor}' returned NaN or infinite values" in rep.errors[0]
    stats = ix.store.stats()
    assert stats.documents == 0 and sum(stats.vectors.values()) == 0
    ix.store.close()


def test_the_store_refuses_non_finite_vectors_given_directly(tmp_path: Path) -> None:
    with HypergraphStore(tmp_path / "s") as store:
        chunk = Chunk(id="c", doc_id="d", text="t")
        with pytest.raises(StoreError, match="NaN or infinite"):
            store.add_document(Document(id="d", text="t"), [chunk],
                               vectors={"chunk": (["c"], np.array([[np.nan, 1.0]]))})
        assert store.stats().documents == 0


def test_float16_overflow_is_normalised_unit_rows_unchanged(tmp_path: Path) -> None:
    from hyperviz_core.rag.store.compact import nonfinite_vectors

    unit = HashingEmbedder().embed(["Marie Curie", "Paris"])
    for row in unit:  # a unit row is stored exactly as before
        assert encode(row, "float16") == np.asarray(row, np.float32).astype(np.float16).tobytes()
    big = np.array([3e5, -4e5, 0.0], dtype=np.float32)
    out = decode([encode(big, "float16")], 3)[0]
    assert np.isfinite(out).all() and np.allclose(out, [0.6, -0.8, 0.0], atol=1e-3)
    tiny = np.array([3e-9, 4e-9], dtype=np.float32)
    assert np.allclose(decode([encode(tiny, "float16")], 2)[0], [0.6, 0.8], atol=1e-3)
    # indexing with an embedder of large components: finite vectors, same search order
    plain = Indexer(tmp_path / "plain", show_progress=False)
    scaled = Indexer(tmp_path / "scaled", embedder=Scaled(1e6), show_progress=False)
    docs = [DOC, Document(id="e", text="Pierre Curie taught physics at the Sorbonne.")]
    for ix in (plain, scaled):
        assert ix.index(docs).documents_added == 2
    q = HashingEmbedder().embed(["Curie in Paris"])[0]
    hits = [[i for i, _ in ix.store.search("chunk", q, 2)] for ix in (plain, scaled)]
    assert hits[0] == hits[1]
    for ix in (plain, scaled):
        ix.store.close()
    conn = sqlite3.connect(tmp_path / "scaled" / "vizrag.sqlite")
    rows = conn.execute("SELECT space, id, vector FROM embeddings").fetchall()
    assert rows and nonfinite_vectors(rows, HashingEmbedder().dim) == []


def test_stored_non_finite_vectors_are_found(tmp_path: Path) -> None:
    from hyperviz_core.rag.store.compact import nonfinite_vectors

    ix = Indexer(tmp_path / "store", show_progress=False)
    ix.index([DOC])
    ix.store.close()
    conn = sqlite3.connect(tmp_path / "store" / "vizrag.sqlite")
    (space, item), = conn.execute("SELECT space, id FROM embeddings LIMIT 1").fetchall()
    dim = HashingEmbedder().dim
    conn.execute("UPDATE embeddings SET vector = ? WHERE space = ? AND id = ?",
                 (np.full(dim, np.inf, dtype=np.float16).tobytes(), space, item))
    conn.commit()
    rows = conn.execute("SELECT space, id, vector FROM embeddings").fetchall()
    assert nonfinite_vectors(rows, dim, block=2) == [f"{space}/{item}"]


# ----------------------------------------------------------------------- progress bars
def test_no_progress_reaches_the_local_embedder_and_the_ann_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import hyperviz_core.rag.local_embed as local_embed
    import hyperviz_core.rag.store.sqlite.ann_files as ann_files
    from hyperviz_core.rag.ann import usearch_available

    made: list[bool] = []

    class FakeLocal(HashingEmbedder):
        def __init__(self, *, show_progress: bool = True) -> None:
            super().__init__()
            made.append(show_progress)

    bars: list[Any] = []
    real_tqdm = ann_files.tqdm

    def tqdm(*args: Any, **kwargs: Any) -> Any:
        bars.append(kwargs.get("disable"))
        return real_tqdm(*args, **{**kwargs, "disable": True})

    monkeypatch.setattr(local_embed, "LocalMiniLMEmbedder", FakeLocal)
    monkeypatch.setattr(ann_files, "tqdm", tqdm)
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "text": "Marie Curie worked in Paris."}\n'
                      '{"id": "b", "text": "Pierre Curie taught at the Sorbonne."}\n')
    args = [str(corpus), "--embed", "local-minilm", "--ann-threshold", "1"]
    assert main(["index", *args, "--store", str(tmp_path / "s1"), "--no-progress"]) == 0
    assert made == [False]
    if usearch_available():
        assert bars and set(bars) == {True}
    bars.clear()
    assert main(["index", *args, "--store", str(tmp_path / "s2")]) == 0
    assert made == [False, True]
    if usearch_available():
        assert bars and set(bars) == {None}  # on a terminal: shown
    capsys.readouterr()


# ----------------------------------------------------------------------- local-minilm
@pytest.mark.skipif(not local_minilm_available(), reason="optional extra vizrag[local]")
def test_local_minilm_vectors_depend_on_the_text_alone() -> None:
    from hyperviz_core.rag import LocalMiniLMEmbedder

    texts = ["Marie Curie", "Paris", "a much longer sentence about the river Danube and "
             "the cities it flows through, Vienna and Budapest among them"]
    alone = LocalMiniLMEmbedder(show_progress=False, cache_size=0)
    together = LocalMiniLMEmbedder(show_progress=False, cache_size=0, batch_size=2)
    batch = together.embed([*texts, "Pierre Curie", "radium"])
    for n, text in enumerate(texts):
        assert alone.embed([text])[0].tobytes() == batch[n].tobytes()
    model = alone._load()
    ref = model.encode(texts[:1], normalize_embeddings=True, convert_to_numpy=True,
                       show_progress_bar=False)
    np.testing.assert_array_equal(ref[0], batch[0])  # the numbers encode() gives one text
