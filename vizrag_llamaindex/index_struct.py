"""``IndexVizRAG``: the index struct of a :class:`~vizrag_llamaindex.VizRAGIndex` (where its
VizRAG store is, and the options it was opened with), registered as index type ``"vizrag"``
by :mod:`~vizrag_llamaindex.index`.

Example:
    >>> IndexVizRAG().get_type(), IndexVizRAG().transformed
    ('vizrag', False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from llama_index.core.data_structs.data_structs import IndexStruct

__all__ = ["INDEX_TYPE", "IndexVizRAG"]

INDEX_TYPE = "vizrag"


@dataclass
class IndexVizRAG(IndexStruct):
    """The index struct: where the VizRAG store is (absolute path; set on persist)."""

    store_path: str | None = None
    persist_file: str | None = None
    """The store's file name in the persist directory, set on persist: loaded from a persist
    directory, the index opens that file there (a copied or moved directory opens its own
    copy; :func:`~.storage.loaded_store_path`), ``store_path`` only otherwise."""
    transformed: bool = False
    """Documents were indexed through transformations, or nodes of a document were
    inserted: later writes of a document replace its nodes even without transformations."""
    engine_options: dict[str, Any] = field(default_factory=dict)
    """The JSON-valued ``VizRAG`` options the index was opened with (``top_k``, ``mode``,
    ``chunk_size`` ...), given to the engine again when it is loaded."""

    @classmethod
    def get_type(cls) -> str:  # type: ignore[override]
        return INDEX_TYPE
