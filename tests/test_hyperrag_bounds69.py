"""A Hyper-RAG working dir whose chunk numbers are past 64 bits is refused by name (stop 69).

Before, ``chunk_order_index: 1e30`` written as an integer passed the reader's check and
stopped the import inside SQLite with ``OverflowError: Python int too large to convert to
SQLite INTEGER``. Found by fuzzing the working dir's JSON files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hyperviz_core.interop.hyperrag_files import HyperRAGFormatError
from hyperviz_core.interop.hyperrag_import import import_hyperrag

DATA = Path(__file__).parent / "data" / "hyperrag"


@pytest.mark.parametrize(("field", "value"), [
    ("chunk_order_index", 10**30), ("tokens", 2**63), ("chunk_order_index", -2**63 - 1)])
def test_a_number_past_64_bits_is_refused_before_the_store_is_made(
        tmp_path: Path, field: str, value: int) -> None:
    work = tmp_path / "wd"
    shutil.copytree(DATA, work)
    path = work / "kv_store_text_chunks.json"
    chunks = json.loads(path.read_text(encoding="utf-8"))
    key = sorted(chunks)[0]
    chunks[key][field] = value
    path.write_text(json.dumps(chunks), encoding="utf-8")
    with pytest.raises(HyperRAGFormatError, match=rf"kv_store_text_chunks\.json: chunk "
                                                  rf".*{key[:8]}.*: 'chunk_order_index' and "
                                                  r"'tokens' must be integers \(of 64 bits"):
        import_hyperrag(work, tmp_path / "s.db", show_progress=False)
    assert not (tmp_path / "s.db").exists()
