"""Outlook messages (``.msg``) are read as e-mail messages are, with the ``msg`` extra
(olefile; stop 57). Before, a folder walk left them out and one named directly was refused
as a binary file.

The messages are written here as MS-OXMSG lays them out (:mod:`compound_files`): no Outlook
is at hand to save one, so none of them comes from Outlook itself.
"""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from pathlib import Path

import pytest
from compound_files import write_compound
from office_files import assert_needs_extra, folder_top, hide_module

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents

pytest.importorskip("olefile")


def _wide(prop: int, text: str) -> tuple[str, bytes]:
    return f"__substg1.0_{prop:04X}001F", text.encode("utf-16-le")


def _props(head: int, values: dict[int, tuple[int, bytes]]) -> bytes:
    """A properties stream: ``head`` bytes of header, then (id -> (type, 8-byte value))."""
    return bytes(head) + b"".join(struct.pack("<II", (prop << 16) | kind, 6) + value
                                  for prop, (kind, value) in sorted(values.items()))


def _filetime(when: datetime) -> bytes:
    ticks = int((when - datetime(1601, 1, 1, tzinfo=UTC)).total_seconds() * 10**7)
    return struct.pack("<Q", ticks)


def _recipient(n: int, name: str, smtp: str, kind: int) -> dict[str, bytes]:
    at = f"__recip_version1.0_#{n:08X}/"
    return {at + k: v for k, v in (_wide(0x3001, name), _wide(0x39FE, smtp),
                                   ("__properties_version1.0",
                                    _props(8, {0x0C15: (3, struct.pack("<iI", kind, 0))})))}


def _offer(**streams: bytes) -> dict[str, bytes]:
    """A message as Outlook saves one: the subject, the sender, two recipients (To, Cc),
    the sent time, an internet message id, a plain body and an attachment."""
    out = dict([
        _wide(0x0037, "Offer for the café"), _wide(0x0C1A, "Ada Lovelace"),
        _wide(0x5D01, "ada@example.org"), _wide(0x1035, "<offer-1@example.org>"),
        _wide(0x1000, "The offer stands until Friday.\r\nRegards, Ada"),
        _wide(0x0E04, "Bo Li"), ("__properties_version1.0", _props(32, {
            0x0039: (0x40, _filetime(datetime(2026, 12, 4, 9, 30, tzinfo=UTC)))})),
        *_recipient(0, "Bo Li", "bo@example.org", 1).items(),
        *_recipient(1, "Carl", "carl@example.org", 2).items(),
        ("__attach_version1.0_#00000000/" + _wide(0x3707, "terms.pdf")[0],
         _wide(0x3707, "terms.pdf")[1])])
    out.update(streams)
    return {k: v for k, v in out.items() if v}


def test_an_outlook_message_reads_as_an_email_message(tmp_path: Path) -> None:
    [doc] = load_documents(write_compound(tmp_path / "offer.msg", _offer()))
    assert (doc.id, doc.title) == ("offer.msg", "Offer for the café")
    assert doc.text == ("From: Ada Lovelace <ada@example.org>\nTo: Bo Li <bo@example.org>\n"
                        "Cc: Carl <carl@example.org>\nDate: Fri, 04 Dec 2026 09:30:00 +0000\n\n"
                        "The offer stands until Friday.\nRegards, Ada")
    assert doc.metadata == {"source": str(tmp_path / "offer.msg"),
                            "from": "Ada Lovelace <ada@example.org>",
                            "to": "Bo Li <bo@example.org>", "cc": "Carl <carl@example.org>",
                            "date": "2026-12-04T09:30:00+00:00",
                            "message_id": "<offer-1@example.org>", "attachments": ["terms.pdf"]}


def test_8_bit_text_an_html_body_and_exchange_addresses(tmp_path: Path) -> None:
    """Older Outlook stores 8-bit strings in the message's code page; a message may have an
    HTML body only; an Exchange sender has no SMTP address saved."""
    streams = {k: v for k, v in _offer().items() if "__recip" not in k}
    streams.update({
        "__substg1.0_0037001F": b"", "__substg1.0_0037001E": "Привет".encode("cp1251"),
        "__substg1.0_1000001F": b"", "__substg1.0_5D01001F": b"",
        "__substg1.0_0C1F001F": "/O=EXAMPLE/OU=ADMIN/CN=ADA".encode("utf-16-le"),
        "__substg1.0_10130102": "<p>Встреча в <b>пятницу</b></p><script>x()</script>"
                                .encode("cp1251"),
        "__properties_version1.0": _props(32, {0x3FFD: (3, struct.pack("<iI", 1251, 0))})})
    streams = {k: v for k, v in streams.items() if v}
    [doc] = load_documents(write_compound(tmp_path / "ru.msg", streams))
    assert doc.title == "Привет"
    assert doc.text == "From: Ada Lovelace\nTo: Bo Li\n\nВстреча в пятницу"


def test_names_are_shown_as_written_and_a_date_past_9999_is_none(tmp_path: Path) -> None:
    streams = _offer(**dict([_wide(0x0C1A, "Åsa Öberg"), ("__properties_version1.0", _props(
        32, {0x0039: (0x40, struct.pack("<Q", 2**64 - 1))}))]))
    [doc] = load_documents(write_compound(tmp_path / "asa.msg", streams))
    assert doc.text.startswith("From: Åsa Öberg <ada@example.org>\nTo: Bo Li")
    assert "Date" not in doc.text and "date" not in doc.metadata


def test_a_message_with_neither_subject_nor_body_keeps_its_headers(tmp_path: Path) -> None:
    streams = {"__substg1.0_0037001F": b"", "__substg1.0_1000001F": b""}
    [doc] = load_documents(write_compound(tmp_path / "bare.msg", _offer(**streams)))
    assert doc.title == "bare" and doc.text.endswith("+0000")


def test_files_that_are_no_outlook_message(tmp_path: Path) -> None:
    (tmp_path / "plain.msg").write_text("just text")
    with pytest.raises(LoaderError, match=r"plain\.msg: not an Outlook message \(no compound"):
        load_documents(tmp_path / "plain.msg")
    other = write_compound(tmp_path / "other.msg", {"WordDocument": b"x"})
    with pytest.raises(LoaderError, match=r"other\.msg: not an Outlook message \(it has no "
                                          r"'__properties_version1\.0' stream\)"):
        load_documents(other)


def test_vizrag_index_and_query_find_an_outlook_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_compound(tmp_path / "m.msg", _offer())
    top, line = folder_top(capsys, tmp_path, {
        "offer.msg": (tmp_path / "m.msg").read_bytes(),
        "other.md": "# Bergen\n\nBergen lies on the west coast.\n"},
        "Until when does the offer stand?")
    assert top["doc_id"] == "offer.msg" and "Friday" in line


def test_without_the_extra_the_file_is_named_with_the_install_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_module(monkeypatch, "olefile")
    path = write_compound(tmp_path / "offer.msg", _offer())
    assert_needs_extra(path, r"offer\.msg: reading Outlook messages needs the 'msg' extra",
                       "msg")
