"""Query repair adds no spelling BM25 already reads alike (stop 65).

The query repair appends to the BM25 query the corpus's other spellings of a query word no
chunk holds: accents (``societe`` → ``société``, which BM25 reads apart). Since stop 64
BM25 reads Arabic's hamza'd alefs, teh marbuta, Persian's letters and the points alike
(``rag.scripts.letters_alike``), yet the repair still found ``أسامة`` for a query's
``اسامة`` (an accent to ``unicodedata``): appended, BM25 counted the word twice.
"""

from __future__ import annotations

from hyperviz_core.rag.retrieve.lexical import tokens
from hyperviz_core.rag.retrieve.lexicon import QueryLexicon

TEXTS = [
    "قاد أسامة بن لادن تنظيم القاعدة.",  # Osama bin Laden led al-Qaeda (hamza on alef)
    "La société générale ouvre à Paris.",
    "Die Straße ist lang.",
]


def _lexical(query: str) -> list[str]:
    lex = QueryLexicon([], {}, TEXTS)
    return tokens(lex.repair(query).lexical(query))


def test_a_spelling_read_alike_is_not_added() -> None:
    lex = QueryLexicon([], {}, TEXTS)
    assert lex.repair("من قاد اسامة؟").forms == []
    assert _lexical("من قاد اسامة؟") == ["من", "قاد", "اسامه"]  # once, not twice


def test_spellings_read_apart_are_still_added() -> None:
    assert _lexical("societe generale") == ["societe", "generale", "société", "générale"]
    assert _lexical("Strasse") == ["strasse", "straße"]


def test_no_query_token_is_counted_twice() -> None:
    for query in ("اسامة بن لادن", "تنظيم القاعده", "societe", "Die Strasse"):
        found = _lexical(query)
        assert len(found) == len(set(found)), (query, found)
