"""Query repair: query words the corpus never uses, matched to the words it does use.

BM25 scores a query word only when the corpus contains it verbatim, so a question that
spells a name differently from the documents ("Hypseus" for the text's "Hypseas",
"Aschenbrodel" for "Aschenbrödel", "Margaraviate" for "Margraviate") or inflects a word
differently ("apprenticed" where the text says "apprentice") loses its most specific
evidence. Two repairs, applied to *unknown* query words only (words no chunk contains), so
a query the corpus already speaks is left untouched:

* **spelling variants of entity names** (uses the hypergraph): a capitalised unknown word is
  compared with the words of the bottom layer's entity names by character-trigram Dice
  similarity; the best match (same first letter, similarity ≥ ``threshold``) is added to
  the lexical query, and the entities whose name contains it count as entities the query
  names (:attr:`QueryRepair.entities`);
* **word forms**: an unknown word is replaced by the corpus words that share its light stem
  (:func:`light_stem`: plural, ``-ed``, ``-ing`` and a final ``e`` removed);
* **accents**: an unknown word the corpus spells with other accents (``societe`` for
  ``société``, ``creperie`` for ``crêperie`` and back) gets those spellings too, after its
  light-stem forms (capitalised words try the entity-name spelling first);
* **case forms**: BM25 lower-cases but does not case-fold, so a query word the corpus
  spells with the other of ``ß`` / ``ss`` (``Straße``, Swiss ``Strasse``) gets that
  spelling added (any word, known or not).

:func:`lexical_text` is the text normalisation BM25 indexes and queries with: underscores
(``_italics_`` markup of plain-text books, ``snake_case``) separate words.

Example:
    >>> from hyperviz_core.rag.types import Chunk
    >>> chunks = [Chunk(id="c0", doc_id="d", index=0, text="Creüsa bore Hypseas to Peneus."),
    ...           Chunk(id="c1", doc_id="d", index=1, text="Louis is an apprentice to Carbut.")]
    >>> lex = QueryLexicon(chunks, {"hypseas": [0], "peneus": [0], "louis": [1]})
    >>> rep = lex.repair("Who was the father of Hypseus? Whom was Louis apprenticed to?")
    >>> rep.names, rep.entities, rep.forms
    (['hypseas'], ['hypseas'], ['apprentice'])
    >>> rep.lexical("father of Hypseus")
    'father of Hypseus hypseas apprentice'
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ...unitext import unaccented
from ..providers.offline import STOPWORDS, word_tokens
from ..scripts import letters_alike
from ..types import Chunk

__all__ = [
    "QueryLexicon", "QueryRepair", "alpha_words", "lexical_text", "lexicon_for", "light_stem",
    "trigrams", "unaccented", "undot", "vocabulary_of",
]

_ALPHA = re.compile(r"[^\W\d_]+")
# ASCII bytes: letters kept, everything else a space (see :func:`alpha_words`)
_ASCII_LETTERS = bytes(c if chr(c).isascii() and chr(c).isalpha() else 32 for c in range(256))
_SUFFIXES = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))
_SIBILANT = ("s", "x", "z", "ch", "sh")


def alpha_words(text: str) -> list[str]:
    """The words of ``text`` as the vocabulary counts them: its maximal runs of letters,
    case-folded (``[^\\W\\d_]+`` over ``text.casefold()``), by byte translation when
    ``text`` is ASCII (three times faster than the pattern; the same list).

    >>> alpha_words("Don't BUY 2 x_y!"), alpha_words("Straße über")
    (['don', 't', 'buy', 'x', 'y'], ['strasse', 'über'])
    """
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_LETTERS).lower().decode("ascii").split()
    return _ALPHA.findall(undot(text.casefold()))


def vocabulary_of(texts: Iterable[str]) -> set[str]:
    """Every word (:func:`alpha_words`) of ``texts``: the vocabulary queries are repaired
    against; and a word that case folding spells otherwise (``straße`` → ``strasse``) also
    as BM25 reads it (lower-cased), for :meth:`QueryLexicon.repair`'s case forms.

    >>> sorted(vocabulary_of(["Marie Curie", "marie's lab", "Die Straße"]))
    ['curie', 'die', 'lab', 'marie', 's', 'strasse', 'straße']
    """
    words: set[str] = set()
    for text in texts:
        if text.isascii():
            words.update(alpha_words(text))
            continue
        fold = undot(text.casefold())  # alpha_words' own, folded once here
        words.update(_ALPHA.findall(fold))
        if (low := undot(text.lower())) != fold:
            words.update(w for w in _ALPHA.findall(low) if w.casefold() != w)
    return words


def undot(text: str) -> str:
    """Lower-cased ``text`` with ``i`` + combining dot above read as ``i``: what ``lower()``
    and ``casefold()`` make of Turkish ``İ`` (so ``İstanbul`` is ``istanbul``, not ``i`` and
    ``stanbul``).

    >>> undot("İstanbul".lower()) == "istanbul" == undot("ISTANBUL".casefold())
    True
    """
    return text.replace("i\u0307", "i") if "\u0307" in text else text


def lexical_text(text: str) -> str:
    """``text`` with underscores turned into spaces (what BM25 indexes and queries).

    >>> lexical_text("the _erica vagans_--the lovely Cornish heath")
    'the  erica vagans --the lovely Cornish heath'
    """
    return text.replace("_", " ")


def light_stem(word: str) -> str:
    """A light English stem: possessive, one plural/``-ed``/``-ing`` suffix and a final
    ``e`` removed (``apprenticed`` and ``apprentice`` → ``apprentic``). ``-es`` is a suffix
    only after a sibilant (``boxes``); words in ``-ss``, ``-us``, ``-is`` keep their ``s``.

    >>> [light_stem(w) for w in ("apprenticed", "apprentice", "vanquishing", "stories")]
    ['apprentic', 'apprentic', 'vanquish', 'story']
    >>> [light_stem(w) for w in ("glass", "status", "themes", "churches")]
    ['glass', 'status', 'them', 'church']
    """
    w = word[:-2] if word.endswith("'s") else word
    for suffix, repl in _SUFFIXES:
        if not w.endswith(suffix) or len(w) - len(suffix) < 3:
            continue
        if suffix == "s" and w.endswith(("ss", "us", "is")):
            break
        if suffix == "es" and not w[:-2].endswith(_SIBILANT):
            continue
        w = w[: -len(suffix)] + repl
        break
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return w


def trigrams(word: str) -> frozenset[str]:
    """The character trigrams of ``word`` padded with ``^``/``$`` (what the spelling repair
    and :func:`~.collisions.names_word` compare by Dice similarity).

    >>> sorted(trigrams("ada"))
    ['^ad', 'ada', 'da$']
    """
    padded = f"^{word}$"
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


@dataclass
class QueryRepair:
    """What :meth:`QueryLexicon.repair` found for one query."""

    names: list[str] = field(default_factory=list)
    """Entity-name words matched by spelling to unknown capitalised query words."""
    entities: list[str] = field(default_factory=list)
    """Entity keys whose name contains one of :attr:`names`."""
    forms: list[str] = field(default_factory=list)
    """Corpus words sharing the light stem of an unknown query word."""

    def lexical(self, query: str) -> str:
        """``query`` with the repaired words appended (the BM25 query)."""
        return " ".join([query, *self.names, *self.forms])


class _Indexed(Protocol):
    chunks: list[Chunk]
    entity_sources: dict[str, list[int]]

    def passage_text(self, i: int) -> str: ...


class QueryLexicon:
    """The corpus vocabulary, the entity-name words and the stems, for query repair.

    Args:
        chunks: the ranked chunks (their text is the vocabulary).
        entity_names: entity key → anything (only the keys are read: the bottom layer's
            entities, e.g. ``ChunkIndex.entity_sources``).
        texts: the texts to take the vocabulary from (default: the chunk texts).
        vocabulary: the vocabulary itself (the words of :func:`alpha_words` of the texts,
            computed before; ``chunks`` and ``texts`` are then not read).
        max_forms: most corpus words added per unknown query word and kind (its light-stem
            forms, its spellings with other accents: up to ``2 * max_forms`` in all).
    """

    def __init__(self, chunks: Sequence[Chunk], entity_names: Mapping[str, object],
                 texts: Iterable[str] | None = None, *, max_forms: int = 3,
                 vocabulary: Iterable[str] | None = None) -> None:
        self.vocabulary: set[str] = (
            set(vocabulary) if vocabulary is not None
            else vocabulary_of(texts if texts is not None else (c.text for c in chunks)))
        self.max_forms = max_forms
        self._keys = sorted(entity_names)
        self._last_repair: tuple[tuple[str, float, bool, bool], QueryRepair] | None = None
        # the stems, accent forms and name index are read only for a query word no chunk
        # holds, the case forms for any query word: each built on first need, over the
        # non-ASCII words only where it can (most corpora have few)

    @functools.cached_property
    def _stems(self) -> dict[str, list[str]]:
        """Light stem → the corpus words (4+ letters, not stop words) that have it."""
        stems: dict[str, list[str]] = {}
        for w in sorted(self.vocabulary):
            if len(w) >= 4 and w not in STOPWORDS and _ALPHA.fullmatch(w):
                stems.setdefault(light_stem(w), []).append(w)
        return stems

    @functools.cached_property
    def _case_forms(self) -> dict[str, list[str]]:
        """Case-folded word → the corpus words BM25 reads differently (``strasse`` →
        ``straße``): the non-ASCII vocabulary words that case folding changes."""
        forms: dict[str, list[str]] = {}
        for w in sorted(w for w in self.vocabulary if not w.isascii()):
            if (fold := w.casefold()) != w:
                forms.setdefault(fold, []).append(w)
        return forms

    @functools.cached_property
    def _accent_forms(self) -> dict[str, list[str]]:
        """Word without accents → the corpus words spelt with them (``societe`` →
        ``société``)."""
        forms: dict[str, list[str]] = {}
        for w in sorted(w for w in self.vocabulary if not w.isascii()):
            if (bare := unaccented(w)) != w:
                forms.setdefault(bare, []).append(w)
        return forms

    @functools.cached_property
    def _entities(self) -> dict[str, list[str]]:
        """Entity-name word → the entity keys whose name has it."""
        entities: dict[str, list[str]] = {}
        for key in self._keys:
            for w in dict.fromkeys(word_tokens(key)):
                if len(w) >= 4 and w not in STOPWORDS and _ALPHA.fullmatch(w):
                    entities.setdefault(w, []).append(key)
        return entities

    @functools.cached_property
    def _grams(self) -> dict[str, frozenset[str]]:
        """Entity-name word → its character trigrams."""
        return {w: trigrams(w) for w in self._entities}

    @functools.cached_property
    def _by_gram(self) -> dict[str, list[str]]:
        """Character trigram → the entity-name words holding it."""
        by_gram: dict[str, list[str]] = {}
        for w, grams in self._grams.items():
            for g in sorted(grams):
                by_gram.setdefault(g, []).append(w)
        return by_gram

    def unknown(self, word: str) -> bool:
        """A content word (5+ letters, not a stop word) that no chunk contains."""
        return len(word) >= 5 and word not in STOPWORDS and word not in self.vocabulary

    def spelling(self, word: str, threshold: float = 0.5) -> str | None:
        """The entity-name word most similar to ``word`` by character-trigram Dice
        (same first letter, accents ignored, lengths within ``max(2, len(word) // 4)``
        letters — a short word inside a long one is no variant: "Rewrite" is not *rite*;
        ties: the alphabetically first), or None."""
        grams = trigrams(word)
        shared: dict[str, int] = {}
        for g in sorted(grams):
            for cand in self._by_gram.get(g, ()):
                shared[cand] = shared.get(cand, 0) + 1
        best: tuple[float, str] | None = None
        slack = max(2, len(word) // 4)
        for cand, n in sorted(shared.items()):
            if abs(len(cand) - len(word)) > slack:
                continue
            dice = 2.0 * n / (len(grams) + len(self._grams[cand]))
            if dice >= threshold and unaccented(cand[0])[:1] == unaccented(word[0])[:1] and (
                    best is None or dice > best[0]):
                best = (dice, cand)
        return best[1] if best else None

    def repair(self, query: str, threshold: float = 0.5, *, spelling: bool = True,
               forms: bool = True) -> QueryRepair:
        """Spelling variants and word forms of the unknown words of ``query`` (a copy of the
        last answer when asked the same again: the chance check and ranking both ask)."""
        key = (query, threshold, spelling, forms)
        last = self._last_repair
        if last is None or last[0] != key:
            last = (key, self._repair(query, threshold, spelling=spelling, forms=forms))
            self._last_repair = last
        found = last[1]
        return QueryRepair(list(found.names), list(found.entities), list(found.forms))

    def _repair(self, query: str, threshold: float, *, spelling: bool,
                forms: bool) -> QueryRepair:
        out = QueryRepair()
        for m in _ALPHA.finditer(query):
            token = m.group(0)
            word = undot(token.casefold())
            if forms:
                self._case_repair(token, word, out)
            if not self.unknown(word):
                continue
            name = self.spelling(word, threshold) if spelling and token[0].isupper() else None
            if name is not None:
                if name not in out.names:
                    out.names.append(name)
                continue
            if forms and self.max_forms > 0:  # its stem's forms and its other accents,
                found = [*self._stems.get(light_stem(word), [])[: self.max_forms],  # each
                         *self._accented(word)[: self.max_forms]]  # up to max_forms
                for w in dict.fromkeys(found):
                    if w not in out.forms:
                        out.forms.append(w)
        seen: set[str] = set()
        for name in out.names:
            for key in self._entities.get(name, ()):
                if key not in seen:
                    seen.add(key)
                    out.entities.append(key)
        return out


    def _accented(self, word: str) -> list[str]:
        """The corpus's spellings of ``word`` with other accents (``societe`` → ``société``,
        ``crêperie`` → ``creperie``), but for those retrieval reads as ``word`` already
        (:func:`~hyperviz_core.rag.scripts.letters_alike`: ``أسامة`` for ``اسامة``; added,
        BM25 counted the word twice)."""
        bare = unaccented(word)
        found = [*self._accent_forms.get(bare, []),
                 *([bare] if bare != word and bare in self.vocabulary else [])]
        alike = letters_alike(word)  # BM25 reads ``أسامة`` as ``اسامة``: no other spelling
        return [f for f in found if f != word and letters_alike(f) != alike]

    def _case_repair(self, token: str, word: str, out: QueryRepair) -> None:
        """BM25 lower-cases, so ``Straße`` and ``Strasse`` are two words to it: the other
        spelling joins the query when the corpus uses it (``ß`` ↔ ``ss``, and whatever
        else case folding rewrites)."""
        low = undot(token.lower())
        if low != word and low.replace("ς", "σ") != word:  # ``ß``, a ligature: the folded
            others = [word] if word in self.vocabulary else []  # spelling too (not σ for ς)
        else:
            others = self._case_forms.get(word, []) if len(word) >= 3 else []
        for w in (w for w in others if w != low):  # not the query's own word
            if w not in out.forms:
                out.forms.append(w)


_CACHE: weakref.WeakKeyDictionary[object, QueryLexicon] = weakref.WeakKeyDictionary()


def lexicon_for(index: _Indexed) -> QueryLexicon:
    """The :class:`QueryLexicon` of a chunk index (built on first use, then cached for as
    long as the index lives)."""
    lex = _CACHE.get(index)
    if lex is None:
        texts = (index.passage_text(i) for i in range(len(index.chunks)))
        lex = QueryLexicon(index.chunks, index.entity_sources, texts)
        _CACHE[index] = lex
    return lex
