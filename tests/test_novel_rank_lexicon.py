"""Query repair in ranking (:mod:`hyperviz_core.rag.retrieve.lexicon`): names a question
spells differently from the documents are linked to the hypergraph's entities, unknown
inflections to the corpus's word forms, and ``_italic_`` markup no longer hides words from
BM25. Each test fails without the feature it names (checked against the ablated weights)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from hyperviz_core.model import Entity, Hyperedge, Hypergraph
from hyperviz_core.rag import Document, RankWeights, VizRAG
from hyperviz_core.rag.retrieve.chunk_index import ChunkIndex
from hyperviz_core.rag.retrieve.lexicon import (
    _ALPHA,
    QueryLexicon,
    alpha_words,
    lexical_text,
    lexicon_for,
    light_stem,
)
from hyperviz_core.rag.retrieve.rank import rank_chunks
from hyperviz_core.rag.types import Chunk

# One long untitled "book": the answer chunks use the book's spellings and word forms; the
# distractors repeat the question's other words.
TEXTS = [
    "Creüsa was a Naïad, the mother of Hypseas, king of the Lapithae, by Peneus.",
    "The father of the hero was a king; his father and his father's father ruled Thessaly.",
    "Louis is only an apprentice to old Carbut the baker, who owns the store.",
    "Louis played at the table; Louis lost, and Louis went home to Louis's wife.",
    "Its vegetation includes nothing bigger than the _erica vagans_, the Cornish heath.",
    "Erica said the plant was common; Erica knew every plant and every common name.",
    "Aschenbrödel is an opera; Aschenbrödel was first staged in Vienna.",
    "The composer of the opera was a citizen of the country, a composer of note.",
    "Élodie was born in Lyon, where the river meets the other river.",
    "Many were born by the river; who was born there?",
]
OFF = RankWeights(spelling=0.0, word_forms=False)


def _chunks() -> list[Chunk]:
    return [Chunk(id=f"c{i}", doc_id="book", index=i, text=t) for i, t in enumerate(TEXTS)]


def _bottom() -> Hypergraph:
    sources = {"Creüsa": ["c0"], "Hypseas": ["c0"], "Peneus": ["c0"], "Louis": ["c2", "c3"],
               "Carbut": ["c2"], "Erica": ["c5"], "Aschenbrödel": ["c6"], "Vienna": ["c6"],
               "Élodie": ["c8"], "Lyon": ["c8"]}
    ents = [Entity(name=name, source_ids=src) for name, src in sources.items()]
    edges = [Hyperedge(members=["creüsa", "hypseas", "peneus"], source_ids=["c0"]),
             Hyperedge(members=["louis", "carbut"], source_ids=["c2"]),
             Hyperedge(members=["aschenbrödel", "vienna"], source_ids=["c6"]),
             Hyperedge(members=["élodie", "lyon"], source_ids=["c8"])]
    return Hypergraph(entities=ents, hyperedges=edges)


@pytest.fixture(scope="module")
def index() -> ChunkIndex:
    return ChunkIndex(_chunks(), {}, _bottom())


def _top(index: ChunkIndex, query: str, weights: RankWeights | None = None) -> str:
    ranked = rank_chunks(index, query, query_entities=index.walk.link(query)  # type: ignore[union-attr]
                         if index.walk else (), weights=weights, top_k=3)
    return index.chunks[ranked[0].index].id


@pytest.mark.parametrize(("query", "gold"), [
    ("Who was the father of Hypseus?", "c0"),           # misspelt name
    ("Where was the composer of Aschenbrodel a citizen?", "c6"),  # accent dropped
])
def test_misspelt_name_is_linked_to_the_entity(index: ChunkIndex, query: str, gold: str
                                               ) -> None:
    assert _top(index, query) == gold
    assert _top(index, query, OFF) != gold  # without the repair a distractor wins


def test_spelled_entity_counts_as_graph_evidence(index: ChunkIndex) -> None:
    graph_only = RankWeights(bm25=0.0, feedback=0.0, ppr=0.0)
    ranked = rank_chunks(index, "Who was the father of Hypseus?", weights=graph_only, top_k=1)
    assert index.chunks[ranked[0].index].id == "c0"
    assert "hypseas" in ranked[0].entities and ranked[0].parts["graph"] > 0
    off = rank_chunks(index, "Who was the father of Hypseus?", top_k=1,
                      weights=graph_only.model_copy(update={"spelling": 0.0}))
    assert off[0].parts["graph"] == 0  # nothing named by the query is in the graph


def test_unknown_inflection_uses_the_corpus_word_form(index: ChunkIndex) -> None:
    query = "To whom is Louis apprenticed?"
    assert _top(index, query) == "c2"
    assert _top(index, query, RankWeights(word_forms=False)) == "c3"  # "Louis" x4 wins


def test_underscore_markup_does_not_hide_words_from_bm25(index: ChunkIndex) -> None:
    scores = index.bm25("Erica vagans")
    assert scores[4] > scores[5] > 0  # "_erica vagans_" is two words, vagans is rare
    assert _top(index, "Erica vagans is also known as?", RankWeights(graph=0.0)) == "c4"
    assert lexical_text("_erica vagans_") == " erica vagans "


def test_known_words_are_left_alone(index: ChunkIndex) -> None:
    lex = lexicon_for(index)
    query = "Louis played at the table"
    rep = lex.repair(query)
    assert rep.names == [] and rep.entities == [] and rep.forms == []
    a = rank_chunks(index, query, top_k=len(index))
    b = rank_chunks(index, query, weights=OFF, top_k=len(index))
    assert [(s.index, s.score) for s in a] == [(s.index, s.score) for s in b]


def test_dissimilar_or_lowercase_unknown_words_are_not_spelled(index: ChunkIndex) -> None:
    lex = lexicon_for(index)
    assert lex.spelling("elodie") == "élodie"         # accents folded on the first letter
    assert lex.spelling("hypsipyle") is None          # Dice 0.375 < 0.5
    assert lex.spelling("hypsipyle", threshold=0.3) == "hypseas"
    assert lex.repair("the hypseus king").names == []  # lowercase: not a name
    assert lex.repair("the Hypseus king", threshold=0.9).names == []


def test_no_variant_from_a_short_name_inside_a_long_word_nor_a_false_stem() -> None:
    chunks = [Chunk(id="c0", doc_id="d", text="The Rite of Spring; a statue of Gold; "
                    "he sits by the old field near Morocco; them and theirs.")]
    lex = QueryLexicon(chunks, {"rite of spring": 0, "gold": 0, "field": 0, "morocco": 0})
    assert lex.repair("Rewrite the passage about Gotthold and Fairfield").names == []
    assert lex.repair("Which Moroccan city?").names == ["morocco"]  # lengths 8 / 7
    rep = lex.repair("What is the status of the themes?")
    assert rep.forms == []  # not "statue" (status keeps its s), not the stop word "them"


def test_repair_is_deterministic_and_cached(index: ChunkIndex) -> None:
    lex = lexicon_for(index)
    assert lexicon_for(index) is lex
    q = "Did Hypseus or Aschenbrodel have apprenticed fathers?"
    first = lex.repair(q)
    assert first.names == ["hypseas", "aschenbrödel"] and first.forms == ["apprentice", "father"]
    assert first.entities == ["hypseas", "aschenbrödel"]
    other = QueryLexicon(index.chunks, index.entity_sources,
                         (index.passage_text(i) for i in range(len(index))))
    assert other.repair(q) == first
    assert first.lexical("q") == "q hypseas aschenbrödel apprentice father"


def test_stems_and_name_index_are_built_only_for_an_unknown_word(index: ChunkIndex) -> None:
    lex = QueryLexicon(index.chunks, index.entity_sources,
                       (index.passage_text(i) for i in range(len(index))))
    lex.repair("Louis played at the table")  # every word known: nothing more is built
    assert not {"_stems", "_entities", "_grams", "_by_gram"} & set(vars(lex))
    assert lex.repair("Did Hypseus have apprenticed fathers?").forms == ["apprentice", "father"]
    assert {"_stems", "_entities", "_grams", "_by_gram"} <= set(vars(lex))


def test_light_stem_and_weights_validation() -> None:
    assert light_stem("apprenticed") == light_stem("apprentice") == "apprentic"
    assert light_stem("queries") == "query" and light_stem("class") == "class"
    with pytest.raises(ValidationError):
        RankWeights(spelling_similarity=0.0)
    with pytest.raises(ValidationError):
        RankWeights(spelling=-1.0)


def test_engine_finds_a_misspelt_name_in_a_long_document(tmp_path: Path) -> None:
    filler = " ".join(f"The road went on past farm number {i} and the old mill." for i in
                      range(120))
    book = (f"{filler} Creüsa was a Naïad, the mother of Hypseas, king of the Lapithae, by "
            f"Peneus. {filler} The father of the hero was a king, and his father was a "
            f"king too. {filler}")
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="book", title="", text=book)])
        res = rag.retrieve("Who was the father of Hypseus?", render=False, top_k=1)
        off = rag.retrieve("Who was the father of Hypseus?", render=False, top_k=1,
                           weights=OFF)
    assert "Hypseas" in res.chunks[0].text
    assert "Hypseas" not in off.chunks[0].text


def test_alpha_words_fast_path_equals_the_pattern() -> None:
    """The vocabulary's ASCII fast path (byte translation) gives the pattern's words."""
    texts = ["".join(map(chr, range(128))), "Don't BUY 2 x_y!\tTab\x0bvt\x1fus", "",
             "A1b2C3 -- 'quoted' _italic_ snake_case CamelCase", "Straße über Ⅻ ǅ ﬁ"]
    texts += [chr(a) + chr(b) for a in range(128) for b in range(128) if (a + b) % 7 == 0]
    for text in texts:
        assert alpha_words(text) == _ALPHA.findall(text.casefold()), repr(text)
    assert alpha_words("Straße") == ["strasse"]  # non-ASCII: the pattern, case-folded
