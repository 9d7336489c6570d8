"""README's "Formats at a glance" table names every suffix a folder walk reads, and no
other (stop 56: a format added without a row, or a row left after a format went, fails)."""

from __future__ import annotations

import re
from pathlib import Path

from hyperviz_core.rag.index.suffixes import READ_SUFFIXES


def test_the_formats_table_lists_the_suffixes_read() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("**Formats at a glance**")
    table = readme[start:readme.index("\n\n", readme.index("| files |", start))]
    assert set(re.findall(r"`(\.[a-z]+)`", table)) == set(READ_SUFFIXES)
