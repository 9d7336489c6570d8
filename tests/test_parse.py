"""Tolerant extraction parser: formats, near misses, name binding, fuzzing."""

from __future__ import annotations

import json
import logging
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hyperviz_core.idmap import IdMap
from hyperviz_core.model import Entity, Hyperedge, Hypergraph
from hyperviz_core.rag.extract.parse.extraction import (
    MAX_DESC,
    MAX_NAME,
    parse_extraction,
    parse_id_list,
    parse_json_list,
    parse_json_object,
)
from hyperviz_core.rag.types import ChunkExtraction

CURIE_JSON = {
    "entities": [
        {"name": "Marie Curie", "type": "person", "description": "physicist"},
        {"name": "Pierre Curie", "type": "person", "description": "physicist"},
        {"name": "Nobel Prize in Physics", "type": "award", "description": "prize"},
        {"name": "1903", "type": "date", "description": "year"},
    ],
    "hyperedges": [
        {"members": ["Marie Curie", "Pierre Curie", "Nobel Prize in Physics", "1903"],
         "description": "Marie and Pierre Curie shared the 1903 Nobel Prize in Physics.",
         "keywords": ["nobel", "shared prize"], "strength": 9},
        {"members": ["Marie Curie", "Pierre Curie"], "description": "married in 1895",
         "keywords": "marriage, spouses", "strength": 7},
    ],
}
CURIE_RECORDS = (
    '("entity"<|>Marie Curie<|>person<|>Polish-French physicist)##\n'
    '("entity"<|>Pierre Curie<|>person<|>French physicist)##\n'
    '("entity"<|>Nobel Prize in Physics<|>award<|>annual prize)##\n'
    '("hyper-relation"<|>Marie Curie<|>Pierre Curie<|>Nobel Prize in Physics<|>'
    'They shared the 1903 prize<|>nobel, physics<|>9)##\n'
    '("relationship"<|>Marie Curie<|>Pierre Curie<|>They married in 1895<|>marriage<|>7)\n'
    "<|COMPLETE|>"
)


def assert_valid(ext: ChunkExtraction, chunk_id: str = "c1") -> None:
    """A parse result is well-formed and loads into a Hypergraph."""
    assert isinstance(ext, ChunkExtraction) and ext.chunk_id == chunk_id
    assert ext.skipped >= 0
    keys = {e.key for e in ext.entities}
    assert len(keys) == len(ext.entities)
    for e in ext.entities:
        assert 0 < len(e.name) <= MAX_NAME and len(e.description) <= MAX_DESC
        assert e.source_ids == [chunk_id]
    for h in ext.hyperedges:
        assert len(h.members) >= 2 and set(h.members) <= keys
        assert 0.0 <= h.weight <= 1.0 and len(h.description) <= MAX_DESC
    Hypergraph(entities=ext.entities, hyperedges=ext.hyperedges).check_consistency()


def members(ext: ChunkExtraction) -> list[set[str]]:
    return [set(h.members) for h in ext.hyperedges]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(CURIE_JSON),
        "Here you go:\n```json\n" + json.dumps(CURIE_JSON, indent=2) + "\n```\nDone.",
        "<think>let me think {about it}</think>" + json.dumps(CURIE_JSON),
        json.dumps(CURIE_JSON).replace("]}", ",]}"),  # trailing commas
    ],
)
def test_json_variants(text: str) -> None:
    ext = parse_extraction(text, "c1")
    assert_valid(ext)
    assert {e.name for e in ext.entities} >= {"Marie Curie", "Pierre Curie", "1903"}
    assert {"marie curie", "pierre curie", "nobel prize in physics", "1903"} in members(ext)
    by_members = {frozenset(h.members): h for h in ext.hyperedges}
    nobel = by_members[frozenset({"marie curie", "pierre curie", "nobel prize in physics", "1903"})]
    assert nobel.weight == pytest.approx(0.9) and nobel.keywords == ["nobel", "shared prize"]
    marriage = by_members[frozenset({"marie curie", "pierre curie"})]
    assert marriage.keywords == ["marriage", "spouses"] and marriage.order == "low"
    assert ext.skipped == 0


def test_structured_output_dict_and_record_list() -> None:
    assert_valid(ext := parse_extraction(CURIE_JSON, "c1"))
    assert len(ext.hyperedges) == 2
    records = [
        {"type": "entity", "name": "A", "entity_type": "person"},
        {"type": "relation", "entities": ["A", "B"], "description": "d"},
        {"source": "B", "target": "C", "description": "pairwise"},
        {"head": "C", "tail": "A"},
    ]
    ext = parse_extraction(json.dumps(records), "c1")
    assert_valid(ext)
    assert members(ext) == [{"a", "b"}, {"b", "c"}, {"c", "a"}]


def test_delimited_records() -> None:
    ext = parse_extraction(CURIE_RECORDS, "c1")
    assert_valid(ext)
    assert {e.name: e.type for e in ext.entities} == {
        "Marie Curie": "person", "Pierre Curie": "person", "Nobel Prize in Physics": "award",
    }
    by = {frozenset(h.members): h for h in ext.hyperedges}
    three = by[frozenset({"marie curie", "pierre curie", "nobel prize in physics"})]
    assert three.description == "They shared the 1903 prize"
    assert three.keywords == ["nobel", "physics"] and three.weight == pytest.approx(0.9)
    assert by[frozenset({"marie curie", "pierre curie"})].description == "They married in 1895"
    assert ext.skipped == 0


def test_hyper_rag_near_misses() -> None:
    text = (
        '("Entity" | MARIE CURIE | person | physicist | time: 1903)\n'
        '("Entity"<| >PIERRE CURIE<| >person<| >physicist)\n'
        '("Low-order Hyperedge" | MARIE CURIE | PIERRE CURIE | married | marriage | 8)\n'
        '("High-order Hyperedge" | MARIE CURIE | PIERRE CURIE | Sorbonne | they taught at the '
        'Sorbonne | teaching, Paris | 6)\n'
        '("high_level_keywords" | science, radioactivity)\n'
        "(low_order_hyperedge<|>MARIE CURIE<|>Warsaw<|>born in Warsaw<|>birth<|>high)\n"
    )
    ext = parse_extraction(text, "c1")
    assert_valid(ext)
    got = members(ext)
    assert {"marie curie", "pierre curie"} in got
    assert {"marie curie", "pierre curie", "sorbonne"} in got  # undeclared member created
    assert {"marie curie", "warsaw"} in got
    sorbonne = next(e for e in ext.entities if e.key == "sorbonne")
    assert sorbonne.type == "entity" and "Sorbonne" in sorbonne.description
    assert ext.skipped == 0  # keyword records are ignored, not errors


def test_members_bind_by_name_not_position() -> None:
    # HyperGraphRAG emits the relation FIRST and its entities after it; binding by position
    # would attach the next relation's entities. Here members come from names in the text.
    text = (
        '("hyper-relation"<|>Alan Turing worked at Bletchley Park during the war.<|>9)##'
        '("entity"<|>Alan Turing<|>person<|>mathematician<|>95)##'
        '("entity"<|>Bletchley Park<|>location<|>codebreaking centre<|>80)##'
        '("hyper-relation"<|>Ada Lovelace wrote notes on the Analytical Engine.<|>8)##'
        '("entity"<|>Ada Lovelace<|>person<|>writer<|>90)##'
        '("entity"<|>Analytical Engine<|>work<|>machine<|>70)##'
        '("hyper-relation"<|>Nobody mentioned here did anything.<|>5)'
    )
    ext = parse_extraction(text, "c1")
    assert_valid(ext)
    assert members(ext) == [
        {"alan turing", "bletchley park"}, {"ada lovelace", "analytical engine"}
    ]
    assert ext.skipped == 1  # the relation naming no declared entity


def test_member_order_does_not_matter_with_known_names() -> None:
    text = (
        '("entity"<|>Paris<|>location<|>capital)##("entity"<|>France<|>location<|>country)##'
        '("relation"<|>the capital city<|>Paris<|>France<|>capital<|>8)'
    )
    ext = parse_extraction(text, "c1")
    assert_valid(ext)
    assert members(ext) == [{"paris", "france", "the capital city"}]


def test_malformed_records_are_counted() -> None:
    text = (
        '("entity"<|>Good One<|>person<|>fine)##'
        '("entity"<|><|>person<|>empty name)##'
        '("relation"<|>Good One<|>just one member<|>kw<|>5)##'
        '("mystery"<|>x<|>y)##'
        '("entity"<|>Other<|>org<|>fine)##'
        '("relation"<|>Good One<|>Other<|>linked<|>kw<|>5)'
    )
    ext = parse_extraction(text, "c1")
    assert_valid(ext)
    assert {e.name for e in ext.entities} == {"Good One", "Other"}
    assert members(ext) == [{"good one", "other"}]
    assert ext.skipped == 3


def test_truncated_json_is_salvaged() -> None:
    full = json.dumps(CURIE_JSON)
    cut = full[: full.index('"married in 1895"')]
    ext = parse_extraction(cut, "c1")
    assert_valid(ext)
    assert len(ext.entities) == 4
    assert {"marie curie", "pierre curie", "nobel prize in physics", "1903"} in members(ext)
    assert ext.skipped >= 1


def test_huge_fields_are_truncated() -> None:
    big = {"entities": [{"name": "N" * 5000, "type": "T" * 500, "description": "d" * 50000},
                        {"name": "B"}],
           "hyperedges": [{"members": ["N" * 5000, "B"], "description": "x" * 10**5,
                           "keywords": ["k" * 1000] * 100}]}
    ext = parse_extraction(json.dumps(big), "c1")
    assert_valid(ext)
    assert len(ext.entities[0].name) == MAX_NAME and len(ext.entities[0].type) <= 50
    assert len(ext.hyperedges[0].keywords) == 1  # duplicates dropped after truncation


def test_known_entities_resolve_without_redeclaring() -> None:
    known = [Entity(name="Marie Curie"), Entity(name="Sorbonne")]
    ext = parse_extraction(
        '{"hyperedges": [{"members": ["marie curie", "SORBONNE"], "description": "taught"}]}',
        "c1", known_entities=known,
    )
    assert ext.entities == [] and members(ext) == [{"marie curie", "sorbonne"}]


@pytest.mark.parametrize("text", [None, "", "   ", b"\xff\xfe\x00", "I cannot help with that.",
                                  "{}", "[]", "null", "42", '{"error": "rate limited"}'])
def test_garbage_gives_empty(text: object) -> None:
    ext = parse_extraction(text, "c1")
    assert_valid(ext)
    assert ext.entities == [] and ext.hyperedges == []


# ------------------------------------------------------------------------------ fuzz
_PIECES = [
    "(", ")", "##", "<|>", "<|", "|>", " | ", "<|COMPLETE|>", '"entity"', '"Entity"', "entity",
    '"hyper-relation"', "relationship", "low_order_hyperedge", "{", "}", "[", "]", ",", ":",
    '"name"', '"members"', '"entities"', '"hyperedges"', '"', "'", "\n", "```json", "```",
    "Marie Curie", "Paris", "名前", "🙂", "\u200b", "\x00", "\ud800", "NaN", "-1e309", "9",
    "<think>", "</think>", "\\", "\\u12", "((((", "]]]]", "{{{{",
]


def _mutate(rng: random.Random, text: str) -> str:
    op = rng.randrange(9)
    if op == 0:  # truncate
        return text[: rng.randrange(len(text) + 1)]
    if op == 1:  # wrong delimiters
        return text.replace("<|>", rng.choice(["|", "<>", "<||>", "\t", ";", "<|> <|>"]))
    if op == 2:  # splice random pieces
        chars = list(text)
        for _ in range(rng.randrange(1, 20)):
            chars.insert(rng.randrange(len(chars) + 1), rng.choice(_PIECES))
        return "".join(chars)
    if op == 3:  # huge field
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice("xé名🙂 ") * rng.randrange(10_000, 60_000) + text[i:]
    if op == 4:  # random bytes decoded leniently
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
        return raw.decode("utf-8", errors="surrogateescape")
    if op == 5:  # delete random spans
        for _ in range(rng.randrange(1, 10)):
            i = rng.randrange(len(text) + 1)
            text = text[:i] + text[i + rng.randrange(1, 40):]
        return text
    if op == 6:  # unicode confusables
        return text.translate({ord('"'): "“", ord("|"): "｜", ord("("): "（", ord(" "): "\u00a0"})
    if op == 7:  # deep nesting
        d = rng.randrange(100, 5000)
        return "[" * d + text + "]" * rng.randrange(d + 1)
    return "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 300)))


def test_fuzz_1000_malformed_outputs_never_raise() -> None:
    rng = random.Random(20261130)
    bases = [json.dumps(CURIE_JSON), json.dumps(CURIE_JSON, indent=1), CURIE_RECORDS,
             "```json\n" + json.dumps(CURIE_JSON) + "\n```"]
    total_entities = 0
    for i in range(1000):
        text = rng.choice(bases)
        for _ in range(rng.randrange(1, 4)):
            text = _mutate(rng, text)
        ext = parse_extraction(text, "c1")
        assert_valid(ext)
        total_entities += len(ext.entities)
        if i % 97 == 0:  # bytes input too
            assert_valid(parse_extraction(text.encode("utf-8", "surrogatepass"), "c1"))
    assert total_entities > 500  # most mutations keep something recoverable


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=2000))
def test_hypothesis_arbitrary_text(text: str) -> None:
    assert_valid(parse_extraction(text, "c1"))
    assert isinstance(parse_json_list(text), list)
    assert isinstance(parse_json_object(text), dict)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.floats() | st.text(max_size=30),
                    lambda kids: st.lists(kids, max_size=5)
                    | st.dictionaries(st.sampled_from(["name", "members", "entities",
                                                       "hyperedges", "type", "description",
                                                       "strength", "source", "target"]),
                                      kids, max_size=5),
                    max_leaves=30))
def test_hypothesis_arbitrary_json(value: object) -> None:
    assert_valid(parse_extraction(json.dumps(value), "c1"))
    assert_valid(parse_extraction(value, "c1"))


# ------------------------------------------------------------------------------ lists / ids
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('["Marie Curie", "Nobel Prize"]', ["Marie Curie", "Nobel Prize"]),
        ('```json\n["a", "b", "a"]\n```', ["a", "b"]),
        ('{"keywords": ["x", "y"]}', ["x", "y"]),
        ('{"high_level_keywords": ["physics"], "low_level_keywords": ["Curie"]}',
         ["physics", "Curie"]),
        ('Sure! ["one", 2, {"name": "three"}, null, true]', ["one", "2", "three"]),
        ('["complete", "also complete", "trunc', ["complete", "also complete"]),
        ("no list here", []),
        ("", []),
        (None, []),
    ],
)
def test_parse_json_list(text: object, expected: list[str]) -> None:
    assert parse_json_list(text) == expected


def test_parse_json_list_logs_garbage(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hyperviz_core.rag.extract.parse.extraction"):
        assert parse_json_list("the model rambled") == []
    assert "no JSON list" in caplog.text


def _idmap() -> IdMap:
    hg = Hypergraph(
        entities=[Entity(name=n) for n in ("a", "b", "c")],
        hyperedges=[Hyperedge(id="h1", members=["a", "b"])],
    )
    return IdMap.build(hg)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"entities": ["E3", "E1"]}', ["E3", "E1"]),
        ('["E2", "e1", "E2", "H1"]', ["E2", "E1"]),
        ("I can see E 2 and E-3 in the drawing, and H1.", ["E2", "E3"]),
        ('["E9", "E1"]', ["E1"]),
        ("nothing useful", []),
        (None, []),
    ],
)
def test_parse_id_list(text: object, expected: list[str]) -> None:
    assert parse_id_list(text, _idmap()) == expected


def test_parse_id_list_hyperedges_and_logging(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hyperviz_core.rag.extract.parse.extraction"):
        assert parse_id_list('["E9", "E7"]', _idmap()) == []
    assert "unknown visual ids" in caplog.text
    assert parse_id_list("H1, E1", _idmap(), kind="H") == ["H1"]
    assert parse_id_list("H1, E1", _idmap(), kind="") == ["H1", "E1"]


def test_salvage_reads_a_hostile_answer_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer nesting an unclosed object in every object made each ``{`` decode to the
    end (quadratic: 18 s for 400,000 characters); failed decodes now read at most a few
    times the text, and a truncated answer's objects are still salvaged."""
    from hyperviz_core.rag.extract.parse import json_text

    reads: list[int] = []

    class Counting(json.JSONDecoder):
        def raw_decode(self, s: str, idx: int = 0) -> tuple[object, int]:
            reads.append(idx)
            return super().raw_decode(s, idx)

    monkeypatch.setattr(json_text.json, "JSONDecoder", Counting)
    hostile = ('{"k":[' + "1," * 38) * 2000
    assert json_text.salvage_objects(hostile) == []
    assert len(reads) <= json_text._SCAN_FACTOR + 1  # each failed read runs to the end
    reads.clear()
    truncated = '{"entities": [' + ", ".join(f'{{"name": "E{i}"}}' for i in range(300))
    got = json_text.salvage_objects(truncated + ', {"name": "cut')
    assert [o["name"] for o in got] == [f"E{i}" for i in range(300)]
