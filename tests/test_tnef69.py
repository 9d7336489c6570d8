"""Outlook's TNEF wrappers (``winmail.dat``) are unwrapped: the files inside read as the
message's attachments, the body inside read when the message has none (stop 69).

Before, a ``winmail.dat`` part was only named: the Word file, PDF and page Outlook wrapped
in it went unread, and a message whose only body was inside it had none. The ``.tnef`` files
are from tnefparse's tests (``tests/data/tnef/README.md``).
"""

from __future__ import annotations

import mailbox
import random
import struct
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.tneffiles import TNEF_SIGNATURE, is_tnef, unwrapped

DATA = Path(__file__).parent / "data" / "tnef"


def _message(wrapped: bytes, body: str = "", *, kind: str = "ms-tnef",
             name: str = "winmail.dat") -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"], msg["From"] = "VIA Nytt", "Ada <ada@example.org>"
    msg.set_content(body)
    msg.add_attachment(wrapped, "application", kind, filename=name)
    return msg


def _eml(tmp_path: Path, name: str, body: str = "", **kw: str) -> Path:
    path = tmp_path / "via.eml"
    path.write_bytes(bytes(_message((DATA / name).read_bytes(), body, **kw)))
    return path


def test_the_files_outlook_wrapped_are_read_as_attachments(tmp_path: Path) -> None:
    for module in ("olefile", "pypdf", "compressed_rtf"):  # the .doc, .pdf and RTF readers
        pytest.importorskip(module)
    [doc] = load_documents(_eml(tmp_path, "MAPI_ATTACH_DATA_OBJ.tnef"))
    names = ["VIA_Nytt_1402.doc", "VIA_Nytt_1402.pdf", "VIA_Nytt_14021.htm"]
    assert doc.metadata["attachments"] == names  # in place of winmail.dat
    assert "attachments_unread" not in doc.metadata
    blocks = doc.text.split("\n\nAttachment: ")
    assert [b.split("\n", 1)[0] for b in blocks[1:]] == names
    for block in blocks[1:]:  # a Word 97 file, a PDF and a page, each read by its reader
        assert "VIA Flyspesialisten ønsker den nye konkurransesituasjonen" in block
    # the message had no body of its own: the one Outlook wrapped, its compressed RTF
    assert blocks[0].startswith("From: Ada <ada@example.org>\n\nDet er jo en velkjent sak "
                                "at bodødamene er noe mer jålete")


def test_a_message_keeps_its_own_body(tmp_path: Path) -> None:
    [doc] = load_documents(_eml(tmp_path, "umlaut.tnef", "See the attachment."))
    assert doc.metadata["attachments"] == ["TBZ PARIV GmbH.jpg", "image003.jpg",
                                           "UmlautAnhang-äüö.txt"]
    assert doc.text == "From: Ada <ada@example.org>\n\nSee the attachment."  # the wrapped
    # RTF body (TEST äöü +-*/~) is the same message's: not added
    # a text file inside is read as an attachment of the message is: in the encoding given
    [why] = doc.metadata["attachments_unread"]
    assert why.startswith("UmlautAnhang-äüö.txt: not UTF-8 text")
    [doc] = load_documents(_eml(tmp_path, "umlaut.tnef", "See."), encoding="cp1252")
    assert doc.text.endswith("See.\n\nAttachment: UmlautAnhang-äüö.txt\n\nTEST äöü +-*/~")


@pytest.mark.parametrize(("name", "body"), [
    ("body.tnef", "THE BILL OF RIGHTS\nAmendments 1-10 of the Constitution"),  # HTML
    ("triples.tnef", "Sample description"),  # plain text, code page 1251
    ("unicode-mapi-attr.tnef", "\u200bhello world"),  # HTML (its preview property not read)
    # compressed RTF stored a byte short of the size its header declares
    ("rtf.tnef", "aafgag'alga'kgk"),
    # RTF that ends in a NUL after its last brace: not in the text
    ("data-before-name.tnef", "asdf"),
])
def test_the_wrapped_body_of_each_kind_is_read(tmp_path: Path, name: str, body: str) -> None:
    pytest.importorskip("compressed_rtf")
    [doc] = load_documents(_eml(tmp_path, name))
    assert doc.text.split("\n\n", 1)[1].startswith(body) and "\x00" not in doc.text
    assert "attachments_unread" not in doc.metadata


def test_a_wrapper_is_known_by_its_type_or_name_and_its_signature(tmp_path: Path) -> None:
    data = (DATA / "two-files.tnef").read_bytes()
    assert is_tnef("application/ms-tnef", "att00001.dat", data)
    assert is_tnef("application/vnd.ms-tnef", "", data)
    assert is_tnef("application/octet-stream", "WINMAIL.DAT", data)
    assert not is_tnef("application/octet-stream", "data.bin", data)
    assert not is_tnef("application/ms-tnef", "winmail.dat", b"PK\x03\x04" + data)
    [doc] = load_documents(_eml(tmp_path, "two-files.tnef", kind="octet-stream"))
    assert doc.metadata["attachments"] == ["AUTHORS", "README"]  # files without a suffix:
    # named only, as any such attachment


def test_a_damaged_wrapper_is_named_and_the_message_read(tmp_path: Path) -> None:
    data = (DATA / "MAPI_ATTACH_DATA_OBJ.tnef").read_bytes()
    path = tmp_path / "cut.eml"
    path.write_bytes(bytes(_message(data[:6] + b"\x01" * 40, "The body.")))
    [doc] = load_documents(path)
    assert doc.text.endswith("\n\nThe body.")
    assert doc.metadata["attachments"] == ["winmail.dat"]
    assert doc.metadata["attachments_unread"] == [
        "winmail.dat: damaged (not read as TNEF: its first attribute is not whole)"]
    # cut inside the PDF: the Word file before it is read, and the cut is said
    path.write_bytes(bytes(_message(data[:200_000], "The body.")))
    [doc] = load_documents(path)
    assert doc.metadata["attachments"] == ["VIA_Nytt_1402.doc"]
    assert "Attachment: VIA_Nytt_1402.doc\n\nVIA Nytt 14 - 2002" in doc.text
    assert doc.metadata["attachments_unread"] == [
        "winmail.dat: damaged (cut short at byte 65,296 of 200,000; what came before was "
        "read)"]
    path.write_bytes(bytes(_message(data + b"\x00" * 10, "The body.")))  # stray bytes
    [doc] = load_documents(path)
    assert "attachments_unread" not in doc.metadata and len(doc.metadata["attachments"]) == 3
    raw = bytearray((DATA / "umlaut.tnef").read_bytes())
    raw[raw.index(b"LZFu") + 40] ^= 0x55  # a byte of the packed RTF body: its checksum fails
    inner = unwrapped(bytes(raw))
    assert inner.body == "" and len(inner.files) == 3  # the files are read all the same
    [why] = inner.unread
    assert why.startswith("winmail.dat: damaged (its compressed RTF body: CRC is invalid")
    assert unwrapped(bytes(raw), body=False).unread == []  # a body not asked for: not read
    with pytest.raises(LoaderError, match=r"^winmail\.dat: damaged \(not read as TNEF"):
        unwrapped(TNEF_SIGNATURE + b"\x00\x00" + b"\x02" * 11)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_wrappers_with_bytes_changed_are_read_or_named(tmp_path: Path, seed: int) -> None:
    """Random bytes of real wrappers changed: each message is read, the wrapper unwrapped
    or named with why; nothing else is raised."""
    rng = random.Random(seed)
    for name in sorted(p.name for p in DATA.glob("*.tnef")):
        raw = bytearray((DATA / name).read_bytes())
        for _ in range(8):
            at = rng.randrange(4, min(len(raw), 4000))
            raw[at] = rng.randrange(256)
        path = tmp_path / f"{name}.eml"
        path.write_bytes(bytes(_message(bytes(raw), "The body.")))
        [doc] = load_documents(path)
        assert doc.text.startswith("From: Ada <ada@example.org>\n\nThe body.")
        for why in doc.metadata.get("attachments_unread", []):
            assert ": " in why


def _attribute(level: int, ident: int, value: bytes) -> bytes:
    """One TNEF attribute: its level, id, length, value and checksum."""
    return (struct.pack("<BII", level, ident, len(value)) + value
            + struct.pack("<H", sum(value) & 0xFFFF))


def test_counts_past_the_bytes_there_are_end_the_reading() -> None:
    """A property list that says it holds 4,294,967,295 properties, or a property that says
    it holds as many values, is read as far as its bytes go (tnefparse loops that many
    times); the attachment's name before it is kept."""
    name = struct.pack("<HHII", 0x001E, 0x3707, 1, 9) + b"plan.txt\x00" + b"\x00" * 3
    many_values = struct.pack("<HHI", 0x1003, 0x0E21, 0xFFFFFFFF) + b"\x01\x00\x00\x00"
    props = struct.pack("<I", 0xFFFFFFFF) + name + many_values
    stream = (TNEF_SIGNATURE + b"\x00\x00" + _attribute(2, 0x00069002, b"\x01" + b"\x00" * 13)
              + _attribute(2, 0x0006800F, b"the plan") + _attribute(2, 0x00069005, props))
    inner = unwrapped(stream)
    assert inner.files == ["plan.txt"] and inner.attached == [("plan.txt", b"the plan")]
    assert inner.unread == [] and inner.body == ""


def test_a_message_attached_inside_reads_as_a_forwarded_one(tmp_path: Path) -> None:
    """An Outlook item attached inside the wrapper (a TNEF stream itself, after the
    IMessage interface id) reads as a forwarded .eml: its subject, headers and body."""
    [doc] = load_documents(_eml(tmp_path, "IPM-DistList.tnef"))
    assert doc.metadata["attachments"] == ["Untitled Attachment"]
    assert doc.text.endswith("Attachment: Untitled Attachment.eml\n\nXXXXnews\n\n"
                             "From: Axxxx Fxxxxx <xxxx902@citlink.net>\n"
                             "Date: Sun, 06 Sep 2009 00:51:29 +0000")
    pytest.importorskip("compressed_rtf")
    inner = (DATA / "umlaut.tnef").read_bytes()  # an RTF body and three attachments
    item = bytes.fromhex("0703020000000000c000000000000046") + inner
    props = (struct.pack("<I", 2) + struct.pack("<HHII", 0x001E, 0x3707, 1, 8) + b"Minutes\x00"
             + struct.pack("<HHII", 0x000D, 0x3701, 1, len(item)) + item
             + b"\x00" * (-len(item) % 4))
    stream = (TNEF_SIGNATURE + b"\x00\x00" + _attribute(2, 0x00069002, b"\x05" + b"\x00" * 13)
              + _attribute(2, 0x00069005, props))
    path = tmp_path / "fw.eml"
    path.write_bytes(bytes(_message(stream, "See the minutes.")))
    [doc] = load_documents(path)
    assert doc.metadata["attachments"] == ["Minutes"]
    assert doc.text == ("From: Ada <ada@example.org>\n\nSee the minutes.\n\n"
                        "Attachment: Minutes.eml\n\nTEST äöü +-*/~\n\n\n\n"
                        "cid:image003.jpg@01D2EE6A.85652C70")  # its own files: not read


def test_no_extra_is_needed_but_for_an_rtf_body(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from office_files import hide_module

    pytest.importorskip("pypdf")
    hide_module(monkeypatch, "compressed_rtf")
    [doc] = load_documents(_eml(tmp_path, "MAPI_ATTACH_DATA_OBJ.tnef"))
    assert doc.metadata["attachments"][0] == "VIA_Nytt_1402.doc"
    assert "Attachment: VIA_Nytt_1402.pdf" in doc.text  # read all the same
    assert doc.metadata["attachments_unread"] == [
        "winmail.dat: reading its compressed RTF body needs the 'msg' extra (compressed_rtf "
        "is missing): pip install 'vizrag[msg]' (from a checkout: pip install -e '.[msg]')"]
    [doc] = load_documents(_eml(tmp_path, "body.tnef"))  # an HTML body: no extra
    assert "THE BILL OF RIGHTS" in doc.text and "attachments_unread" not in doc.metadata


def test_mailboxes_unwrap_and_vizrag_index_names_a_damaged_wrapper(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pypdf")
    box = mailbox.mbox(str(tmp_path / "inbox.mbox"))
    box.add(_message((DATA / "MAPI_ATTACH_DATA_OBJ.tnef").read_bytes()))
    box.add(_message(b"x\x9f>\"" + b"\x01" * 30, "The second body."))
    box.close()
    first, second = load_documents(tmp_path / "inbox.mbox")
    assert first.metadata["attachments"][0] == "VIA_Nytt_1402.doc"
    assert "Attachment: VIA_Nytt_1402.pdf" in first.text
    assert second.metadata["attachments_unread"][0].startswith("winmail.dat: damaged")
    monkeypatch.setattr(sys, "argv", ["vizrag"])
    capsys.readouterr()
    assert main(["index", str(tmp_path / "inbox.mbox"), "--store", str(tmp_path / "s.db"),
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert (f"{tmp_path / 'inbox.mbox'} (message 2): an attachment not read: winmail.dat: "
            "damaged") in err
    assert err.count("an attachment not read") == 1, err
    # after the run, reading says nothing on stderr (before, vizrag index left its note
    # handler on the logger, and this file's note was printed)
    later = tmp_path / "later.eml"
    later.write_bytes(bytes(_message(b"x\x9f>\"" + b"\x02" * 30, "A body.")))
    load_documents(later)
    assert capsys.readouterr().err == ""
