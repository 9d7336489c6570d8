"""The restricted unpickler of Hyper-RAG's ``.hgdb`` files: loads the real one, refuses others."""

from __future__ import annotations

import collections
import os
import pickle
import pickletools
from pathlib import Path
from typing import Any

import pytest
from interop_fakes import HYPERRAG_DIR

from hyperviz_core.interop import HyperRAGFormatError, load_hgdb
from hyperviz_core.interop.hyperrag_pickle import ALLOWED_GLOBALS, parse_hgdb, restricted_loads

HGDB = HYPERRAG_DIR / "hypergraph_chunk_entity_relation.hgdb"


class _SystemCall:
    """Pickles to ``os.system(<command>)``: what a malicious .hgdb would contain."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (self.command,))


def _malicious(marker: Path, *, nested: bool) -> bytes:
    payload = _SystemCall(f"touch {marker}")
    if not nested:
        return pickle.dumps(payload, protocol=4)
    # looks like a Hypergraph-DB dict; the payload hides inside a vertex record
    blob = {"v_data": {"A": {"entity_type": payload}}, "e_data": {},
            "v_inci": collections.defaultdict(set)}
    return pickle.dumps(blob, protocol=4)


def test_fixture_uses_only_the_allowed_globals() -> None:
    raw = HGDB.read_bytes()
    strings = [arg for op, arg, _ in pickletools.genops(raw) if op.name == "SHORT_BINUNICODE"]
    ops = {op.name for op, _, _ in pickletools.genops(raw)}
    assert "STACK_GLOBAL" in ops and "GLOBAL" not in ops
    assert {"collections", "defaultdict", "builtins", "set"} <= set(strings)
    assert set(ALLOWED_GLOBALS) == {("collections", "defaultdict"), ("builtins", "set")}


def test_loads_the_real_fixture() -> None:
    data = load_hgdb(HGDB)
    assert len(data.vertices) == 348
    assert len(data.edges) == 666
    assert sum(1 for a in data.vertices.values() if a["entity_type"] == "UNKNOWN") == 32
    assert isinstance(data.incidence["VIENNA"], set)
    assert all(isinstance(k, tuple) and list(k) == sorted(k) for k in data.edges)


@pytest.mark.parametrize("nested", [False, True])
def test_malicious_pickle_is_refused_without_running_it(tmp_path: Path, nested: bool) -> None:
    marker = tmp_path / "pwned"
    bad = tmp_path / "hypergraph_chunk_entity_relation.hgdb"
    bad.write_bytes(_malicious(marker, nested=nested))
    with pytest.raises(HyperRAGFormatError, match=r"refers to (posix|nt|os)\.system") as err:
        load_hgdb(bad)
    assert str(bad) in str(err.value)
    assert "\n" not in str(err.value)
    assert not marker.exists()


@pytest.mark.parametrize("target", [eval, getattr, __import__, pickle.loads])
def test_other_dangerous_globals_are_refused(target: Any) -> None:
    with pytest.raises(HyperRAGFormatError, match="refusing to load it"):
        restricted_loads(pickle.dumps(target))


def test_defaultdict_with_a_foreign_factory_is_refused() -> None:
    raw = pickle.dumps(collections.defaultdict(os.getcwd), protocol=4)
    with pytest.raises(HyperRAGFormatError, match=r"(posix|nt|os)\.getcwd"):
        restricted_loads(raw)


def test_persistent_ids_are_refused() -> None:
    class _P(pickle.Pickler):
        def persistent_id(self, obj: Any) -> Any:
            return "x" if obj == "secret" else None

    import io

    buf = io.BytesIO()
    _P(buf, protocol=4).dump({"v_data": "secret"})
    with pytest.raises(HyperRAGFormatError, match="persistent ids"):
        restricted_loads(buf.getvalue())


def test_truncated_pickle(tmp_path: Path) -> None:
    cut = tmp_path / "cut.hgdb"
    cut.write_bytes(HGDB.read_bytes()[:5000])
    with pytest.raises(HyperRAGFormatError, match=r"truncated or not a Hyper-RAG \.hgdb"):
        load_hgdb(cut)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(HyperRAGFormatError, match="missing"):
        load_hgdb(tmp_path / "nope.hgdb")


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([1, 2], "not a Hypergraph-DB pickle"),
        ({"v_data": {}, "other": 1}, "not a Hypergraph-DB pickle"),
        ({"v_data": [], "e_data": {}}, "'v_data' is a list"),
        ({"v_data": {"A": {"description": 3}}, "e_data": {}}, "is not str -> str"),
        ({"v_data": {}, "e_data": {"A": {}}}, "not a non-empty tuple"),
        ({"v_data": {}, "e_data": {("A",): {"weight": "x"}}}, "is not a number"),
        ({"v_data": {}, "e_data": {("A",): {"source_id": 5}}}, "field 'source_id'"),
    ],
)
def test_foreign_structures_are_refused(obj: Any, message: str) -> None:
    with pytest.raises(HyperRAGFormatError, match=message):
        parse_hgdb(restricted_loads(pickle.dumps(obj, protocol=4)))
