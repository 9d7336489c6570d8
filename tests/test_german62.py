"""German names, continued (stop 62): a town's adjective opens a name after a determiner
("die Leipziger Messe" was "Messe"), a word before a lower-case word is no adjective of the
name ("die Türme des Kölner Doms"), and after "des" a name loses its noun's genitive ending
("des Deutschen Bundestages" and "der Deutsche Bundestag" are one entity)."""

from __future__ import annotations

import pytest
from test_german60 import _names

from hyperviz_core.rag.extract.german import nominative

TOWNS = ("Im Jahr 1950 besuchte er die Leipziger Messe mit seinem Bruder. Die Berliner "
         "Mauer fiel 1989, und die Stadt war wieder vereint. Er las die Frankfurter "
         "Allgemeine Zeitung und sah den Hamburger Hafen. Der Maler Max Liebermann lebte "
         "in Berlin, und der Lehrer Müller auch. Sie aß einen Hamburger.")
GENITIVE = ("Der Deutsche Bundestag tagte in Bonn. Der Sitz des Deutschen Bundestages ist in "
            "Berlin. Er sah den Kölner Dom und die Türme des Kölner Doms. Die Geschichte des "
            "Heiligen Römischen Reiches und des Roten Kreuzes war lang.")


def test_a_town_s_adjective_opens_a_name_after_a_determiner() -> None:
    # before: "Messe", "Mauer", "Allgemeine Zeitung", "Hafen"; an -er noun that is no
    # town's ("Maler", "Lehrer") still goes, and a lone town word is a noun ("Hamburger")
    assert _names(TOWNS) == ["1950", "Leipziger Messe", "Berliner Mauer", "1989",
                             "Frankfurter Allgemeine Zeitung", "Hamburger Hafen",
                             "Max Liebermann", "Berlin", "Müller"]


def test_a_name_after_des_is_one_entity_with_its_nominative() -> None:
    # before: "Deutsche Bundestages", "Türme des Kölner Doms", "Heilige Römische Reiches",
    # "Rote Kreuzes": each a second node beside the nominative's
    assert _names(GENITIVE) == ["Deutsche Bundestag", "Bonn", "Berlin", "Kölner Dom",
                                "Heilige Römische Reich", "Rote Kreuz"]


@pytest.mark.parametrize(("name", "before", "want"), [
    ("Deutschen Bundestages", "des", "Deutsche Bundestag"),
    ("Kölner Doms", "eines", "Kölner Dom"),
    ("Hamburger Hafens", "des", "Hamburger Hafen"),
    ("Vereinigten Königreichs", "des", "Vereinigte Königreich"),
    ("Roten Kreuzes", "des", "Rote Kreuz"),
    ("Schwarzen Meeres", "des", "Schwarze Meer"),
    ("Deutschen Bundestages", "im", "Deutsche Bundestages"),  # no genitive determiner
    ("Peter Müllers", "des", "Peter Müllers"),  # opens with no adjective
    ("Deutschen Reichstag", "des", "Deutsche Reichstag"),  # no ending to remove
    ("Kölner Dom", "des", "Kölner Dom"),
    ("Zürcher Kongress", "des", "Zürcher Kongress"),  # -ss is no genitive
])
def test_nominative_after_a_genitive_determiner(name: str, before: str, want: str) -> None:
    assert nominative(name, before) == want
