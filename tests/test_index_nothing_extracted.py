"""A chat model whose extraction answers hold no entity is warned about by the library
itself (logged by the indexer), so ``VizRAG.insert`` and the framework wrappers say it too,
not only ``vizrag index``."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from rag_fakes import ParrotChat

from hyperviz_core.rag.engine import VizRAG
from hyperviz_core.rag.types import Document

DOC = Document(id="d1", text="Marie Curie worked with Pierre Curie in Paris.")


def test_a_model_whose_answers_hold_no_entity_is_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING), VizRAG(tmp_path / "s", chat=ParrotChat(),
                                                  show_progress=False) as rag:
        report = rag.insert(DOC)  # ParrotChat answers extraction prompts in prose
    assert report.documents_added == 1 and report.entities == 0
    said = [r for r in caplog.records if "held no entity" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING
    assert said[0].name == "hyperviz_core.rag.index.indexer"


def test_offline_extraction_is_not_warned_about(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """Without a chat model nothing is warned about, even a text with no entity."""
    with caplog.at_level(logging.WARNING), VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(Document(id="d1", text="nothing here at all, in lower case."))
    assert "held no entity" not in caplog.text


def test_a_run_the_store_stops_is_logged(tmp_path: Path,
                                         caplog: pytest.LogCaptureFixture) -> None:
    """A store replaced under an open engine stops ``insert``: the report says so
    (``stopped``) and the library logs it, so a caller that does not read the report hears
    of it (it returned in silence)."""
    import shutil

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(DOC)
        shutil.rmtree(tmp_path / "s")  # another process removes the store, makes it anew
        with VizRAG(tmp_path / "s", show_progress=False) as other:
            other.insert(Document(id="x", text="Rome is in Italy."))
        with caplog.at_level(logging.WARNING):
            report = rag.insert(Document(id="d2", text="Berlin is in Germany."))
    assert report.stopped is not None and report.documents_added == 0
    said = [r for r in caplog.records if r.getMessage().startswith("indexing stopped: ")]
    assert len(said) == 1 and "deleted or replaced" in said[0].getMessage()


def test_documents_without_capitals_are_named_once(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """The offline extractor finds names by their capitals: a Chinese or Arabic document
    gives no entity, and the run says which ones, once, naming what to do. Since stop 57 a
    Chinese one with a name it has a cue for (an organisation's suffix, a date) gives it."""
    docs = [Document(id="zh1", title="星辰", text="张伟是北京人。他喜欢读书。"),
            Document(id="zh2", text="星辰科技公司的总部在北京。张伟在2019年加入了公司。"),
            Document(id="ar1", text="أحمد حسن يعمل في مركز النيل للأبحاث في القاهرة."),
            Document(id="en1", text="Marie Curie worked in Paris."),
            Document(id="lower", text="nothing here at all, in lower case.")]
    with caplog.at_level(logging.WARNING), VizRAG(tmp_path / "s", show_progress=False) as rag:
        report = rag.insert(docs)
        again = rag.insert(docs)  # unchanged: nothing written, nothing said
    assert report.caseless_documents == ["zh1", "ar1"] and again.caseless_documents == []
    said = [r.getMessage() for r in caplog.records if "without capital letters" in
            r.getMessage()]
    assert said == [report.caseless_warning()]
    assert "('zh1', 'ar1')" in said[0] and "--llm" in said[0]


def test_a_georgian_document_is_named_too(tmp_path: Path) -> None:
    """Georgian has capitals in Unicode (Mtavruli) but writes no name with one, so the
    offline extractor reads no entity in it (stop 62; before, the run named no such
    document: its letters counted as cased). Armenian, which capitalises names, is read."""
    docs = [Document(id="ka", text="თბილისი საქართველოს დედაქალაქია. ქალაქი მდებარეობს "
                                   "მტკვრის ნაპირზე."),
            Document(id="hy", text="Երևանը Հայաստանի մայրաքաղաքն է։ Արարատը երևում է "
                                   "Երևանից։")]
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        report = rag.insert(docs)
        names = {e.name for e in rag.store.bottom().entities.values()}
    assert report.caseless_documents == ["ka"]
    assert "Արարատը" in names  # Ararat (with its article -ը, as written)
