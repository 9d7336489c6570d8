"""An Outlook message whose only body is Outlook's compressed RTF reads as the text the RTF
shows (stop 58; before, it gave its headers and no body).

The compressed bodies are the worked example of MS-OXRTFCP (section 3.1.1, its bytes as the
specification prints them) and bodies packed by compressed-rtf's own ``compress``; the RTF
wrapping an HTML body is written here as MS-OXRTFEX lays it out. No Outlook is at hand to
save a message, so none of them comes from Outlook itself.
"""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest
from compound_files import write_compound
from office_files import assert_needs_extra, hide_module
from test_msg57 import _offer

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents

compressed_rtf = pytest.importorskip("compressed_rtf")
pytest.importorskip("olefile")
pytest.importorskip("striprtf")

_HEADERS = ("From: Ada Lovelace <ada@example.org>\nTo: Bo Li <bo@example.org>\n"
            "Cc: Carl <carl@example.org>\nDate: Fri, 04 Dec 2026 09:30:00 +0000\n\n")
#: MS-OXRTFCP 3.1.1, "Example 1: Simple Compressed RTF": ``{\rtf1\ansi\ansicpg1252\pard
#: hello world}`` and CRLF, compressed
_SPEC_EXAMPLE = bytes.fromhex("2d0000002b0000004c5a4675f1c5c7a703000a007263706731323542320af3"
                              "2068656c090020627705b06c647d0a800fa0")
#: an HTML body wrapped in RTF as MS-OXRTFEX lays it out: the tags in ``\*\htmltag``
#: groups, the RTF written only for RTF readers between ``\htmlrtf`` and ``\htmlrtf0``
_WRAPPED_HTML = rb"""{\rtf1\ansi\ansicpg1252\fromhtml1 \deff0{\fonttbl
{\f0\fswiss\fcharset0 Arial;}}
{\*\htmltag19 <html>}{\*\htmltag34 <head>}{\*\htmltag241 <style>}
{\*\htmltag241 p \{ margin: 0 \}}{\*\htmltag249 </style>}{\*\htmltag41 </head>}
{\*\htmltag50 <body>}\htmlrtf \lang1033 \htmlrtf0
{\*\htmltag64 <p>}\htmlrtf {\htmlrtf0 Tom {\*\htmltag84 &amp;}\htmlrtf &\htmlrtf0  Jerry
 meet at the caf{\*\htmltag84 &eacute;}\htmlrtf \'e9\htmlrtf0  on Friday.
{\*\htmltag72 </p>}\htmlrtf \par }\htmlrtf0
{\*\htmltag64 <p>}\htmlrtf {\htmlrtf0 Bring the \u8364?20 ticket.
{\*\htmltag72 </p>}\htmlrtf \par }\htmlrtf0
{\*\htmltag58 </body>}{\*\htmltag27 </html>}}"""


def _rtf_only(body: bytes) -> dict[str, bytes]:
    """:func:`_offer`'s message with no plain body and ``body`` as its compressed RTF."""
    return _offer(**{"__substg1.0_1000001F": b"", "__substg1.0_10090102": body})


def test_a_body_kept_only_as_compressed_rtf_is_read(tmp_path: Path) -> None:
    [doc] = load_documents(write_compound(tmp_path / "hello.msg", _rtf_only(_SPEC_EXAMPLE)))
    assert doc.text == _HEADERS + "hello world"
    rtf = rb"{\rtf1\ansi\ansicpg1252 Line one\par Caf\'e9 costs \u8364?5.\par}"
    for packed in (compressed_rtf.compress(rtf), compressed_rtf.compress(rtf, False)):
        [doc] = load_documents(write_compound(tmp_path / "offer.msg", _rtf_only(packed)))
        assert doc.text == _HEADERS + "Line one\nCafé costs €5."


def test_rtf_wrapping_an_html_body_shows_the_html_text(tmp_path: Path) -> None:
    packed = compressed_rtf.compress(_WRAPPED_HTML)
    [doc] = load_documents(write_compound(tmp_path / "html.msg", _rtf_only(packed)))
    body = doc.text.split("\n\n", 1)[1]
    assert body == "Tom & Jerry meet at the café on Friday.\nBring the €20 ticket."


def test_a_plain_or_html_body_is_read_before_the_rtf(tmp_path: Path) -> None:
    rtf = compressed_rtf.compress(rb"{\rtf1 The RTF body.}")
    [doc] = load_documents(write_compound(tmp_path / "a.msg", _offer(
        **{"__substg1.0_10090102": rtf})))
    assert doc.text.endswith("The offer stands until Friday.\nRegards, Ada")
    [doc] = load_documents(write_compound(tmp_path / "b.msg", _rtf_only(rtf) | {
        "__substg1.0_1013001F": "<p>The <b>HTML</b> body.</p>".encode("utf-16-le")}))
    assert doc.text.endswith("\n\nThe HTML body.")


def test_a_damaged_rtf_body_is_named(tmp_path: Path) -> None:
    broken = bytearray(_SPEC_EXAMPLE)
    broken[20] ^= 0x40  # a byte of the packed text: the checksum no longer matches
    path = write_compound(tmp_path / "crc.msg", _rtf_only(bytes(broken)))
    with pytest.raises(LoaderError, match=r"crc\.msg: damaged \(its compressed RTF body: "
                                          r"CRC is invalid"):
        load_documents(path)
    path = write_compound(tmp_path / "short.msg", _rtf_only(b"LZFu"))
    with pytest.raises(LoaderError, match=r"short\.msg: damaged \(its compressed RTF body"):
        load_documents(path)
    path = write_compound(tmp_path / "text.msg", _rtf_only(compressed_rtf.compress(b"hi")))
    with pytest.raises(LoaderError, match=r"text\.msg: damaged \(its compressed RTF body: "
                                          r"it does not unpack to RTF\)"):
        load_documents(path)


@pytest.mark.parametrize("module", ["compressed_rtf", "striprtf"])
def test_the_extra_installs_what_reads_an_rtf_body(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    path = write_compound(tmp_path / "offer.msg", _offer())
    hide_module(monkeypatch, module)
    assert_needs_extra(path, r"offer\.msg: reading Outlook messages needs the 'msg' extra",
                       "msg")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_damaged_packed_text_with_a_right_checksum_is_read_or_named(
        tmp_path: Path, seed: int) -> None:
    """Bytes of the packed text changed and the checksum written again, so the unpacking
    runs on them (control bits, references past what was written): each message is read or
    named; the text is never longer than a packed byte can give (a reference: 17 bytes)."""
    from compressed_rtf.crc32 import crc32

    packed = compressed_rtf.compress(_WRAPPED_HTML)
    rng = random.Random(seed)
    for n in range(40):
        data = bytearray(packed[16:])
        for _ in range(rng.choice([1, 5, 50])):
            data[rng.randrange(len(data))] = rng.randrange(256)
        body = struct.pack("<II4sI", len(data) + 12, rng.randrange(2**32), b"LZFu",
                           crc32(bytes(data))) + data
        path = write_compound(tmp_path / f"case{n}.msg", _rtf_only(body))
        try:
            [doc] = load_documents(path)
        except LoaderError as exc:
            assert f"case{n}.msg: damaged (its compressed RTF body" in str(exc)
        else:
            assert len(doc.text) <= len(_HEADERS) + 9 * len(data)
