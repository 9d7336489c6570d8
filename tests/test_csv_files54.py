"""CSV and TSV files as documents (stop 54): with a text column, each row a document as a
JSONL line is; without one, the file one document, a row a line naming its columns. Before,
a folder walk left ``.csv``/``.tsv`` files out and one named directly was read as plain
text (its header and commas in every passage)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.textfiles import walk

PASSAGES = ('id,title,text,year\n'
            '7,Radium,"Radium was discovered in 1898, by the Curies.",1898\n'
            '\n'
            ',Polonium,"Polonium was named\nafter Poland.",1898\n')


def test_a_csv_with_a_text_column_is_a_collection_of_records(tmp_path: Path) -> None:
    path = tmp_path / "passages.csv"
    path.write_text(PASSAGES, encoding="utf-8")
    docs = load_documents(path)
    assert [(d.id, d.title, d.text, d.metadata) for d in docs] == [
        ("7", "Radium", "Radium was discovered in 1898, by the Curies.", {"year": "1898"}),
        (docs[1].id, "Polonium", "Polonium was named\nafter Poland.", {"year": "1898"})]
    assert docs[1].id.startswith("doc-")  # no id: a content-hash id, as in JSONL
    tsv = tmp_path / "collection.tsv"
    tsv.write_text("pid\tpassage\n1\tOslo is a city, in Norway.\n", encoding="utf-8")
    doc = load_documents(tsv, id_field="pid")[0]
    assert (doc.id, doc.text) == ("1", "Oslo is a city, in Norway.")
    named = tmp_path / "named.csv"
    named.write_text("key;body;note\na;Alpha text;x\n", encoding="utf-8")
    assert [d.text for d in load_documents(named, text_field="note")] == ["x"]
    with pytest.raises(LoaderError, match=r"named\.csv: no column 'summary' \(columns: "
                                          r"\['key', 'body', 'note'\]; check --text-field\)"):
        load_documents(named, text_field="summary")


def test_rows_that_do_not_fit_are_errors_naming_their_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("id,text\n1,fine\n\n2,too,many\n", encoding="utf-8")
    with pytest.raises(LoaderError, match=r"bad\.csv:4: 3 cells, the header has 2"):
        load_documents(path)
    path.write_text('id,text\n1,"a quoted\nfield"\n2', encoding="utf-8")
    with pytest.raises(LoaderError, match=r"bad\.csv:4: text field 'text' is missing"):
        load_documents(path)
    path.write_bytes(b"id,text\n1,caf\xe9\n")
    with pytest.raises(LoaderError, match=r"bad\.csv: not UTF-8 text at line 2"):
        load_documents(path)


def test_a_csv_without_a_text_column_is_one_table_document(tmp_path: Path) -> None:
    (tmp_path / "hr").mkdir()
    path = tmp_path / "hr" / "staff.csv"
    path.write_text("Name;City;;Age\nAda Lovelace;London;x;36\n;;;\nBo;;;41;extra\n",
                    encoding="utf-8")
    doc = load_documents(tmp_path)[0]
    assert (doc.id, doc.title, doc.metadata) == ("hr/staff.csv", "staff",
                                                 {"source": str(path)})
    assert doc.text == ("Name: Ada Lovelace; City: London; column 3: x; Age: 36\n"
                        "Name: Bo; Age: 41; column 5: extra")
    empty = tmp_path / "empty.csv"  # a document without text, reported as an empty file is
    empty.write_text("", encoding="utf-8")
    assert [(d.id, d.text) for d in load_documents(empty)] == [("empty.csv", "")]
    one = tmp_path / "one.csv"  # one column: no delimiter in the header
    one.write_text("Cities\nOslo, Norway\n", encoding="utf-8")
    assert load_documents(one)[0].text == "Cities: Oslo; column 2: Norway"


def test_a_walk_reads_csv_and_tsv_files_and_vizrag_indexes_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corp, store = tmp_path / "data", tmp_path / "store"
    corp.mkdir()
    (corp / "passages.csv").write_text(PASSAGES, encoding="utf-8")
    (corp / "staff.tsv").write_text("Name\tCity\nAda Lovelace\tLondon\n", encoding="utf-8")
    assert walk(corp).files == [corp / "passages.csv", corp / "staff.tsv"]
    assert main(["index", str(corp), "--store", str(store), "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents_added"] == 3
    assert main(["query", "Which city is Ada Lovelace in?", "--store", str(store), "--json",
                 "--top-k", "1", "--mode", "naive"]) == 0
    chunk = json.loads(capsys.readouterr().out)["chunks"][0]
    assert (chunk["doc_id"], chunk["text"]) == ("staff.tsv", "Name: Ada Lovelace; City: London")
    (corp / "staff.tsv").unlink()
    assert main(["index", str(corp), "--store", str(store), "--no-progress", "--json",
                 "--prune-missing"]) == 0
    assert json.loads(capsys.readouterr().out)["files_gone"] == ["staff.tsv"]
