"""A rendering holding right-to-left text (Arabic, Hebrew) says that the PNG draws it left
to right and unjoined (it did so silently; the HTML viewer shows it as written)."""

from __future__ import annotations

import warnings

from hyperviz_core import Hypergraph, HyperViz
from hyperviz_core.draw.fonts import RightToLeftWarning
from hyperviz_core.model import Entity, Hyperedge


def _render(names: list[str]) -> list[warnings.WarningMessage]:
    hg = Hypergraph()
    for n in names:
        hg.add_entity(Entity(name=n))
    hg.add_hyperedge(Hyperedge(members=names, description="places"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        HyperViz().render(hg, layouts=("bi-inc",))
    return [w for w in seen if issubclass(w.category, RightToLeftWarning)]


def test_right_to_left_names_are_said() -> None:
    said = _render(["Cairo", "القاهرة", "תל אביב"])
    assert len(said) == 1
    assert "(Arabic, Hebrew) are drawn left to right and unjoined" in str(said[0].message)


def test_left_to_right_text_says_nothing() -> None:
    assert _render(["Cairo", "Zürich", "Москва"]) == []
