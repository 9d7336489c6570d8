"""Cherokee (stop 63): Unicode calls every letter of the syllabary as people write it a
capital (the small letters, added in 2015, little text uses), so the offline extractor took
each Cherokee sentence for one long name. Its letters are now read small for names
(:func:`hyperviz_core.rag.extract.shouted.small_syllabary`), and the indexing run names a
Cherokee document as one the offline extractor reads no name in, as it does Georgian."""

from __future__ import annotations

from pathlib import Path

from test_cjk_offline57 import _found

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract.shouted import small_syllabary
from hyperviz_core.rag.index.caseless import written_without_capitals

# "The Cherokee language is spoken by the Cherokee people." / "Sequoyah made the syllabary."
CHEROKEE = "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᎠᏂᏴᏫᏯ ᎤᏂᏬᏂᎯᏍᏗ ᎨᏒᎢ. ᏌᏊ ᎢᏳᏩᏂᏌᏛ ᎤᏂᏣᏘ ᎠᏂᏴᏫ ᏣᎳᎩ ᎠᏂᏬᏂᏍᎩ."


def test_a_cherokee_sentence_is_no_name() -> None:
    assert _found(CHEROKEE) == []  # before: each sentence one "entity"


def test_names_in_capitals_beside_cherokee_are_still_read() -> None:
    text = "Sequoyah ᏌᏊᏯ ᎤᏬᏢᏁ ᏣᎳᎩ ᏗᎪᏪᎵ ᏓᎵᏆ."
    assert [name for name, _ in _found(text)] == ["Sequoyah"]


def test_a_cherokee_name_in_an_english_sentence_stays_a_name() -> None:
    # MuSiQue's passage on Tennessee: most of the sentence's letters are Latin
    text = "Tennessee (Cherokee: ᏔᎾᏏ, Tanasi) is a state located in the United States."
    assert "ᏔᎾᏏ" in [name for name, _ in _found(text)]


def test_every_offset_is_kept() -> None:
    small = small_syllabary(CHEROKEE)
    assert len(small) == len(CHEROKEE) and small != CHEROKEE
    assert not any(c.isupper() for c in small)
    assert small_syllabary("Marie Curie") == "Marie Curie"


def test_a_cherokee_document_is_named_in_the_report(tmp_path: Path) -> None:
    assert written_without_capitals(CHEROKEE)
    assert written_without_capitals(small_syllabary(CHEROKEE))
    docs = [Document(id="chr", text=CHEROKEE),
            Document(id="en", text="Sequoyah created the Cherokee syllabary in Tahlequah.")]
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        report = rag.insert(docs)
        names = {e.name for e in rag.store.bottom().entities.values()}
    assert report.caseless_documents == ["chr"]
    assert "Sequoyah" in names and not any("Ꮳ" in n for n in names)
