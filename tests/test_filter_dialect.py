"""The vector-store filter dialect (PGVector, Chroma, MongoDB) of ``ChunkFilter.from_mongo``:
``$between $exists $like $ilike $not $nor $contains $not_contains $all`` and the core
operators ``exists``, ``like``, ``ilike`` under them; the LangChain ``filter=`` and
``vizrag query --filter`` paths end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument

from hyperviz_core.rag.retrieve.filters import ChunkFilter, MetadataCondition, as_filter
from vizrag_langchain import VizRAGRetriever, VizRAGVectorStore
from vizrag_langchain.retriever import core_filter

MISSING = object()


def _holds(spec: dict[str, Any], value: Any, key: str = "k") -> bool:
    """Whether ``spec`` passes fields holding ``value`` under ``key`` (none if MISSING)."""
    fields = {} if value is MISSING else {key: value}
    return ChunkFilter.from_mongo(spec).matches(fields)


# ---------------------------------------------------------------------------- $between
@pytest.mark.parametrize(("value", "want"), [
    (2020, True), (2021, True), (2023, True), (2023.0, True), (2021.5, True),
    (2019, False), (2024, False), (2023.01, False), ("2021", False), (True, False),
    (None, False), (MISSING, False), ([2021], False),
])
def test_between_numbers_inclusive(value: Any, want: bool) -> None:
    assert _holds({"k": {"$between": [2020, 2023]}}, value) is want


@pytest.mark.parametrize(("value", "want"), [
    ("b", True), ("c", True), ("d", True), ("bz", True), ("a", False), ("da", False),
    (3, False), (MISSING, False),
])
def test_between_strings(value: Any, want: bool) -> None:
    assert _holds({"k": {"$between": ("b", "d")}}, value) is want


@pytest.mark.parametrize(("bounds", "said"), [
    ([2020], "exactly two values"), ([1, 2, 3], "exactly two values"),
    (2020, "exactly two values"), ("ab", "exactly two values"),
    ([True, 3], "two numbers or two strings"), ([1, "3"], "two numbers or two strings"),
    ([None, 3], "two numbers or two strings"), ([[1], [2]], "two numbers or two strings"),
])
def test_between_bad_bounds_are_named(bounds: Any, said: str) -> None:
    with pytest.raises(ValueError, match=rf"filter on 'year' \(\$between\) needs {said}"):
        ChunkFilter.from_mongo({"year": {"$between": bounds}})


def test_between_non_finite_bound_is_refused() -> None:
    with pytest.raises(ValueError, match="must be finite"):
        ChunkFilter.from_mongo({"year": {"$between": [0, float("inf")]}})


# ---------------------------------------------------------------------------- $exists
@pytest.mark.parametrize(("value", "present"), [
    ("", True), ([], True), (0, True), (False, True), ("x", True), (["a"], True),
    (None, False), (MISSING, False),
])
def test_exists_is_not_null(value: Any, present: bool) -> None:
    assert _holds({"k": {"$exists": True}}, value) is present
    assert _holds({"k": {"$exists": False}}, value) is (not present)
    cond = MetadataCondition(key="k", op="exists", value=True)
    assert cond.matches({} if value is MISSING else {"k": value}) is present


def test_exists_differs_from_is_empty() -> None:
    empty = MetadataCondition(key="k", op="is_empty")
    assert empty.matches({"k": ""}) and _holds({"k": {"$exists": True}}, "")


@pytest.mark.parametrize("value", [2, -1, 1.0, "true", None, [True]])
def test_exists_needs_a_bool(value: Any) -> None:
    with pytest.raises(ValueError, match=r"filter on 'k' \(exists\) needs true or false"):
        ChunkFilter.from_mongo({"k": {"$exists": value}})
    with pytest.raises(ValueError, match="needs true or false"):
        MetadataCondition(key="k", op="exists", value=value)


@pytest.mark.parametrize(("spelt", "meant"), [(1, True), (0, False)])
def test_exists_takes_mongodbs_one_and_zero(spelt: int, meant: bool) -> None:
    for value in ("x", None, MISSING):
        assert _holds({"k": {"$exists": spelt}}, value) is _holds({"k": {"$exists": meant}}, value)
    with pytest.raises(ValueError, match="needs true or false"):
        MetadataCondition(key="k", op="exists", value=spelt)  # the core takes a bool only


# ---------------------------------------------------------------------------- $like, $ilike
@pytest.mark.parametrize(("pattern", "value", "want"), [
    ("Ada%", "Ada", True), ("Ada%", "Ada Lovelace", True), ("Ada%", "ada", False),
    ("Ada%", "xAda", False), ("%Ada%", "xAday", True), ("%", "", True), ("", "", True),
    ("", "a", False), ("A_a", "Ada", True), ("A_a", "Aa", False), ("A_a", "Adda", False),
    ("_", "", False), ("__", "ab", True), ("a%b", "ab", True), ("a%b", "abc", False),
    ("50\\%", "50%", True), ("50\\%", "50x", False), ("50\\%", "500%", False),
    ("a\\_b", "a_b", True), ("a\\_b", "axb", False), ("C:\\\\%", "C:\\dir", True),
    ("C:\\\\%", "C:dir", False), ("\\a", "a", True),
    ("a.c", "abc", False), ("a.c", "a.c", True), ("(x)+[y]*", "(x)+[y]*", True),
    ("(x)+", "xx", False), ("^a$", "^a$", True), ("a%", "a\nb", True), ("a_b", "a\nb", True),
    ("é_", "éa", True),
])
def test_like_is_sql_like(pattern: str, value: str, want: bool) -> None:
    assert _holds({"k": {"$like": pattern}}, value) is want
    cond = MetadataCondition(key="k", op="like", value=pattern)
    assert cond.matches({"k": value}) is want


@pytest.mark.parametrize("value", [["Ada"], {"a": 1}, None, MISSING, float("nan")])
def test_like_fails_on_a_list_none_or_missing(value: Any) -> None:
    assert not _holds({"k": {"$like": "%"}}, value)
    assert not _holds({"k": {"$ilike": "%"}}, value)


@pytest.mark.parametrize(("pattern", "value", "want"), [
    ("202%", 2021, True), ("202%", 1999, False), ("2.0", 2.0, True), ("2", 2.0, False),
    ("%.5", 2.5, True), ("0.0000001", 1e-07, True), ("1000%", 1e20, True), ("0.0", -0.0, True),
    ("t%", True, True), ("TRUE", True, False), ("fal_e", False, True), ("1", True, False),
])
def test_like_reads_numbers_and_bools_as_their_json_text(
        pattern: str, value: Any, want: bool) -> None:
    """As PGVector's ``cmetadata->>'k' LIKE ...``: the JSON text of the value."""
    assert _holds({"k": {"$like": pattern}}, value) is want
    assert _holds({"k": {"$ilike": pattern.lower()}}, value) is (want or pattern == "TRUE")


def test_like_text_is_postgresqls_text_of_a_json_value(pg_url: str) -> None:
    """The text is what a real PostgreSQL's ``->>`` gives the value stored as JSON."""
    import json

    import psycopg

    from hyperviz_core.rag.retrieve.like import like_text

    values = [0, 2021, -7, 10**20, 2.5, 2.0, -0.0, 0.1, 1e20, 1e-07, 1.5e300, 123456789.123,
              3.141592653589793, -2.5e-12, True, False, "Ada"]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for value in values:
            row = conn.execute("SELECT (%s::jsonb)->>'k'", (json.dumps({"k": value}),)).fetchone()
            assert row is not None and like_text(value) == row[0], value


@pytest.mark.parametrize(("pattern", "value", "want"), [
    ("ÉCOLE", "école", True), ("école%", "ÉCOLE NORMALE", True), ("ada%", "ADA L.", True),
    ("ÉCOLE", "ecole", False), ("STRASSE", "straße", False), ("stra_e", "Straße", True),
    ("_cole", "École", True),
    ("a\\%", "A%", True), ("a\\%", "Ab", False),
])
def test_ilike_is_caseless(pattern: str, value: str, want: bool) -> None:
    assert _holds({"k": {"$ilike": pattern}}, value) is want
    assert not _holds({"k": {"$like": "ÉCOLE"}}, "école")


@pytest.mark.parametrize("op", ["$like", "$ilike"])
@pytest.mark.parametrize(("pattern", "said"), [
    (1, "needs a string"), (["a%"], "needs one string"), (None, "needs one string"),
    ("ab\\", "must not end with a backslash"),
])
def test_like_bad_patterns_are_named(op: str, pattern: Any, said: str) -> None:
    with pytest.raises(ValueError, match=rf"filter on 'name' \({op[1:]}\).*{said}"):
        ChunkFilter.from_mongo({"name": {op: pattern}})


# ---------------------------------------------------------------------------- $not, $nor
def test_top_level_not_and_nor() -> None:
    one = {"$not": {"lang": "en", "year": {"$gt": 2000}}}
    assert _holds(one, "fr", "lang") and not ChunkFilter.from_mongo(one).matches(
        {"lang": "en", "year": 2001})
    assert ChunkFilter.from_mongo(one).matches({"lang": "en", "year": 1999})
    many = {"$not": [{"lang": "en"}, {"year": {"$gt": 2000}}]}  # PGVector: AND of NOTs
    for spec in (many, {"$nor": many["$not"]}):
        flt = ChunkFilter.from_mongo(spec)
        assert flt.matches({"lang": "fr", "year": 1999})
        assert not flt.matches({"lang": "en", "year": 1999})
        assert not flt.matches({"lang": "fr", "year": 2001})
        assert flt.matches({})


@pytest.mark.parametrize(("value", "want"), [
    (2000, True), (1999, True), (2001, False), ("x", True), (None, True), (MISSING, True),
])
def test_field_level_not(value: Any, want: bool) -> None:
    """MongoDB's ``$not``: the key's operators do not all hold (a missing key passes)."""
    assert _holds({"k": {"$not": {"$gt": 2000}}}, value) is want


def test_field_level_not_of_several_operators() -> None:
    spec: dict[str, Any] = {"k": {"$not": {"$gte": 2000, "$lt": 2010}}}
    assert [_holds(spec, v) for v in (1999, 2000, 2009, 2010)] == [True, False, False, True]
    spec = {"k": {"$not": {"$like": "A%"}, "$exists": True}}
    assert [_holds(spec, v) for v in ("Ada", "Bob", MISSING)] == [False, True, False]


@pytest.mark.parametrize(("spec", "said"), [
    ({"$not": []}, r"\$not needs a non-empty dict or list"),
    ({"$not": {}}, r"\$not needs a non-empty dict or list"),
    ({"$not": "x"}, r"\$not needs a non-empty dict or list"),
    ({"$nor": []}, r"\$nor needs a non-empty list"),
    ({"$nor": {"a": 1}}, r"\$nor needs a non-empty list"),
    ({"year": {"$not": 5}}, r"filter on 'year': \$not needs a non-empty operator dict"),
    ({"year": {"$not": {}}}, r"filter on 'year': \$not needs a non-empty operator dict"),
    ({"year": {"$not": {"$size": 2}}}, r"filter on 'year': unknown operator\(s\) \['\$size'\]"),
])
def test_bad_negations_are_named(spec: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        ChunkFilter.from_mongo(spec)


# ---------------------------------------------------------------------------- lists
@pytest.mark.parametrize(("value", "has"), [
    (["a", "b"], True), (["b"], False), ([], False), ("cat", True), ("dog", False),
    ("A", False), (1, False),
])
def test_contains_and_not_contains(value: Any, has: bool) -> None:
    item = "a"
    assert _holds({"k": {"$contains": item}}, value) is has
    assert _holds({"k": {"$not_contains": item}}, value) is (not has)


def test_a_missing_key_fails_the_negative_operators_as_sql_null() -> None:
    """As in PGVector (SQL ``NULL``) and Chroma: ``{"tenant": {"$ne": "a"}}`` keeps no
    untagged passage. The engine's own ``!=``/``nin`` (LlamaIndex's) still pass it."""
    for value in (MISSING, None):
        for op, operand in (("$not_contains", "a"), ("$nin", ["a"]), ("$ne", "a"),
                            ("$contains", "a")):
            assert not _holds({"k": {op: operand}}, value), (op, value)
    assert _holds({"k": {"$ne": "a"}}, "b") and _holds({"k": {"$nin": ["a"]}}, "b")
    assert _holds({"k": {"$not_contains": "a"}}, ["b"])
    assert MetadataCondition(key="k", op="!=", value="a").matches({})


def test_contains_numbers_by_value() -> None:
    assert _holds({"k": {"$contains": 1}}, [1.0, 2]) and not _holds({"k": {"$contains": 1}},
                                                                    [True])


@pytest.mark.parametrize(("value", "want"), [
    (["a", "b", "c"], True), (["a", "b"], True), (["a"], False), ([], False),
    ("ab", True), (MISSING, False), (None, False),
])
def test_all(value: Any, want: bool) -> None:
    assert _holds({"k": {"$all": ["a", "b"]}}, value) is want


@pytest.mark.parametrize("value", [["a"], [], "a", MISSING])
def test_all_of_nothing_matches_nothing(value: Any) -> None:
    """MongoDB's ``{"$all": []}`` matches no document; its ``$not`` every one."""
    assert not _holds({"k": {"$all": []}}, value)
    assert _holds({"k": {"$not": {"$all": []}}}, value)


def test_plain_equality_is_not_array_membership() -> None:
    """No MongoDB array semantics: ``$contains`` is the way."""
    assert not _holds({"tags": "x"}, ["x", "y"], "tags")
    assert _holds({"tags": {"$contains": "x"}}, ["x", "y"], "tags")


@pytest.mark.parametrize(("spec", "said"), [
    ({"k": {"$contains": ["a"]}}, r"filter on 'k' \(contains\) needs one string"),
    ({"k": {"$all": "a"}}, r"filter on 'k' \(all\) needs a list"),
    ({"k": {"$not_contains": None}}, r"filter on 'k' \(contains\) needs one string"),
])
def test_bad_list_operands_are_named(spec: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        ChunkFilter.from_mongo(spec)


# ---------------------------------------------------------------------------- unknown
@pytest.mark.parametrize("op", ["$regex", "$size", "$elemMatch", "$where", "$type", "$mod"])
def test_other_operators_stay_errors_listing_the_valid_ones(op: str) -> None:
    with pytest.raises(ValueError, match=rf"filter on 'k': unknown operator\(s\) \['\{op}'\]"
                       r"; valid: \$eq, .*\$between, \$exists, \$not_contains, \$not"):
        ChunkFilter.from_mongo({"k": {op: 1}})
    with pytest.raises(ValueError, match=rf"unknown filter operator '\{op}' at the top level; "
                       r"valid there: \$and, \$or, \$not, \$nor"):
        ChunkFilter.from_mongo({op: [{"k": 1}]})


def test_field_operators_at_the_top_level_are_pointed_to_a_key() -> None:
    with pytest.raises(ValueError, match=r"the others go in a key's dict: .*\$between"):
        ChunkFilter.from_mongo({"$between": [1, 2]})


# ---------------------------------------------------------------------------- round trips
SPECS: list[dict[str, Any]] = [
    {"year": {"$between": [2020, 2023]}},
    {"name": {"$like": "Ada\\_%"}, "lang": {"$ilike": "EN"}},
    {"note": {"$exists": False}, "tags": {"$exists": True}},
    {"$not": {"lang": "en"}},
    {"$not": [{"lang": "en"}, {"year": {"$lt": 2000}}]},
    {"$nor": [{"team": "a"}]},
    {"year": {"$not": {"$gt": 2000, "$lt": 2010}}},
    {"tags": {"$contains": "x", "$not_contains": "y", "$all": ["x", "z"]}},
    {"$or": [{"$and": [{"a": 1}, {"b": {"$between": ["a", "c"]}}]}, {"$not": {"c": True}}]},
]


@pytest.mark.parametrize("spec", SPECS)
def test_a_dump_round_trips(spec: dict[str, Any]) -> None:
    flt = ChunkFilter.from_mongo(spec)
    dump = flt.model_dump()
    assert as_filter(dump) == flt
    assert core_filter(dump) == flt  # the LangChain retriever's dump of its filter
    assert as_filter(json.loads(json.dumps(dump))) == flt
    assert core_filter(spec) == flt == as_filter(spec)


def test_the_core_operators_in_the_engines_own_form() -> None:
    fields = {"name": "Ada Lovelace", "note": ""}
    for cond, want in (({"key": "name", "op": "like", "value": "Ada%"}, True),
                       ({"key": "name", "operator": "ilike", "value": "ada l_velace"}, True),
                       ({"key": "name", "op": "like", "value": "ada%"}, False),
                       ({"key": "note", "op": "exists", "value": True}, True),
                       ({"key": "gone", "op": "exists", "value": False}, True)):
        flt = as_filter(cond)
        assert flt is not None and flt.matches(fields) is want, cond
    with pytest.raises(ValueError, match=r"unknown filter operator 'regex'; valid: .*ilike"):
        MetadataCondition(key="k", op="regex", value="a")


# ---------------------------------------------------------------------------- end to end
QUERY = "Who wrote about the Analytical Engine?"
ROWS: list[tuple[str, str, dict[str, Any]]] = [
    ("a1", "Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage.",
     {"year": 1843, "author": "Ada Lovelace", "tags": ["notes", "engine"]}),
    ("a2", "Charles Babbage designed the Analytical Engine, a general purpose machine.",
     {"year": 1837, "author": "Charles Babbage", "tags": ["engine"]}),
    ("a3", "Luigi Menabrea wrote an article about the Analytical Engine in French.",
     {"year": 1842, "author": "LUIGI MENABREA", "lang": "fr"}),
    ("a4", "Alan Turing wrote about Lady Lovelace's objection and the Analytical Engine.",
     {"year": 1950, "author": "Alan Turing", "lang": None}),
]


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("dialect") / "store"


@pytest.fixture(scope="module")
def vs(store_path: Path) -> Iterator[VizRAGVectorStore]:
    docs = [LCDocument(page_content=t, id=i, metadata=m) for i, t, m in ROWS]
    store = VizRAGVectorStore.from_documents(docs, store=store_path)
    yield store
    store.close()


@pytest.mark.parametrize(("flt", "want"), [
    ({"year": {"$between": [1840, 1843]}}, {"a1", "a3"}),
    ({"year": {"$between": [1843, 1950]}}, {"a1", "a4"}),
    ({"author": {"$like": "A%"}}, {"a1", "a4"}),
    ({"author": {"$like": "%b_ge"}}, {"a2"}),
    ({"author": {"$ilike": "luigi%"}}, {"a3"}),
    ({"lang": {"$exists": True}}, {"a3"}),
    ({"lang": {"$exists": False}}, {"a1", "a2", "a4"}),
    ({"$not": {"year": {"$lt": 1900}}}, {"a4"}),
    ({"year": {"$not": {"$gt": 1840}}}, {"a2"}),
    ({"$nor": [{"author": {"$like": "A%"}}, {"lang": "fr"}]}, {"a2"}),
    ({"tags": {"$contains": "notes"}}, {"a1"}),
    ({"tags": {"$not_contains": "notes"}}, {"a2"}),  # a3, a4 have no tags: SQL's NULL
    ({"lang": {"$ne": "fr"}}, set()),  # a4's lang is None, the others have none
    ({"tags": {"$all": ["engine", "notes"]}}, {"a1"}),
])
def test_langchain_similarity_search_filters(vs: VizRAGVectorStore, flt: dict[str, Any],
                                             want: set[str]) -> None:
    got = vs.similarity_search(QUERY, k=4, filter=flt)
    assert {d.id for d in got} == want
    every = [d.id for d in vs.similarity_search(QUERY, k=4)]
    assert [d.id for d in got] == [i for i in every if i in want]  # masked, not reranked


def test_langchain_retriever_and_its_dump(vs: VizRAGVectorStore) -> None:
    flt = {"author": {"$ilike": "%LOVELACE"}, "year": {"$between": [1800, 1900]}}
    assert [d.id for d in vs.as_retriever(search_kwargs={"k": 4, "filter": flt}).invoke(
        QUERY)] == ["a1"]
    own = VizRAGRetriever(store=vs.engine, k=4, filter={"$not": {"author": {"$like": "A%"}}})
    again = VizRAGRetriever(store=vs.engine, **{k: v for k, v in own.model_dump().items()
                                                if k in ("k", "filter")})
    assert again.filter == own.filter
    ids = [d.metadata["doc_id"] for d in again.invoke(QUERY)]
    assert ids and set(ids) <= {"a2", "a3"}
    with pytest.raises(ValueError, match=r"filter on 'year' \(\$between\)"):
        vs.similarity_search(QUERY, filter={"year": {"$between": [1800]}})


def test_cli_query_filter_takes_the_new_operators(vs: VizRAGVectorStore, store_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.cli import main

    store = str(store_path)
    for flt, want in (('{"year": {"$between": [1840, 1843]}}', {"a1", "a3"}),
                      ('{"author": {"$like": "%Lovelace"}}', {"a1"})):
        assert main(["query", QUERY, "--store", store, "--json", "--no-render",
                     "--filter", flt]) == 0
        obj = json.loads(capsys.readouterr().out)
        assert {c["doc_id"] for c in obj["chunks"]} == want
    with pytest.raises(SystemExit) as info:
        main(["query", QUERY, "--store", store, "--filter", '{"year": {"$between": 1}}'])
    assert info.value.code == 2 and "$between" in capsys.readouterr().err


def test_like_agrees_with_a_regular_expression_and_never_backtracks() -> None:
    """:func:`like` against the regular expression of the pattern (``%`` → ``.*``, ``_`` →
    ``.``) on random strings and patterns; and a pattern a regular expression takes
    exponential time on (``%a%a%a%a%a%b`` against 300 ``a``) is answered."""
    import random
    import re

    from hyperviz_core.rag.retrieve.like import like

    def reference(text: str, pattern: str) -> bool:
        out, chars = [], iter(pattern)
        for c in chars:
            if c == "\\":
                out.append(re.escape(next(chars)))
            else:
                out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        return re.fullmatch("".join(out), text, re.DOTALL) is not None

    rng = random.Random(7)
    checked = 0
    for _ in range(20_000):
        text = "".join(rng.choice("ab%_\n") for _ in range(rng.randint(0, 7)))
        pattern = "".join(rng.choice("ab%_\\") for _ in range(rng.randint(0, 6)))
        if (len(pattern) - len(pattern.rstrip("\\"))) % 2:
            continue  # a lone backslash at the end: an error, tested above
        assert like(text, pattern) is reference(text, pattern), (text, pattern)
        checked += 1
    assert checked > 10_000
    assert not like("a" * 300, "%a%a%a%a%a%b") and like("a" * 300 + "b", "%a%a%a%a%a%b")
    assert _holds({"summary": {"$like": "%a%a%a%a%a%b"}}, "a" * 300) is False


@pytest.mark.parametrize(("spec", "needle"), [
    ({"lang": {"$in": ["en", None]}}, "filter on 'lang' (in): a list of filter values "
                                      "cannot hold None"),
    ({"lang": {"$eq": {"a": 1}}}, "filter on 'lang' (==): a filter value must be a string, "
                                  "number or bool (or a list of them), got dict"),
    ({"lang": {"$in": [["x"]]}}, "filter on 'lang' (in): a filter value must be a string, "
                                 "number or bool (or a list of them), got list"),
])
def test_a_bad_value_is_named_in_one_error(spec: dict[str, Any], needle: str) -> None:
    """A value of the wrong type is one error naming the key and operator, not pydantic's
    report of every member of the value's type (nor pydantic's report at all)."""
    with pytest.raises(ValueError) as info:
        ChunkFilter.from_mongo(spec)
    text = str(info.value)
    assert needle in text and text.startswith("filter on 'lang'") and "\n" not in text


def test_numpy_values_are_their_python_values() -> None:
    import numpy as np

    flt = ChunkFilter.from_mongo({"year": {"$gte": np.int64(2020)}, "ok": np.bool_(True),
                                  "n": {"$in": [np.int32(1), np.float64(2.5)]}})
    assert flt.matches({"year": 2021, "ok": True, "n": 2.5})
    assert not flt.matches({"year": 2019, "ok": True, "n": 1})
    assert json.loads(flt.model_dump_json())["filters"][0]["value"] == 2020


@pytest.mark.parametrize(("spec", "said"), [
    ({"lang": None}, r"^filter on 'lang' \(==\) needs one string, number or bool, got None "
                     r"\(a missing key or None is matched with \{'\$exists': False\}\)$"),
    ({"lang": {"$in": ["en", None]}}, r"cannot hold None \(a missing key or None"),
    ({"tags": ["y"]}, r"got \['y'\] \(a list value is matched with \{'\$contains': item\}"),
])
def test_a_none_or_list_value_is_one_plain_line_with_what_to_write(
        spec: dict[str, Any], said: str) -> None:
    """A reviewer got pydantic's report about ``MetadataCondition``, a class they never made,
    and no hint of ``$exists``."""
    with pytest.raises(ValueError, match=said) as caught:
        ChunkFilter.from_mongo(spec)
    assert type(caught.value) is ValueError and "MetadataCondition" not in str(caught.value)
