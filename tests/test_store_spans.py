"""Store schema 3: mention descriptions found in their chunk's text are stored as spans of
it (issue 17), and every read returns the description that was written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hyperviz_core.model import Entity, Hyperedge
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.store.sqlite.spans import mention_description, span
from hyperviz_core.rag.types import Chunk, ChunkExtraction, Document

SENTENCE = "Ada Falk founded the Free Library of Port Haven in 1820."
TEXT = f"Ada Falk was a printer. {SENTENCE} It closed in 1901."


def _write(store: HypergraphStore, doc_id: str, text: str, desc: str, edge_desc: str) -> None:
    chunk = Chunk(id=f"{doc_id}-c0", doc_id=doc_id, text=text)
    ex = ChunkExtraction(
        chunk_id=chunk.id,
        entities=[Entity(name="Ada Falk", description=desc),
                  Entity(name="Free Library", description=desc)],
        hyperedges=[Hyperedge(members=["Ada Falk", "Free Library"], description=edge_desc)])
    store.add_document(Document(id=doc_id, text=text), [chunk], [ex])


def _rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path / "vizrag.sqlite") as conn:
        return conn.execute(
            "SELECT key, description, d_start, d_len FROM entity_mentions ORDER BY key, "
            "chunk_id").fetchall() + conn.execute(
            "SELECT hid, description, d_start, d_len FROM hyperedge_mentions "
            "WHERE kind = 'relation' ORDER BY hid").fetchall()


def test_span_finds_verbatim_passages_only() -> None:
    assert span(SENTENCE, TEXT) == (TEXT.index(SENTENCE), len(SENTENCE))
    assert span("a paraphrase of the founding", TEXT) is None
    assert span("Ada Falk", TEXT) is None  # too short to be worth two offsets
    assert span(SENTENCE, TEXT + "\x00") is None  # NUL: stored as text
    assert mention_description("a paraphrase of it", TEXT) == ("a paraphrase of it", None, None)


def test_sentences_are_spans_and_reads_return_them(tmp_path: Path) -> None:
    with HypergraphStore(tmp_path) as store:
        _write(store, "d1", TEXT, SENTENCE, SENTENCE)
        _write(store, "d2", "Another text about Ada Falk and the Free Library.",
               "An LLM's paraphrase: a printer who founded a library.", "founded")
        rows = _rows(tmp_path)
        spans = [r for r in rows if r[2] is not None]
        assert spans and all(r[1] == "" and r[3] == len(SENTENCE) for r in spans)
        assert any(r[1].startswith("An LLM's paraphrase") and r[2] is None for r in rows)
        got = {e.name: e.description for ex in store.extractions("d1") for e in ex.entities}
        assert got == {"Ada Falk": SENTENCE, "Free Library": SENTENCE}
        edges = [h.description for ex in store.extractions("d1") for h in ex.hyperedges]
        assert edges == [SENTENCE]
        merged = store.bottom().entities["ada falk"].description
        assert SENTENCE in merged and "An LLM's paraphrase" in merged
        # deleting d2 rebuilds the merged rows from the spans left: as if d1 were alone
        store.delete_document("d2")
        after = store.bottom().model_dump()
    with HypergraphStore(tmp_path / "alone") as alone:
        _write(alone, "d1", TEXT, SENTENCE, SENTENCE)
        assert alone.bottom().model_dump() == after


@pytest.mark.parametrize("readonly", [True, False])
def test_schema_2_store_reads_its_text_descriptions(tmp_path: Path, readonly: bool) -> None:
    """A schema-2 store (mention tables without span columns) is read as it is, and its
    first write upgrades it; reads stay the same."""
    with HypergraphStore(tmp_path) as store:
        _write(store, "d1", TEXT, SENTENCE, SENTENCE)
    db = tmp_path / "vizrag.sqlite"
    with sqlite3.connect(db) as conn:  # back to schema 2: text descriptions, no columns
        for table in ("entity_mentions", "hyperedge_mentions"):
            conn.execute(f"UPDATE {table} SET description = substr((SELECT text FROM chunks "
                         f"WHERE id = chunk_id), d_start + 1, d_len) WHERE d_start IS NOT NULL")
            conn.execute(f"ALTER TABLE {table} DROP COLUMN d_start")
            conn.execute(f"ALTER TABLE {table} DROP COLUMN d_len")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        conn.execute("PRAGMA user_version = 2")
    with HypergraphStore(tmp_path, read_only=readonly) as store:
        assert store.schema_version() == 2
        got = {e.name: e.description for ex in store.extractions("d1") for e in ex.entities}
        assert got == {"Ada Falk": SENTENCE, "Free Library": SENTENCE}
        if not readonly:
            _write(store, "d3", "Free Library news.", "A short notice about the library.",
                   "notice")
            assert store.schema_version() == 3
            again = {e.name: e.description for ex in store.extractions("d1")
                     for e in ex.entities}
            assert again == got
