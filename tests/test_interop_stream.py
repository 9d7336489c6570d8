"""The import's lean readers: the streamed ``.hgdb`` rows and the lazily read vdb vectors.

Both must give exactly what the full readers give (the restricted unpickler, the eager
vdb reader), refuse what those refuse, and fail with a one-line HyperRAGFormatError on
any damaged file.
"""

from __future__ import annotations

import base64
import collections
import io
import json
import os
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from interop_fakes import HYPERRAG_DIR, fixture_copy

from hyperviz_core.interop import HyperRAGFormatError, import_hyperrag, load_hgdb
from hyperviz_core.interop.hyperrag_import import import_workdir
from hyperviz_core.interop.hyperrag_read import read_vdb, read_workdir
from hyperviz_core.interop.hyperrag_stream import (
    EdgeRow,
    Unsupported,
    VertexRow,
    read_hgdb_rows,
    stream_hgdb,
)
from hyperviz_core.interop.hyperrag_vdb import read_vdb_lazy
from hyperviz_core.rag import HashingEmbedder, HypergraphStore

HGDB = HYPERRAG_DIR / "hypergraph_chunk_entity_relation.hgdb"
V_FIELDS = ("entity_type", "description", "source_id", "additional_properties")
E_FIELDS = ("description", "keywords", "source_id")


def _same(full: Any, lean: Any, *, streamed: bool = True) -> None:
    """The lean rows say what the full unpickler's attribute dicts say."""
    assert list(full.vertices) == list(lean.vertices)
    assert list(full.edges) == list(lean.edges)
    for name, attrs in full.vertices.items():
        row = lean.vertices[name]
        assert isinstance(row, VertexRow) or not streamed
        assert [attrs.get(k, "") for k in V_FIELDS] == [row.get(k, "") for k in V_FIELDS]
    for key, attrs in full.edges.items():
        row = lean.edges[key]
        assert isinstance(row, EdgeRow) or not streamed
        assert [attrs.get(k, "") for k in E_FIELDS] == [row.get(k, "") for k in E_FIELDS]
        assert float(attrs.get("weight", 1.0)) == float(row.get("weight", 1.0))
    assert lean.incidence == {}


def _blob(**extra: Any) -> dict[str, Any]:
    """A small Hypergraph-DB dict with what real files hold (and a few edge cases)."""
    long = "Ω long description " * 5000  # > 64 KiB: written outside pickle frames
    v = {"A": {"entity_type": '"PERSON"', "description": "a<SEP>b", "source_id": "c1",
               "entity_name": "A", "additional_properties": "x"},
         "Purkyně": {"entity_type": '"PERSON"', "description": long, "source_id": "c1<SEP>c2"},
         "C": {"entity_type": "UNKNOWN", "description": "", "source_id": "c2"}}
    e = {("A", "Purkyně"): {"description": "d", "keywords": "k, l", "source_id": "c1",
                            "weight": 2.0},
         ("C",): {"description": "one", "keywords": "", "source_id": "c2", "weight": 3},
         ("A", "C", "Purkyně"): {"description": "n-ary", "keywords": "k", "source_id": "c2"}}
    inci: dict[str, set[tuple[str, ...]]] = collections.defaultdict(set)
    for key in e:
        for m in key:
            inci[m].add(key)
    return {"v_data": v, "v_inci": inci, "e_data": e, **extra}


def test_stream_reads_the_real_fixture_as_the_unpickler_does() -> None:
    _same(load_hgdb(HGDB), read_hgdb_rows(HGDB))


@pytest.mark.parametrize("protocol", [3, 4, 5])
def test_every_protocol_reads_the_same(tmp_path: Path, protocol: int) -> None:
    path = tmp_path / "g.hgdb"
    path.write_bytes(pickle.dumps(_blob(), protocol=protocol))
    _same(load_hgdb(path), read_hgdb_rows(path), streamed=protocol >= 4)  # 3: fallback


def test_protocol_2_spells_builtins_the_python_2_way_and_loads_in_both(tmp_path: Path) -> None:
    """Protocols 0-2 write ``__builtin__.set``: the same allowed global, so both readers
    load it with the protocol-4 file's result; any other ``__builtin__`` global is refused."""
    four, two = tmp_path / "4.hgdb", tmp_path / "2.hgdb"
    four.write_bytes(pickle.dumps(_blob(), protocol=4))
    two.write_bytes(pickle.dumps(_blob(), protocol=2))  # __builtin__.set
    for read in (load_hgdb, read_hgdb_rows):
        assert sorted(read(two).edges) == sorted(read(four).edges)
    evil = tmp_path / "e.hgdb"
    evil.write_bytes(b"c__builtin__\neval\n(S'1'\ntR.")  # protocol 0: __builtin__.eval('1')
    for read in (load_hgdb, read_hgdb_rows):
        with pytest.raises(HyperRAGFormatError, match=r"__builtin__\.eval"):
            read(evil)


def test_protocol_4_is_streamed_not_unpickled() -> None:
    blob = pickle.dumps(_blob(), protocol=4)
    lean = stream_hgdb(io.BytesIO(blob))
    assert lean.vertices["Purkyně"].get("description").startswith("Ω long")
    member = next(iter(lean.edges))[0]
    assert member is next(iter(lean.vertices))  # one object per name


def test_a_shared_attribute_dict_falls_back_to_the_unpickler(tmp_path: Path) -> None:
    blob = _blob()
    blob["v_data"]["D"] = blob["v_data"]["A"]  # the same dict object twice
    with pytest.raises(Unsupported):
        stream_hgdb(io.BytesIO(pickle.dumps(blob, protocol=4)))
    path = tmp_path / "g.hgdb"
    path.write_bytes(pickle.dumps(blob, protocol=4))
    _same(load_hgdb(path), read_hgdb_rows(path), streamed=False)


class _SystemCall:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (self.command,))


def test_a_malicious_pickle_is_refused_without_running_it(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    blob = _blob()
    blob["v_data"]["A"]["entity_type"] = _SystemCall(f"touch {marker}")
    path = tmp_path / "g.hgdb"
    path.write_bytes(pickle.dumps(blob, protocol=4))
    with pytest.raises(HyperRAGFormatError, match=r"refers to posix\.system|os\.system"):
        read_hgdb_rows(path)
    assert not marker.exists()


def test_every_truncation_is_a_one_line_format_error(tmp_path: Path) -> None:
    blob = pickle.dumps({"v_data": {"A": {"entity_type": "X", "description": "é"}},
                         "v_inci": collections.defaultdict(set, {"A": {("A",)}}),
                         "e_data": {("A",): {"description": "d", "weight": 1.5}}}, protocol=4)
    path = tmp_path / "g.hgdb"
    for cut in range(len(blob)):
        path.write_bytes(blob[:cut])
        with pytest.raises(HyperRAGFormatError) as err:
            read_hgdb_rows(path)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("bad, match", [
    ({"v_data": {"A": {"description": 5}}, "e_data": {}}, "not str -> str"),
    ({"v_data": {}, "e_data": {("A",): {"weight": "heavy"}}}, "is not a number"),
    ({"v_data": {"": {}}, "e_data": {}}, "not a non-empty str"),
    ({"v_data": {}}, "not a Hypergraph-DB pickle"),
])
def test_bad_structures_are_named(tmp_path: Path, bad: dict[str, Any], match: str) -> None:
    path = tmp_path / "g.hgdb"
    path.write_bytes(pickle.dumps(bad, protocol=4))
    with pytest.raises(HyperRAGFormatError, match=match):
        read_hgdb_rows(path)


# ---------------------------------------------------------------------------- vdb files
@pytest.mark.parametrize("name, field", [("vdb_entities.json", "entity_name"),
                                         ("vdb_chunks.json", "__id__"),
                                         ("vdb_relationships.json", "id_set")])
def test_lazy_rows_equal_the_decoded_matrix(name: str, field: str) -> None:
    full, lazy = read_vdb(HYPERRAG_DIR / name), read_vdb_lazy(HYPERRAG_DIR / name, field)
    assert full.matrix is not None and lazy.lazy is not None
    order = list(range(len(full.meta)))[::-7]
    assert np.array_equal(lazy.lazy.take(order), full.matrix[order])
    assert lazy.keys == [row.get(field) for row in full.meta]


def _vdb(path: Path, rows: list[Any], matrix: str, *, matrix_first: bool = False) -> Path:
    obj = {"embedding_dim": 2, "data": rows, "matrix": matrix}
    if matrix_first:
        obj = {"matrix": matrix, "embedding_dim": 2, "data": rows}
    path.write_text(json.dumps(obj))
    return path


def test_lazy_reader_falls_back_when_the_matrix_is_not_last(tmp_path: Path) -> None:
    m = np.arange(4, dtype="<f4").reshape(2, 2)
    path = _vdb(tmp_path / "v.json", [{"__id__": "a"}, {"__id__": "b"}],
                base64.b64encode(m.tobytes()).decode(), matrix_first=True)
    got = read_vdb_lazy(path, "__id__")
    assert got.keys == ["a", "b"] and got.matrix is not None
    assert np.array_equal(got.matrix, m)


@pytest.mark.parametrize("rows, matrix, match", [
    ([{"__id__": "a"}], "!!!!", "not valid base64"),
    ([{"__id__": "a"}, {"__id__": "b"}], base64.b64encode(b"\0" * 8).decode(), "holds 8 bytes"),
    ([{"id": "a"}], base64.b64encode(b"\0" * 8).decode(), r"data\[0\] has no string"),
    (["a"], base64.b64encode(b"\0" * 8).decode(), r"data\[0\] has no string"),
])
def test_lazy_reader_checks_the_whole_file(tmp_path: Path, rows: list[Any], matrix: str,
                                           match: str) -> None:
    with pytest.raises(HyperRAGFormatError, match=match):
        read_vdb_lazy(_vdb(tmp_path / "v.json", rows, matrix), "__id__")


# ---------------------------------------------------------------------------- the import
def _contents(path: Path) -> tuple[Any, ...]:
    with HypergraphStore(path) as store:
        g = store.bottom()
        ents = sorted((k, e.name, e.type, e.description) for k, e in g.entities.items())
        edges = sorted((k, tuple(h.members), h.description, tuple(h.keywords), h.weight)
                       for k, h in g.hyperedges.items())
        vecs = {}
        for space in store.vector_spaces():
            ids, mat = store.vectors(space)
            vecs[space] = (list(ids), np.asarray(mat).tobytes())
        stats = store.stats().model_dump(exclude={"path"})
        return ents, edges, vecs, stats


@pytest.mark.parametrize("reuse", [False, True])
def test_lean_import_writes_what_the_full_reader_writes(tmp_path: Path, reuse: bool) -> None:
    emb = HashingEmbedder(dim=64)
    lean = import_hyperrag(HYPERRAG_DIR, tmp_path / "lean", embedder=emb,
                           reuse_embeddings=reuse, show_progress=False)
    wd = read_workdir(HYPERRAG_DIR)  # whole pickle, eager vectors, nothing released
    with HypergraphStore(tmp_path / "full") as store:
        full = import_workdir(wd, store, embedder=emb, reuse_embeddings=reuse,
                              show_progress=False)
    assert len(wd.graph.edges) == 666 and len(wd.docs) == 28  # not released
    assert lean.reused_vectors == full.reused_vectors
    assert _contents(tmp_path / "lean") == _contents(tmp_path / "full")


def test_reimport_skips_everything_and_keeps_the_store(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    import_hyperrag(wd, tmp_path / "s", show_progress=False)
    before = _contents(tmp_path / "s")
    again = import_hyperrag(wd, tmp_path / "s", show_progress=False)
    assert again.documents_skipped == 28 and again.documents_added == 0
    assert _contents(tmp_path / "s") == before
