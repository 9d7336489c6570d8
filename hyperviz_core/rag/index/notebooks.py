"""Reading Jupyter notebooks (``.ipynb``, nbformat 4) as documents, with Python's own
``json`` (no extra).

One document per notebook, its id and ``source`` as a PDF's (the id keeps the suffix:
``analysis.ipynb``). Its text is its cells in order, a blank line between two: a Markdown
or raw cell as written, a code cell as a fenced block in the notebook's language
(```` ```python ````). Outputs (tables, plots, printed values) and attachments are left
out: they are results, often large, and images. The title is the notebook's own
(``metadata.title``), else its first Markdown heading, else the file's stem.

A file that is not JSON names its line; a notebook of the older format 3 (its cells in
``worksheets``), or a JSON file that is no notebook, is a :class:`~.errors.LoaderError`
naming the file. Nothing in the notebook is run.

Example:
    >>> import json, tempfile
    >>> nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    ...     {"cell_type": "markdown", "source": ["# Sales\\n", "Totals by month."]},
    ...     {"cell_type": "code", "source": "df.sum()", "outputs": [{"text": "42"}]}]}
    >>> path = Path(tempfile.mkdtemp()) / "sales.ipynb"
    >>> _ = path.write_text(json.dumps(nb))
    >>> doc = notebook_document(path, True)
    >>> doc.id, doc.title, doc.text.splitlines()
    ('sales.ipynb', 'Sales', ['# Sales', 'Totals by month.', '', '```python', 'df.sum()', '```'])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .jsontext import parse_json
from .textfiles import check_not_binary, path_id, read_text
from .titles import cut_title, heading_title

__all__ = ["notebook_document"]


def _source(cell: dict[str, Any]) -> str:
    """A cell's source: a string, or a list of lines (as Jupyter saves it)."""
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source.strip("\n") if isinstance(source, str) else ""


def _language(notebook: dict[str, Any]) -> str:
    """The notebook's language, for its code blocks (``python`` when it says none)."""
    meta = notebook.get("metadata")
    for key in ("language_info", "kernelspec"):
        found = meta.get(key) if isinstance(meta, dict) else None
        name = found.get("name" if key == "language_info" else "language") \
            if isinstance(found, dict) else None
        if isinstance(name, str) and name.isidentifier():
            return name
    return "python"


def notebook_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the Jupyter notebook ``path`` (see the module's docs)."""
    check_not_binary(path)
    notebook = parse_json(read_text(path), str(path))
    where = printable(str(path))
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        if isinstance(notebook, dict) and "worksheets" in notebook:
            raise LoaderError(f"{where}: a notebook of the older format 3; open it in Jupyter "
                              "and save it again (format 4) to index it")
        raise LoaderError(f"{where}: not a Jupyter notebook (no list of cells)")
    language = _language(notebook)
    blocks: list[str] = []
    markdown: list[str] = []
    for cell in notebook["cells"]:
        if not isinstance(cell, dict) or not (text := _source(cell)).strip():
            continue
        if cell.get("cell_type") == "code":
            blocks.append(f"```{language}\n{text}\n```")
        else:
            blocks.append(text)
            if cell.get("cell_type") == "markdown":
                markdown.append(text)
    meta = notebook.get("metadata")
    own = meta.get("title") if isinstance(meta, dict) else None
    title = (" ".join(own.split()) if isinstance(own, str) else "") or next(
        (t for t in map(heading_title, markdown) if t), path.stem)
    return Document(id=path_id(path, id_from_path, root), title=cut_title(title),
                    text="\n\n".join(blocks), metadata={"source": str(path)})
