"""Text that looks the same is the same: decomposed accents, soft hyphens and ligatures
(a European user's review, 2026-12-04)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz
from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.unitext import plain_text


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_names_and_descriptions_are_stored_composed() -> None:
    entity = Entity(name=_nfd("Zürich"), description=_nfd("Stadt am Zürichsee"))
    edge = Hyperedge(members=["a", "b"], description=_nfd("Städte"))
    assert entity.name == "Zürich" and entity.description == "Stadt am Zürichsee"
    assert edge.description == "Städte"
    entity.name = _nfd("Genève")  # assignment is validated too
    assert entity.name == "Genève"


def test_a_drawing_of_decomposed_names_labels_them_composed() -> None:
    hg = Hypergraph()
    for name in ("Zürich", "Genève", "Curaçao"):
        hg.add_entity(Entity(name=_nfd(name)))
    hg.add_hyperedge(Hyperedge(members=list(hg.entities), description=_nfd("Städte")))
    names = {e["name"] for e in HyperViz().render(hg).export()["entities"]}
    assert names == {"Zürich", "Genève", "Curaçao"}


def test_plain_text_keeps_other_compatibility_characters() -> None:
    assert plain_text("Donau\u00addampf\u00adschiff \ufb01nanzielle x² ½") == (
        "Donaudampfschiff finanzielle x² ½")


@pytest.mark.parametrize("lazy", [False, True])
def test_soft_hyphens_and_ligatures_match_plain_queries(tmp_path: Path, lazy: bool) -> None:
    docs = [Document(id="p", text="Die Donau\u00addampf\u00adschiff\u00adfahrt ist alt. "
                                  "Die \ufb01nanzielle Lage ist gut."),
            Document(id="q", text="Ein Text über Wien und die Oper.")]
    with VizRAG(tmp_path / "s", show_progress=False, lazy=lazy) as rag:
        rag.insert(docs)
        for query in ("finanzielle", "Donaudampfschifffahrt"):
            result = rag.retrieve(query, top_k=1)
            assert [c.doc_id for c in result.chunks] == ["p"] and not result.unmatched, query
        assert "\u00ad" not in result.chunks[0].text


@pytest.mark.parametrize("name", ["İrşadi Aksun", "Jeanne d’Arc", "Donau\u00addampf",
                                  "\ufb01nanz AG", "Zu\u0308rich", "ＡＢＣ"])
def test_a_name_keeps_the_key_stores_hold_for_it(name: str) -> None:
    """Stores key entities by ``normalize_key`` of the name as extracted; a loaded entity
    whose validated name keyed differently would fail the hypergraph's check
    (DuplicateIdError "stored under key"), so no existing store could be queried."""
    from hyperviz_core.items import normalize_key

    assert Entity(name=name).key == normalize_key(name)
    hg = Hypergraph.model_validate({"entities": {normalize_key(name): {"name": name}}})
    assert list(hg.entities) == [normalize_key(name)]


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize(("text", "query"), [("Die Bahnhofstrasse in Zürich ist bekannt.",
                                              "Bahnhofstraße"),
                                             ("Die Maßnahme in der Straße war teuer.",
                                              "STRASSE Massnahme")])
def test_sharp_s_and_ss_match_each_other(tmp_path: Path, lazy: bool, text: str,
                                         query: str) -> None:
    """BM25 lower-cases (``straße``) while case folding writes ``strasse``: a Swiss
    ``Strasse`` and a German ``Straße`` did not match each other in either direction."""
    docs = [Document(id="ch", text=text), Document(id="be", text="Der Gemeinderat tagte.")]
    with VizRAG(tmp_path / "s", show_progress=False, lazy=lazy) as rag:
        rag.insert(docs)
        result = rag.retrieve(query, top_k=1)
    assert [c.doc_id for c in result.chunks] == ["ch"] and not result.unmatched


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize(("text", "query"), [
    ("La société anonyme a publié son rapport sur l'économie.", "societe economie"),
    ("Der Spieler Núñez wechselte nach Sevilla.", "Nunez"),
    ("The old creperie on the corner closed in 1999.", "Which crêperie?"),
])
def test_a_query_word_without_the_corpus_accents_matches(tmp_path: Path, lazy: bool,
                                                         text: str, query: str) -> None:
    """An unknown query word the corpus spells with other accents gets those spellings:
    "societe" matched nothing (only capitalised names were compared accent-blind). (The
    other document names no entity: in ``vizrag`` mode a query that names none anchors on
    the top view's most central entities, whose evidence can outrank a two-document
    store's only BM25 match.)"""
    docs = [Document(id="hit", text=text),
            Document(id="other", text="ein anderer text über die oper am abend.")]
    with VizRAG(tmp_path / "s", show_progress=False, lazy=lazy) as rag:
        rag.insert(docs)
        result = rag.retrieve(query, top_k=1)
    assert [c.doc_id for c in result.chunks] == ["hit"] and not result.unmatched


def test_accent_forms_join_the_stem_forms_not_replace_them() -> None:
    """A plural query lost the plain singular the corpus uses once an accented variant
    existed ("cafes" → only "cafés", not "cafe")."""
    from hyperviz_core.rag.retrieve.lexicon import QueryLexicon
    from hyperviz_core.rag.types import Chunk

    chunks = [Chunk(id="c", doc_id="d", index=0, text="the cafés and the cafe")]
    assert QueryLexicon(chunks, {}).repair("cafes").forms == ["cafe", "cafés"]
    greek = [Chunk(id="g", doc_id="d", index=0, text="ο λόγος του")]
    assert QueryLexicon(greek, {}).repair("λόγος").forms == []  # no σ twin BM25 never holds


def test_each_repair_has_its_own_allowance() -> None:
    """Three stem forms left no room for the accent twin ("resume" lost *résumé*), and a
    ligature in the query got no plain spelling (a review of the day's last commits)."""
    from hyperviz_core.rag.retrieve.lexicon import QueryLexicon
    from hyperviz_core.rag.types import Chunk

    def forms(text: str, query: str) -> list[str]:
        return QueryLexicon([Chunk(id="c", doc_id="d", index=0, text=text)], {}
                            ).repair(query).forms

    assert "résumé" in forms("Her résumé was resumed; resumes and resuming", "resume")
    assert forms("corporate finance office", "corporate \ufb01nance") == ["finance"]
