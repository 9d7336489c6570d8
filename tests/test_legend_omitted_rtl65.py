"""A legend entry's ``(+N omitted)`` after a right-to-left description reads as written
(stop 65).

A hyperedge that lost members to pruning ends its legend entry in ``(+N omitted)``. After a
Hebrew or Arabic description the whole line took the description's direction, so the mark
was drawn ``(omitted N+``: its number and its word swapped and its brackets turned. The mark
is now isolated there (``draw.legend._omitted``); after any other description it is the
same text as before, and the export's legend holds it without the isolates.
"""

from __future__ import annotations

import pytest
from render_spy import render_spied

from hyperviz_core import Budget, Entity, Hyperedge, Hypergraph, HyperViz
from hyperviz_core.draw import text as text_mod
from hyperviz_core.draw.legend import _entry_lines, _entry_text
from hyperviz_core.style import Style
from hyperviz_core.unitext import FSI, PDI, isolate

DESC = "אליס, בוב וקרול ייסדו את אקמה"  # Alice, Bob and Carol founded Acme


def _xs(text: str) -> dict[str, float]:
    """Where the layout puts the first of each character of ``text`` (the font units the
    label is drawn in, left to right), as ``draw.text`` lays it out."""
    shaped = text_mod._shaped(text)
    with text_mod._LOCK:
        found = text_mod._run_font(shaped, False)
        assert found is not None
        ft = found[1]
        ft.set_size(text_mod._EM, 72)
        xs: dict[str, float] = {}
        for item in ft._layout(shaped, text_mod.LoadFlags.NO_HINTING):
            xs.setdefault(item.char, item.x)
    return xs


def _reads_left_to_right(line: str) -> bool:
    xs = _xs(line)
    return xs["("] < xs["+"] < xs["1"] < xs["o"] < xs["d"] < xs[")"]


def test_the_mark_is_isolated_after_a_right_to_left_description() -> None:
    style = Style()
    line = _entry_text(DESC, style, 600.0, 1)
    assert line == DESC + " " + isolate("(+1 omitted)")
    assert _reads_left_to_right(line)
    assert not _reads_left_to_right(DESC + " (+1 omitted)")  # as drawn before
    two = _entry_lines(DESC + " " + DESC, style, 220.0, 1)
    assert len(two) == 2 and two[1].endswith(isolate("(+1 omitted)"))
    assert _reads_left_to_right(two[1])


@pytest.mark.parametrize("desc", ["Alice, Bob and Carol founded Acme", "東京は日本の首都"])
def test_after_other_descriptions_the_mark_is_as_before(desc: str) -> None:
    line = _entry_text(desc, Style(), 600.0, 2)
    assert line == desc + " (+2 omitted)" and FSI not in line


def test_the_rendering_draws_it_isolated_and_exports_it_plain(
        monkeypatch: pytest.MonkeyPatch) -> None:
    hg = Hypergraph()
    for n in ["אליס", "בוב", "קרול", "אקמה"]:
        hg.add_entity(Entity(name=n))
    keys = sorted(hg.entities)
    hg.add_hyperedge(Hyperedge(members=keys, description=DESC))
    r, drawing = render_spied(monkeypatch, HyperViz(budget=Budget(max_entities=3)), hg,
                              layouts=["bi-inc"])
    drawn = [e.text for e in drawing[0].legend if e.vid]
    assert drawn == [DESC + " " + isolate("(+1 omitted)")]
    assert [e["text"] for e in r.export()["legend"]] == [DESC + " (+1 omitted)"]
    assert PDI not in r.caption
