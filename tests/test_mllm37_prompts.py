"""What VizRAG sends a multimodal model: the answer and locate prompts match what is
retrieved and drawn (every passage, every drawn E#/H# named, no repeated descriptions, a
bounded listing), the mode templates match what is sent, and locate replies are read
generously (ranges, names, full-width IDs)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rag_fakes import store_with

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.answer import LISTING_CHARS, Answerer, answer_prompt, knowledge_listings
from hyperviz_core.rag.extract.parse.lists import parse_json_list
from hyperviz_core.rag.prompts import Prompts
from hyperviz_core.rag.result import RetrievalResult, RetrievedEntity, RetrievedHyperedge

Q = "Where did the band form that made the live album Maiden Japan?"


class Rec:
    """A recording vision chat model (prompt, images, json_mode of every call)."""

    model_name = "rec"

    def __init__(self, locate: str = '{"entities": ["E1", "E2"]}') -> None:
        self.calls: list[dict[str, Any]] = []
        self.locate = locate

    def complete(self, prompt: str, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        self.calls.append({"prompt": prompt, "images": list(images), "json_mode": json_mode})
        if "search keywords" in prompt:
            return '{"keywords": ["Maiden Japan"]}'
        if "best starting points" in prompt:
            return self.locate
        return "Iron Maiden formed in Leyton (H1, [1])."

    def stage(self, name: str) -> list[dict[str, Any]]:
        marks = {"keywords": "search keywords", "locate": "best starting points"}
        return [c for c in self.calls if marks.get(name, "Answer the question") in c["prompt"]]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rag_fakes import demo_documents

    return store_with(tmp_path_factory.mktemp("mllm37"), demo_documents(0, 20))


def _fenced(prompt: str, label: str) -> str:
    return prompt.split(f"<<<{label}\n")[1].split(f"\n{label}>>>")[0]


# ------------------------------------------------------------------ 1. every passage
def test_the_answer_prompt_carries_every_retrieved_passage_and_can_be_capped(
        store: Path) -> None:
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        res = rag.query(Q, top_k=8)
        assert len(res.chunks) == 8
        sent = re.findall(r"<<<SOURCE (\d+)", chat.stage("answer")[-1]["prompt"])
        assert sent == [str(n) for n in range(1, 9)]
        rag.query(Q)  # the default top_k (5): five passages, as before
        assert len(re.findall(r"<<<SOURCE \d+", chat.stage("answer")[-1]["prompt"])) == 5
        rag.max_sources = 3  # the documented cap
        rag.query(Q, top_k=8)
        assert len(re.findall(r"<<<SOURCE \d+", chat.stage("answer")[-1]["prompt"])) == 3
    with pytest.raises(ValueError, match="max_sources"):
        Answerer(chat, max_sources=0)
    with pytest.raises(ValueError, match="listing_chars"):
        Answerer(chat, listing_chars=-1)


def test_the_answer_settings_are_engine_arguments(store: Path, tmp_path: Path) -> None:
    """``VizRAG(max_sources=, listing_chars=)``, checked before a store is made."""
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False, max_sources=2, listing_chars=0) as rag:
        rag.query(Q, top_k=8)
    prompt = chat.stage("answer")[-1]["prompt"]
    assert len(re.findall(r"<<<SOURCE \d+", prompt)) == 2
    assert ": " not in _fenced(prompt, "HYPEREDGES")  # IDs and members, no descriptions
    for bad in ({"max_sources": 0}, {"listing_chars": -5}, {"max_sources": "3"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            VizRAG(tmp_path / "never", chat=chat, **bad)  # type: ignore[arg-type]
    assert not (tmp_path / "never").exists()


# ------------------------------------------------------------------ 2. no repeats, bounded
def _result(n_ents: int, desc: str = "Shared sentence about a TV series.", *,
            drawn: int | None = None) -> RetrievalResult:
    drawn = n_ents if drawn is None else drawn
    ents = [RetrievedEntity(key=f"k{i}", name=f"Name {i}", description=desc,
                            visual_id=f"E{i}" if i <= drawn else None)
            for i in range(1, n_ents + 1)]
    return RetrievalResult(query="Q?", mode="vizrag", entities=ents)


def test_a_description_given_once_is_referred_to_not_repeated() -> None:
    res = _result(8)
    res.hyperedges = [RetrievedHyperedge(id="r1", members=["k1", "k2"], visual_id="H1",
                                         description="Name 1 met Name 2 in 1990."),
                      RetrievedHyperedge(id="r2", members=["k3"], visual_id="H2",
                                         description="Name 1 met Name 2 in 1990.")]
    res.entities[0].description = "Name 1 met Name 2 in 1990. Name 1 was born in Oslo."
    prompt = answer_prompt(res, Prompts(), image=False)
    entities, hyperedges = _fenced(prompt, "ENTITIES"), _fenced(prompt, "HYPEREDGES")
    lines = entities.splitlines()
    assert lines[0] == "E1 Name 1 (entity): Name 1 was born in Oslo. (see H1)"
    assert lines[1] == "E2 Name 2 (entity): Shared sentence about a TV series."
    assert lines[2:] == [f"E{i} Name {i} (entity): see E2" for i in range(3, 9)]
    assert hyperedges.splitlines() == ["H1 [E1, E2]: Name 1 met Name 2 in 1990.",
                                       "H2 [E3]: see H1"]


def test_the_listings_stay_within_their_budget_and_name_every_drawn_item() -> None:
    res = _result(60, drawn=30)
    for i, e in enumerate(res.entities):
        e.description = f"Entity number {i} has a long and distinct description " + "x" * 150
    entities, _ = knowledge_listings(res, budget=1200)
    assert len(entities) <= 1200 + sum(len(f"E{i} Name {i} (entity)\n") for i in range(1, 31))
    named = re.findall(r"^(E\d+) ", entities, re.M)
    assert named == [f"E{i}" for i in range(1, 31)]  # drawn: all named, undrawn: left out
    assert entities.endswith("(+30 more, not listed)")


def test_the_default_answer_prompt_is_led_by_the_sources(store: Path) -> None:
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        rag.query(Q)
    prompt = chat.stage("answer")[-1]["prompt"]
    ents, edges = _fenced(prompt, "ENTITIES"), _fenced(prompt, "HYPEREDGES")
    descs = [line.split(": ", 1)[1] for line in (ents + "\n" + edges).splitlines()
             if ": " in line and not line.split(": ", 1)[1].startswith("see ")]
    sentences = [s for d in descs for s in re.split(r"(?<=\.) (?=[A-Z])", d.split(" (see ")[0])
                 if len(s) > 30]
    assert len(sentences) == len(set(sentences))  # no sentence twice
    named = sum(len(ln) for ln in (ents + "\n" + edges).splitlines()
                if re.match(r"^[EH]\d+ ", ln) and ": " not in ln)
    # the budget, beyond it only the names of drawn items (and the "+N more" lines)
    assert len(ents) + len(edges) <= LISTING_CHARS + named + 100
    assert len(ents) + len(edges) < len(prompt.split("Sources:")[1]) * 2


# ------------------------------------------------------------------ 3. every drawn E# named
def test_every_entity_drawn_in_i_bot_is_named_in_the_answer_prompt(store: Path) -> None:
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        res = rag.query(Q, congestion_control=False)
    assert res.bottom_view is not None
    drawn = {e["id"] for e in res.bottom_view.export["entities"]}
    drawn_edges = {h["id"] for h in res.bottom_view.export["hyperedges"]}
    assert len(drawn) > 40
    prompt = chat.stage("answer")[-1]["prompt"]
    assert drawn <= set(re.findall(r"^(E\d+) ", _fenced(prompt, "ENTITIES"), re.M))
    assert drawn_edges <= set(re.findall(r"^(H\d+) ", _fenced(prompt, "HYPEREDGES"), re.M))


def test_seventy_drawn_entities_are_all_listed() -> None:
    prompt = answer_prompt(_result(70), Prompts(), image=True)
    assert set(re.findall(r"^(E\d+) ", prompt, re.M)) == {f"E{i}" for i in range(1, 71)}


# ------------------------------------------------------------------ 4. the image note
def test_the_image_note_describes_both_panels_and_stands_in_for_the_caption(
        store: Path) -> None:
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        rag.query(Q)
    for call in (chat.stage("locate")[0], chat.stage("answer")[0]):
        assert call["images"]
        assert "square node" in call["prompt"] and "coloured region" in call["prompt"]
        assert "caption" in call["prompt"]


# ------------------------------------------------------------------ 5. modes and JSON mode
def test_text_mode_locate_prompt_speaks_of_no_drawing(store: Path) -> None:
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        rag.query(Q, mode="text")
    call = chat.stage("locate")[0]
    assert call["images"] == [] and "drawing" not in call["prompt"]
    assert "E#" in call["prompt"]


def test_naive_mode_asks_for_source_numbers_only(store: Path) -> None:
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        res = rag.query(Q, mode="naive")
    prompt = chat.stage("answer")[0]["prompt"]
    assert "(none)" not in prompt and "IDs" not in prompt and "E#" not in prompt
    assert "source numbers" in prompt and len(re.findall(r"<<<SOURCE", prompt)) == 5
    assert res.answer
    # an override of `answer` alone still reaches naive mode
    custom = Prompts(answer="Custom {query}\n{sources}")
    assert answer_prompt(res, custom, image=False).startswith("Custom ")


def test_the_json_mode_keyword_prompt_asks_for_an_object(store: Path) -> None:
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        res = rag.query(Q)
    call = chat.stage("keywords")[0]
    assert call["json_mode"] is True and '{"keywords": [' in call["prompt"]
    assert "JSON list of strings only" not in call["prompt"]
    assert res.keywords == ["Maiden Japan"]
    assert parse_json_list('["Ada", "Bo"]') == parse_json_list('{"keywords": ["Ada", "Bo"]}')


# ------------------------------------------------------------------ 6. locate replies
def _located(store: Path, reply: str) -> tuple[list[str | None], list[str]]:
    with VizRAG(store, chat=Rec(locate=reply), show_progress=False) as rag:
        res = rag.retrieve(Q)
    assert res.top_view is not None
    ids = {e["key"]: e["id"] for e in res.top_view.export["entities"]}
    return [ids.get(k) for k in res.located], res.warnings


@pytest.mark.parametrize(("reply", "want"), [
    ("E1-E3", ["E1", "E2", "E3"]),
    ("E2 to E5", ["E2", "E3", "E4", "E5"]),
    ('{"entities": ["E2–E4"]}', ["E2", "E3", "E4"]),
    ("Ｅ２, Ｅ４", ["E2", "E4"]),
])
def test_locate_ranges_and_full_width_ids_are_read(store: Path, reply: str,
                                                   want: list[str]) -> None:
    located, warnings = _located(store, reply)
    assert located == want and warnings == []


def test_locate_names_of_listed_entities_are_read(store: Path) -> None:
    with VizRAG(store, chat=Rec(), show_progress=False) as rag:
        res = rag.retrieve(Q)
    assert res.top_view is not None
    ents = res.top_view.export["entities"]
    names = [e["name"] for e in ents]
    pick = [e for e in ents if names.count(e["name"]) == 1][:2]
    reply = json.dumps({"entities": [pick[0]["name"].upper(), pick[1]["name"]]},
                       ensure_ascii=False)
    located, warnings = _located(store, reply)
    assert located == [pick[0]["id"], pick[1]["id"]] and warnings == []


def test_a_range_names_only_ids_that_exist() -> None:
    from hyperviz_core import Entity, Hypergraph, IdMap
    from hyperviz_core.rag.extract.parse.lists import parse_id_list

    ids = IdMap.build(Hypergraph(entities=[Entity(name=n) for n in ("Ada", "Bo", "Cy")]))
    assert parse_id_list("E2-E999999", ids) == ["E2", "E3"]
    assert parse_id_list("E3-E1", ids) == ["E3", "E1"]  # not a range: both ends


# ------------------------------------------------------------------ 7. display names
def test_undrawn_hyperedge_members_go_by_their_display_name() -> None:
    res = _result(3, drawn=1)
    res.entities[1].name = "Dennis Rodman"
    res.hyperedges = [RetrievedHyperedge(id="r1", members=["k1", "k2", "k9"], visual_id="H1",
                                         description="They met.")]
    edges = _fenced(answer_prompt(res, Prompts(), image=False), "HYPEREDGES")
    assert edges == "H1 [E1, Dennis Rodman, k9]: They met."


# ------------------------------------------------------------------ 8. every drawn theme
def test_the_locate_prompt_lists_every_drawn_theme_and_entity(store: Path) -> None:
    chat = Rec()
    with VizRAG(store, chat=chat, show_progress=False) as rag:
        res = rag.retrieve(Q)
    assert res.top_view is not None
    themes = _fenced(chat.stage("locate")[0]["prompt"], "THEMES")
    drawn = {h["id"] for h in res.top_view.export["hyperedges"]}
    assert len(drawn) > 3 and drawn == set(re.findall(r"^(H\d+): ", themes, re.M))
    assert {e["id"] for e in res.top_view.export["entities"]} <= set(
        re.findall(r"\b(E\d+) ", themes))
