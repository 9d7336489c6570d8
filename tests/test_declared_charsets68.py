"""A charset a page or message declares that is no text encoding is ignored (stop 68).

Python knows ``base64``, ``rot13``, ``zlib``, ``hex`` and ``undefined`` as codecs, but they
decode no text: a page whose ``<meta charset>`` named one stopped the indexing with
Python's own ``LookupError``, and a message part declaring one made its message "not an
e-mail message". Python's ``unicode_escape`` would read the backslashes in a document as
escapes. Such a declaration is now ignored: the bytes read as if none were declared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.legacy import declared_codec
from hyperviz_core.rag.index.loaders import load_documents

ODD = ["base64", "rot13", "zlib", "hex", "undefined", "unicode_escape", "raw_unicode_escape",
       "idna"]


@pytest.mark.parametrize("label", ODD)
def test_a_page_declaring_no_text_encoding_reads_as_utf8(tmp_path: Path, label: str) -> None:
    page = tmp_path / "a.html"
    page.write_bytes(f'<meta charset="{label}"><p>café \\x41</p>'.encode())
    (doc,) = load_documents([page])
    assert doc.text == "café \\x41"


@pytest.mark.parametrize("label", ODD)
def test_a_message_declaring_no_text_encoding_reads_as_utf8(tmp_path: Path,
                                                            label: str) -> None:
    mail = tmp_path / "m.eml"
    mail.write_bytes(f"Subject: Odd\nContent-Type: text/plain; charset={label}\n"
                     "Content-Transfer-Encoding: 8bit\n\ncafé \\x41\n".encode())
    (doc,) = load_documents([mail])
    assert doc.text == "café \\x41"


def test_declared_codec() -> None:
    assert [declared_codec(x) for x in ("latin-1", "GB2312", "utf-8", "a\0b", "")] == [
        "iso8859-1", "gb2312", "utf-8", None, None]
    assert declared_codec("utf-32") is None and declared_codec("utf-32", ascii_alike=False)
