"""The renderer's speed-ups of issue 47 change no output: each remembered result is what the
work it skips gives, and each shortcut gives what the longer way gives (checked against it)."""

from __future__ import annotations

import numpy as np
import pytest

from hyperviz_core.draw import labels as labels_mod
from hyperviz_core.draw import names as names_mod
from hyperviz_core.draw import raster
from hyperviz_core.draw import text as text_mod
from hyperviz_core.draw.labels import Occupancy, make_box, near_spots
from hyperviz_core.draw.scene import OWN_MARGIN, display_names
from hyperviz_core.draw.spots import box_owned_mask, centre_owned_mask
from hyperviz_core.layouts import gv
from hyperviz_core.render import HyperViz
from hyperviz_core.testing import random_hypergraph


def _counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Count the calls of ``module.name`` from now on (the function still runs)."""
    calls = [0]
    real = getattr(module, name)

    def spy(*a: object, **k: object) -> object:
        calls[0] += 1
        return real(*a, **k)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_a_second_rendering_measures_no_text_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each (text, weight) is summed from its glyphs once: the IDs, names and legend words
    of a rendering drawn again are not measured again, and give the same bytes."""
    hg = random_hypergraph(20, 8, seed=1)
    first = HyperViz().render(hg)
    units = _counting(monkeypatch, text_mod, "_units")
    again = HyperViz().render(hg)
    assert units[0] == 0
    assert again.png == first.png and again.export() == first.export()


def test_measurements_follow_a_cleared_glyph_cache() -> None:
    """A glyph cache cleared (say, for other fallback fonts) drops the remembered widths."""
    width = text_mod.measure("Zebra crossing", 11.0)
    text_mod._ADVANCES[("Zebra crossing", False)] = 1.0  # a stale entry ...
    text_mod._glyph.cache_clear()
    assert text_mod.measure("Zebra crossing", 11.0) == width  # ... is not read


def test_palette_text_colours_are_searched_once(monkeypatch: pytest.MonkeyPatch) -> None:
    hg = random_hypergraph(20, 8, seed=1)
    first = HyperViz().render(hg)
    searched = _counting(monkeypatch, raster, "readable")
    boxes = _counting(monkeypatch, raster, "region_label_color")
    again = HyperViz().render(hg)
    assert searched[0] == boxes[0] == 0
    assert again.png == first.png


def test_display_names_are_told_apart_once(monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["Jiménez Municipality, Coahuila", "Jiménez Municipality, Chihuahua", "H1"]
    want = display_names(names, 16)
    told = _counting(monkeypatch, names_mod, "distinct_names")
    assert display_names(names, 16) == want == ["Jiménez…Coahuila", "Jiméne…Chihuahua", "“H1”"]
    assert display_names(list(names), 16) is not display_names(names, 16)  # a fresh list
    assert told[0] == 0


def test_a_graph_laid_out_before_skips_graphviz(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same DOT text gets the same positions without a Graphviz run; a fresh run (the
    memory cleared) draws the same bytes."""
    hg = random_hypergraph(18, 7, seed=4)
    first = HyperViz().render(hg, layouts=["set-force", "set-hier"])
    runs = _counting(monkeypatch, gv, "run_layout")
    again = HyperViz().render(hg, layouts=["set-force", "set-hier"])
    assert runs[0] == 0
    gv._positions.cache_clear()
    fresh = HyperViz().render(hg, layouts=["set-force", "set-hier"])
    assert runs[0] >= 2
    assert again.png == first.png == fresh.png
    assert again.export() == first.export() == fresh.export()
    assert again.to_svg() == fresh.to_svg()


@pytest.mark.parametrize(("n", "m", "seed"), [(30, 15, 7), (40, 20, 3), (60, 30, 2)])
def test_the_room_test_is_skipped_with_few_regions_and_nothing_moves(
    monkeypatch: pytest.MonkeyPatch, n: int, m: int, seed: int
) -> None:
    """Below ``COVER_TEST_FROM`` touching regions the free area outside them is made
    directly; the labels land where they land when the test runs first every time."""
    hg = random_hypergraph(n, m, seed=seed)
    tested = _counting(monkeypatch, labels_mod, "_covered")
    fast = HyperViz().render(hg, layouts="set-force")
    assert tested[0] == 0  # no region here touches twelve others
    monkeypatch.setattr(labels_mod, "COVER_TEST_FROM", 0)
    ref = HyperViz().render(hg, layouts="set-force")
    assert tested[0] > 0
    assert fast.png == ref.png and fast.export() == ref.export()


def _occupancy(rng: np.random.Generator, disks: int, boxes: int) -> Occupancy:
    occ = Occupancy((0.0, 0.0, 400.0, 300.0),
                    [(float(x), float(y), float(r)) for x, y, r in zip(
                        rng.random(disks) * 400, rng.random(disks) * 300,
                        rng.random(disks) * 8 + 6, strict=True)])
    for _ in range(boxes):
        occ.add(make_box(float(rng.random() * 400), float(rng.random() * 300),
                         float(rng.random() * 50 + 10), 12.0))
    return occ


def test_free_many_tests_every_pair_as_it_narrows_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    outcomes = 0
    for trial in range(60):
        occ = _occupancy(rng, int(rng.integers(0, 40)), int(rng.integers(0, 40)))
        xs, ys = rng.random(24) * 420 - 10, rng.random(24) * 320 - 10
        w, h = float(rng.random() * 60 + 8), float(rng.random() * 10 + 8)
        direct = occ.free_many(xs, ys, w, h)  # 24 × at most 80 pairs: tested directly
        monkeypatch.setattr(labels_mod, "SMALL_TEST", -1)
        narrowed = occ.free_many(xs, ys, w, h)
        monkeypatch.undo()
        assert np.array_equal(direct, narrowed), trial
        assert direct.tolist() == [occ.free(make_box(x, y, w, h)) for x, y in zip(
            xs.tolist(), ys.tolist(), strict=True)]
        outcomes += int(direct.any()) + int(not direct.all())
    assert outcomes > 60  # free and blocked boxes both met


def test_owned_near_spot_is_the_three_tests_in_turn() -> None:
    from hyperviz_core.draw.spots import owned_near_spot

    rng = np.random.default_rng(6)
    found = 0
    for trial in range(150):
        n = int(rng.integers(1, 14))
        all_xy = rng.random((n, 2)) * np.array([380.0, 280.0]) + 10.0
        all_r = rng.random(n) * 6 + 8
        occ = Occupancy((0.0, 0.0, 400.0, 300.0), [(x, y, r) for (x, y), r in zip(
            all_xy.tolist(), all_r.tolist(), strict=True)])
        for _ in range(int(rng.integers(0, 80))):
            occ.add(make_box(float(rng.random() * 400), float(rng.random() * 300), 30.0, 12.0))
        i, w, h = int(rng.integers(0, n)), float(rng.random() * 70 + 10), 13.0
        spots = near_spots(occ, float(all_xy[i, 0]), float(all_xy[i, 1]), 11.0, w, h, 3)
        spots = [s for s in spots if centre_owned_mask(
            np.asarray([s]), i, all_xy, all_r, OWN_MARGIN)[0]]
        spots = [s for s in spots if box_owned_mask(
            np.asarray([s]), i, w, h, all_xy, all_r, OWN_MARGIN)[0]]
        want = spots[0] if spots else None  # the three tests one spot at a time
        got = owned_near_spot(occ, i, all_xy, all_r, 11.0, w, h, OWN_MARGIN)
        assert got == want, trial
        found += want is not None
    assert 15 < found < 140  # both outcomes exercised
