"""Shared pytest configuration."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_server import pg_server, pg_url  # noqa: F401  (PostgreSQL fixtures, see pg_server.py)
from pinned_stores import changing_store  # noqa: F401  (a store changed under a query)

DATA = Path(__file__).parent / "data"


@pytest.fixture
def data_dir() -> Path:
    """The directory of bundled test data (with attribution in data/README.md)."""
    return DATA


@pytest.fixture(autouse=True)
def _fresh_layouts() -> None:
    """Each test starts with no Graphviz layout remembered (``layouts.gv`` keeps the last 64
    per process): a test that hides or fakes Graphviz must see it run, whatever an earlier
    test drew."""
    from hyperviz_core.layouts.gv import forget_layouts

    forget_layouts()
