"""Damaged Word, PowerPoint and Outlook files (stop 57): bytes of the test files changed or
cut at random (fixed seeds) are each read or refused with a ``LoaderError`` naming the file,
within seconds. A fuzz run found a ``.doc`` whose damaged summary information made olefile's
``get_metadata`` loop over billions of properties; the title is now read within the
stream's bounds (``olefiles.summary_title``)."""

from __future__ import annotations

import os
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from compound_files import write_compound
from office_files import assert_read_or_named, changed_bytes

from hyperviz_core.rag.index.olefiles import summary_title

pytest.importorskip("olefile")

DATA = Path(__file__).parent / "data" / "office97"


def test_a_summary_with_a_damaged_property_count_is_read_within_its_bounds() -> None:
    title = "Quarterly".encode("cp1252") + b"\x00"
    section = struct.pack("<II", 0xFFFFFFFF, 0xFFFFFFFF)  # size and count: damaged
    section += struct.pack("<II", 2, 16) + struct.pack("<HHI", 0x1E, 0, len(title)) + title
    data = bytes(28) + bytes(16) + struct.pack("<I", 48) + section
    assert summary_title(data) == "Quarterly"
    assert summary_title(data[:60]) == ""  # cut inside the property list


def test_a_doc_whose_title_is_a_vector_of_billions(tmp_path: Path) -> None:
    """The kind of case the fuzz run found, made on purpose: the title property typed as a
    vector of a type olefile does not parse (``VT_VECTOR | VT_R8``) whose count reads
    2**31 - 1. olefile's ``get_metadata`` took each element as nothing, of size 0, without
    an error, and logged it: reading the file never ended (an alarm cannot stop it: olefile
    takes any exception in a property for a defect and goes on, so the file is read in a
    process of its own, given 60 s). Now the title is no string, so it is the file's
    stem."""
    import olefile

    path = tmp_path / "report.doc"
    path.write_bytes((DATA / "report.doc").read_bytes())
    ole = olefile.OleFileIO(str(path), write_mode=True)
    info = bytearray(ole.openstream("\x05SummaryInformation").read())
    section = struct.unpack_from("<I", info, 44)[0]
    count = struct.unpack_from("<I", info, section + 4)[0]
    pairs = [struct.unpack_from("<II", info, section + 8 + 8 * i) for i in range(count)]
    at = section + dict(pairs)[2]  # the title's value: its type, then its length
    struct.pack_into("<HHI", info, at, 0x1005, 0, 0x7FFFFFFF)  # VT_VECTOR | VT_R8
    ole.write_stream("\x05SummaryInformation", bytes(info))
    ole.close()
    read = ("import sys; from pathlib import Path; from hyperviz_core.rag.index.loaders import "
            "load_documents; [d] = load_documents(Path(sys.argv[1])); print(d.title); "
            "print(d.text[:17])")
    proc = subprocess.run([sys.executable, "-c", read, str(path)], capture_output=True,
                          text=True, timeout=60, check=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert proc.stdout.splitlines() == ["report", "Northwind Traders"]


@pytest.mark.parametrize("seed", [1, 2])
def test_damaged_files_are_read_or_named(tmp_path: Path, seed: int) -> None:
    from test_msg57 import _offer

    sources = [DATA / "report.doc", DATA / "notes.doc", DATA / "deck.ppt",
               write_compound(tmp_path / "offer.msg", _offer())]
    rng = random.Random(seed)
    paths = []
    for n in range(60):
        source = sources[n % len(sources)]
        path = tmp_path / f"case{n}{source.suffix}"
        path.write_bytes(changed_bytes(source.read_bytes(), rng, cut=0.2))
        paths.append(path)
    assert_read_or_named(paths)
