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

    from hyperviz_core.rag.providers.fingerprint import canonical, params_hash

    class Person(BaseModel):
        name: str

    class City(BaseModel):
        country: str

    assert params_hash({"schema": Person}) != params_hash({"schema": City})
    assert canonical({"schema": BaseModel}) == {"schema": "<pydantic.main.BaseModel>"}


def test_a_schema_property_named_like_a_secret_counts() -> None:
    """A response schema with a ``token`` property is not the schema without it; a header
    holding a credential still never counts."""
    from hyperviz_core.rag.providers.fingerprint import canonical, params_hash

    with_token = {"response_format": {"properties": {"token": {"type": "string"}}}}
    without = {"response_format": {"properties": {}}}
    assert params_hash(with_token) != params_hash(without)
    for secret in ({"default_headers": {"X-Custom": "Bearer sk-live-1"}},
                   {"cookies": {"session": "S-1"}}, {"auth": {"user": "a", "pass": "p"}},
                   {"credentials": {"clientSecret": "c"}}):
        assert canonical(secret) == {}, secret  # credential containers go whole


def test_an_auth_pair_never_counts() -> None:
    from hyperviz_core.rag.providers.fingerprint import canonical

    assert canonical({"auth": ("alice", "s3cret"), "api_keys": ["sk-1"], "model": "m"}) == {
        "model": "m"}
