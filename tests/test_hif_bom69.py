"""A HIF file or a style file that starts with a UTF-8 byte-order mark is read, and one that
is not UTF-8 is named (stop 69).

Before, ``vizrag render graph.hif.json`` on a file a Windows tool saved with a mark said
``HIF is not valid JSON: Unexpected UTF-8 BOM``, and on a Windows-1252 file (or such
bytes given to ``read_hif``) raised Python's ``UnicodeDecodeError`` instead of a
``HIFError``; a style file alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run_cli

from hyperviz_core.hif import HIFError, read_hif
from hyperviz_core.model import Hypergraph
from hyperviz_core.style import Style

LESMIS = Path(__file__).parent / "data" / "lesmis.hif.json"
BOM = b"\xef\xbb\xbf"


def test_a_hif_file_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    path = tmp_path / "bom.hif.json"
    path.write_bytes(BOM + LESMIS.read_bytes())
    assert read_hif(path) == read_hif(LESMIS)
    assert read_hif(BOM + LESMIS.read_bytes()) == read_hif(LESMIS)  # bytes too
    assert Hypergraph.from_hif(path).to_hif() == Hypergraph.from_hif(LESMIS).to_hif()
    code, _, err = run_cli(["render", str(path), "--out", str(tmp_path / "v.png"),
                            "--max-entities", "10"])
    assert code == 0, err


def test_a_hif_file_that_is_not_utf8_is_a_hif_error(tmp_path: Path) -> None:
    path = tmp_path / "latin.hif.json"
    data = LESMIS.read_bytes().replace(b"Bienvenu Myriel", "Bienvenu Myriél".encode("cp1252"))
    path.write_bytes(data)
    at = data.index(b"\xe9")
    with pytest.raises(HIFError, match=rf"HIF file '.*latin\.hif\.json' is not UTF-8 text "
                                       rf"\(byte 0xe9 at offset {at}; save it as UTF-8\)"):
        read_hif(path)
    with pytest.raises(HIFError, match=r"HIF bytes is not UTF-8 text"):
        read_hif(data)


def test_a_style_file_with_a_mark_or_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "style.json"
    path.write_bytes(BOM + b'{"node_radius": 9}')
    assert Style.from_json_file(str(path)) == Style.model_validate({"node_radius": 9})
    path.write_bytes('{"background": "rosé"}'.encode("cp1252"))
    with pytest.raises(ValueError, match=r"style\.json is not UTF-8 text \(at byte 19"):
        Style.from_json_file(str(path))
