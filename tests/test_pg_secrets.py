"""A PostgreSQL URL's password never reaches an error, however the driver quotes it."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg")

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store import StoreError


@pytest.mark.parametrize("password", ["hunter%2", "Pa%word", "s3%zz"])
def test_a_malformed_percent_escape_in_the_password_is_not_printed(password: str) -> None:
    """psycopg quotes the bad token (``invalid percent-encoded token: "hunter%2"``)."""
    with pytest.raises(StoreError) as err:
        VizRAG(f"postgresql://alice:{password}@127.0.0.1:1/rag", show_progress=False)
    assert password not in str(err.value) and "alice" not in str(err.value).split("://")[0]
    assert "***" in str(err.value)
