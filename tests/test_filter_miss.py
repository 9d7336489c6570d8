"""A filtered query that returns no passage says so, and why when the passages say it: a
key none has, or values of another type than the stored ones (they are compared with their
types: ``"1895"`` never equals 1895). Before, the result was empty, with no warning."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve.filter_miss import FILTER_MISS, miss_hints
from hyperviz_core.rag.retrieve.filters import FILL_LIMIT, ChunkFilter

DOCS = [Document(id="curie", text="Marie Curie married Pierre Curie in Paris.",
                 metadata={"year": 1895, "tags": ["physics", "chemistry"], "lang": "fr"}),
        Document(id="einstein", text="Albert Einstein lived in Bern.",
                 metadata={"year": 1903, "tags": ["physics"], "lang": "de"})]
QUERY = "Who did Marie Curie marry?"


@pytest.fixture(scope="module")
def rag(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with VizRAG(tmp_path_factory.mktemp("miss") / "s", show_progress=False) as engine:
        engine.insert(DOCS)
        yield engine


@pytest.mark.parametrize(("flt", "said"), [
    ({"year": "1895"},
     "'year' holds numbers (e.g. 1895) where the filter gives the string '1895'"),
    ({"year": {"$in": ["1895", "1903"]}},
     "'year' holds numbers (e.g. 1895) where the filter gives strings ['1895', '1903']"),
    ({"yera": 1895}, "no passage has the key 'yera' (did you mean 'year'?)"),
    ({"yera": {"$ne": 1}}, "no passage has the key 'yera' (did you mean 'year'?)"),
    ({"tags": "physics"}, "'tags' holds lists: match one item with $contains"),
    ({"tags": {"$contains": 3}},
     "'tags' holds strings (e.g. 'physics') where the filter gives the number 3"),
    ({"lang": True}, "'lang' holds strings (e.g. 'fr') where the filter gives the bool True"),
])
def test_an_empty_filtered_result_says_why(rag: Any, flt: dict[str, Any], said: str) -> None:
    for mode in ("vizrag", "naive"):
        res = rag.retrieve(QUERY, filters=flt, render=False, mode=mode)
        assert res.chunks == []
        assert len(res.warnings) == 1 and res.warnings[0].startswith(f"{FILTER_MISS}: {said}")


def test_a_filter_nothing_passes_for_no_clear_reason_says_only_that(rag: Any) -> None:
    res = rag.retrieve(QUERY, filters={"year": {"$lt": 1800}}, render=False)
    assert res.chunks == [] and res.warnings == [FILTER_MISS]


@pytest.mark.parametrize("flt", [{"year": 1895}, {"year": {"$like": "18%"}},
                                 {"tags": {"$contains": "physics"}},
                                 {"key": "yera", "op": "!=", "value": 1}])
def test_a_filter_something_passes_gives_no_such_warning(rag: Any, flt: dict[str, Any]) -> None:
    res = rag.retrieve(QUERY, filters=flt, render=False)
    assert res.chunks and not any(FILTER_MISS in w for w in res.warnings)


def test_hints_follow_the_filter_and_name_each_problem_once() -> None:
    flt = ChunkFilter.from_mongo({"$or": [{"yr": 1}, {"year": "x"}, {"yr": 2}]})
    assert miss_hints(flt, [{"year": 1}]) == [
        "no passage has the key 'yr' (did you mean 'year'?)",
        "'year' holds numbers (e.g. 1) where the filter gives the string 'x'"]


def test_a_big_store_says_which_passages_it_read(tmp_path: Path) -> None:
    """Beyond :data:`FILL_LIMIT` passages, the unmatched rest was not read: the warning
    does not claim that no passage passes."""
    docs = [Document(id=f"n{i:05d}", text=f"Note {i}.", metadata={"n": i})
            for i in range(FILL_LIMIT + 10)]
    with VizRAG(tmp_path / "s", show_progress=False) as big:
        big.insert(docs)
        res = big.retrieve("zzzz qqqq", filters={"n": str(FILL_LIMIT + 5)}, render=False,
                           mode="naive")
    assert res.chunks == [] and re.fullmatch(
        r"no passage the query matched passed the filter, nor any of the first 1,024 passages "
        r"by id; in those, 'n' holds numbers \(e\.g\. \d+\) where the filter gives the "
        r"string '1029'", res.warnings[-1])
