"""An e-mail message's attachments of the kinds read here follow its body (stop 58), each as
``Attachment: name`` and its text: in ``.eml`` files, mailboxes and Outlook's ``.msg``
files. Before, attachments were only named. The messages are written with Python's
``email`` package (and for ``.msg`` as MS-OXMSG lays one out: ``tests/compound_files.py``).
"""

from __future__ import annotations

import mailbox
import tempfile
from email.message import EmailMessage
from pathlib import Path

import pytest
from office_files import folder_top, make_pdf, write_docx

from hyperviz_core.rag.index.loaders import load_documents

HEAD = ("From: Ada Lovelace <ada@example.org>\nTo: Charles Babbage <cb@example.org>\n"
        "Date: Tue, 01 Dec 2026 09:30:00 +0100")


def _message(subject: str = "Permit papers", body: str = "The papers are attached.\n"
             ) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"] = "Ada Lovelace <ada@example.org>"
    msg["To"] = "Charles Babbage <cb@example.org>"
    msg["Date"] = "Tue, 01 Dec 2026 09:30:00 +0100"
    msg["Message-ID"] = f"<{subject.replace(' ', '-')}@example.org>"
    msg.set_content(body)
    return msg


def _papers(tmp_path: Path) -> EmailMessage:
    """A message with a PDF, a Word file, a text file (named with a path), a picture (named
    only), a damaged PDF, and a forwarded message with an attachment of its own."""
    pytest.importorskip("pypdf")
    pytest.importorskip("docx")
    msg = _message()
    msg.add_attachment(make_pdf([["The berth is reserved for the Aurora."]]),
                       maintype="application", subtype="pdf", filename="berth.pdf")
    msg.add_attachment(write_docx(tmp_path / "w.docx").read_bytes(), maintype="application",
                       subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
                       filename="radium.docx")
    msg.add_attachment("Crew: 12 sailors from Tromsø.\n".encode("latin-1"), maintype="text",
                       subtype="plain", filename="../../crew.txt")
    msg.get_payload()[-1].set_param("charset", "iso-8859-1")
    msg.add_attachment(b"\x89PNG\r\n\x1a\n", maintype="image", subtype="png",
                       filename="map.png")
    msg.add_attachment(b"%PDF-1.4 cut short", maintype="application", subtype="pdf",
                       filename="broken.pdf")
    inner = _message("Fwd earlier", "The harbour master agreed.\n")
    inner.add_attachment("Never read: a forwarded message's own attachment.\n",
                         filename="inner.txt")
    msg.add_attachment(inner, filename="earlier.eml")
    return msg


def test_attachments_follow_the_body(tmp_path: Path) -> None:
    path = tmp_path / "papers.eml"
    path.write_bytes(bytes(_papers(tmp_path)))
    [doc] = load_documents(path)
    blocks = doc.text.split("\n\nAttachment: ")
    assert blocks[0] == f"{HEAD}\n\nThe papers are attached."
    assert blocks[1] == "berth.pdf\n\nThe berth is reserved for the Aurora."
    assert blocks[2].startswith("radium.docx\n\nDiscovery of radium\n\nHeader: Running header"
                                "\n\nDiscovery of radium\n\nMarie Curie")
    assert blocks[3] == "../../crew.txt\n\nCrew: 12 sailors from Tromsø."  # its charset
    assert blocks[4].startswith("earlier.eml\n\nFwd earlier\n\nFrom: Ada Lovelace")
    assert blocks[4].endswith("The harbour master agreed.") and len(blocks) == 5
    assert doc.metadata["attachments"] == ["berth.pdf", "radium.docx", "../../crew.txt",
                                           "map.png", "broken.pdf", "earlier.eml"]
    [unread] = doc.metadata["attachments_unread"]
    assert unread.startswith("broken.pdf: not a PDF pypdf can read")
    assert "vizrag-attachment" not in unread  # the temporary file is not named
    left = list(Path(tempfile.gettempdir()).glob("vizrag-attachment-*"))
    assert left == []  # the temporary files are deleted


def test_a_mailbox_message_and_an_outlook_message_read_theirs(tmp_path: Path) -> None:
    pytest.importorskip("olefile")
    from compound_files import write_compound
    from test_msg57 import _offer, _wide

    box = mailbox.mbox(str(tmp_path / "inbox.mbox"))
    msg = _message("Crew list")
    msg.add_attachment("Crew: 12 sailors.\n", filename="crew.txt")
    box.add(msg)
    box.close()
    [doc] = load_documents(tmp_path / "inbox.mbox")
    assert doc.text.endswith("\n\nAttachment: crew.txt\n\nCrew: 12 sailors.")
    at = "__attach_version1.0_#00000000/"
    streams = _offer(**{at + _wide(0x3707, "terms.txt")[0]: _wide(0x3707, "terms.txt")[1],
                        at + "__substg1.0_37010102": b"Payment within 30 days."})
    [doc] = load_documents(write_compound(tmp_path / "offer.msg", streams))
    assert doc.text.endswith("Regards, Ada\n\nAttachment: terms.txt\n\nPayment within 30 days.")


def test_vizrag_query_finds_text_in_an_attachment(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    top, line = folder_top(capsys, tmp_path, {
        "papers.eml": bytes(_papers(tmp_path)),
        "other.md": "# Oslo\n\nOslo lies at the end of a fjord.\n"},
        "Which ship is the berth reserved for?")
    assert top["doc_id"] == "papers.eml" and "Aurora" in line
