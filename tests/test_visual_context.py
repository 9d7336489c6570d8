"""render_passages / render_hypergraph / VisualContext: the visual context of any passages."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.model import Entity, Hypergraph
from hyperviz_core.rag import (
    Chunk,
    ChunkExtraction,
    Document,
    HeuristicExtractor,
    VisualContext,
    VizRAG,
    arender_passages,
    passages_hypergraph,
    render_hypergraph,
    render_passages,
)
from hyperviz_core.render import HyperViz

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CURIE = "Marie Curie worked with Pierre Curie in Paris. Pierre Curie taught at the Sorbonne."
EINSTEIN = "Albert Einstein lived in Bern. Albert Einstein worked at the Patent Office in Bern."


@pytest.fixture
def rag(tmp_path: Path) -> VizRAG:
    engine = VizRAG(tmp_path / "store", show_progress=False)
    engine.insert([Document(id="curie", title="Curie", text=CURIE),
                   Document(id="einstein", title="Einstein", text=EINSTEIN)])
    return engine


class RecordingExtractor:
    """An extractor that returns one fixed entity per chunk and records the chunks."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def extract(self, chunk: Chunk) -> ChunkExtraction:
        self.seen.append(chunk.id)
        return ChunkExtraction(chunk_id=chunk.id, entities=[
            Entity(name=f"Thing {chunk.id}", source_ids=[chunk.id])])

    async def aextract(self, chunk: Chunk) -> ChunkExtraction:
        return self.extract(chunk)


def test_extracts_and_renders_passages() -> None:
    ctx = render_passages([("p1", CURIE), ("p2", EINSTEIN)], query="Where did Curie work?")
    assert ctx.png.startswith(PNG_MAGIC)
    assert (ctx.width, ctx.height) == (1536, 768)  # dual view by default
    assert ctx.mime_type == "image/png" and not ctx.is_empty
    keys = {e["key"] for e in ctx.export["entities"]}
    assert {"marie curie", "albert einstein"} <= keys
    assert ctx.entities == len(ctx.export["entities"]) and ctx.hyperedges >= 2
    assert "E1" in ctx.caption
    assert ctx.data_url.startswith("data:image/png;base64,")


def test_sources_are_the_passage_ids() -> None:
    hg = passages_hypergraph([("p1", CURIE), ("p2", EINSTEIN)])
    assert hg.entities["marie curie"].source_ids == ["p1"]
    assert hg.entities["albert einstein"].source_ids == ["p2"]


def test_deterministic_and_async_twin_agrees() -> None:
    passages = [("p1", CURIE), ("p2", EINSTEIN)]
    a = render_passages(passages, query="Curie")
    b = render_passages(passages, query="Curie")
    c = VisualContext.model_validate(a.model_dump())
    assert a.sha256 == b.sha256 == c.sha256

    import asyncio

    d = asyncio.run(arender_passages(passages, query="Curie"))
    assert d.sha256 == a.sha256


def test_store_path_uses_store_entities(rag: VizRAG) -> None:
    chunk_ids = rag.store.chunk_ids("curie")
    extractor = RecordingExtractor()
    passages = [(cid, "text not used") for cid in chunk_ids]
    hg = passages_hypergraph(passages, store=rag.store, extractor=extractor)
    assert extractor.seen == []  # every id was a chunk of the store
    assert "marie curie" in hg.entities and "albert einstein" not in hg.entities
    for ent in hg.entities.values():
        assert set(ent.source_ids) & set(chunk_ids)
    for edge in hg.hyperedges.values():
        assert all(m in hg.entities for m in edge.members)
    ctx = render_passages(passages, store=rag.store, extractor=extractor)
    assert {e["key"] for e in ctx.export["entities"]} == set(hg.entities)


def test_mixed_store_and_foreign_passages(rag: VizRAG) -> None:
    chunk_ids = rag.store.chunk_ids("curie")
    extractor = RecordingExtractor()
    hg = passages_hypergraph([(chunk_ids[0], CURIE), ("web-1", "ignored")],
                             store=rag.store, extractor=extractor)
    assert extractor.seen == ["web-1"]
    assert "thing web-1" in hg.entities and "marie curie" in hg.entities


def test_custom_extractor_async() -> None:
    import asyncio

    extractor = RecordingExtractor()
    ctx = asyncio.run(arender_passages([("a", "x"), ("b", "y")], extractor=extractor))
    assert sorted(extractor.seen) == ["a", "b"]
    assert ctx.entities == 2 and ctx.hyperedges == 0


def test_empty_input_raises_and_nothing_found_is_empty() -> None:
    with pytest.raises(ValueError, match="at least one"):
        render_passages([])
    with pytest.raises(TypeError, match="id, text"):
        render_passages(["just text"])  # type: ignore[list-item]
    ctx = render_passages([("p1", "   ")])
    assert ctx.is_empty and ctx.png.startswith(PNG_MAGIC)


def test_duplicate_ids_keep_the_first_text() -> None:
    hg = passages_hypergraph([("p", CURIE), ("p", EINSTEIN)], extractor=HeuristicExtractor())
    assert "marie curie" in hg.entities and "albert einstein" not in hg.entities


def test_render_hypergraph_and_custom_renderer() -> None:
    hg = Hypergraph()
    for name in ("Ada", "Bob"):
        hg.add_entity(Entity(name=name))
    ctx = render_hypergraph(hg, renderer=HyperViz(layouts=("set-force",)))
    assert ctx.entities == 2 and ctx.width == 768


def test_from_view_of_an_engine_rendering(rag: VizRAG) -> None:
    result = rag.retrieve("Where did Marie Curie work?", render=True)
    assert result.bottom_view is not None
    ctx = VisualContext.from_view(result.bottom_view)
    assert ctx.sha256 == result.bottom_view.sha256 and ctx.png == result.bottom_view.png
    assert ctx.entities == len(result.bottom_view.export["entities"])
    assert ctx.png_base64 not in repr(ctx) and "entities" in repr(ctx)


def test_render_hooks_see_start_and_end_or_error() -> None:
    import asyncio

    events: list[tuple[str, str, dict[str, object]]] = []

    def hook(name: str, phase: str, payload: dict[str, object]) -> None:
        events.append((name, phase, payload))

    passages = [("p1", CURIE), ("p2", EINSTEIN)]
    ctx = render_passages(passages, hooks=[hook])
    actx = asyncio.run(arender_passages(passages, hooks=[hook]))
    assert [(n, p) for n, p, _ in events] == [("render", "start"), ("render", "end")] * 2
    for (_, _, end), c in ((events[1], ctx), (events[3], actx)):
        assert end["view"] == "passages" and end["passages"] == 2
        assert (end["sha256"], end["entities"], end["width"]) == (c.sha256, c.entities, 1536)
    events.clear()
    with pytest.raises(TypeError):
        render_passages([("p1", 7)], hooks=[hook])  # type: ignore[list-item]
    assert [(n, p) for n, p, _ in events] == [("render", "start"), ("render", "error")]
    assert "TypeError" in str(events[1][2]["error"])
