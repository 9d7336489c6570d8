"""Subtitle and caption files (``.srt``, ``.vtt``) are read as what the captions say (stop
56): timings, cue numbers and markup dropped, WebVTT speakers kept, rolling captions given
once. Before, a walk left them out and one named directly was read as text, timings and
all."""

from __future__ import annotations

from pathlib import Path

import pytest
from office_files import folder_top

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.textfiles import walk

VTT = """WEBVTT - Weekly standup

NOTE recorded by the meeting tool

STYLE
::cue { color: yellow }

intro
00:00:01.000 --> 00:00:04.000 align:start
<v Ada Lovelace>The engine build slipped to <b>March</b>.

00:00:04.000 --> 00:00:07.500
<v.loud Charles>Then we ship the loom &amp; the mill first.
<00:00:06.000>Agreed?

00:00:07.500 --> 00:01:02.250
Agreed?
<c.yellow>Yes.</c>
"""


def test_a_vtt_file_reads_as_what_is_said(tmp_path: Path) -> None:
    path = tmp_path / "standup.vtt"
    path.write_text(VTT, encoding="utf-8")
    [doc] = load_documents(path)
    assert (doc.id, doc.title) == ("standup.vtt", "Weekly standup")
    assert doc.text == ("Ada Lovelace: The engine build slipped to March.\n"
                        "Charles: Then we ship the loom & the mill first.\n"
                        "Agreed?\nYes.")
    assert doc.metadata["duration"] == 62.25
    assert [p.name for p in walk(tmp_path).files] == ["standup.vtt"]


def test_an_srt_file_with_windows_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "film.srt"
    path.write_bytes("1\r\n00:00:01,000 --> 00:00:03,000\r\n<i>Où est la gare ?</i>\r\n\r\n"
                     "2\r\n01:00:00,000 --> 01:00:02,500\r\nÀ droite.\r\n".encode())
    [doc] = load_documents(path)
    assert (doc.title, doc.text) == ("film", "Où est la gare ?\nÀ droite.")
    assert doc.metadata["duration"] == 3602.5


def test_a_file_with_no_cue_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.srt"
    path.write_text("just some notes\n")
    with pytest.raises(LoaderError, match=r"notes\.srt: no caption cue"):
        load_documents(path)


def test_vizrag_index_and_query_find_a_caption(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    top, line = folder_top(capsys, tmp_path, {
        "standup.vtt": VTT, "other.md": "# Bergen\n\nBergen lies on the west coast.\n"},
        "When will the engine build be ready?")
    assert top["doc_id"] == "standup.vtt" and "March" in line
