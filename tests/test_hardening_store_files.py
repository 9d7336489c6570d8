"""Issue 10, items 4, 5 and the store parts of 9: damaged, read-only and odd store files.

Before the fix:

* corruption (garbage written over pages, a dropped table) gave raw ``sqlite3.DatabaseError``
  tracebacks from ``stats``/``query``/``index``/``delete`` (``main`` let them escape), and there
  was no ``vizrag check`` (argparse exited 2 on the unknown command);
* ``stats``/``query`` on a store in a read-only folder, or a read-only file, failed with
  "attempt to write a readonly database" (the store set the journal mode on open and
  checkpointed on close);
* ``stats`` on a 0-byte file wrote a new store into it and exited 0; an edited
  ``schema_version`` row gave "invalid literal for int()"; ``--store postgresql://...``
  created a folder called ``postgresql:`` in the working directory.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import Result, one_line_error, run_cli
from rag_fakes import demo_documents, fresh_copy

from hyperviz_core.rag import VizRAG

Q = "Who is the wife of Kim Jong-chul?"
def _build(path: Path, n: int = 30) -> Path:
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, n))
    return path / "vizrag.sqlite"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = _build(tmp_path_factory.mktemp("pristine")).parent
    # import everything a query imports lazily now: a forked child running as ``nobody``
    # may not be able to read the interpreter's files
    assert run_cli(["query", Q, "--store", str(path), "--json", "--no-render"])[0] == 0
    return path


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    return fresh_copy(pristine, tmp_path)


def _commands(store: Path, tmp_path: Path) -> dict[str, list[str]]:
    doc = tmp_path / "new.txt"
    doc.write_text("Ada Lovelace met Charles Babbage in London.", encoding="utf-8")
    s = str(store)
    return {
        "stats": ["stats", "--store", s],
        "query": ["query", Q, "--store", s, "--no-render"],
        "index": ["index", str(doc), "--store", s, "--no-progress"],
        "delete": ["delete", "m533", "--store", s],
    }


# ---------------------------------------------------------------- item 4: corruption
def _garble(db: Path) -> None:
    data = bytearray(db.read_bytes())
    assert len(data) > 64 * 1024
    lo, hi = len(data) // 4, 3 * len(data) // 4
    pattern = bytes(range(7, 250, 3)) * (1 + (hi - lo) // 81)
    data[lo:hi] = pattern[: hi - lo]
    db.write_bytes(bytes(data))


def test_check_on_a_healthy_store(store: Path) -> None:
    code, out, err = run_cli(["check", "--store", str(store)])
    assert code == 0, (out, err)
    assert "ok" in out and str(store / "vizrag.sqlite") in out
    code, out, _ = run_cli(["check", "--store", str(store), "--json"])
    report = json.loads(out)
    assert code == 0 and report["ok"] is True and report["problems"] == []
    assert report["documents"] == 30


@pytest.mark.parametrize("command", ["stats", "query", "index", "delete"])
def test_garbage_pages_give_one_line(store: Path, tmp_path: Path, command: str) -> None:
    db = store / "vizrag.sqlite"
    _garble(db)
    one_line_error(run_cli(_commands(store, tmp_path)[command]), str(db), "vizrag check")


def test_check_reports_garbage(store: Path) -> None:
    _garble(store / "vizrag.sqlite")
    code, out, err = run_cli(["check", "--store", str(store)])
    assert code == 1, (out, err)
    assert "Traceback" not in err and "malformed" in (out + err).lower()


def test_check_lists_a_problem_once(store: Path) -> None:
    """8 KiB zeroed at 30% of the file: the integrity check and the opening checks both met
    the same SQLite error, listed twice."""
    db = store / "vizrag.sqlite"
    data = bytearray(db.read_bytes())
    mid = int(len(data) * 0.3) - int(len(data) * 0.3) % 4096
    data[mid:mid + 8192] = bytes(8192)
    db.write_bytes(bytes(data))
    code, out, err = run_cli(["check", "--store", str(store)])
    problems = [t for t in out.splitlines() if t.startswith("  ")]
    assert code == 1 and problems, (out, err)
    assert len(problems) == len(set(problems))


@pytest.mark.parametrize("command", ["stats", "query", "index", "delete"])
def test_dropped_table_gives_one_line(store: Path, tmp_path: Path, command: str) -> None:
    db = store / "vizrag.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE incidences")
    one_line_error(run_cli(_commands(store, tmp_path)[command]), str(db), "vizrag check",
                    "incidences")


def test_check_reports_dropped_table_and_broken_invariants(store: Path) -> None:
    db = store / "vizrag.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM entity_mentions WHERE key = "
                     "(SELECT entity_key FROM incidences ORDER BY hid LIMIT 1)")
    code, out, _ = run_cli(["check", "--store", str(store)])
    assert code == 1 and "has no mention" in out
    with sqlite3.connect(db) as conn:  # a document with text and no chunk is damage
        doc = conn.execute("SELECT doc_id FROM chunks ORDER BY id LIMIT 1").fetchone()[0]
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc,))
    code, out, _ = run_cli(["check", "--store", str(store)])
    assert code == 1 and f"document {doc!r} has no chunks" in out
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE incidences")
    code, out, _ = run_cli(["check", "--store", str(store), "--json"])
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    assert any("incidences" in p for p in report["problems"])


def test_check_on_missing_and_foreign_files(tmp_path: Path) -> None:
    one_line_error(run_cli(["check", "--store", str(tmp_path / "nothing")]), "no VizRAG store")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    code, out, _ = run_cli(["check", "--store", str(other)])
    assert code == 1 and "not a VizRAG store" in out


# ---------------------------------------------------------------- item 5: read-only
def _unprivileged(fn: Callable[[], Result]) -> Result:
    """Run ``fn`` where the file permissions bite: as ``nobody`` in a fork when root."""
    if os.geteuid() != 0:
        return fn()
    ctx = mp.get_context("fork")
    q: Any = ctx.Queue()

    def child() -> None:
        os.setgid(65534)
        os.setuid(65534)
        try:
            q.put(fn())
        except BaseException as exc:  # reported to the parent
            q.put((99, "", f"{type(exc).__name__}: {exc}"))

    p = ctx.Process(target=child)
    p.start()
    try:
        return q.get(timeout=60)  # type: ignore[no-any-return]
    finally:
        p.join(timeout=30)


@pytest.fixture
def shared_copy(pristine: Path) -> Iterator[Path]:
    """A copy of the store in a folder everyone may traverse (pytest's tmp dirs are 0700)."""
    top = Path(tempfile.mkdtemp(prefix="vizrag-ro-"))
    dst = top / "store"
    dst.mkdir()
    shutil.copy2(pristine / "vizrag.sqlite", dst / "vizrag.sqlite")  # closed: all in one file
    os.chmod(top, 0o755)
    yield dst
    for p in (top, dst, *dst.iterdir()):
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    shutil.rmtree(top)


def _freeze(store: Path, *, folder: bool, file: bool) -> bytes:
    db = store / "vizrag.sqlite"
    for extra in store.iterdir():
        assert extra.name == "vizrag.sqlite", extra  # no -wal/-shm left behind
    db.chmod(0o444 if file else 0o666)
    store.chmod(0o555 if folder else 0o777)
    return db.read_bytes()


@pytest.mark.parametrize(("folder", "file"), [(True, True), (True, False), (False, True)])
def test_read_commands_on_read_only_stores(shared_copy: Path, folder: bool, file: bool) -> None:
    before = _freeze(shared_copy, folder=folder, file=file)
    s = str(shared_copy)
    for argv in (["stats", "--store", s, "--json"],
                 ["query", Q, "--store", s, "--json", "--no-render"],
                 ["check", "--store", s]):
        code, out, err = _unprivileged(lambda a=argv: run_cli(a))  # type: ignore[misc]
        assert code == 0, (argv, out, err)
    assert (shared_copy / "vizrag.sqlite").read_bytes() == before


def test_write_commands_on_read_only_store(shared_copy: Path, tmp_path: Path) -> None:
    _freeze(shared_copy, folder=True, file=True)
    doc = Path(tempfile.mkdtemp(prefix="vizrag-doc-")) / "new.txt"
    doc.write_text("Ada Lovelace met Charles Babbage in London.", encoding="utf-8")
    os.chmod(doc.parent, 0o755)
    os.chmod(doc, 0o644)
    s = str(shared_copy)
    for argv in (["index", str(doc), "--store", s, "--no-progress"],
                 ["delete", "m533", "--store", s]):
        res = _unprivileged(lambda a=argv: run_cli(a))  # type: ignore[misc]
        one_line_error(res, "read-only", str(shared_copy / "vizrag.sqlite"))
    shutil.rmtree(doc.parent)


def test_read_only_logs_left_by_a_read_only_query_are_named(shared_copy: Path) -> None:
    """A query of a read-only store file leaves ``-shm`` (and ``-wal``) read-only; once the
    file is writable again, a write names them instead of failing every document with
    SQLite's "attempt to write a readonly database"."""
    _freeze(shared_copy, folder=False, file=True)
    s = str(shared_copy)
    code, _out, err = _unprivileged(lambda: run_cli(["query", Q, "--store", s, "--json",
                                                    "--no-render"]))
    assert code == 0, err
    logs = [p for p in shared_copy.iterdir() if p.name.endswith(("-shm", "-wal"))]
    if not logs or all(p.stat().st_mode & 0o222 for p in logs):
        pytest.skip("this SQLite left no read-only -wal/-shm behind")
    (shared_copy / "vizrag.sqlite").chmod(0o666)
    doc = Path(tempfile.mkdtemp(prefix="vizrag-doc-")) / "new.txt"
    doc.write_text("Ada Lovelace met Charles Babbage in London.", encoding="utf-8")
    os.chmod(doc.parent, 0o755)
    os.chmod(doc, 0o644)
    for argv in (["index", str(doc), "--store", s, "--no-progress"],
                 ["delete", "m533", "--store", s]):
        res = _unprivileged(lambda a=argv: run_cli(a))  # type: ignore[misc]
        one_line_error(res, "vizrag.sqlite-shm", "read-only", "remove it while no process")
    shutil.rmtree(doc.parent)


# ---------------------------------------------------------------- item 9: odd files
def test_zero_byte_file_is_not_a_store(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    for argv in (["stats", "--store", str(empty)], ["query", Q, "--store", str(empty)]):
        one_line_error(run_cli(argv), "not a VizRAG store", str(empty))
        assert empty.stat().st_size == 0


@pytest.mark.parametrize("value", ["abc", "", "7", "-1"])
def test_edited_schema_version(store: Path, value: str) -> None:
    db = store / "vizrag.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (value,))
    code, _, err = run_cli(["stats", "--store", str(store)])
    one_line_error((code, "", err), str(db), "schema_version", repr(value))
    assert "int()" not in err and "invalid literal" not in err


@pytest.mark.parametrize("url", ["mysql://user@localhost/db", "s3://bucket/store",
                                 "qdrant+http://h:6333/c"])
def test_url_store_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               url: str) -> None:
    monkeypatch.chdir(tmp_path)
    doc = tmp_path / "d.txt"
    doc.write_text("Ada Lovelace met Charles Babbage in London.", encoding="utf-8")
    for argv in (["index", str(doc), "--store", url, "--no-progress"],
                 ["stats", "--store", url], ["query", Q, "--store", url],
                 ["check", "--store", url]):
        one_line_error(run_cli(argv), url.split(":", 1)[0], "backend")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.txt"]


def test_check_never_writes_the_store(store: Path) -> None:
    """``check`` opens read-only: the store file and its permissions stay as they were."""
    db = store / "vizrag.sqlite"
    before = db.read_bytes()
    mode = stat.S_IMODE(db.stat().st_mode)
    assert run_cli(["check", "--store", str(store)])[0] == 0
    assert db.read_bytes() == before and stat.S_IMODE(db.stat().st_mode) == mode


def test_must_exist_opens_only_an_existing_store(tmp_path: Path) -> None:
    from hyperviz_core.rag import StoreNotFoundError, VizRAG
    from hyperviz_core.rag.store import open_store

    missing = tmp_path / "typo"
    with pytest.raises(StoreNotFoundError, match="no VizRAG store at") as err:
        VizRAG(missing, must_exist=True, show_progress=False)
    assert isinstance(err.value, FileNotFoundError) and not missing.exists()
    with pytest.raises(FileNotFoundError, match=r"x\.sqlite"):
        open_store(tmp_path / "x.sqlite", must_exist=True)
    assert list(tmp_path.iterdir()) == []
    with VizRAG(tmp_path / "store", show_progress=False) as rag:  # a writer creates it
        rag.insert(["Leyton is in London."])
    with VizRAG(tmp_path / "store", must_exist=True, show_progress=False) as rag:
        assert rag.stats().documents == 1
