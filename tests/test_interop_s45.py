"""Hyper-RAG import fixes of review s45: reads sized to the file, an irregular LLM cache
skipped with a warning, vdb files needed only to reuse vectors, all missing files named."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path
from typing import IO, Any

import pytest

from hyperviz_core.cli import main
from hyperviz_core.interop import HyperRAGFormatError
from hyperviz_core.interop import hyperrag_files as files
from hyperviz_core.interop.hyperrag_import import import_hyperrag
from hyperviz_core.interop.hyperrag_read import LLM_CACHE_FILE, read_llm_cache
from tests.interop_fakes import fixture_copy

FILES = "hyperviz_core.interop.hyperrag_files"


def _cache(wd: Path, obj: Any) -> None:
    (wd / LLM_CACHE_FILE).write_text(json.dumps(obj), "utf-8")


# ------------------------------------------------------------ 1: reads sized to the file
def test_reading_a_small_file_allocates_about_its_size(tmp_path: Path) -> None:
    p = tmp_path / "a.json"
    p.write_bytes(b'{"doc-1": {"content": "' + b"x" * 20_000 + b'"}}')
    tracemalloc.start()
    try:
        data = files.read_json_bytes(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(data) == p.stat().st_size
    assert peak < 10 << 20, f"traced peak {peak / 2**20:.1f} MiB for a 20 kB file"


def _stale(size: int, data: bytes) -> Any:
    """An ``open_regular`` whose file holds ``data`` but was ``size`` bytes when checked."""
    def fake(path: Any, limit: int, kind: str) -> tuple[IO[bytes], int]:
        return io.BytesIO(data), size
    return fake


def test_a_file_growing_while_read_is_read_whole_up_to_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{FILES}._GROWTH_STEP", 3)
    monkeypatch.setattr(f"{FILES}.open_regular", _stale(2, b"0123456789"))
    assert files.read_regular(tmp_path / "x", 10, "JSON file") == b"0123456789"
    monkeypatch.setattr(f"{FILES}.open_regular", _stale(2, b"0123456789A"))
    with pytest.raises(HyperRAGFormatError, match=r"x: growing, more than the 10 bytes limit"):
        files.read_regular(tmp_path / "x", 10, "JSON file")


def test_running_out_of_memory_while_reading_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Hungry(io.BytesIO):
        def read(self, n: int | None = -1) -> bytes:
            raise MemoryError

    monkeypatch.setattr(f"{FILES}.open_regular",
                        lambda path, limit, kind: (Hungry(b"{}"), 2))
    with pytest.raises(HyperRAGFormatError, match=r"a\.json: out of memory reading its 2 "
                                                  r"bytes") as err:
        files.read_json_bytes(tmp_path / "a.json")
    assert "\n" not in str(err.value)


# ----------------------------------------------------- 2: an irregular LLM cache is skipped
def test_a_cache_entry_without_a_string_return_is_skipped_with_one_warning(
        tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    _cache(wd, {"a" * 32: {"return": "ok", "model": "m"},
                "0" * 32: {"return": None, "model": "gpt-4o-mini"},
                "b" * 32: {"model": "m"}})
    rep = import_hyperrag(wd, tmp_path / "store", show_progress=False)
    assert rep.documents_added == 28 and rep.llm_cache_entries == 1
    notes = [w for w in rep.warnings if LLM_CACHE_FILE in w]
    assert len(notes) == 1 and "2 of 3 entries" in notes[0] and "'000" in notes[0], notes


def test_a_cache_nested_by_mode_is_read(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    _cache(wd, {"default": {"h1": {"return": "x", "cache_type": "extract"},
                            "h2": {"return": "y", "cache_type": "extract"}},
                "global": {"h3": {"return": "z", "cache_type": "query"}}})
    rep = import_hyperrag(wd, tmp_path / "store", show_progress=False)
    assert rep.documents_added == 28 and rep.llm_cache_entries == 3
    assert not [w for w in rep.warnings if LLM_CACHE_FILE in w], rep.warnings
    assert sorted(read_llm_cache(wd / LLM_CACHE_FILE)) == ["default/h1", "default/h2",
                                                           "global/h3"]


@pytest.mark.parametrize(("content", "why"), [('{"h1": {"return": "x"', "malformed JSON"),
                                               ("[1, 2]", "expected a JSON object, got list")])
def test_an_unreadable_cache_is_skipped_with_one_warning(
        tmp_path: Path, content: str, why: str, capsys: pytest.CaptureFixture[str]) -> None:
    wd = fixture_copy(tmp_path)
    (wd / LLM_CACHE_FILE).write_text(content, "utf-8")
    store = tmp_path / "store"
    assert main(["import-hyperrag", str(wd), "--store", str(store), "--no-progress"]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if LLM_CACHE_FILE in line]
    assert len(notes) == 1 and why in notes[0] and "skipped" in notes[0], out
    assert "LLM cache:" not in out  # no entries read


# ------------------------------------------------------------- 3: vdb files, missing files
@pytest.mark.parametrize("name", ["vdb_relationships.json", "vdb_entities.json"])
def test_a_missing_vdb_file_is_not_needed_without_reuse(tmp_path: Path, name: str) -> None:
    wd = fixture_copy(tmp_path)
    (wd / name).unlink()
    rep = import_hyperrag(wd, tmp_path / "store", show_progress=False)
    assert rep.documents_added == 28
    assert any(name in w and "not needed" in w for w in rep.warnings), rep.warnings
    assert "vectors not reused" in rep.embedding_note
    with pytest.raises(HyperRAGFormatError, match=rf"{name}: missing \(needed to reuse"):
        import_hyperrag(wd, tmp_path / "store2", show_progress=False, reuse_embeddings=True)
    assert not (tmp_path / "store2").exists()


def test_without_any_vdb_file_the_import_still_embeds(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    for f in wd.glob("vdb_*.json"):
        f.unlink()
    rep = import_hyperrag(wd, tmp_path / "store", show_progress=False)
    assert rep.documents_added == 28 and "Hyper-RAG's vectors not reused" in rep.embedding_note


@pytest.mark.parametrize(("reuse", "count"), [(False, 3), (True, 6)])
def test_an_empty_dir_names_every_missing_required_file(
        tmp_path: Path, reuse: bool, count: int) -> None:
    with pytest.raises(HyperRAGFormatError, match=rf"missing {count} required files") as err:
        import_hyperrag(tmp_path, tmp_path / "store", show_progress=False,
                        reuse_embeddings=reuse)
    msg = str(err.value)
    for name in ("kv_store_full_docs.json", "kv_store_text_chunks.json",
                 "hypergraph_chunk_entity_relation.hgdb"):
        assert name in msg
    assert ("vdb_chunks.json" in msg) is reuse and "\n" not in msg
