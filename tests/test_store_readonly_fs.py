"""A store on a read-only file system (a read-only mount, a container layer): reads work,
and a write says why it cannot be done — not "open it writable", impossible there."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from hyperviz_core.rag import Document, StoreError, VizRAG


def test_insert_on_a_read_only_file_system_names_it(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(Document(id="a", title="Ada", text="Ada Lovelace met Charles Babbage."))
    real = os.statvfs

    def statvfs(path: str | os.PathLike[str]) -> object:
        got = real(path)
        return SimpleNamespace(f_flag=got.f_flag | os.ST_RDONLY)

    monkeypatch.setattr(os, "statvfs", statvfs)
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        assert rag.store.read_only and [c.doc_id for c in rag.query("Ada").chunks] == ["a"]
        with pytest.raises(StoreError, match="read-only file system"):
            rag.insert(Document(id="b", text="Grace Hopper wrote A-0."))
