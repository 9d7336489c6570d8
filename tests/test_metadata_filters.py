"""Metadata filters of retrieval (``filters=``): the model, its operators, and the ranking
they mask (loaded and lazy stores, every mode)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve.config import RetrievalConfig
from hyperviz_core.rag.retrieve.filters import ChunkFilter, MetadataCondition

QUERY = "Who discovered radium with Marie Curie?"
MODES = ("vizrag", "text", "hyper-lite", "naive")
META: dict[str, dict[str, Any]] = {
    "d1": {"year": 2020, "lang": "en", "team": "a", "tags": ["physics", "nobel"]},
    "d2": {"year": 2021, "lang": "fr", "team": "b", "tags": ["physics"]},
    "d3": {"year": 2019, "lang": "en", "team": "b", "tags": ["chemistry"]},
    "d4": {"year": 2022, "lang": "de", "team": "a", "tags": ["chemistry", "nobel"]},
    "d5": {"year": 2018, "lang": "fr", "team": "c", "note": ""},
    "d6": {"year": 2023, "lang": "en", "team": "c", "tags": ["nobel"]},
}
TEXTS = {
    "d1": ("Marie Curie", "Marie Curie was a physicist who discovered polonium and radium "
           "with Pierre Curie in Paris."),
    "d2": ("Pierre Curie", "Pierre Curie was a French physicist. Pierre Curie worked with "
           "Marie Curie on radium."),
    "d3": ("Radium", "Radium is a chemical element discovered by Marie Curie and Pierre "
           "Curie in 1898."),
    "d4": ("Polonium", "Polonium was named by Marie Curie after Poland, her native country."),
    "d5": ("Sorbonne", "The Sorbonne in Paris is where Marie Curie taught physics."),
    "d6": ("Nobel Prize", "The Nobel Prize in Physics 1903 went to Marie Curie, Pierre Curie "
           "and Henri Becquerel."),
}


def _docs() -> list[Document]:
    return [Document(id=i, title=t, text=x, metadata=META[i]) for i, (t, x) in TEXTS.items()]


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("filters") / "store"
    VizRAG(path, show_progress=False).insert(_docs())
    return path


@pytest.fixture(scope="module")
def rag(store_dir: Path) -> VizRAG:
    engine = VizRAG(store_dir, show_progress=False)
    engine.retriever.lazy = False
    return engine


def _cond(key: str, op: str, value: Any = None) -> dict[str, Any]:
    return {"filters": [{"key": key, "op": op, "value": value}]}


def _fields(doc_id: str) -> dict[str, Any]:
    return {**META[doc_id], "doc_id": doc_id, "title": TEXTS[doc_id][0]}


def _masked(rag: VizRAG, flt: dict[str, Any], mode: str, k: int) -> list[tuple[str, float]]:
    """The unfiltered ranking of every chunk, masked by ``flt`` (scores above 0), top k."""
    every = rag.retrieve(QUERY, mode=mode, top_k=50, render=False).chunks
    keep = ChunkFilter.model_validate(flt)
    return [(c.chunk_id, c.score) for c in every
            if c.score > 0 and keep.matches(_fields(c.doc_id))][:k]


def test_best_unfiltered_chunk_excluded_and_order_kept(rag: VizRAG) -> None:
    best = rag.retrieve(QUERY, top_k=1, render=False).chunks[0]
    flt = _cond("doc_id", "!=", best.doc_id)
    got = rag.retrieve(QUERY, top_k=3, render=False, filters=flt).chunks
    assert len(got) == 3 and best.doc_id not in {c.doc_id for c in got}
    assert [(c.chunk_id, c.score) for c in got] == _masked(rag, flt, "vizrag", 3)
    assert [c.rank for c in got] == [1, 2, 3]


@pytest.mark.parametrize(("op", "value", "want"), [
    ("==", "fr", {"d2", "d5"}), ("!=", "fr", {"d1", "d3", "d4", "d6"}),
    (">", 2021, {"d4", "d6"}), (">=", 2021, {"d2", "d4", "d6"}),
    ("<", 2020, {"d3", "d5"}), ("<=", 2020, {"d1", "d3", "d5"}),
    ("in", ["de", "fr"], {"d2", "d4", "d5"}), ("nin", ["en"], {"d2", "d4", "d5"}),
    ("contains", "nobel", {"d1", "d4", "d6"}), ("any", ["physics", "chemistry"],
                                                {"d1", "d2", "d3", "d4"}),
    ("all", ["chemistry", "nobel"], {"d4"}), ("text_match", "Curie", {"d1", "d2"}),
    ("text_match_insensitive", "CURIE", {"d1", "d2"}), ("is_empty", None, {"d5"}),
])
def test_every_operator(rag: VizRAG, op: str, value: Any, want: set[str]) -> None:
    key = {"==": "lang", "!=": "lang", "in": "lang", "nin": "lang", "contains": "tags",
           "any": "tags", "all": "tags", "text_match": "title",
           "text_match_insensitive": "title", "is_empty": "tags"}.get(op, "year")
    flt = _cond(key, op, value)
    got = rag.retrieve(QUERY, top_k=6, render=False, filters=flt).chunks
    assert {c.doc_id for c in got} == want
    assert [(c.chunk_id, c.score) for c in got] == _masked(rag, flt, "vizrag", 6)


def test_nested_and_or_not(rag: VizRAG) -> None:
    flt = {"condition": "or", "filters": [
        {"filters": [{"key": "team", "value": "a"}, {"key": "year", "op": ">", "value": 2020}]},
        {"condition": "not", "filters": [{"key": "lang", "op": "in", "value": ["en", "de"]}]},
    ]}
    got = rag.retrieve(QUERY, top_k=6, render=False, filters=flt).chunks
    assert {c.doc_id for c in got} == {"d4", "d2", "d5"}
    assert [(c.chunk_id, c.score) for c in got] == _masked(rag, flt, "vizrag", 6)


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_masks_without_rescoring(rag: VizRAG, mode: str) -> None:
    flt = _cond("lang", "==", "fr")
    got = rag.retrieve(QUERY, mode=mode, top_k=2, render=False, filters=flt).chunks
    assert [c.doc_id for c in got] and {c.doc_id for c in got} <= {"d2", "d5"}
    assert [(c.chunk_id, c.score) for c in got] == _masked(rag, flt, mode, 2)


def test_naive_widens_the_vector_search(rag: VizRAG) -> None:
    """Naive mode asks the vector search for more hits when too few of them match."""
    flt = _cond("lang", "==", "fr")
    got = rag.retrieve(QUERY, mode="naive", top_k=2, render=False, filters=flt,
                       chunk_vector_k=1).chunks
    assert {c.doc_id for c in got} == {"d2", "d5"}
    assert [(c.chunk_id, c.score) for c in got] == _masked(rag, flt, "naive", 2)


def test_no_match_and_unknown_key_return_nothing(rag: VizRAG) -> None:
    assert rag.retrieve(QUERY, render=False, filters=_cond("lang", "==", "xx")).chunks == []
    assert rag.retrieve(QUERY, render=False, filters=_cond("owner", "==", "a")).chunks == []


def test_query_takes_filters_and_config_round_trips(rag: VizRAG) -> None:
    flt = ChunkFilter(filters=[MetadataCondition(key="team", value="c")])
    answer = rag.query(QUERY, top_k=2, render=False, filters=flt)
    assert {c.doc_id for c in answer.chunks} <= {"d5", "d6"} and answer.chunks
    assert answer.settings["filters"] == json.loads(flt.model_dump_json())  # what applied
    assert "filters" not in rag.retrieve(QUERY, top_k=2, render=False).settings
    cfg = RetrievalConfig(filters=MetadataCondition(key="team", value="c"))
    assert cfg.filters == flt
    assert RetrievalConfig.model_validate(cfg.model_dump()) == cfg


@pytest.mark.parametrize(("spec", "needle"), [
    ({"key": "year", "op": "regex", "value": 1}, "unknown filter operator 'regex'"),
    ({"key": "year", "op": "in", "value": 2020}, "needs a list"),
    ({"key": "year", "op": ">", "value": [1]}, "needs one string, number or bool"),
    ({"key": "year", "op": ">", "value": True}, "needs a number or a string"),
    ({"key": "year", "value": {"$gt": 1}}, "value"),
    ({"key": "year", "value": float("nan")}, "must be finite"),
    ({"key": "tags", "op": "is_empty", "value": 1}, "takes no value"),
    ({"key": "title", "op": "text_match", "value": 3}, "needs a string"),
    ({"key": "", "value": 1}, "non-empty key"),
])
def test_bad_conditions_are_named(spec: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        MetadataCondition.model_validate(spec)


def test_bad_filter_in_retrieve_is_refused(rag: VizRAG) -> None:
    with pytest.raises(ValidationError, match="unknown filter condition 'xor'"):
        rag.retrieve(QUERY, render=False, filters={"condition": "xor", "filters": []})


def test_comparisons_are_typed_and_never_evaluated() -> None:
    year = MetadataCondition(key="year", op=">", value=2000)
    assert not year.matches({"year": "2020"}) and year.matches({"year": 2020.5})
    assert not MetadataCondition(key="flag", value=1).matches({"flag": True})
    assert MetadataCondition(key="n", value=1).matches({"n": 1.0})
    evil = MetadataCondition(key="x", value="__import__('os').system('false')")
    assert not evil.matches({"x": "1"}) and evil.matches({"x": evil.value})
    assert MetadataCondition(key="x", op="!=", value=1).matches({})
    assert MetadataCondition(key="x", op="contains", value="ar").matches({"x": "Paris"})


def test_from_mongo() -> None:
    flt = ChunkFilter.from_mongo({"$and": [{"team": "a"}, {"year": {"$gte": 2021,
                                                                   "$lt": 2023}}]})
    assert flt.matches({"team": "a", "year": 2022})
    assert not flt.matches({"team": "a", "year": 2020})
    assert ChunkFilter.from_mongo({"$or": [{"lang": {"$nin": ["en"]}}, {"year": {"$eq": 1}}]}
                                  ).matches({"lang": "fr"})
    with pytest.raises(ValueError, match=r"unknown operator\(s\) \['\$regex'\]"):
        ChunkFilter.from_mongo({"lang": {"$regex": "e.*"}})
    with pytest.raises(ValueError, match="unknown filter operator '\\$where'"):
        ChunkFilter.from_mongo({"$where": "x"})


# ---------------------------------------------------------------------------- lazy path
def _key(res: Any) -> list[tuple[Any, ...]]:
    return [(c.chunk_id, c.score, c.evidence, c.entities, c.title) for c in res.chunks]


FILTERS: list[dict[str, Any]] = [
    _cond("lang", "==", "fr"), _cond("year", ">=", 2021), _cond("doc_id", "nin", ["d1", "d3"]),
    {"condition": "or", "filters": [{"key": "team", "value": "c"},
                                    {"key": "tags", "op": "contains", "value": "chemistry"}]},
]


@pytest.mark.parametrize("mode", MODES)
def test_lazy_equals_loaded_with_filters(store_dir: Path, rag: VizRAG,
                                         monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    from hyperviz_core.rag.retrieve import retriever as retriever_module
    from hyperviz_core.rag.retrieve.lazy import LazyCorpus

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)
    lazy = VizRAG(store_dir, show_progress=False)
    for flt in FILTERS:
        for k in (1, 4):
            want = rag.retrieve(QUERY, mode=mode, top_k=k, render=False, filters=flt)
            got = lazy.retrieve(QUERY, mode=mode, top_k=k, render=False, filters=flt)
            assert _key(got) == _key(want), (flt, k)
    assert isinstance(lazy.retriever.query_corpus(), LazyCorpus)


def test_lazy_equals_loaded_on_a_larger_store(tmp_path: Path, data_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The MuSiQue sample with a metadata key: the filtered best chunks are deep in the
    unfiltered ranking (lazy candidates, PageRank additions and fetched batches)."""
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    passages = json.loads((data_dir / "musique_sample.json").read_text())
    docs = [Document(id=f"p{p['idx']:04d}", text=p["text"], title=p["title"],
                     metadata={"part": p["idx"] % 5}) for p in passages]
    VizRAG(tmp_path / "s", show_progress=False).insert(docs)
    full = VizRAG(tmp_path / "s", show_progress=False)
    full.retriever.lazy = False
    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)
    lazy = VizRAG(tmp_path / "s", show_progress=False)
    for q, mode, part, k in itertools.product(
            ("When was the singer of Hello Love born?",
             "Where did Hello Love's performer live when he died?"),
            ("vizrag", "hyper-lite"), range(5), (3, 5)):
        flt = _cond("part", "==", part)
        want = full.retrieve(q, mode=mode, top_k=k, render=False, filters=flt)
        assert all(c.metadata["part"] == part for c in want.chunks) and want.chunks
        got = lazy.retrieve(q, mode=mode, top_k=k, render=False, filters=flt)
        assert _key(got) == _key(want), (q, mode, part, k)


LEAK_DOCS = [
    Document(id="alpha-secret", title="Alpha finance", text="Project Zephyr has a "
             "confidential budget of 4.2 million euros approved by Alice Jones in Paris.",
             metadata={"team": "alpha"}),
    Document(id="beta-notes", title="Beta notes", text="Bob Smith from team beta attended "
             "the Project Zephyr kickoff in Berlin.", metadata={"team": "beta"}),
    Document(id="beta-2", title="Beta roadmap", text="The Orion roadmap of team beta lists "
             "three milestones.", metadata={"team": "beta"}),
]


@pytest.mark.parametrize("lazy", [False, True])
def test_a_filtered_query_shows_no_fact_of_an_excluded_document(tmp_path: Path,
                                                                 lazy: bool) -> None:
    """The views, the result's entities and hyperedges and so the answer prompt hold only
    what the passing chunks say (an entity named in both teams' documents is left out: its
    description merges both); the passages are the unfiltered ranking, masked."""
    from hyperviz_core.rag.answer import answer_prompt
    from hyperviz_core.rag.prompts import Prompts

    rag = VizRAG(tmp_path / "s", show_progress=False)
    rag.insert(LEAK_DOCS)
    rag.retriever.lazy = lazy
    query = "What is the budget of Project Zephyr and who approved it?"
    beta = {"key": "team", "value": "beta"}
    secret = ("4.2 million", "Alice Jones")
    plain = rag.retrieve(query, mode="text", render=False)
    assert any(s in answer_prompt(plain, Prompts(), image=False) for s in secret)  # else leaks
    for mode in ("vizrag", "hyper-lite", "text"):
        res = rag.retrieve(query, mode=mode, filters=beta, render=mode != "text")
        assert {c.doc_id for c in res.chunks} <= {"beta-notes", "beta-2"} and res.chunks
        shown = [answer_prompt(res, Prompts(), image=False), res.model_dump_json(
            include={"entities", "hyperedges", "top_view", "bottom_view"})]
        assert not any(s in text for s in secret for text in shown), mode
        assert "project zephyr" not in {e.key for e in res.entities}
        assert not {"project zephyr", "alice jones"} & {*res.anchors, *res.located}
        assert {e.key for e in res.entities} >= {"bob smith", "berlin"}
    rag.close()


def test_dict_forms_are_read_strictly() -> None:
    """A dict with ``key`` is a condition (``operator`` read as ``op``) and one with
    ``filters`` a filter: a misspelt key is an error naming it, not metadata names."""
    from hyperviz_core.rag.retrieve.filters import as_filter

    assert as_filter({"key": "team", "operator": "==", "value": "c"}) == as_filter(
        {"team": "c"})
    with pytest.raises(ValidationError, match="operater"):
        as_filter({"key": "team", "value": "beta", "operater": "=="})
    with pytest.raises(ValidationError, match="conditon"):
        as_filter({"filters": [{"key": "team", "value": "beta"}], "conditon": "or"})
    with pytest.raises(ValueError, match="both 'op' and 'operator'"):
        as_filter({"key": "team", "op": "==", "operator": "!=", "value": "c"})


def test_cli_query_filter(store_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``vizrag query --filter JSON``: either dict form; a bad one is a usage error."""
    from hyperviz_core.cli import main

    for flt in ('{"team": "c"}', '{"key": "team", "op": "in", "value": ["c"]}'):
        assert main(["query", QUERY, "--store", str(store_dir), "--json", "--no-render",
                     "--filter", flt]) == 0
        obj = json.loads(capsys.readouterr().out)
        assert obj["chunks"] and {c["doc_id"] for c in obj["chunks"]} <= {"d5", "d6"}
    for bad, said in (('{"team": ', "not a metadata filter"),
                      ('{"key": "year", "op": "like", "value": 1}', "like")):
        with pytest.raises(SystemExit) as info:
            main(["query", QUERY, "--store", str(store_dir), "--filter", bad])
        assert info.value.code == 2 and said in capsys.readouterr().err
