"""Hostile Hyper-RAG working dirs: crafted pickles and JSON get one-line errors, never a crash.

The pickles are written opcode by opcode (as an attacker would): a tuple nested deep enough
to crash CPython's C hash (SIGSEGV), a memo-shared tuple DAG whose hash costs 2**depth, a
flat tuple fetched from the memo often enough to make hashing quadratic. In this process
they are kept small (an unguarded reader would finish them quickly, just without the
error); the crashing and never-ending sizes run only in a subprocess with a timeout, through
the CLI, which must print one line and exit 2.
"""

from __future__ import annotations

import base64
import collections
import json
import math
import pickle
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from interop_fakes import fixture_copy

from hyperviz_core.interop import HyperRAGFormatError, import_hyperrag, load_hgdb, read_workdir
from hyperviz_core.interop.hyperrag_import import read_for_import
from hyperviz_core.interop.hyperrag_pickle import restricted_loads
from hyperviz_core.interop.hyperrag_read import read_full_docs, read_text_chunks
from hyperviz_core.interop.hyperrag_stream import read_hgdb_rows
from hyperviz_core.rag import HypergraphStore, VizRAG

HG = "hypergraph_chunk_entity_relation.hgdb"
ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------ crafted pickles
def _put(proto: int, idx: int) -> bytes:
    """Memoize the top: MEMOIZE (what the stream reader reads) or LONG_BINPUT."""
    return b"\x94" if proto >= 4 else b"r" + struct.pack("<I", idx)


def _get(idx: int) -> bytes:
    return b"j" + struct.pack("<I", idx)  # LONG_BINGET


def _head(proto: int) -> bytes:
    """PROTO, the root dict (memo 0), MARK, the string 'a' (memo 1)."""
    return bytes([0x80, proto]) + b"}" + _put(proto, 0) + b"(X\x01\x00\x00\x00a" + _put(proto, 1)


def nested_key(depth: int, proto: int) -> bytes:
    """``{((((),),),): 1}``, the key nested ``depth`` deep (protocol < 2: the fallback)."""
    return bytes([0x80, proto]) + b"}(" + b")" + b"\x85" * depth + b"K\x01u."


def tuple_dag(depth: int, proto: int) -> bytes:
    """``t = (t, t)`` ``depth`` times through the memo: a few bytes per level, 2**depth to
    hash."""
    out = _head(proto)
    for i in range(1, depth + 1):
        out += _get(i) + _get(i) + b"\x86" + _put(proto, i + 1)  # TUPLE2
    return out + b"K\x01u."


def shared_tuple(n: int, refs: int, proto: int) -> bytes:
    """A flat tuple of ``n`` names used ``refs`` times as a key: n * refs to hash."""
    out = _head(proto) + b"(" + _get(1) * n + b"t" + _put(proto, 2)
    return out + (_get(2) + b"K\x01") * refs + b"u."


def graph(weight: Any = 2.0, description: str = "d") -> dict[str, Any]:
    """A two-vertex, one-hyperedge Hypergraph-DB object."""
    v = {"A": {"entity_type": "P", "description": description, "source_id": "chunk-x"},
         "B": {"entity_type": "P", "description": "b", "source_id": "chunk-x"}}
    e = {("A", "B"): {"description": "d", "keywords": "k", "source_id": "chunk-x",
                      "weight": weight}}
    return {"v_data": v, "v_inci": collections.defaultdict(set), "e_data": e}


def _write(tmp_path: Path, blob: bytes) -> Path:
    path = tmp_path / HG
    path.write_bytes(blob)
    return path


def _refused(path: Path, match: str, readers: Any = (read_hgdb_rows, load_hgdb)) -> None:
    for read in readers:
        with pytest.raises(HyperRAGFormatError, match=match) as err:
            read(path)
        assert str(path) in str(err.value) and "\n" not in str(err.value)
        assert len(str(err.value)) < 400


# ------------------------------------------------------------------------------- F1 / F2
@pytest.mark.parametrize("proto", [4, 1])  # 4: streamed, 1: the restricted C unpickler
def test_a_nested_tuple_is_refused_before_anything_hashes_it(tmp_path: Path, proto: int
                                                             ) -> None:
    path = _write(tmp_path, nested_key(50, proto))  # 300 000 deep crashes an unguarded hash
    _refused(path, "a tuple holds a tuple")


@pytest.mark.parametrize("proto", [4, 2, 1])
def test_a_memo_shared_tuple_dag_is_refused(tmp_path: Path, proto: int) -> None:
    path = _write(tmp_path, tuple_dag(12, proto))  # 80 levels never finish unguarded
    _refused(path, "a tuple holds a tuple")


@pytest.mark.parametrize("proto", [4, 1])
def test_a_flat_tuple_shared_too_often_is_refused(tmp_path: Path, proto: int) -> None:
    # 48 kB asking for 16 M element hashes (unguarded: quadratic in the file's size)
    path = _write(tmp_path, shared_tuple(4000, 4000, proto))
    _refused(path, "shares tuples so often")


def test_sharing_as_hyper_rag_does_is_accepted(tmp_path: Path) -> None:
    path = _write(tmp_path, shared_tuple(50, 50, 4))  # each key fetched once per member
    with pytest.raises(HyperRAGFormatError, match="not a Hypergraph-DB pickle"):
        read_hgdb_rows(path)  # got past the memo: only the shape is wrong


# ------------------------------------------------------------------------------------ F3
def test_an_unhashable_key_is_a_format_error(tmp_path: Path) -> None:
    path = _write(tmp_path, b"\x80\x04}(\x8f}u.")  # {set(): {}}
    _refused(path, r"TypeError: unhashable type", readers=(read_hgdb_rows,))


def test_a_deep_value_is_named_briefly(tmp_path: Path) -> None:
    blob = pickle.dumps(graph(weight="PLACEHOLDER"), protocol=4)
    deep = b"]" * 100_000 + b"a" * 99_999  # a list nested 100 000 deep (repr: RecursionError)
    path = _write(tmp_path, blob.replace(b"\x8c\x0bPLACEHOLDER", deep))
    _refused(path, r"weight \[\[\[\.\.\.\]\]\] is not a number")


def test_deep_json_and_huge_integers_name_the_file(tmp_path: Path) -> None:
    docs = tmp_path / "kv_store_full_docs.json"
    docs.write_text('{"doc-1": {"content": ' + "[" * 100_000 + "]" * 100_000 + "}}")
    with pytest.raises(HyperRAGFormatError, match=r"full_docs.json: .*nested too deeply"):
        read_full_docs(docs)
    chunks = tmp_path / "kv_store_text_chunks.json"
    chunks.write_text('{"chunk-1": {"tokens": ' + "9" * 5000 + "}}")
    with pytest.raises(HyperRAGFormatError, match=r"text_chunks.json: .*4300 digits"):
        read_text_chunks(chunks)


# ------------------------------------------------------------------------------------ F6
@pytest.mark.parametrize("weight", [math.nan, math.inf, -math.inf, 10**400],
                         ids=["nan", "inf", "-inf", "10**400"])
@pytest.mark.parametrize("proto", [4, 3])  # 4: streamed, 3: the restricted C unpickler
def test_non_finite_weights_are_refused(tmp_path: Path, weight: Any, proto: int) -> None:
    path = _write(tmp_path, pickle.dumps(graph(weight), protocol=proto))
    _refused(path, r"hyperedge \('A', 'B'\) weight .* is not a finite number")


def _real_graph_with(wd: Path, change: Any) -> None:
    obj = restricted_loads((wd / HG).read_bytes())
    change(obj)
    (wd / HG).write_bytes(pickle.dumps(obj, protocol=4))


def _one_document_store(path: Path) -> None:
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(["Alice met Bob in Vienna."])


def test_a_nan_weight_fails_the_import_and_keeps_the_store(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    key = sorted(restricted_loads((wd / HG).read_bytes())["e_data"])[-1]
    _real_graph_with(wd, lambda o: o["e_data"][key].update(weight=math.nan))
    store = tmp_path / "store"
    _one_document_store(store)
    with pytest.raises(HyperRAGFormatError, match=rf"{HG}: hyperedge .* weight nan is not a "
                                                  "finite number"):
        import_hyperrag(wd, store, show_progress=False)
    with HypergraphStore(store) as s:
        assert s.stats().documents == 1


def test_a_lone_surrogate_names_file_item_and_field(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    docs = json.loads((wd / "kv_store_full_docs.json").read_text("utf-8"))
    doc = sorted(docs)[-1]
    docs[doc]["content"] = "lone \ud800 surrogate"  # json.dumps writes the escape
    (wd / "kv_store_full_docs.json").write_text(json.dumps(docs), "utf-8")
    with pytest.raises(HyperRAGFormatError, match=rf"full_docs.json: document '{doc}' field "
                                                  "'content' holds a lone surrogate at "
                                                  "character 6"):
        read_for_import(wd)


@pytest.mark.parametrize("streamed", [True, False])
def test_a_lone_surrogate_in_the_hypergraph_is_refused(tmp_path: Path, streamed: bool) -> None:
    wd = fixture_copy(tmp_path)
    name = sorted(restricted_loads((wd / HG).read_bytes())["v_data"])[0]
    _real_graph_with(wd, lambda o: o["v_data"][name].update(description="x\udc80y"))
    with pytest.raises(HyperRAGFormatError, match=rf"{HG}: vertex '{name}' field "
                                                  "'description' holds a lone surrogate"):
        read_for_import(wd) if streamed else read_workdir(wd)


def test_non_finite_vectors_are_refused_when_reused(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    vdb = json.loads((wd / "vdb_entities.json").read_text("utf-8"))
    mat = np.frombuffer(base64.b64decode(vdb["matrix"]), "<f4").copy()
    mat[vdb["embedding_dim"] * 3 + 1] = np.inf  # row 3
    vdb["matrix"] = base64.b64encode(mat.tobytes()).decode()
    (wd / "vdb_entities.json").write_text(json.dumps(vdb), "utf-8")
    read_for_import(wd)  # vectors not reused: not read
    with pytest.raises(HyperRAGFormatError, match=r"vdb_entities.json: 'matrix' row 3 "):
        read_for_import(wd, reuse_embeddings=True)


# ------------------------------------------------------------------------------- the CLI
_DRIVER = """
import contextlib, io, json, sys
from hyperviz_core.cli import main
out = {}
for wd, store in json.loads(sys.argv[1]):
    err, got = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(got):
            rc = main(["import-hyperrag", wd, "--store", store, "--no-progress"])
    except BaseException as exc:  # a traceback would end the real CLI
        rc = repr(exc)[:300]
    out[wd] = [rc, err.getvalue(), got.getvalue()]
print(json.dumps(out))
"""


def _hostile_dirs(tmp_path: Path) -> list[Path]:
    blobs = {"segv_stream": nested_key(300_000, 4), "segv_fallback": nested_key(300_000, 1),
             "dag_stream": tuple_dag(80, 4), "dag_fallback": tuple_dag(80, 1),
             "unhashable": b"\x80\x04}(\x8f}u.",
             "nan_weight": pickle.dumps(graph(math.nan), protocol=4)}
    dirs = []
    for name, blob in blobs.items():
        wd = fixture_copy(tmp_path / name)
        (wd / HG).write_bytes(blob)
        dirs.append(wd)
    deep = fixture_copy(tmp_path / "deep_json")
    (deep / "kv_store_full_docs.json").write_text("[" * 100_000 + "]" * 100_000)
    surrogate = fixture_copy(tmp_path / "surrogate")
    (surrogate / "kv_store_full_docs.json").write_text('{"doc-1": {"content": "\\ud800"}}')
    return [*dirs, deep, surrogate]


def test_the_cli_prints_one_line_and_exits_2_for_each(tmp_path: Path) -> None:
    dirs = _hostile_dirs(tmp_path)
    pairs = [(str(wd), str(wd.parent / "store")) for wd in dirs]
    run = subprocess.run([sys.executable, "-c", _DRIVER, json.dumps(pairs)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)  # unguarded: SIGSEGV
    assert run.returncode == 0, f"the importer crashed (rc {run.returncode}): {run.stderr[-500:]}"
    for wd, (rc, err, out) in json.loads(run.stdout).items():
        assert rc == 2, (wd, rc, err)
        assert len(err.splitlines()) == 1 and err.startswith("vizrag import-hyperrag: error: "
                                                             f"{wd}/"), (wd, err)
        assert out == "" and not (Path(wd).parent / "store").exists()


def test_a_live_result_with_a_lone_surrogate_is_refused_by_place() -> None:
    from hyperviz_core.interop import from_hyperrag_result

    result = {"entities": [{"entity_name": "B"}, {"entity_name": "A\ud800"}],
              "hyperedges": [{"entity_set": ["A\ud800", "B"]}], "text_units": [],
              "response": ""}
    with pytest.raises(HyperRAGFormatError, match=r"entities/1/entity_name holds a lone "
                       r"surrogate \(character 2\)"):
        from_hyperrag_result(result, query="q")


def test_a_name_of_invisible_characters_only_is_dropped_with_a_warning(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)

    def add_zero_width(o: dict[str, Any]) -> None:
        first = sorted(o["v_data"])[0]
        o["v_data"]["\u200b"] = {**o["v_data"][first], "entity_name": "\u200b"}
        o["e_data"][tuple(sorted(("\u200b", first)))] = {
            "description": "zw edge", "keywords": "k", "weight": 1.0,
            "source_id": o["v_data"][first]["source_id"]}

    _real_graph_with(wd, add_zero_width)
    rep = import_hyperrag(wd, tmp_path / "store", show_progress=False)
    assert rep.vertices == 349 and rep.store_stats is not None
    assert rep.store_stats.entities == 348
    assert any("1 vertex names are empty once normalised" in w and "'\\u200b'" in w
               for w in rep.warnings), rep.warnings


def test_names_merged_into_one_entity_are_all_kept(tmp_path: Path) -> None:
    """``IBM`` and a full-width ``ＩＢＭ`` share one key: the warning named the group, but
    ``metadata["hyperrag_name"]`` kept one of them only."""
    wd = fixture_copy(tmp_path)
    state: dict[str, str] = {}

    def add_width_variant(o: dict[str, Any]) -> None:
        name = next(n for n in sorted(o["v_data"]) if n.isascii() and n.isalpha())
        wide = "".join(chr(ord(c) + 0xFEE0) for c in name)
        o["v_data"][wide] = dict(o["v_data"][name])
        state.update(name=name, wide=wide)

    _real_graph_with(wd, add_width_variant)
    rep = import_hyperrag(wd, tmp_path / "store", show_progress=False)
    assert any("share one key and were merged" in w for w in rep.warnings)
    with HypergraphStore(tmp_path / "store") as store:
        found = [e for e in store.bottom().entities.values()
                 if e.metadata.get("hyperrag_name") in (state["name"], state["wide"])]
    assert len(found) == 1
    assert found[0].metadata["hyperrag_names"] == sorted([state["name"], state["wide"]])
