"""The Indexer: offline defaults, a fake (vision) chat model, cache, concurrency, failures."""

from __future__ import annotations

import asyncio
import json
import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import pytest

from hyperviz_core.rag.index.indexer import Indexer, extraction_hypergraph, run_sync
from hyperviz_core.rag.providers.protocols import ProviderError
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.types import Document

PNG = b"\x89PNG\r\n\x1a\n"
_CAPS = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


class FakeVisionChat:
    """A ChatModel returning canned JSON built from the prompt's text; records every call."""

    model_name = "fake-vision-1"

    def __init__(self, latency: float = 0.0, fail_on: str | None = None) -> None:
        self.calls: list[dict] = []
        self.latency = latency
        self.fail_on = fail_on
        self.in_flight = 0
        self.max_in_flight = 0

    def _answer(self, prompt: str, images: Sequence[bytes]) -> str:
        self.calls.append({"prompt": prompt, "images": list(images)})
        if prompt.startswith("Merge these descriptions"):
            return "SUMMARY of " + prompt.split('"')[1]
        text = prompt.rsplit("<<<TEXT", 1)[-1]
        if self.fail_on and self.fail_on in text:
            raise ProviderError("bad request", retryable=False, status=400)
        names = list(dict.fromkeys(m.group(0) for m in _CAPS.finditer(text)))[:6]
        if '"key_entities"' in prompt:
            return json.dumps({"theme": f"About {names[0] if names else 'nothing'}",
                               "keywords": ["fake"], "key_entities": names[:2]})
        tag = zlib.crc32(text.encode())
        ents = [{"name": n, "type": "concept", "description": f"{n} is mentioned ({tag})."}
                for n in names]
        edges = [{"members": names[:3], "description": "They appear together.",
                  "keywords": ["together"], "strength": 5}] if len(names) >= 2 else []
        return json.dumps({"entities": ents, "hyperedges": edges})

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return self._answer(prompt, images)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            return self._answer(prompt, images)
        finally:
            self.in_flight -= 1

    def theme_calls(self) -> list[dict]:
        return [c for c in self.calls if '"key_entities"' in c["prompt"]]


@pytest.fixture(scope="module")
def passages() -> list[Document]:
    raw = json.loads((Path(__file__).parent / "data" / "musique_sample.json").read_text())
    return [Document(text=p["text"], title=p["title"], metadata={"idx": p["idx"]}) for p in raw]


def test_offline_index_builds_both_layers(tmp_path: Path, passages: list[Document]) -> None:
    ix = Indexer(tmp_path / "s", show_progress=False)
    rep = ix.index(passages)
    assert rep.documents_added == 40 and rep.documents_failed == 0 and rep.llm_calls == 0
    assert rep.images == 0  # the heuristic theme extractor does not look at images
    s = rep.store
    assert s is not None and s.documents == 40 and s.chunks == rep.chunks >= 40
    assert s.entities > 200 and s.relation_hyperedges > 50
    assert s.theme_hyperedges > 30 and s.key_entities > 40 and s.themes == s.chunks
    assert s.vectors == {"entity": s.entities, "hyperedge": 0,  # not read by retrieval
                         "theme": s.theme_hyperedges, "chunk": s.chunks}
    bot, top = ix.store.bottom(), ix.store.top()
    bot.check_consistency()
    top.check_consistency()
    assert set(top.entities) <= set(bot.entities)
    # entities of "Hank Snow" passage are found by vector search on the name
    q = ix.embedder.embed(["Hank Snow"])[0]
    assert ix.store.search("entity", q, 3)[0][0] == "hank snow"
    chunk_q = ix.embedder.embed(["Publix supermarket stores"])[0]
    top_chunk = ix.store.search("chunk", chunk_q, 1)[0][0]
    assert "Publix" in ix.store.chunks([top_chunk])[0].text
    # second run: nothing to do, nothing embedded
    again = ix.index(passages)
    assert again.documents_skipped == 40 and again.documents_added == 0 and again.embedded == 0
    assert again.store == rep.store


def test_replace_and_delete_through_indexer(tmp_path: Path, passages: list[Document]) -> None:
    ix = Indexer(tmp_path / "s", show_progress=False)
    ix.index(passages[:5])
    changed = passages[0].model_copy(update={"id": passages[0].id,
                                             "text": "Hank Snow sang in Nashville with Elvis."})
    rep = ix.index([changed])
    assert rep.documents_replaced == 1 and ix.store.stats().documents == 5
    assert ix.store.get_document(changed.id).text.startswith("Hank Snow sang")  # type: ignore
    counts = ix.delete(changed.id)
    assert counts["documents"] == 1 and ix.store.stats().documents == 4
    assert ix.store.check() == []


def test_sync_index_inside_running_event_loop(tmp_path: Path, passages: list[Document]) -> None:
    async def main() -> int:
        ix = Indexer(tmp_path / "s", show_progress=False)
        return ix.index(passages[:3]).documents_added  # would fail with asyncio.run()

    assert asyncio.run(main()) == 3
    assert run_sync(lambda: asyncio.sleep(0, result=7)) == 7


def test_fake_vision_model_gets_chunk_png(tmp_path: Path, passages: list[Document]) -> None:
    chat = FakeVisionChat()
    ix = Indexer(tmp_path / "s", chat=chat, show_progress=False, concurrency=4)
    rep = ix.index(passages[:3])
    assert rep.documents_added == 3 and rep.images == rep.chunks == 3
    themes = chat.theme_calls()
    assert len(themes) == 3
    for call in themes:
        assert len(call["images"]) == 1 and call["images"][0].startswith(PNG)
    extract_calls = [c for c in chat.calls if c not in themes]
    assert extract_calls and all(not c["images"] for c in extract_calls)
    assert rep.llm_calls == len(chat.calls) and rep.cache_hits == 0
    top = ix.store.top()
    assert any(e.description.startswith("About ") for e in top.hyperedges.values())
    assert ix.store.stats().llm_cache_entries == len(chat.calls)


def test_no_visualization_ablation_sends_no_image(tmp_path: Path, passages: list[Document]) -> None:
    chat = FakeVisionChat()
    ix = Indexer(tmp_path / "s", chat=chat, index_visualization=False, show_progress=False)
    rep = ix.index(passages[:3])
    assert rep.images == 0 and len(chat.theme_calls()) == 3
    assert all(not c["images"] for c in chat.calls)
    assert "attached image" not in chat.theme_calls()[0]["prompt"]


def test_cache_makes_rerun_free(tmp_path: Path, passages: list[Document]) -> None:
    chat = FakeVisionChat()
    docs = passages[3:8]
    first = Indexer(tmp_path / "s", chat=chat, index_visualization=False,
                    show_progress=False).index(docs)
    n = len(chat.calls)
    assert first.llm_calls == n > 0
    store = HypergraphStore(tmp_path / "s")
    for d in docs:  # a resumed / rebuilt index asks the same questions again
        store.delete_document(d.id)
    second = Indexer(store, chat=chat, index_visualization=False, show_progress=False).index(docs)
    assert len(chat.calls) == n and second.llm_calls == 0
    assert second.cache_hits == n and second.documents_added == len(docs)
    assert second.store is not None and second.store.entities == first.store.entities  # type: ignore
    tagged = [d.model_copy(update={"metadata": {**d.metadata, "reviewed": True}}) for d in docs]
    third = Indexer(store, chat=chat, index_visualization=False, show_progress=False).index(tagged)
    assert third.documents_replaced == len(docs) and third.llm_calls == 0  # metadata alone
    # its text unchanged: updated in place, no model call at all (stop 52)
    assert third.metadata_updated == len(docs) and third.cache_hits == 0
    assert store.get_document(docs[0].id).metadata["reviewed"] is True


def test_long_merged_descriptions_are_summarised(tmp_path: Path) -> None:
    chat = FakeVisionChat()
    ix = Indexer(tmp_path / "s", chat=chat, index_visualization=False, show_progress=False,
                 summarize_descriptions=True, summary_threshold=40)
    docs = [Document(id=f"d{i}", text=f"Ada Lovelace met Charles Babbage in London, year {i}.")
            for i in range(2)]
    ix.index(docs)
    ada = ix.store.bottom().entities["ada lovelace"]
    assert ada.description == "SUMMARY of Ada Lovelace"
    assert any(c["prompt"].startswith("Merge these descriptions") for c in chat.calls)
    ix.delete("d1")  # one mention left: short again, no summary needed
    assert ix.store.bottom().entities["ada lovelace"].description.startswith(
        "Ada Lovelace is mentioned (")


def test_bounded_concurrency(tmp_path: Path, passages: list[Document]) -> None:
    chat = FakeVisionChat(latency=0.02)
    Indexer(tmp_path / "s", chat=chat, index_visualization=False, concurrency=3,
            show_progress=False).index(passages[:12])
    assert chat.max_in_flight == 3
    seq = FakeVisionChat(latency=0.01)
    Indexer(tmp_path / "t", chat=seq, index_visualization=False, concurrency=1,
            show_progress=False).index(passages[:3])
    assert seq.max_in_flight == 1


def test_failed_document_is_reported_and_not_stored(tmp_path: Path,
                                                    passages: list[Document]) -> None:
    word = next(w for w in passages[1].text.split()
                if len(w) > 5 and all(w not in p.text for p in (passages[0], passages[2])))
    chat = FakeVisionChat(fail_on=word)
    ix = Indexer(tmp_path / "s", chat=chat, index_visualization=False, show_progress=False)
    rep = ix.index(passages[:3])
    assert rep.documents_failed == 1 and rep.documents_added == 2
    assert passages[1].id in rep.errors[0] and "bad request" in rep.errors[0]
    assert not ix.store.has_document(passages[1].id) and ix.store.check() == []


def test_forced_render_token_chunks_and_validation(tmp_path: Path,
                                                   passages: list[Document]) -> None:
    ix = Indexer(tmp_path / "s", show_progress=False, render_images=True, chunk_unit="token",
                 chunk_size=40, chunk_overlap=5)
    rep = ix.index(passages[:2])
    assert rep.images == rep.chunks > 2
    with pytest.raises(ValueError, match="concurrency"):
        Indexer(tmp_path / "s", concurrency=0)
    with pytest.raises(ValueError, match="chat model"):
        Indexer(tmp_path / "s", summarize_descriptions=True)


def test_embedder_dimension_mismatch_is_refused(tmp_path: Path, passages: list[Document]) -> None:
    from hyperviz_core.rag.providers.offline import HashingEmbedder
    from hyperviz_core.rag.store import StoreError

    Indexer(tmp_path / "s", show_progress=False).index(passages[:1])
    other = Indexer(tmp_path / "s", embedder=HashingEmbedder(dim=64), show_progress=False)
    with pytest.raises(StoreError, match="512-dimensional"):
        other.index(passages[1:2])
    assert other.store.stats().documents == 1


def test_extraction_hypergraph_adds_missing_members() -> None:
    from hyperviz_core.model import Entity, Hyperedge
    from hyperviz_core.rag.types import ChunkExtraction

    ex = ChunkExtraction(chunk_id="c", entities=[Entity(name="A")],
                         hyperedges=[Hyperedge(members=["A", "B"])])
    hg = extraction_hypergraph(ex, "T")
    assert sorted(hg.entities) == ["a", "b"] and hg.metadata["title"] == "T"
    assert len(hg.hyperedges) == 1
