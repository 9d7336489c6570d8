"""Names README uses bare are exported by ``hyperviz_core.rag`` (a maintainer's review found
``open_store`` / ``store_exists`` there only under ``hyperviz_core.rag.store``)."""

from __future__ import annotations

import hyperviz_core.rag as rag


def test_readme_names_are_exported() -> None:
    from hyperviz_core.rag.result_metadata import vizrag_value
    from hyperviz_core.rag.store import open_store, store_exists

    assert rag.open_store is open_store and rag.store_exists is store_exists
    assert rag.vizrag_value is vizrag_value
    assert {"open_store", "store_exists", "merge_metadata", "vizrag_key",
            "vizrag_value"} <= set(rag.__all__)


def test_a_schema_class_in_model_parameters_is_told_apart() -> None:
    """Two pydantic classes given as a structured-output schema hash apart (both hashed as
    their metaclass before)."""
    from pydantic import BaseModel

    from hyperviz_core.rag.providers.fingerprint import params_hash

    class Person(BaseModel):
        name: str

    class City(BaseModel):
        country: str

    assert params_hash({"schema": Person}) != params_hash({"schema": City})
