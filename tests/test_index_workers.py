"""Offline extraction in worker processes: the same store as in one process."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import (
    ChunkExtraction,
    Document,
    HeuristicExtractor,
    HeuristicThemeExtractor,
)
from hyperviz_core.rag.index.indexer import Indexer
from hyperviz_core.rag.index.workers import ExtractionPool, auto_workers, process_safe

DEMO = (Path(__file__).parents[1] / "hyperviz_core" / "data" / "demo"
        / "musique_demo_passages.json")
TABLES = ("documents", "chunks", "entity_mentions", "hyperedge_mentions", "themes",
          "key_entities", "entities", "hyperedges", "incidences", "embeddings")


def _docs() -> list[Document]:
    rows = json.loads(DEMO.read_text("utf-8"))
    return [Document(id=str(r.get("id", n)), text=r["text"], title=r.get("title", ""))
            for n, r in enumerate(rows)]


def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the store's tables (documents without their commit sequence)."""
    con = sqlite3.connect(path / "vizrag.sqlite")
    try:
        out = {}
        for table in TABLES:
            cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})") if r[1] != "seq"]
            out[table] = sorted(con.execute(f"SELECT {', '.join(cols)} FROM {table}"),
                                key=repr)
        return out
    finally:
        con.close()


def test_a_worker_process_writes_the_same_store(tmp_path: Path) -> None:
    docs = _docs()
    for name, workers in (("one", 0), ("pool", 1)):
        idx = Indexer(tmp_path / name, show_progress=False, workers=workers,
                      max_inflight_bytes=4096)
        report = idx.index(docs)
        assert report.documents_added == len(docs) and report.documents_failed == 0
        idx.store.close()
    one, pool = _dump(tmp_path / "one"), _dump(tmp_path / "pool")
    assert one["entities"] and one == pool


def test_pool_runs_the_extractors_as_the_indexer_does() -> None:
    doc = _docs()[0]
    from hyperviz_core.rag.index.chunking import chunk_document

    chunks = chunk_document(doc, 300, 30, "char")
    pool = ExtractionPool(HeuristicExtractor(), HeuristicThemeExtractor(), workers=1)
    try:
        got = pool.run(chunks)
    finally:
        pool.close()
    ex, th = HeuristicExtractor(), HeuristicThemeExtractor()
    want = [(e := ex.extract(c), th.theme(c, e)) for c in chunks]
    assert got == want


class _Remote:
    """An extractor that cannot run elsewhere (no ``process_safe``), e.g. an LLM client."""

    def __init__(self) -> None:
        self.calls = 0

    async def aextract(self, chunk: Any) -> ChunkExtraction:
        self.calls += 1
        return ChunkExtraction(chunk_id=chunk.id)


def test_extractors_that_are_not_process_safe_stay_in_this_process(tmp_path: Path) -> None:
    remote = _Remote()
    assert not process_safe(remote, HeuristicThemeExtractor())
    idx = Indexer(tmp_path / "s", extractor=remote, show_progress=False, workers=2)
    report = idx.index(_docs()[:3])
    assert report.documents_added == 3 and remote.calls == report.chunks > 0
    idx.store.close()


def test_auto_workers() -> None:
    assert auto_workers(None) == 0 and auto_workers(100) == 0
    big = auto_workers(50 << 20)
    assert big == max(0, min((__import__("os").cpu_count() or 1) - 1, 8))
    with pytest.raises(ValueError, match="workers must be >= 0"):
        Indexer(":memory:", workers=-1)


def test_cli_workers_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "a.txt"
    text.write_text(_docs()[0].text, "utf-8")
    assert main(["index", str(text), "--store", str(tmp_path / "s"), "--no-progress",
                 "--workers", "0"]) == 0
    with pytest.raises(SystemExit) as err:
        main(["index", str(text), "--store", str(tmp_path / "s"), "--workers", "many"])
    assert err.value.code == 2
    assert "not a number or 'auto'" in capsys.readouterr().err


@pytest.mark.parametrize("when", ["after work", "while they start", "after a fork"])
def test_workers_end_when_their_parent_is_killed(tmp_path: Path, when: str) -> None:
    """A parent killed with SIGKILL never shuts its pool down: the workers notice and exit
    instead of waiting for work forever — also when it dies while they still import (before
    their initializer ran)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "parent.py"
    script.write_text(
        "import sys, time\n"
        "from hyperviz_core.rag import Chunk, HeuristicExtractor, HeuristicThemeExtractor\n"
        "from hyperviz_core.rag.index.workers import ExtractionPool\n"
        "if __name__ == '__main__':\n"
        "    pool = ExtractionPool(HeuristicExtractor(), HeuristicThemeExtractor(), 2)\n"
        + ("    pool._pool.submit(int, 1)\n    time.sleep(0.05)\n" if when == "while they start"
           else "    pool.run([Chunk(id='c', doc_id='d', text='Ada Quill lived in Leyton.')])\n")
        + ("    import os\n    if os.fork() == 0:\n        time.sleep(20)\n        os._exit(0)\n"
           if when == "after a fork" else "")  # the child holds the parent's pipes
        + "    print(' '.join(str(p) for p in pool._pool._processes), flush=True)\n"
        "    time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                              text=True)
    assert parent.stdout is not None
    workers = [int(p) for p in parent.stdout.readline().split()]
    assert workers
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        try:  # an exited child of init is reaped at once; a zombie would not be yet
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split(") ", 1)[1][0] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 15
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in workers if alive(p)]
