"""German nouns are capitalised, so the capitals the offline extractor finds names by find
every noun in German text too ("Im Jahr", "Die Regierung", "Hafen"). This module tells the
nouns from the names by what stands before them.

:func:`is_german` tells German text by its function words (the words the text also writes
in lower case: at least three of German's, more than of English's), and
:func:`german_sentence` a German sentence of it (one without English's function words, so
an English sentence beside German quotations stays English). In a German sentence,
:func:`german_run` trims a run of capitalised words:

* a leading function word goes (an article, a contracted preposition such as ``Im``,
  ``Zum``, a pronoun, a quantifier such as ``Viele``: a sentence opens with it capitalised);
* a run after a determiner (``der``, ``die``, ``einen``, ``im``, ``zur``, ``viele`` ...,
  with up to two inflected adjectives between: ``einen neuen Hafen``) is a noun phrase: one
  word is a common noun and goes (``die Regierung``, ``am Rathaus``); of several, the first
  goes unless it is an inflected adjective, which names keep (``die Stadt Hamburg`` gives
  ``Hamburg``; ``die Deutsche Bank``, ``der Europäischen Investitionsbank`` stay).

Limits (honest): a name written with an article (``der Rhein``, ``die Schweiz``) is taken for
a noun and dropped; a noun without a determiner (a plural: ``Kinder spielen``) is still read
as a name; a first noun ending like an adjective (``Messe Frankfurt``) stays.

Example:
    >>> german_run(["Stadt", "Hamburg"], ["besuchte", "Angela", "Merkel", "die"])
    (1, 2)
    >>> german_run(["Regierung"], ["plante", "die"]), german_run(["Angela", "Merkel"], [])
    ((1, 1), (0, 2))
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["german_run", "german_sentence", "is_german"]

_WORD = re.compile(r"[^\W\d_]+")

#: German function words that are no English words (``die``, ``war``, ``am`` are)
_GERMAN = frozenset((
    "der", "das", "und", "ist", "nicht", "mit", "von", "zu", "dem", "den", "des", "ein",
    "eine", "einen", "einem", "einer", "eines", "auf", "für", "im", "sich", "auch", "wurde",
    "werden", "sind", "bei", "nach", "über", "durch", "oder", "aber", "wie", "noch", "nur",
    "schon", "zum", "zur", "vom", "beim", "dass", "wird", "sie", "er", "wir", "ich",
    "einige", "viele", "diese", "dieser", "dieses", "kein", "keine", "sehr", "hat", "haben"))
#: English function words that are no German words (German writes ``was``, ``will``)
_ENGLISH = frozenset(("the", "and", "of", "is", "to", "with", "for", "that", "this",
                      "from", "which", "were", "are", "has", "have", "it", "by"))
#: English words that make a sentence English (German has none of them)
_ENGLISH_SENTENCE = _ENGLISH | frozenset((
    "he", "she", "they", "we", "you", "his", "her", "their", "its", "said", "had", "been",
    "be", "not", "but", "on", "at", "as", "a", "or", "if", "there", "would", "could", "my"))
#: what a noun phrase opens with: articles, contracted prepositions, quantifiers,
#: demonstratives and possessives
_DETERMINERS = frozenset((
    "der", "die", "das", "dem", "den", "des", "ein", "eine", "einem", "einen", "einer",
    "eines", "im", "am", "zum", "zur", "vom", "beim", "ins", "ans", "aufs", "viele", "vielen",
    "einige", "einigen", "alle", "allen", "jede", "jeder", "jedes", "jeden", "diese", "dieser",
    "dieses", "diesen", "diesem", "kein", "keine", "keinen", "keinem", "mein", "meine",
    "sein", "seine", "seinen", "seinem", "seiner", "ihr", "ihre", "ihren", "ihrem", "ihrer",
    "unser", "unsere", "unseren", "welche", "welcher", "manche", "mehrere", "beide", "beiden"))
#: words that open a sentence capitalised and start no name
_LEADING = _DETERMINERS | frozenset((
    "in", "an", "auf", "aus", "bei", "mit", "nach", "seit", "von", "zu", "für", "über",
    "unter", "vor", "hinter", "neben", "zwischen", "durch", "gegen", "ohne", "um", "er", "sie",
    "es", "wir", "ich", "du", "man", "dort", "hier", "heute", "gestern", "morgen", "dann",
    "da", "als", "wenn", "obwohl", "weil", "dass", "auch", "noch", "nur", "so", "doch"))
#: the endings of an inflected adjective (``neuen``, ``Deutsche``, ``Europäischen``)
_ADJECTIVE_ENDS = ("e", "en", "es", "em")


def is_german(vocab: frozenset[str]) -> bool:
    """Whether a text whose lower-case words are ``vocab`` is German: three of German's
    function words or more, and more of them than of English's (see the module's docs).

    >>> is_german(frozenset("die stadt und der hafen sind im norden".split()))
    True
    >>> is_german(frozenset("the city and the harbour are in the north".split()))
    False
    """
    german = len(vocab & _GERMAN)
    return german >= 3 and german > len(vocab & _ENGLISH)


def german_sentence(sentence: str, vocab: frozenset[str]) -> bool:
    """Whether ``sentence`` of a text whose lower-case words are ``vocab`` is German: the
    text is (:func:`is_german`), and the sentence has none of English's function words (an
    English sentence beside German quotations in a novel stays English).

    >>> v = frozenset("die stadt und der hafen sind im norden".split())
    >>> german_sentence("Die Regierung plante einen Hafen.", v)
    True
    >>> german_sentence("I am Werther, he said.", v)
    False
    """
    return is_german(vocab) and not any(
        w in _ENGLISH_SENTENCE for w in _WORD.findall(sentence) if w.islower())


def _after_determiner(before: Sequence[str]) -> bool:
    """Whether the words ``before`` a run end with a determiner, up to two inflected
    adjectives, written in lower case, after it (``einen neuen``)."""
    words = list(before)
    for _ in range(2):
        if words and words[-1].islower() and words[-1].endswith(_ADJECTIVE_ENDS) \
                and words[-1] not in _DETERMINERS:
            words.pop()
    return bool(words) and words[-1].casefold() in _DETERMINERS


def _noun_phrase(run: Sequence[str], before: Sequence[str]) -> int:
    """How many leading words of ``run`` one pass drops: its leading function words, and
    after a determiner its head noun (or the whole run, one common noun)."""
    drop = 0
    while drop < len(run) and run[drop].casefold() in _LEADING:
        drop += 1
    if drop == len(run):
        return drop
    if not (drop and run[drop - 1].casefold() in _DETERMINERS) \
            and not (drop == 0 and _after_determiner(before)):
        return drop
    if len(run) - drop == 1 or not run[drop].casefold().endswith(_ADJECTIVE_ENDS):
        return drop + 1
    return drop


def german_run(run: Sequence[str], before: Sequence[str]) -> tuple[int, int]:
    """The (start, end) of the name in the run of capitalised words ``run`` of a German
    sentence (``start == end``: it is no name), ``before`` being the words before it in the
    sentence (see the module's docs). After a head noun goes, so do the lower-case words
    after it, and what follows is looked at again (``Element der Lüsternheit`` goes whole:
    ``der`` opens another noun phrase; ``Werk des Doktor Pifpuf`` gives ``Pifpuf``). A
    trailing function word goes too (``Hamburg Mit``)."""
    end = len(run)
    while end and run[end - 1].casefold() in _LEADING:
        end -= 1
    drop = 0
    while drop < end and (step := _noun_phrase(run[drop:end], [*before, *run[:drop]])):
        drop += step
        while drop < end and run[drop].islower():
            drop += 1
    return min(drop, end), end
