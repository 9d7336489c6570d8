"""A message's text parts are read by the charset they declare, else as UTF-8, and its
attachments as the same files alone would be, in the ``--encoding`` given (stop 68).

Before, Python's ``get_content`` read a part without a charset as ASCII, so a UTF-8
``Tromsø`` in such a body or ``text/plain`` attachment read ``Troms��``; an attachment
in Windows-1252 read with U+FFFD in place of its accents and ``--encoding`` did not apply
to it; an HTML attachment whose charset only the message declared was refused; and a CSV
attachment was only named.
"""

from __future__ import annotations

import mailbox
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag.index.loaders import load_documents

CAFE = "Café in Zürich, ½ price.\n"


def _raw(*parts: tuple[str, bytes]) -> bytes:
    """A multipart message of ``parts`` (their headers, their 8-bit bytes), as a mail
    client that writes 8-bit parts saves it."""
    out = [b"From: Ada <ada@example.org>\nSubject: Crew\nMIME-Version: 1.0\n"
           b"Content-Type: multipart/mixed; boundary=XX\n\n"]
    for headers, data in parts:
        out.append(f"--XX\n{headers}\nContent-Transfer-Encoding: 8bit\n\n".encode() + data
                   + b"\n")
    return b"".join(out) + b"--XX--\n"


def _attached(name: str, kind: str = "application/octet-stream") -> str:
    return f"Content-Type: {kind}\nContent-Disposition: attachment; filename={name}"


def _eml(tmp_path: Path, *parts: tuple[str, bytes]) -> Path:
    path = tmp_path / "crew.eml"
    path.write_bytes(_raw(*parts))
    return path


def _body(tmp_path: Path, headers: str, data: bytes, encoding: str | None = None) -> str:
    [doc] = load_documents(_eml(tmp_path, (headers, data)), encoding=encoding)
    return doc.text.split("\n\n", 1)[1]


def test_a_body_without_a_charset_reads_as_utf8(tmp_path: Path) -> None:
    text = "Crew from Tromsø."
    assert _body(tmp_path, "Content-Type: text/plain", text.encode()) == text
    html = "Content-Type: text/html"
    assert _body(tmp_path, html, f"<p>{text}</p>".encode()) == text
    unknown = "Content-Type: text/plain; charset=x-unknown-8bit"
    assert _body(tmp_path, unknown, text.encode()) == text
    ascii_said = "Content-Type: text/plain; charset=us-ascii"  # said, and not so
    assert _body(tmp_path, ascii_said, text.encode()) == text


def test_a_declared_charset_is_read_as_mail_clients_read_it(tmp_path: Path) -> None:
    latin = "Content-Type: text/plain; charset=iso-8859-1"  # as Windows-1252: € is 0x80
    assert _body(tmp_path, latin, "Price: 5 € each.".encode("cp1252")) == "Price: 5 € each."
    gb = "Content-Type: text/plain; charset=gb2312"  # 镕 is in GBK, not in GB2312
    assert _body(tmp_path, gb, "朱镕基访问上海。".encode("gbk")) == "朱镕基访问上海。"
    said_utf8 = "Content-Type: text/plain; charset=utf-8"  # said, and not so
    assert _body(tmp_path, said_utf8, CAFE.encode("cp1252"), "cp1252") == CAFE.strip()


def test_an_html_body_without_a_charset_reads_by_its_meta(tmp_path: Path) -> None:
    page = f'<html><head><meta charset="windows-1252"></head><body><p>{CAFE}</p>'
    assert _body(tmp_path, "Content-Type: text/html", page.encode("cp1252")) == CAFE.strip()


def test_a_header_pythons_parser_fails_on_reads_as_written(tmp_path: Path) -> None:
    """``email`` raises an ``IndexError`` reading ``To: <<<>>> @@``: before, the whole
    message was refused ("not an e-mail message")."""
    path = tmp_path / "odd.eml"
    path.write_bytes(b'Subject: Hi\nFrom: Ada <ada@example.org>\nTo: <<<>>> @@ ,,, "\n\n'
                     b'Body.\n')
    [doc] = load_documents(path)
    assert doc.text == 'From: Ada <ada@example.org>\nTo: <<<>>> @@ ,,, "\n\nBody.'
    assert doc.metadata["to"] == '<<<>>> @@ ,,, "'


def test_a_body_that_is_not_utf8_reads_in_the_encoding_given(tmp_path: Path) -> None:
    plain = "Content-Type: text/plain"
    assert _body(tmp_path, plain, CAFE.encode("cp1252")) == "Caf� in Z�rich, � price."
    assert _body(tmp_path, plain, CAFE.encode("cp1252"), "cp1252") == CAFE.strip()
    assert _body(tmp_path, plain, CAFE.encode("cp1252"), "auto") == CAFE.strip()


def test_text_attachments_read_by_their_charset_else_as_files(tmp_path: Path) -> None:
    path = _eml(tmp_path, ("Content-Type: text/plain", b"The list is attached."),
                (_attached("crew.txt", "text/plain"), "Crew from Tromsø.".encode()),
                (_attached("menu.html", "text/html; charset=windows-1252"),
                 f"<html><body><p>{CAFE}</p></body></html>".encode("cp1252")),
                (_attached("crew.csv", "text/csv; charset=utf-8"),
                 "name,port\nAda,Tromsø\nBo,Bergen\n".encode()),
                (_attached("old.txt"), CAFE.encode("cp1252")))
    [doc] = load_documents(path)
    blocks = doc.text.split("\n\nAttachment: ")
    assert blocks[1] == "crew.txt\n\nCrew from Tromsø."
    assert blocks[2] == f"menu.html\n\n{CAFE.strip()}"
    assert blocks[3].startswith("crew.csv\n\n") and "Tromsø" in blocks[3] and len(blocks) == 4
    [unread] = doc.metadata["attachments_unread"]
    assert unread.startswith("old.txt: not UTF-8 text at line 1, byte 3")
    assert "--encoding WINDOWS-1252" in unread
    for encoding in ("cp1252", "auto"):
        [doc] = load_documents(path, encoding=encoding)
        assert doc.text.endswith(f"Attachment: old.txt\n\n{CAFE.strip()}")
        assert "attachments_unread" not in doc.metadata


def test_a_page_attached_keeps_the_charset_the_message_declares(tmp_path: Path) -> None:
    page = f'<meta charset="utf-8"><p>{CAFE}</p>'.encode("cp1252")  # its <meta> is wrong
    path = _eml(tmp_path, ("Content-Type: text/plain", b"See the menu."),
                (_attached("menu.html", "text/html; charset=windows-1252"), page))
    [doc] = load_documents(path)
    assert doc.text.endswith(f"Attachment: menu.html\n\n{CAFE.strip()}")


def test_mailboxes_and_outlook_messages_read_attachments_in_the_encoding(
        tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["Subject"], msg["Message-ID"] = "Menu", "<menu@example.org>"
    msg.set_content("The menu is attached.\n")
    msg.add_attachment(CAFE.encode("cp1252"), maintype="application", subtype="octet-stream",
                       filename="menu.txt")
    box = mailbox.mbox(str(tmp_path / "inbox.mbox"))
    box.add(msg)
    box.close()
    [doc] = load_documents(tmp_path / "inbox.mbox")
    assert doc.metadata["attachments_unread"][0].startswith("menu.txt: not UTF-8 text")
    [doc] = load_documents(tmp_path / "inbox.mbox", encoding="cp1252")
    assert doc.text.endswith(f"Attachment: menu.txt\n\n{CAFE.strip()}")
    pytest.importorskip("olefile")
    from compound_files import write_compound
    from test_msg57 import _offer, _wide

    at = "__attach_version1.0_#00000000/"
    streams = _offer(**{at + _wide(0x3707, "menu.txt")[0]: _wide(0x3707, "menu.txt")[1],
                        at + "__substg1.0_37010102": CAFE.encode("cp1252")})
    offer = write_compound(tmp_path / "offer.msg", streams)
    [doc] = load_documents(offer)
    assert doc.metadata["attachments_unread"][0].startswith("menu.txt: not UTF-8 text")
    [doc] = load_documents(offer, encoding="auto")
    assert doc.text.endswith(f"Attachment: menu.txt\n\n{CAFE.strip()}")


def test_vizrag_index_says_which_attachment_it_could_not_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    mails = tmp_path / "mails"
    mails.mkdir()
    _eml(mails, ("Content-Type: text/plain", b"The menu is attached."),
         (_attached("old.txt"), CAFE.encode("cp1252")))
    monkeypatch.setattr(sys, "argv", ["vizrag"])
    assert main(["index", str(mails), "--store", str(tmp_path / "s.db"), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert err.count("an attachment not read") == 1  # read twice (planned, indexed): once
    assert f"{mails / 'crew.eml'}: an attachment not read: old.txt: not UTF-8 text" in err
    assert main(["index", str(mails), "--store", str(tmp_path / "t.db"), "--no-progress",
                 "--encoding", "cp1252"]) == 0
    assert "an attachment not read" not in capsys.readouterr().err
    box = mailbox.mbox(str(tmp_path / "inbox.mbox"))  # a mailbox's note names the message
    box.add(_raw((_attached("old.txt"), CAFE.encode("cp1252"))))
    box.close()
    assert main(["index", str(tmp_path / "inbox.mbox"), "--store", str(tmp_path / "u.db"),
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'inbox.mbox'} (message 1): an attachment not read: old.txt" in err
