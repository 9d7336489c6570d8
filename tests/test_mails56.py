"""E-mail messages (``.eml``) are read as documents (stop 56): the subject is the title,
the From/To/Cc/Date lines and the body (its plain-text part, else its HTML part read as a
page) the text, the headers and the attachments' names the metadata. Before, a folder walk
left ``.eml`` files out."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest
from office_files import folder_top, index_json, top_passage

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.textfiles import walk


def _message(subject: str, body: str, **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"] = headers.get("sender", "Ada Lovelace <ada@example.org>")
    msg["To"] = "Charles Babbage <cb@example.org>"
    msg["Date"] = "Tue, 01 Dec 2026 09:30:00 +0100"
    msg["Message-ID"] = headers.get("message_id", "<engine-1@example.org>")
    msg.set_content(body)
    return msg


def test_a_message_reads_as_its_headers_and_body(tmp_path: Path) -> None:
    msg = _message("Notes on the Analytical Engine — Zürich", "The engine weaves algebra.\n")
    msg.add_attachment(b"%PDF-1.4 never read", maintype="application", subtype="pdf",
                       filename="sketch.pdf")
    path = tmp_path / "engine.eml"
    path.write_bytes(bytes(msg))  # the subject goes out as an encoded word (non-ASCII)
    assert b"=?utf-8?" in path.read_bytes()
    [doc] = load_documents(path)
    assert (doc.id, doc.title) == ("engine.eml", "Notes on the Analytical Engine — Zürich")
    assert doc.text == ("From: Ada Lovelace <ada@example.org>\n"
                        "To: Charles Babbage <cb@example.org>\n"
                        "Date: Tue, 01 Dec 2026 09:30:00 +0100\n\n"
                        "The engine weaves algebra.")
    assert doc.metadata["date"] == "2026-12-01T09:30:00+01:00"
    assert doc.metadata["message_id"] == "<engine-1@example.org>"
    assert doc.metadata["attachments"] == ["sketch.pdf"] and "PDF" not in doc.text
    assert [p.name for p in walk(tmp_path).files] == ["engine.eml"]


def test_an_html_only_body_reads_as_a_page(tmp_path: Path) -> None:
    msg = _message("Menu", "")
    msg.set_content("<html><head><style>p{}</style><script>steal()</script></head><body>"
                    "<p>Soup&nbsp;of the day: <b>leek</b></p><img src='http://x/t.png'>"
                    "</body></html>", subtype="html")
    path = tmp_path / "menu.eml"
    path.write_bytes(bytes(msg))
    [doc] = load_documents(path)
    assert doc.text.endswith("\n\nSoup\xa0of the day: leek") and "steal" not in doc.text


def test_charsets_known_and_unknown(tmp_path: Path) -> None:
    latin = tmp_path / "latin.eml"
    latin.write_bytes(b"Subject: Caf\xe9\nFrom: a@example.org\nContent-Type: text/plain; "
                      b"charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\nCaf\xe9 cr\xe8me\n")
    [doc] = load_documents(latin)
    assert doc.text.endswith("Café crème")
    odd = tmp_path / "odd.eml"
    odd.write_bytes(b"Subject: Odd\nContent-Type: text/plain; charset=x-no-such\n\n"
                    b"caf\xc3\xa9 \xff\n")
    [doc] = load_documents(odd)
    assert doc.text == "café \ufffd" and doc.title == "Odd"
    bare = tmp_path / "bare.eml"  # no subject, no headers shown: the stem, the body
    bare.write_bytes(b"\nJust a body.\n")
    [doc] = load_documents(bare)
    assert (doc.title, doc.text) == ("bare", "Just a body.")


def test_a_binary_file_named_eml_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "x.eml"
    path.write_bytes(b"\x00\x01\x02 not mail")
    with pytest.raises(LoaderError, match=r"x\.eml: a binary file"):
        load_documents(path)


def test_vizrag_index_and_query_find_a_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    top, line = folder_top(capsys, tmp_path, {
        "a.eml": bytes(_message("Engine notes", "The engine weaves algebra.")),
        "b.eml": bytes(_message("Lunch", "Shall we meet at the Crown on Friday?",
                                sender="Mary Somerville <ms@x.org>"))},
        "Where does Mary Somerville want to meet?")
    assert top["doc_id"] == "b.eml" and "Crown" in line


def _mbox(path: Path, messages: list[EmailMessage]) -> Path:
    import mailbox

    box = mailbox.mbox(str(path))
    for msg in messages:
        box.add(msg)
    box.close()
    return path


def test_a_mailbox_gives_a_document_a_message(tmp_path: Path) -> None:
    first = _message("Engine notes", "The engine weaves algebra.")
    second = _message("From the mill", "From now on, the looms run at night.\nFrom Ada.")
    del second["Message-ID"]  # no id of its own: a content-hash id
    path = _mbox(tmp_path / "inbox.mbox", [first, second])
    from hyperviz_core.rag.index.loaders import iter_sourced_documents

    found = list(iter_sourced_documents([path]))
    assert [(d.id, where) for d, where in found] == [
        ("engine-1@example.org", f"{path} (message 1)"),
        (found[1][0].id, f"{path} (message 2)")]
    assert found[1][0].id.startswith("doc-") and found[1][0].metadata["source"] == str(path)
    # body lines starting "From " are stored escaped (">From "), and read as written
    assert found[1][0].text.endswith("\n\nFrom now on, the looms run at night.\nFrom Ada.")
    assert [p.name for p in walk(tmp_path).files] == ["inbox.mbox"]
    single = tmp_path / "one.mbox"  # a message saved without the mbox "From " line
    single.write_bytes(bytes(first))
    with pytest.raises(LoaderError, match=r"one\.mbox: no message in this mailbox"):
        load_documents(single)
    (tmp_path / "empty.mbox").write_bytes(b"")
    assert load_documents(tmp_path / "empty.mbox") == []


def test_vizrag_index_reads_a_mailbox(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _mbox(tmp_path / "inbox.mbox", [
        _message("Engine notes", "The engine weaves algebra."),
        _message("Lunch", "Shall we meet at the Crown on Friday?",
                 sender="Mary Somerville <ms@x.org>", message_id="<lunch-2@x.org>")])
    store = tmp_path / "S"
    assert index_json(capsys, str(path), "--store", str(store))["documents_added"] == 2
    top, line = top_passage(capsys, store, "Where does Mary Somerville want to meet?")
    assert top["title"] == "Lunch" and "Crown" in line
