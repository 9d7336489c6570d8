"""HTML with a marked section Python's parser fails on (``<![ x``, ``<![foo[``) reads as
browsers read it: a comment up to the first ``>`` (stop 69).

Before, ``html.parser`` raised an ``AssertionError`` inside itself, so one such page stopped
``vizrag index`` with a traceback; the same held for a message's HTML body, an EPUB page, a
PDF's rich-text form field and a Word file's HTML chunk, all read by ``page_text``. Found by
fuzzing the TNEF reader, whose HTML bodies reach it.
"""

from __future__ import annotations

import sys
from email.message import EmailMessage
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag.index.htmlpages import page_text
from hyperviz_core.rag.index.loaders import load_documents


@pytest.mark.parametrize(("markup", "text"), [
    ("<p>Harbour fees</p><![ x</body></html>", "Harbour fees"),  # no name after <![
    ("<p>a</p><![foo[ x ]]><p>b</p>", "a\n\nb"),  # a keyword Python does not know
    ("<p>a</p><![ x", "a"),  # no > after it: a comment to the end
    ("=]]><![\x1c[", "=]]>"),
])
def test_a_marked_section_python_fails_on_is_a_comment(markup: str, text: str) -> None:
    assert page_text(markup)[1] == text


@pytest.mark.parametrize(("markup", "text"), [
    ("<![if !supportLists]>1.<![endif]> Pay the fees", "1. Pay the fees"),  # Word's HTML
    ("<p>a<![CDATA[x]]>b</p>", "ab"),
])
def test_marked_sections_python_reads_read_as_before(markup: str, text: str) -> None:
    assert page_text(markup)[1] == text


def test_such_a_page_or_html_body_is_indexed(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "fees.html").write_text("<title>Fees</title><p>Harbour fees rise.</p><![ x "
                                     "<p>From May.</p>", encoding="utf-8")
    msg = EmailMessage()
    msg["Subject"] = "Fees"
    msg.set_content("<p>Harbour fees rise.</p><![foo[ x ]]>", subtype="html")
    (pages / "fees.eml").write_bytes(bytes(msg))
    mail, page = sorted(load_documents(pages), key=lambda d: d.id)
    assert page.title == "Fees"  # the comment ends at the first >, <p>'s
    assert page.text == "Harbour fees rise.\n\nFrom May."
    assert mail.text == "Harbour fees rise."  # (no From, To, Cc or Date lines)
    monkeypatch.setattr(sys, "argv", ["vizrag"])
    assert main(["index", str(pages), "--store", str(tmp_path / "s.db"), "--no-progress"]) == 0
