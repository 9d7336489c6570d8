"""Fixes of the Hyper-RAG import's warnings and messages (sources, values, LLM cache)."""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.interop import HyperRAGFormatError
from hyperviz_core.interop.hyperrag_import import import_hyperrag
from hyperviz_core.interop.hyperrag_map import build_plan
from hyperviz_core.interop.hyperrag_pickle import HgdbData, parse_hgdb
from hyperviz_core.interop.hyperrag_read import LLM_CACHE_FILE, read_workdir
from hyperviz_core.interop.hyperrag_stream import read_hgdb_rows, stream_hgdb
from hyperviz_core.interop.hyperrag_write import build_workdir, write_workdir

DOCS = {"doc-1": "Vienna is in Austria.", "doc-2": "Graz is in Austria."}


def _v(src: str, desc: str = "d") -> dict[str, str]:
    return {"entity_type": "GEO", "description": desc, "source_id": src,
            "additional_properties": ""}


def _e(src: str) -> dict[str, Any]:
    return {"description": "e", "keywords": "k", "source_id": src, "weight": 1.0}


def _warnings(tmp_path: Path, verts: dict[str, Any], edges: dict[Any, Any]) -> list[str]:
    write_workdir(build_workdir(DOCS, verts, edges, dim=8), tmp_path / "wd")
    return build_plan(read_workdir(tmp_path / "wd")).warnings


# ---------------------------------------------------------------------------- 8: warnings
def test_a_hyperedge_without_members_is_not_called_unsourced(tmp_path: Path) -> None:
    warns = _warnings(tmp_path, {"VIENNA": _v("chunk-1"), "\u200b": _v("chunk-1")},
                      {("\u200b",): _e("chunk-1"), ("VIENNA",): _e("chunk-1")})
    assert any("1 hyperedges had no member left" in w for w in warns), warns
    assert not any("no known chunk" in w for w in warns), warns


def test_an_unsourced_hyperedge_is_still_called_so(tmp_path: Path) -> None:
    warns = _warnings(tmp_path, {"VIENNA": _v("chunk-1")},
                      {("VIENNA",): _e("chunk-1"), ("GRAZ", "VIENNA"): _e("chunk-404")})
    assert any("1 hyperedges whose source_id names no known chunk were dropped" in w
               and "GRAZ" in w for w in warns), warns


def test_a_vertex_rehomed_to_its_hyperedges_chunks_is_reported(tmp_path: Path) -> None:
    warns = _warnings(tmp_path, {"VIENNA": _v("chunk-404"), "AUSTRIA": _v("chunk-1")},
                      {("AUSTRIA", "VIENNA"): _e("chunk-1")})
    assert any("1 vertices whose source_id names no known chunk were placed in the chunks "
               "of their hyperedges" in w and "'VIENNA'" in w for w in warns), warns


def test_one_bogus_id_in_a_sep_list_is_reported(tmp_path: Path) -> None:
    warns = _warnings(tmp_path, {"VIENNA": _v("chunk-1<SEP>chunk-bogus"),
                                 "AUSTRIA": _v("chunk-1<SEP>chunk-2")},
                      {("AUSTRIA", "VIENNA"): _e("chunk-1<SEP>chunk-also-bogus")})
    assert any("2 vertices and hyperedges list an unknown chunk id" in w
               and "chunk-also-bogus" in w for w in warns), warns


def test_a_clean_workdir_has_no_warnings(tmp_path: Path) -> None:
    assert _warnings(tmp_path, {"VIENNA": _v("chunk-1"), "AUSTRIA": _v("chunk-1<SEP>chunk-2")},
                     {("AUSTRIA", "VIENNA"): _e("chunk-1")}) == []


# ---------------------------------------------------------------------------- 9: messages
def _graph(vattrs: dict[str, Any], eattrs: dict[str, Any]) -> dict[str, Any]:
    return {"v_data": {"VIENNA": {"entity_type": "GEO", "source_id": "chunk-1", **vattrs}},
            "e_data": {("VIENNA",): {"source_id": "chunk-1", **eattrs}}, "v_inci": {}}


def _both(obj: dict[str, Any], tmp_path: Path) -> list[str]:
    """The errors of the restricted unpickler's check and of the import's reader (the
    stream, or the unpickler where the stream cannot read the file)."""
    path = tmp_path / "g.hgdb"
    path.write_bytes(pickle.dumps(obj, protocol=4))
    out = []
    for read in (lambda: parse_hgdb(obj), lambda: read_hgdb_rows(path)):
        with pytest.raises(HyperRAGFormatError) as err:
            data: HgdbData = read()
            assert data is None
        out.append(str(err.value))
    return out


def test_a_str_weight_is_named_as_the_str_it_is(tmp_path: Path) -> None:
    blob = pickle.dumps(_graph({}, {"weight": "5.0"}), protocol=4)
    with pytest.raises(HyperRAGFormatError, match=r"weight '5\.0' is not a number: it is a str"):
        stream_hgdb(io.BytesIO(blob))  # the streamed path, which holds texts as bytes
    for msg in _both(_graph({}, {"weight": "5.0"}), tmp_path):
        assert "weight '5.0' is not a number: it is a str" in msg, msg
        assert "b'" not in msg


def test_a_non_str_attribute_names_its_value_and_type(tmp_path: Path) -> None:
    for msg in _both(_graph({"description": None}, {}), tmp_path):
        assert "attribute 'description' is not str -> str: its value is None (NoneType)" \
            in msg, msg
    for msg in _both(_graph({"additional_properties": 7}, {}), tmp_path):
        assert "its value is 7 (int)" in msg, msg
    for msg in _both(_graph({}, {"keywords": 3}), tmp_path):
        assert "field 'keywords' is not str: 3 (int)" in msg, msg


# ---------------------------------------------------------------------------- 10: empty cache
@pytest.mark.parametrize("content", [b"", b"\n", b"  \n"])
def test_an_empty_llm_cache_is_skipped_with_a_warning(tmp_path: Path, content: bytes) -> None:
    wd = tmp_path / "wd"
    write_workdir(build_workdir(DOCS, {"VIENNA": _v("chunk-1")}, {("VIENNA",): _e("chunk-1")},
                                dim=8), wd)
    (wd / LLM_CACHE_FILE).write_bytes(content)
    rep = import_hyperrag(wd, tmp_path / "store", show_progress=False)
    assert rep.documents_added == 2 and rep.llm_cache_entries is None
    assert any(LLM_CACHE_FILE in w and "empty" in w for w in rep.warnings), rep.warnings


def test_a_malformed_llm_cache_is_skipped_with_a_warning(tmp_path: Path) -> None:
    """The cache is never imported (only counted): a truncated one is skipped, named in
    one warning (it used to refuse the whole working dir)."""
    wd = tmp_path / "wd"
    write_workdir(build_workdir(DOCS, {"VIENNA": _v("chunk-1")}, {("VIENNA",): _e("chunk-1")},
                                dim=8), wd)
    (wd / LLM_CACHE_FILE).write_text('{"x": ')
    got = read_workdir(wd)
    assert got.llm_cache_entries is None
    assert any(LLM_CACHE_FILE in w and "malformed JSON" in w for w in got.warnings)
