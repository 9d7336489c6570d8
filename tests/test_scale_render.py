"""Render only when read (issue 17): offline nothing reads I_top/I_bot, so they are skipped
and the result says so; ``render=True``, ``--render``/``--out`` or a model draws them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rag_fakes import PNG_MAGIC, ParrotChat, demo_documents

from hyperviz_core import Budget, HyperViz
from hyperviz_core.cli import main
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.retrieve.config import RetrievalConfig, render_decision

Q = "Where did the band form that made the live album Maiden Japan?"


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("render-store")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 12))
    return path


class Names:
    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, name: str, phase: str, payload: dict[str, Any]) -> None:
        self.names.append(name)


def test_offline_default_skips_both_views_and_says_why(store_dir: Path) -> None:
    hook = Names()
    with VizRAG(store_dir, show_progress=False) as rag:
        res = rag.retrieve(Q, hooks=[hook])
        drawn = rag.retrieve(Q, render=True)
    assert res.top_view is None and res.bottom_view is None
    assert sorted(res.skipped_views) == ["bottom", "top"]
    assert all("offline" in why for why in res.skipped_views.values())
    assert "render" not in hook.names and res.chunks
    assert res.settings["rendered"] is False
    # opting in draws both and skips nothing; the ranking is the same
    assert drawn.top_view is not None and drawn.bottom_view is not None
    assert drawn.bottom_view.png.startswith(PNG_MAGIC) and drawn.skipped_views == {}
    assert [c.chunk_id for c in drawn.chunks] == [c.chunk_id for c in res.chunks]


def test_a_vision_model_gets_the_renderings_by_default(store_dir: Path) -> None:
    chat = ParrotChat()
    with VizRAG(store_dir, chat=chat, show_progress=False) as rag:
        res = rag.retrieve(Q)
        off = rag.retrieve(Q, render=False)
    assert res.top_view is not None and res.skipped_views == {}
    assert any(call["images"] for call in chat.calls)
    assert off.top_view is None and off.skipped_views == {"top": "render=False",
                                                          "bottom": "render=False"}


def test_skipped_views_per_mode(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag:
        lite = rag.retrieve(Q, mode="hyper-lite")
        naive = rag.retrieve(Q, mode="naive")
        text = rag.retrieve(Q, mode="text", render=True)
    assert list(lite.skipped_views) == ["bottom"] and lite.bottom_view is None
    assert naive.skipped_views == {}  # naive has no view to skip
    assert set(text.skipped_views) == {"top", "bottom"}
    assert "text mode" in text.skipped_views["top"]


class Views:
    """Records the view of every ``render`` start event."""

    def __init__(self) -> None:
        self.views: list[str] = []

    def __call__(self, name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == "render" and phase == "start":
            self.views.append(payload["view"])


def test_render_views_draws_only_the_views_asked_for(store_dir: Path) -> None:
    hook = Views()
    with VizRAG(store_dir, show_progress=False) as rag:
        bottom = rag.retrieve(Q, render=True, render_views=("bottom",), hooks=[hook])
        plain = rag.retrieve(Q, render=False)
        lite = rag.retrieve(Q, mode="hyper-lite", render=True, render_views=("top",))
    assert hook.views == ["bottom"]  # I_top was not drawn at all
    assert bottom.top_view is None and bottom.bottom_view is not None
    assert bottom.skipped_views == {"top": "not in render_views (no model reads it)"}
    assert bottom.settings["rendered"] is True
    # the offline locator then reads I_top's entities unpruned, as without rendering
    assert [c.chunk_id for c in bottom.chunks] == [c.chunk_id for c in plain.chunks]
    assert lite.bottom_view is None and lite.settings["rendered"] is False
    assert list(lite.skipped_views) == ["bottom"]
    # a vision model reads both views: both are drawn whatever render_views says
    chat = ParrotChat()
    with VizRAG(store_dir, chat=chat, show_progress=False) as rag:
        read = rag.retrieve(Q, render_views=("bottom",))
    assert read.top_view is not None and read.bottom_view is not None
    assert read.skipped_views == {}


def test_a_pruned_top_view_changes_nothing_retrieved(store_dir: Path) -> None:
    """The offline locator is structural: what I_top's congestion control leaves out of the
    drawing must not change the anchors, the chunks or their scores."""
    with VizRAG(store_dir, renderer=HyperViz(budget=Budget(max_entities=3)),
                show_progress=False) as rag:
        drawn = rag.retrieve(Q, render=True, render_views=("top",))
        plain = rag.retrieve(Q, render=False)
    assert drawn.top_view is not None
    tops = [e for e in drawn.entities if e.layer == "top"]
    assert len(drawn.top_view.export["entities"]) == 3 < len(tops)  # the drawing was cut
    assert drawn.located == plain.located and drawn.anchors == plain.anchors
    assert ([(c.chunk_id, c.score) for c in drawn.chunks]
            == [(c.chunk_id, c.score) for c in plain.chunks])


def test_render_views_are_validated() -> None:
    with pytest.raises(ValueError, match="render_views"):
        RetrievalConfig(render_views=())
    with pytest.raises(ValueError, match="render_views"):
        RetrievalConfig(render_views=("left",))  # type: ignore[arg-type]
    assert RetrievalConfig().render_views == ("top", "bottom")


def test_render_decision_table() -> None:
    cfg = RetrievalConfig
    assert render_decision(cfg(), has_chat=True) == (True, "")
    assert render_decision(cfg(render=True), has_chat=False) == (True, "")
    assert render_decision(cfg(render=False), has_chat=True) == (False, "render=False")
    off, why = render_decision(cfg(retrieval_visualization=False, render=True), has_chat=True)
    assert not off and "retrieval_visualization" in why


def test_cli_renders_only_when_asked(store_dir: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", Q, "--store", str(store_dir), "--full"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert full["top_view"] is None and sorted(full["skipped_views"]) == ["bottom", "top"]
    assert main(["query", Q, "--store", str(store_dir), "--full", "--no-render"]) == 0
    assert json.loads(capsys.readouterr().out)["bottom_view"] is None  # flag still accepted
    assert main(["query", Q, "--store", str(store_dir), "--full", "--render"]) == 0
    drawn = json.loads(capsys.readouterr().out)
    assert drawn["bottom_view"] is not None and drawn["skipped_views"] == {}
    out = tmp_path / "views"
    assert main(["query", Q, "--store", str(store_dir), "--json", "--out", str(out)]) == 0
    capsys.readouterr()
    assert (out / "bottom.png").read_bytes().startswith(PNG_MAGIC)
