"""Shared pytest configuration."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_server import pg_server, pg_url  # noqa: F401  (PostgreSQL fixtures, see pg_server.py)

DATA = Path(__file__).parent / "data"


@pytest.fixture
def data_dir() -> Path:
    """The directory of bundled test data (with attribution in data/README.md)."""
    return DATA
