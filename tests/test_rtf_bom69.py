"""An RTF file that starts with a UTF-8 byte-order mark (as a tool that writes its RTF as
UTF-8 text may) is read; before, it was refused as "not an RTF file (it does not start
with {\\rtf)" (stop 69)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents


def test_an_rtf_file_with_a_byte_order_mark(tmp_path: Path) -> None:
    pytest.importorskip("striprtf")
    path = tmp_path / "fees.rtf"
    path.write_bytes(b"\xef\xbb\xbf{\\rtf1\\ansi{\\info{\\title Fees}}Harbour fees rise.\\par}")
    [doc] = load_documents(path)
    assert (doc.title, doc.text) == ("Fees", "Harbour fees rise.")
