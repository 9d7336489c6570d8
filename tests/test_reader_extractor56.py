"""``VizRAGReader.file_extractor()`` (stop 56): one ``SimpleDirectoryReader`` argument that
reads every format vizrag reads with vizrag's readers (e-mail, notebooks, subtitles ... which
LlamaIndex's default readers read as plain text or not at all), a suffix whose extra is not
installed left to LlamaIndex."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")


def test_simple_directory_reader_reads_every_format_with_vizrag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from llama_index.core import SimpleDirectoryReader

    from hyperviz_core.rag.index import suffixes
    from vizrag_llamaindex import VizRAGReader

    msg = EmailMessage()
    msg["Subject"], msg["From"] = "Engine notes", "ada@example.org"
    msg.set_content("The engine weaves algebra.")
    (tmp_path / "note.eml").write_bytes(bytes(msg))
    (tmp_path / "sales.ipynb").write_text(json.dumps({"nbformat": 4, "metadata": {}, "cells": [
        {"cell_type": "markdown", "source": "# Sales\nTotals peak in May."}]}))
    (tmp_path / "ada.md").write_text("# Ada\n\nAda wrote notes.\n")
    docs = SimpleDirectoryReader(str(tmp_path),
                                 file_extractor=VizRAGReader.file_extractor()).load_data()
    got = {d.metadata["file_name"]: (d.id_, d.metadata["title"], d.text) for d in docs}
    assert got == {
        "ada.md": ("ada", "Ada", "# Ada\n\nAda wrote notes.\n"),
        "note.eml": ("note.eml", "Engine notes",
                     "From: ada@example.org\n\nThe engine weaves algebra."),
        "sales.ipynb": ("sales.ipynb", "Sales", "# Sales\nTotals peak in May.")}
    extractor = VizRAGReader.file_extractor(on_unreadable="skip")
    assert len(set(map(id, extractor.values()))) == 1  # one reader, options given once
    assert next(iter(extractor.values())).options.on_unreadable == "skip"
    monkeypatch.setattr(suffixes, "reader_missing",
                        lambda s: "no" if s.lower() == ".rtf" else None)
    assert ".rtf" not in VizRAGReader.file_extractor() and ".md" in VizRAGReader.file_extractor()
