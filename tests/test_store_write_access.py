"""Why a SQLite store cannot be written, as its opening says (root may write anything, so the
file system's answers are simulated through ``os.access``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.store import StoreError


def _store(tmp_path: Path) -> Path:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(title="Ada", text="Ada Lovelace met Charles Babbage.")])
    path = tmp_path / "s" / "vizrag.sqlite"
    assert path.exists()
    return path


def _deny(monkeypatch: pytest.MonkeyPatch, *denied: Path) -> None:
    real = os.access

    def access(p: object, mode: int, *args: object, **kwargs: object) -> bool:
        if mode == os.W_OK and Path(str(p)) in denied:
            return False
        return real(p, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)


def test_read_only_file_opens_read_only_or_is_refused_for_writing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _store(tmp_path)
    _deny(monkeypatch, path)
    with HypergraphStore(path) as store:
        assert store.read_only
        assert len(store.documents()) == 1
    with pytest.raises(StoreError, match=r"is read-only \(no write access to the file or its "
                                         r"folder\)"):
        HypergraphStore(path, read_only=False)


def test_read_only_wal_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _store(tmp_path)
    wal = path.with_name(path.name + "-wal")
    wal.write_bytes(b"")
    _deny(monkeypatch, wal)
    with pytest.raises(StoreError, match=r"cannot be written: vizrag\.sqlite-wal beside it is "
                                         r"read-only"):
        HypergraphStore(path, read_only=False)
    with HypergraphStore(path) as store:
        assert store.read_only


def test_writable_store_opens_for_writing(tmp_path: Path) -> None:
    path = _store(tmp_path)
    with HypergraphStore(path) as store:
        assert not store.read_only
