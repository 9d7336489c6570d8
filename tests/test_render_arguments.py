"""Arguments of the wrong type or size fail with an error naming them (they failed deep
inside: "unknown layout '115'", "'int' object has no attribute 'strip'", a collage panel off
the canvas, panels of negative height)."""

from __future__ import annotations

from typing import Any

import pytest

from hyperviz_core import HyperViz, Style
from hyperviz_core.testing import random_hypergraph

HG = random_hypergraph(8, 4, seed=1)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: HyperViz().render(HG, layouts=b"set-force"), TypeError, "layouts must be"),
    (lambda: HyperViz().render(HG, layouts=123), TypeError, "layouts must be"),
    (lambda: HyperViz().render(None), TypeError, "takes a Hypergraph, got NoneType"),
    (lambda: HyperViz().render({"entities": []}), TypeError, "takes a Hypergraph, got dict"),
    (lambda: HyperViz().render(HG, query=5), TypeError, "query must be a string"),
    (lambda: HyperViz().render(HG, chunk_texts=["a"]), TypeError, "chunk_texts must map"),
    (lambda: HyperViz(style=3), TypeError, "style must be a Style"),
    (lambda: HyperViz(budget="tight"), TypeError, "budget must be a Budget"),
    (lambda: HyperViz().render_collage(HG, cols=2.5), TypeError, "cols must be a whole"),
    (lambda: HyperViz().render_collage(HG, cols=True), TypeError, "cols must be a whole"),
    (lambda: HyperViz(style=Style(width=400, height=400, margin=100)).render(
        HG, layouts="set-force"), ValueError, "0.0 px between the margins"),
    (lambda: HyperViz(style=Style(width=200, height=200)).render(HG), ValueError,
     r"leaves panels of 100×\d+ px, under 80 px"),
])
def test_bad_arguments_are_named(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_a_style_or_budget_may_be_given_as_a_dict() -> None:
    viz = HyperViz(style={"width": 900, "height": 600}, budget={"gamma": 0.5})
    assert (viz.style.width, viz.budget.gamma) == (900, 0.5)
    assert viz.render(HG, layouts="set-force").width == 450


def test_an_unforeseen_id_only_note_is_not_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """The "shown by ID only" note is known only after labelling: a footer planned without
    it was cut ("some entities shown b…"); the short key now makes room for it."""
    import hyperviz_core.render as render_module
    from hyperviz_core import Budget
    from hyperviz_core.testing import facts_hypergraph

    footers: list[str] = []
    draw = render_module.rasterize

    def spy(*args: Any, **kwargs: Any) -> Any:
        footers.append(args[-1])
        return draw(*args, **kwargs)

    monkeypatch.setattr(render_module, "rasterize", spy)
    HyperViz(budget=Budget(enabled=False)).render(facts_hypergraph(10, 120), layouts="bi-inc")
    assert "…" not in footers[-1] and "shown by ID only" in footers[-1]
    assert footers[-1].startswith("E# = entity · H# = hyperedge")


def test_a_progress_bar_counts_the_drawings_when_asked(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A dense input can take minutes with no feedback: show_progress draws a tqdm bar of
    the drawings congestion control lays out (off by default, as the tests and the engine
    want)."""
    from hyperviz_core.testing import facts_hypergraph

    HyperViz().render(facts_hypergraph(10, 120), layouts="bi-inc")
    assert "laying out" not in capsys.readouterr().err
    r = HyperViz(show_progress=True).render(facts_hypergraph(10, 120), layouts="bi-inc")
    err = capsys.readouterr().err
    assert "laying out" in err and f"{r.pruning.layouts_run}drawing" in err.replace(" ", "")
