"""``store_differences``: a conformance check for a store backend of one's own. A reviewer
writing a store found only ``isinstance`` (member names) to check it with, and
``not_a_store`` of a conforming store said "lacks  of StoreProtocol"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyperviz_core.rag import StoreProtocol
from hyperviz_core.rag.conformance import store_differences
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.store.protocol import not_a_store


class Proxy:
    """Every protocol member forwarded to a built-in store (a custom backend's shape)."""

    def __init__(self, folder: Path) -> None:
        self._inner = HypergraphStore(folder)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "_inner":
            object.__setattr__(self, name, value)
        else:
            setattr(self._inner, name, value)


for _name in sorted({n for n in vars(StoreProtocol) if not n.startswith("_")}
                    | {"__enter__", "__exit__"}):
    if _name not in vars(Proxy):
        setattr(Proxy, _name, property(lambda self, n=_name: getattr(self._inner, n)))


class NoMetadata(Proxy):
    """Drops every chunk's metadata on reading (a backend that does not store it)."""

    def chunks(self, ids: Any = None) -> list[Any]:
        return [c.model_copy(update={"metadata": {}}) for c in self._inner.chunks(ids)]


class KeepsDeleted(Proxy):
    """Ignores deletes."""

    def delete_document(self, doc_id: str, **kwargs: Any) -> Any:
        return None

    def delete_documents(self, doc_ids: Any, **kwargs: Any) -> Any:
        return None


def test_a_proxy_of_the_built_in_store_conforms() -> None:
    assert store_differences(Proxy) == []


def test_a_backend_that_loses_chunk_metadata_is_named() -> None:
    found = store_differences(NoMetadata)
    assert found and found[0].startswith("after indexing: chunks[0]['metadata']")


def test_a_backend_that_ignores_deletes_is_named() -> None:
    found = store_differences(KeepsDeleted)
    assert found and all(d.startswith("after deleting 'radium'") for d in found)
    assert any("documents" in d for d in found)


def test_a_failing_or_wrong_factory_is_named() -> None:
    def broken(folder: Path) -> Any:
        raise OSError("disk full")

    assert store_differences(broken) == ["make_store failed: OSError: disk full"]
    assert store_differences(lambda folder: 42)[0].startswith("int lacks ")


def test_not_a_store_of_a_conforming_object_says_it_has_every_member(tmp_path: Path) -> None:
    with HypergraphStore(tmp_path / "s") as store:
        assert not_a_store(store) == "HypergraphStore has every member of StoreProtocol"


def test_the_postgresql_backend_conforms(pg_url: str) -> None:
    """The check names no difference for the second built-in backend."""
    from hyperviz_core.rag.store import open_store

    assert store_differences(lambda folder: open_store(pg_url)) == []
