"""People named after an honorific or a title, in scripts without capitals.

Where no capital marks a name (Devanagari, Arabic, Hebrew, Persian, Urdu), the offline
extractor finds a person by the title before the name: ``श्री``, ``الرئيس``, ``ראש הממשלה``,
``آقای``, ``وزیر اعظم``. A language
gives :class:`TitleCues`: its words, its titles (one word or several), the words that end a
name (postpositions, prepositions, conjunctions, verbs of saying ...), how many words a name
has at most, and the particles inside names (``بن``, ``عبد``) that do not count toward it.
:func:`titled_names` finds the names; :mod:`.hindi`, :mod:`.arabic`, :mod:`.hebrew`,
:mod:`.persian` and :mod:`.urdu` hold the cues. Where languages share a script (Arabic,
Persian, Urdu), a language's cues are tried only in a sentence with a letter of its own
(:attr:`TitleCues.needs`, :attr:`TitleCues.not_with`). A vocalised text (Hebrew with
its points, the Bible's with its cantillation marks too, Arabic with its harakat) is read
as a plain one, and its names are given without them: they vary with a word's place
(``أنورُ``, ``أنورَ``; ``דָּוִ֑ד``, ``דָּוִ֖ד``), the name does not.

Example:
    >>> import re
    >>> cues = TitleCues(word=re.compile(r"[a-z]+"), cues=frozenset({"mr", "vice president"}),
    ...                  stops=frozenset({"said", "and"}), most=2)
    >>> [s[3] for s in titled_names("then vice president jane roe said mr john doe and", cues)]
    ['jane roe', 'john doe']
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from itertools import pairwise

from ..scripts import unpointed  # a vocalised word read as the cues are written

__all__ = ["TitleCues", "titled_names"]

Candidate = tuple[int, int, int, str, str]
"""(priority, start, end, name, type): a name the script's cues found in a sentence."""


@dataclass(frozen=True)
class TitleCues:
    """What tells a name after a title in one language (see the module's docs)."""

    word: re.Pattern[str]
    """A word of the script (with the marks its titles' abbreviations carry: ``डॉ.``)."""
    cues: frozenset[str]
    """Titles and honorifics a name follows; several words separated by one space."""
    stops: frozenset[str]
    """Words that end a name."""
    most: int = 3
    """Words a name has at most, its particles not counted."""
    particles: frozenset[str] = frozenset()
    """Words inside names (``بن``, ``عبد``): not counted toward :attr:`most`, never last."""
    skip: frozenset[str] = frozenset()
    """Words right after a title that still belong to it (``الأمريكي``, ``السابق``)."""
    prefixes: str = ""
    """Letters written onto a word (``و`` "and", ``ل`` "to"): a title with one is a title,
    and a word after a name's first that is one of them on a title or an article
    (:attr:`article`) starts something else (``ووزير``, ``והשר``)."""
    article: str = ""
    """The definite article written onto a word (``ال``, ``ה``)."""
    elides: str = ""
    """Prefixes that swallow the article's first letter (``ل``: ``للرئيس`` is ``ل`` +
    ``الرئيس``; Hebrew ``ל``: ``לנשיא`` is ``ל`` + ``הנשיא``)."""
    verb_last: bool = False
    """The language puts its verb last (Hindi): a name of two words or more never takes
    the sentence's last word."""
    ends: str = " !?.\"'"
    """What may follow a sentence's last word."""
    places: frozenset[str] = frozenset()
    """Countries and cities: after a name's first word, one starts something else (Hindi
    ``रामनाथ कोविंद भारत के``: "... of India"), though a given name may be one (``भारत
    भूषण``)."""
    needs: str = ""
    """Letters of which a sentence must have one for the cues to be tried (a script's own
    letters, where several languages share a script: Persian's ``گ``, Urdu's ``ے``)."""
    not_with: str = ""
    """Letters no sentence the cues are tried in has (another language's own)."""
    folds: str = ""
    """Pairs of letters read alike when matching: the first of each pair, typed for the
    second, is read as it (Persian typed with Arabic's ``ي`` and ``ك`` for ``ی`` and
    ``ک``: ``"يیكک"``); the cues and stops are written with the second. A name keeps the
    letters its text has."""

    joiner: str = ""
    """A mark that joins a word to the next as one (Hebrew's maqaf ``־``): a stop before it
    ends a name (``אֶל־נָתָ֣ן`` "to Nathan"), and a title may follow it
    (``וְאֶל־הַמֶּ֥לֶךְ``)."""
    conjunction: re.Pattern[str] | None = None
    """What starts a word written with the points of a conjunction, matched against the word
    as written: after a name's first word, such a word starts something else (Hebrew's
    ``וַ``, ``וְ``, ``וּ``: ``הַמֶּלֶךְ דָּוִד וַיֵּשֶׁב`` "king David, and he sat"; unpointed,
    a surname may begin with ``ו``: ``ויצמן``)."""

    def __post_init__(self) -> None:
        if len(self.folds) % 2:
            raise ValueError(f"TitleCues.folds must be pairs of letters, got {self.folds!r} "
                             f"({len(self.folds)} letters)")


@functools.cache
def _fold_table(folds: str) -> dict[int, int]:
    """The :meth:`str.translate` table of :attr:`TitleCues.folds`."""
    return str.maketrans(folds[0::2], folds[1::2])


def _joined_stop(word: str, cues: TitleCues) -> bool:
    """Whether ``word`` is a stop joined to the next by :attr:`TitleCues.joiner` (Hebrew's
    maqaf, as the Bible's text writes a preposition: ``אֶל־נָתָ֣ן`` "to Nathan"; a name's own
    hyphen, ``בן-גוריון``, is no maqaf)."""
    return bool(cues.joiner) and cues.joiner in word and (
        word.split(cues.joiner, 1)[0] in cues.stops)


def _cue_at(words: list[re.Match[str]], bare: list[str], i: int, sentence: str,
            cues: TitleCues) -> int:
    """How many words a title starting at word ``i`` has (0: none); ``bare`` holds the
    words without their points (:func:`~..scripts.unpointed`)."""
    longest = 0
    # a title after a joiner: ``וְאֶל־הַמֶּלֶךְ``
    first = bare[i].rsplit(cues.joiner, 1)[-1] if cues.joiner else bare[i]
    for n in (1, 2, 3):
        group = words[i:i + n]
        if len(group) < n or any(not sentence[a.end():b.start()].isspace()
                                 for a, b in pairwise(group)):
            break
        rest = "".join(" " + w for w in bare[i + 1:i + n])
        if any(form + rest in cues.cues for form in _forms(first, cues)):
            longest = n
    return longest


def _forms(word: str, cues: TitleCues, depth: int = 2) -> list[str]:
    """``word``, and without up to two letters written onto it (``والرئيس`` → ``الرئيس``;
    ``للرئيس`` → ``الرئيس``, the article's first letter restored after a prefix that
    swallows it; ``ולראש`` → ``ראש``)."""
    if not depth or len(word) < 3 or word[0] not in cues.prefixes:
        return [word]
    rest = word[1:]
    out = [word, *_forms(rest, cues, depth - 1)]
    if word[0] in cues.elides and cues.article and not rest.startswith(cues.article):
        out.append(cues.article[0] + rest)
    return out


def _ends_name(word: str, cues: TitleCues) -> bool:
    """Whether ``word``, after a name's first word, starts something else: a stop, a place,
    or (with a prefix) a stop, a place or a word with the article (``ووزير``, ``والوزير``).
    A title there (``والرئيس``) is :func:`_cue_at`'s to find, which :func:`titled_names`
    asks next and whose length it keeps for the name that title starts."""
    if any(f in cues.stops or f in cues.places for f in _forms(word, cues)):
        return True
    return bool(cues.article) and any(
        word[i:].startswith(cues.article) and len(word) > i + len(cues.article)
        and all(c in cues.prefixes for c in word[:i]) for i in (1, 2))


def titled_names(sentence: str, cues: TitleCues) -> list[Candidate]:
    """The people ``sentence`` names after a title (see the module's docs), as (priority,
    start, end, name, ``person``): the priority of the English cues' names."""
    if ((cues.needs and not any(c in sentence for c in cues.needs))
            or any(c in sentence for c in cues.not_with)):
        return []
    original = sentence
    if cues.folds:  # one letter for another: every offset stays where it was
        sentence = sentence.translate(_fold_table(cues.folds))
    words = list(cues.word.finditer(sentence))
    bare = [unpointed(w.group()) for w in words]
    out: list[Candidate] = []
    i = 0
    known = (-1, 0)  # (word, its title's length): the title a name stopped at
    while i < len(words):
        n = known[1] if known[0] == i else _cue_at(words, bare, i, sentence, cues)
        if not n:
            i += 1
            continue
        j = i + n
        while j < len(words) and bare[j].rstrip(".") in cues.skip:
            j += 1
        name: list[re.Match[str]] = []
        counted = 0
        for k in range(j, len(words)):
            text = bare[k]
            if (not sentence[words[k - 1].end():words[k].start()].isspace()
                    or text.rstrip(".") in cues.stops or _joined_stop(text, cues)
                    or (name and (_ends_name(text, cues) or (
                        cues.conjunction is not None
                        and cues.conjunction.match(words[k].group()) is not None)))):
                break
            title = _cue_at(words, bare, k, sentence, cues)
            if title:
                known = (k, title)
                break
            counted += text not in cues.particles
            if counted > cues.most:
                break
            name.append(words[k])
        if cues.verb_last and len(name) > 1 and not sentence[name[-1].end():].strip(cues.ends):
            name.pop()  # the sentence's last word: its verb
        while name and unpointed(name[-1].group()) in cues.particles:
            name.pop()
        if name and not any(w.group().endswith(".") for w in name[:-1]):
            start, end = name[0].start(), name[-1].end()
            text = original[start:end].rstrip(".")  # named without its points: they vary
            out.append((2, start, start + len(text), unpointed(text), "person"))  # with its place
        i = j + len(name) if name else j
    return out
