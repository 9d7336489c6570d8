"""``vizrag render``: outputs and one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.cli import main
from hyperviz_core.testing import random_hypergraph


@pytest.fixture
def hif(tmp_path: Path) -> Path:
    path = tmp_path / "g.hif.json"
    path.write_text(json.dumps(random_hypergraph(14, 7, seed=3).to_hif()))
    return path


def test_render_writes_png_and_json(hif: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "view.png"
    code = main(["render", str(hif), "--layout", "set-hier", "--layout", "ra-cen",
                 "--query", "river", "--max-entities", "10", "--out", str(out)])
    assert code == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    exp = json.loads(out.with_suffix(".json").read_text())
    assert exp["layouts"] == ["set-hier", "ra-cen"]
    assert len(exp["entities"]) == 10 and exp["query"] == "river"
    assert "wrote" in capsys.readouterr().err  # stdout carries data only


def test_style_file_is_applied(hif: Path, tmp_path: Path) -> None:
    style = tmp_path / "style.json"
    style.write_text(json.dumps({"width": 1000, "height": 500, "palette": "pastel"}))
    out = tmp_path / "v.png"
    assert main(["render", str(hif), "--style", str(style), "--out", str(out)]) == 0
    exp = json.loads(out.with_suffix(".json").read_text())
    assert (exp["width"], exp["height"]) == (1000, 500)


@pytest.mark.parametrize(
    ("content", "extra", "needle"),
    [
        (None, [], "cannot read"),
        ("{broken", [], "not valid JSON"),
        ('{"incidences": [], "bogus": 1}', [], "invalid HIF"),
        ("GOOD", ["--layout", "nope"], "unknown layout"),
        ("GOOD", ["--style", "STYLE"], "invalid style"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    content: str | None, extra: list[str], needle: str, tmp_path: Path, hif: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    src = tmp_path / "in.json"
    if content == "GOOD":
        src = hif
    elif content is not None:
        src.write_text(content)
    style = tmp_path / "bad_style.json"
    style.write_text(json.dumps({"edge_width": 50}))
    args = [a if a != "STYLE" else str(style) for a in extra]
    code = main(["render", str(src), *args, "--out", str(tmp_path / "x.png")])
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


def test_bad_numbers_are_usage_errors(hif: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["render", str(hif), "--max-entities", "0", "--out", str(tmp_path / "x.png")])
    assert exc.value.code == 2


def test_collage_html_and_caption(hif: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grid.png"
    html = tmp_path / "grid.html"
    code = main(["render", str(hif), "--collage", "--cols", "2", "--layout", "set-radial",
                 "--layout", "cli-exp", "--layout", "bi-inc", "--html", str(html),
                 "--caption", "--no-prune", "--out", str(out)])
    assert code == 0
    exp = json.loads(out.with_suffix(".json").read_text())
    assert exp["layouts"] == ["set-radial", "cli-exp", "bi-inc"]
    assert exp["width"] == 2 * 768 and len(exp["entities"]) == 14
    assert "<html" in html.read_text(encoding="utf-8").lower()
    printed = capsys.readouterr().out
    assert "E1 " in printed and "H1 {" in printed


def test_a_collage_without_layouts_draws_the_six_as_python_does(hif: Path,
                                                                  tmp_path: Path) -> None:
    """A review: ``--collage --cols 3`` drew only set-force | bi-inc (the dual view's
    default), where ``render_collage(hg)`` draws all six layouts."""
    from hyperviz_core import Hypergraph, HyperViz

    out = tmp_path / "grid.png"
    assert main(["render", str(hif), "--collage", "--cols", "3", "--no-progress",
                 "--out", str(out)]) == 0
    exp = json.loads(out.with_suffix(".json").read_text())
    python = HyperViz().render_collage(Hypergraph.from_hif(json.loads(hif.read_text())))
    assert exp["layouts"] == python.layouts == ["set-hier", "set-radial", "set-force",
                                                "bi-inc", "ra-cen", "cli-exp"]
    assert exp["width"] == 3 * 768


def test_an_out_path_that_is_not_a_png_is_refused(hif: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(hif), "--out", str(tmp_path / "view.gif")]) == 2
    err = capsys.readouterr().err
    assert "must end in .png or .svg" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "view.gif").exists()


def test_outputs_never_overwrite_the_input(hif: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    q = tmp_path / "q.json"
    q.write_bytes(hif.read_bytes())
    before = q.read_bytes()
    assert main(["render", str(q), "--out", str(tmp_path / "q.png")]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert q.read_bytes() == before and not (tmp_path / "q.png").exists()
    assert main(["render", str(q), "--out", str(tmp_path / "v.png"), "--html", str(q)]) == 2
    err = capsys.readouterr().err  # the flag that clashes is the one named
    assert "--html" in err and "choose another --html name" in err and "--out" not in err
    assert q.read_bytes() == before


def test_cols_without_collage_is_refused(hif: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``--cols 2`` without ``--collage`` was ignored (a dual view written, exit 0)."""
    out = tmp_path / "v.png"
    assert main(["render", str(hif), "--cols", "2", "--out", str(out)]) == 2
    assert "--cols sets the columns of a --collage" in capsys.readouterr().err
    assert not out.exists()


def test_an_output_in_a_folder_no_file_can_be_made_in_fails_before_drawing(
        tmp_path: Path, capsys: Any) -> None:
    """/proc takes no new file even from root: the check tries one, before anything is
    drawn or written (before, the PNG and JSON were written, then a bare errno)."""
    from hyperviz_core.cli import main

    hif = Path(__file__).parent / "data" / "lesmis.hif.json"
    out = tmp_path / "pp.png"
    assert main(["render", str(hif), "--out", str(out), "--html", "/proc/x.html"]) == 2
    err = capsys.readouterr().err
    assert "--html /proc/x.html: cannot write in /proc" in err
    assert not out.exists() and not out.with_suffix(".json").exists()
    assert main(["render", str(hif), "--out", "/proc/x.png"]) == 2
    assert "--out /proc/x.png: cannot write in /proc" in capsys.readouterr().err
    assert not list(tmp_path.glob(".vizrag-probe-*"))
