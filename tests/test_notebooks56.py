"""Jupyter notebooks (``.ipynb``) are read as documents (stop 56): Markdown and raw cells as
written, code cells as fenced blocks in the notebook's language, outputs left out. Before,
a folder walk left them out, and one named directly was read as a text file: its raw JSON,
outputs and base64 images included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from office_files import folder_top

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.textfiles import walk


def _notebook_json(cells: list[dict[str, Any]], **metadata: Any) -> str:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}
    return json.dumps(nb, indent=1)


def _notebook(path: Path, cells: list[dict[str, Any]], **metadata: Any) -> Path:
    path.write_text(_notebook_json(cells, **metadata), encoding="utf-8")
    return path


CELLS = [
    {"cell_type": "markdown", "metadata": {}, "source": ["Intro\n", "=====\n", "\n",
                                                          "Monthly sales of the Oslo shop."]},
    {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": [
        "import pandas as pd\n", "df = pd.read_csv('sales.csv')"],
     "outputs": [{"output_type": "stream", "name": "stdout", "text": ["SECRET OUTPUT\n"]},
                 {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo="}}]},
    {"cell_type": "code", "metadata": {}, "source": "", "outputs": []},  # empty: dropped
    {"cell_type": "raw", "metadata": {}, "source": "Raw notes: totals peak in May."},
]


def test_a_notebook_reads_as_its_cells(tmp_path: Path) -> None:
    path = _notebook(tmp_path / "sales.ipynb", CELLS,
                     language_info={"name": "python", "version": "3.12"})
    [doc] = load_documents(path)
    assert (doc.id, doc.title) == ("sales.ipynb", "Intro")
    assert doc.text == ("Intro\n=====\n\nMonthly sales of the Oslo shop.\n\n"
                        "```python\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\n```\n\n"
                        "Raw notes: totals peak in May.")
    assert "SECRET" not in doc.text and "iVBOR" not in doc.text
    assert [p.name for p in walk(tmp_path).files] == ["sales.ipynb"]
    titled = _notebook(tmp_path / "r.ipynb", [{"cell_type": "code", "source": "x <- 1"}],
                       title="Sales  in R", kernelspec={"name": "ir", "language": "R"})
    [doc] = load_documents(titled)
    assert (doc.title, doc.text) == ("Sales in R", "```R\nx <- 1\n```")


def test_files_that_are_no_notebook_are_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": [\n oops]}')
    with pytest.raises(LoaderError, match=r"broken\.ipynb:2: invalid JSON"):
        load_documents(broken)
    old = tmp_path / "old.ipynb"
    old.write_text(json.dumps({"nbformat": 3, "worksheets": [{"cells": []}]}))
    with pytest.raises(LoaderError, match=r"old\.ipynb: a notebook of the older format 3"):
        load_documents(old)
    other = tmp_path / "other.ipynb"
    other.write_text(json.dumps([{"text": "a record"}]))
    with pytest.raises(LoaderError, match=r"other\.ipynb: not a Jupyter notebook"):
        load_documents(other)


def test_vizrag_index_and_query_find_a_cell(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    top, line = folder_top(capsys, tmp_path, {
        "sales.ipynb": _notebook_json(CELLS),
        "ops.ipynb": _notebook_json([{"cell_type": "markdown",
                                      "source": "# Servers\nThe cluster runs in Bergen."}])},
        "When do the Oslo shop's totals peak?")
    assert top["doc_id"] == "sales.ipynb" and "May" in line
