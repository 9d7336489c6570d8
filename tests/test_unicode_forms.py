"""Text that looks the same is the same: decomposed accents, soft hyphens, ligatures,
curly apostrophes and the Turkish capital İ (a European user's review, 2026-12-04)."""

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


def test_curly_apostrophes_and_dotted_capital_i_name_one_entity() -> None:
    hg = Hypergraph()
    for name in ("Jeanne d’Arc", "Jeanne d'Arc", "İstanbul", "Istanbul"):
        hg.add_entity(Entity(name=name))
    assert sorted(hg.entities) == ["istanbul", "jeanne d'arc"]


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
