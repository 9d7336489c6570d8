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
  goes unless it is an inflected adjective or a town's (``Leipziger``, ``Hamburger``:
  :data:`_TOWNS`, :data:`_TOWN_ENDS`) right before a capitalised word, which names keep
  (``die Stadt Hamburg`` gives ``Hamburg``; ``die Deutsche Bank``, ``der Europäischen
  Investitionsbank``, ``die Leipziger Messe`` stay; ``die Türme des Kölner Doms`` gives
  ``Kölner Doms``).

A name German writes with its article (``der Rhein``, ``die Schweiz``, ``im Iran``: listed in
:data:`ARTICLE_NAMES`, countries, regions, rivers, mountains and seas) stays a name after
one, and a lone word with a noun's suffix (``Verwaltung``, ``Freiheit``, ``Gesellschaften``,
``Demokratie`` is not one: :data:`_NOUN_ENDS`) is no name even without a determiner.
:func:`nominative` writes the inflected adjectives a name opens with as after
``der``/``die``/``das`` (``Europäischen Zentralbank`` and ``Europäischer Zentralbank`` both
give ``Europäische Zentralbank``), and after ``des``/``eines`` ... drops the genitive ending
of the noun of a name that opens with an adjective or a town's (``des Deutschen
Bundestages`` gives ``Deutsche Bundestag``), so the cases of one name are one entity.

Limits (honest): a name with an article that is not listed is taken for a noun and dropped;
a noun without a determiner or a listed suffix (a plural: ``Kinder spielen``) is still read
as a name; a first noun ending like an adjective (``Messe Frankfurt``) stays; a town's
adjective neither listed nor with a listed ending (``Paderborner``) goes after a
determiner; a genitive's ``-s`` is dropped only after a determiner (``Deutschen
Bundestages`` alone keeps it), and a noun whose nominative ends in ``-e`` loses too much
(``des Alten Käses`` gives ``Alte Käs``).

Example:
    >>> german_run(["Stadt", "Hamburg"], ["besuchte", "Angela", "Merkel", "die"])
    (1, 2)
    >>> german_run(["Regierung"], ["plante", "die"]), german_run(["Angela", "Merkel"], [])
    ((1, 1), (0, 2))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

__all__ = ["ARTICLE_NAMES", "german_run", "german_sentence", "is_german", "nominative"]

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
#: names German writes with an article (``die Schweiz``, ``am Rhein``), case-folded
ARTICLE_NAMES = frozenset((
    # countries and regions
    "schweiz", "türkei", "ukraine", "slowakei", "mongolei", "usa", "niederlande", "irak",
    "iran", "jemen", "libanon", "sudan", "tschad", "kongo", "vatikan", "elsass", "pfalz",
    "lausitz", "eifel", "rhön", "krim", "bretagne", "normandie", "provence", "toskana",
    "lombardei", "walachei", "steiermark", "antarktis", "arktis", "karibik", "sahara",
    # rivers
    "rhein", "main", "donau", "elbe", "oder", "weser", "mosel", "ems", "spree", "havel",
    "neckar", "inn", "isar", "saale", "ruhr", "lahn", "themse", "loire", "wolga", "nil",
    "amazonas", "mississippi", "weichsel", "memel",
    # mountains, lakes and seas
    "alpen", "pyrenäen", "karpaten", "anden", "zugspitze", "ostsee", "nordsee", "bodensee",
    "chiemsee", "mittelmeer", "atlantik", "pazifik"))
#: the adjectives of towns (never declined: ``die Leipziger Messe``, ``des Kölner Doms``),
#: case-folded; and the endings of more (:data:`_TOWN_ENDS`)
_TOWNS = frozenset((
    "berliner", "münchner", "münchener", "kölner", "leipziger", "dresdner", "bremer",
    "bonner", "wiener", "zürcher", "basler", "berner", "grazer", "linzer", "kieler",
    "lübecker", "rostocker", "potsdamer", "weimarer", "mainzer", "aachener", "kasseler",
    "erfurter", "jenaer", "chemnitzer", "schweriner", "göttinger", "tübinger", "stuttgarter",
    "wuppertaler", "karlsruher", "bochumer", "dortmunder", "essener", "wiesbadener",
    "koblenzer", "trierer", "bayreuther", "pariser", "londoner", "prager", "warschauer",
    "schweizer", "genfer", "luzerner", "yorker"))
#: endings of town adjectives (``Hamburger``, ``Nürnberger``, ``Frankfurter``,
#: ``Düsseldorfer``, ``Darmstädter``, ``Mannheimer``, ``Bielefelder``, ``Offenbacher``)
_TOWN_ENDS = ("burger", "berger", "furter", "dorfer", "städter", "heimer", "felder",
              "bacher", "brücker", "hausener")
#: determiners of the masculine and neuter genitive, whose noun takes ``-s``/``-es``
_GENITIVE = frozenset((
    "des", "eines", "dieses", "jenes", "jedes", "keines", "meines", "seines", "ihres",
    "unseres"))
#: suffixes of German nouns no name has: a lone word of at least seven letters ending in one
#: is a common noun (``Verwaltung``, ``Freiheit``, ``Gesellschaften``, ``Religion``)
_NOUN_ENDS = ("ung", "ungen", "heit", "heiten", "keit", "keiten", "schaft", "schaften",
              "tion", "tionen", "tät", "täten", "ismus", "ismen", "nisse", "nissen")
#: adjective stems of names (``Neue Zürcher Zeitung``, ``Rote Kreuz``), case-folded
_ADJECTIVE_STEMS = frozenset((
    "deutsch", "neu", "alt", "groß", "gross", "klein", "frei", "rot", "schwarz", "weiß", "grün",
    "blau", "hoh", "erst", "zweit", "dritt", "ober", "unter", "nieder", "heilig", "vereinigt"))
#: suffixes of adjective stems (``europäisch``, ``königlich``, ``national``, ``kulturell``;
#: not ``westfal``: ``Westfalen`` is a place)
_ADJECTIVE_SUFFIXES = ("isch", "lich", "ig", "onal", "ral", "ial", "ell", "iv", "är", "ös",
                       "bar", "sam", "haft", "deutsch")


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
    if len(run) - drop == 1 and run[drop].casefold().rstrip(".") in ARTICLE_NAMES:
        return drop  # "die Schweiz", "am Rhein"
    if len(run) - drop == 1 or not run[drop + 1][:1].isupper() or not (
            run[drop].casefold().endswith(_ADJECTIVE_ENDS) or _town(run[drop])):
        return drop + 1  # an adjective stands right before a capitalised word
    return drop


def _town(word: str) -> bool:
    """Whether ``word`` is a town's adjective (``Leipziger``, ``Hamburger``): listed in
    :data:`_TOWNS`, or with an ending of :data:`_TOWN_ENDS` after two letters or more."""
    low = word.casefold()
    return low in _TOWNS or any(low.endswith(e) and len(low) >= len(e) + 2
                                for e in _TOWN_ENDS)


def _common_noun(word: str) -> bool:
    """Whether ``word`` has a suffix only German common nouns have (:data:`_NOUN_ENDS`)."""
    return len(word) >= 7 and word.casefold().rstrip(".").endswith(_NOUN_ENDS)


def _adjective(word: str) -> tuple[bool, bool]:
    """Whether a capitalised ``word`` of a name is an adjective, and whether it has a case
    ending other than ``-e`` (``Europäischen``, ``Deutscher``, ``Neuen``; ``Deutsche`` is
    one without; ``Fischer``, ``Peter``, ``Predigten`` are none)."""
    low = word.casefold()
    if not word[:1].isupper() or len(low) < 3:
        return (False, False)
    stems = []  # (stem, whether its ending is a case ending other than -e)
    if low[-2:] in ("en", "er", "es", "em"):
        stems.append((low[:-2], True))
    if low.endswith("e"):
        stems.append((low[:-1], False))
    for stem, inflected in stems:
        if stem in _ADJECTIVE_STEMS:
            return (True, inflected)
        if len(stem) < 6:
            continue
        if low.endswith("er"):  # a town's -er never declines: "Leipziger", "Wuppertaler"
            if stem.endswith(("isch", "deutsch")):
                return (True, True)
            continue
        if stem.endswith(_ADJECTIVE_SUFFIXES):
            return (True, inflected)
    return (False, False)


def nominative(name: str, before: str = "") -> str:
    """``name`` (a name of a German sentence) with the adjectives it opens with written as
    after ``der``/``die``/``das`` (the ``-e`` ending), so the cases of one name give one
    entity. Only adjectives before a capitalised word, from the first word on, are
    changed: ``Lexicon Hamburgischer Schriftsteller`` (a genitive after a noun) and
    ``Anzeigen von ...`` (a noun) stay. After a genitive determiner (``before``: ``des``,
    ``eines`` ...), a name that opens with such an adjective or a town's loses its last
    noun's ``-s``/``-es`` (``des Deutschen Bundestages``, ``des Kölner Doms``).

    >>> nominative("Europäischen Zentralbank"), nominative("Deutscher Bundestag")
    ('Europäische Zentralbank', 'Deutsche Bundestag')
    >>> nominative("Vereinigten Staaten"), nominative("Peter Fischer Verlag")
    ('Vereinigte Staaten', 'Peter Fischer Verlag')
    >>> nominative("Leipziger Messe"), nominative("Westfalen Blatt")
    ('Leipziger Messe', 'Westfalen Blatt')
    >>> nominative("Deutschen Bundestages", "des"), nominative("Kölner Doms", "des")
    ('Deutsche Bundestag', 'Kölner Dom')
    """
    words = list(re.finditer(r"\S+", name))
    inflected: list[re.Match[str]] = []
    opened = len(words) > 1 and _town(words[0].group(0))
    for m, nxt in pairwise(words):
        adjective, ending = _adjective(m.group(0))
        if not adjective or not nxt.group(0)[:1].isupper():
            break
        opened = True
        if ending:
            inflected.append(m)
    if opened and before.casefold() in _GENITIVE:
        name = _without_genitive(name)
    for m in reversed(inflected):  # from the end: the earlier offsets stay right
        name = name[:m.start()] + m.group(0)[:-2] + "e" + name[m.end():]
    return name


def _without_genitive(name: str) -> str:
    """``name`` without its last word's genitive ``-es`` (after a consonant: ``Bundestages``,
    ``Kreuzes``) or ``-s`` (``Doms``, ``Hafens``); a last word with neither is kept."""
    last = name.rsplit(" ", 1)[-1]
    if len(last) >= 5 and last.endswith("es") and last[-3].casefold() not in "aeiouäöüy":
        return name[:-2]
    if len(last) >= 4 and last.endswith("s") and not last.endswith("ss"):
        return name[:-1]
    return name


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
    if end - drop == 1 and _common_noun(run[drop]):
        return end, end  # "Verwaltung", "Freiheit": a noun even without its article
    return min(drop, end), end
