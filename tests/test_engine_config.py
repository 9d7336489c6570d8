"""``VizRAG(config=RetrievalConfig(...))`` runs with the config's mode, top_k and hops; the
engine's own ``mode``/``top_k``/``hops`` override them only when given (they used to
override them always, with their defaults: a config's ``mode="naive"`` ran ``vizrag``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag import RetrievalConfig, VizRAG


def test_the_configs_settings_are_kept(tmp_path: Path) -> None:
    cfg = RetrievalConfig(mode="naive", top_k=10, hops=2)
    with VizRAG(tmp_path / "a", config=cfg, show_progress=False) as rag:
        assert (rag.config.mode, rag.config.top_k, rag.config.hops) == ("naive", 10, 2)
    with VizRAG(tmp_path / "b", config=cfg, top_k=3, show_progress=False) as rag:
        assert (rag.config.mode, rag.config.top_k, rag.config.hops) == ("naive", 3, 2)
    with VizRAG(tmp_path / "c", show_progress=False) as rag:
        assert (rag.config.mode, rag.config.top_k, rag.config.hops) == ("vizrag", 5, 1)


def test_bad_settings_are_still_refused_before_a_store_is_made(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="top_k"):
        VizRAG(tmp_path / "n", top_k=0)
    with pytest.raises(ValueError, match="mode"):
        VizRAG(tmp_path / "n", mode="vizrg")
    assert not (tmp_path / "n").exists()


@pytest.mark.parametrize(("option", "message"), [
    ({"extractor": "llm"}, "extractor must be an Extractor (extract(chunk)), not the string"),
    ({"theme_extractor": 3}, "theme_extractor must be a ThemeExtractor"),
    ({"keyword_extractor": 42}, "keyword_extractor must be a KeywordExtractor"),
    ({"renderer": "set-force"}, "renderer must be a HyperViz (render(hypergraph, ...))"),
])
def test_model_arguments_are_checked_when_the_engine_is_built(
        tmp_path: Path, option: dict[str, object], message: str) -> None:
    """They failed later, one way each: every document's extraction, a warning per query, a
    bare AttributeError at query time."""
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        VizRAG(tmp_path / "n", **option)  # type: ignore[arg-type]
    assert not (tmp_path / "n").exists()
