"""Fixes of the Hyper-RAG pickle readers: protocols 0-2 (``__builtin__.set``)."""

from __future__ import annotations

import collections
import io
import pickle
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.interop import HyperRAGFormatError
from hyperviz_core.interop.hyperrag_pickle import load_hgdb, restricted_loads
from hyperviz_core.interop.hyperrag_stream import read_hgdb_rows, stream_hgdb

GRAPH: dict[str, Any] = {
    "v_data": {"VIENNA": {"entity_type": "GEO", "description": "A city.",
                          "source_id": "chunk-1", "additional_properties": ""}},
    "v_inci": collections.defaultdict(set, {"VIENNA": {("VIENNA",)}}),
    "e_data": {("VIENNA",): {"description": "d", "keywords": "k", "source_id": "chunk-1",
                             "weight": 1.0}},
}


@pytest.mark.parametrize("protocol", [0, 1, 2])
def test_old_protocols_spelling_builtins_as___builtin___load(tmp_path: Path,
                                                             protocol: int) -> None:
    blob = pickle.dumps(GRAPH, protocol=protocol)
    assert b"__builtin__" in blob  # what Python writes for builtins.set below protocol 3
    path = tmp_path / "g.hgdb"
    path.write_bytes(blob)
    for data in (load_hgdb(path), read_hgdb_rows(path)):
        assert list(data.vertices) == ["VIENNA"] and list(data.edges) == [("VIENNA",)]
    assert load_hgdb(path).incidence == {"VIENNA": {("VIENNA",)}}


def _stack_global_pickle(module: bytes) -> bytes:
    """A protocol-4 pickle of ``GRAPH`` (no frames) whose ``set`` global names ``module``."""
    out = io.BytesIO()
    pickler = pickle._Pickler(out, protocol=4)  # type: ignore[attr-defined]
    pickler.framer.start_framing = lambda: None  # no FRAME: the lengths may change
    pickler.dump(GRAPH)
    blob = out.getvalue()
    assert b"\x8c\x08builtins" in blob
    return blob.replace(b"\x8c\x08builtins", bytes([0x8C, len(module)]) + module)


def test_the_stream_reader_accepts___builtin___too() -> None:
    data = stream_hgdb(io.BytesIO(_stack_global_pickle(b"__builtin__")))
    assert list(data.vertices) == ["VIENNA"]


@pytest.mark.parametrize("name", [b"eval", b"getattr", b"__import__", b"open"])
def test_other___builtin___globals_stay_refused(name: bytes) -> None:
    evil = pickle.dumps(GRAPH, protocol=2).replace(b"c__builtin__\nset\n",
                                                  b"c__builtin__\n" + name + b"\n")
    with pytest.raises(HyperRAGFormatError, match=r"refers to __builtin__\." + name.decode()):
        restricted_loads(evil, "evil.hgdb")
    stream = _stack_global_pickle(b"__builtin__").replace(
        b"\x8c\x03set", bytes([0x8C, len(name)]) + name)
    with pytest.raises(HyperRAGFormatError, match=r"refers to __builtin__\." + name.decode()):
        stream_hgdb(io.BytesIO(stream))
    with pytest.raises(HyperRAGFormatError, match=r"refers to os\.system"):
        restricted_loads(evil.replace(b"c__builtin__\n" + name, b"cos\nsystem"), "evil.hgdb")
