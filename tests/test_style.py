"""Style validation: ranges, colours, palettes, JSON loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from hyperviz_core.style import PALETTES, Style, to_hex


def test_defaults_are_the_dual_view() -> None:
    s = Style()
    assert (s.width, s.height, s.dpi) == (1536, 768, 100)
    assert s.background_hex == "#ffffff"
    assert s.colors() == PALETTES["vivid"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("white", "#ffffff"), ("#FF0000", "#ff0000"), ((0, 128, 255), "#0080ff"),
     ((0.0, 0.5, 1.0), "#0080ff"), ([255, 255, 0], "#ffff00")],
)
def test_background_accepts_names_hex_and_rgb(value: object, expected: str) -> None:
    assert Style(background=value).background_hex == expected


@pytest.mark.parametrize(
    "kwargs",
    [
        {"edge_width": 0.05}, {"edge_width": 10.5}, {"margin": -1}, {"margin": 101},
        {"background": "not-a-colour"}, {"background": (300, 0, 0)},
        {"background": (1, 2)}, {"palette": "neon"}, {"palette": []},
        {"palette": ["#000000", "nope"]}, {"node_shape": "star"},
        {"outline_style": "wavy"}, {"dpi": 10}, {"width": 50}, {"unknown_option": 1},
    ],
)
def test_out_of_range_values_raise(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Style(**kwargs)


def test_custom_palette_and_toggles() -> None:
    s = Style(palette=["red", (0, 0, 255)], show_legend=False, node_shape="box",
              outline_style="dotted")
    assert s.colors() == ["#ff0000", "#0000ff"]
    assert not s.show_legend


def test_to_hex_rejects_garbage() -> None:
    with pytest.raises(ValueError):
        to_hex(42)


def test_from_json_file(tmp_path: Path) -> None:
    good = tmp_path / "s.json"
    good.write_text(json.dumps({"palette": "pastel", "margin": 20}))
    assert Style.from_json_file(str(good)).margin == 20
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        Style.from_json_file(str(bad))
    arr = tmp_path / "arr.json"
    arr.write_text("[1, 2]")
    with pytest.raises(ValueError, match="JSON object"):
        Style.from_json_file(str(arr))
