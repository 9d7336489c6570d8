"""Offline text segmentation: sentences, clauses and typed entity spans (no model).

Used by :mod:`.heuristic`. Sentences are split on ``.!?`` (guarding common abbreviations and
initials) and line breaks, clauses on ``;``, dashes and ``, but/while/whereas``; entity spans
are quoted titles, dates, quantities and runs of capitalised words, typed from surface cues
(see :mod:`.heuristic` for the full description and its limits).

Example:
    >>> [s.name for s in find_spans("Marie Curie moved to Paris in 1891.")]
    ['Marie Curie', 'Paris', '1891']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...model import normalize_key
from ..providers.offline import STOPWORDS, word_tokens
from ._lexicon import (
    _ABBREV,
    _ADVERB_ENDS,
    _AFTER_GERUND,
    _AFTER_PARTICIPLE,
    _CALENDAR,
    _CONNECTORS,
    _DATE_RES,
    _DEMONYMS,
    _ELISIONS,
    _EVENT_WORDS,
    _FIRST_NAMES,
    _HONORIFICS,
    _IMPERATIVES,
    _IRREGULAR_PARTICIPLES,
    _LOC_PREPS,
    _LOC_WORDS,
    _NAME_CONNECTORS,
    _NOT_NAMES,
    _OPENING_PARTICIPLES,
    _ORG_WORDS,
    _PLACES,
    _QUANTITY_RES,
    _QUOTE_RES,
    _ROLE_NOUNS,
    _SENT_END,
    _SPEECH_WORDS,
    _TITLE_LOWER,
    _TOKEN,
    _TOKEN_BESIDE_CJK,
    _WORK_CUES,
    _WORK_WORDS,
)
from .cjk import CJK_CHARS, cjk_candidates
from .german import german_run, german_sentence, nominative
from .shouted import small_syllabary, unshouted
from .titled import titled_names
from .titles import TITLED

__all__ = ["Span", "find_spans", "split_clauses", "split_sentences"]


_CLAUSE_SPLIT = re.compile(
    r"[;；]\s*|(?<!\s)\s+(?:[—–]|--)\s+|,\s+(?=(?:but|while|whereas|although|though)\s)", re.I
)


_MAX_NAME_TOKENS = 10


@dataclass(frozen=True)
class Span:
    """An entity mention inside a text: ``text[start:end] == name`` (before trimming), but
    for a German name's adjectives, which ``name`` writes in one case
    (:func:`.german.nominative`)."""

    start: int
    end: int
    name: str
    type: str


def split_sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the sentences of ``text`` (stripped, non-empty). A ``.``,
    ``!`` or ``?`` (or ``؟``, ``۔``, ``।``, ``׃``) and a space end one before a capital, a
    digit, an opening quote or a letter of a script without capitals (Korean, Arabic, ...:
    since stop 60; before, such text was one sentence), not after an abbreviation or an
    initial; ``。！？`` end one wherever they stand, and so does a line break.

    >>> t = "이영희 교수는 삼성전자에서 일했다. 그녀는 반도체를 연구했다. Mr. Lee came."
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['이영희 교수는 삼성전자에서 일했다.', '그녀는 반도체를 연구했다.', 'Mr. Lee came.']
    """
    out: list[tuple[int, int]] = []
    start = 0
    for m in _SENT_END.finditer(text):
        if m.group(0)[0] in ".!?؟۔।॥׃":  # a spaced stop: not after an abbreviation ...
            before = text[start : m.start()].rsplit(None, 1)
            last = before[-1].casefold().rstrip(".") if before else ""
            nxt = text[m.end() : m.end() + 1]
            if last in _ABBREV or (len(last) == 1 and last.isalpha()) or not nxt:
                continue
            caseless = nxt.isalpha() and not nxt.islower()  # 그, ا, क: no capitals there
            if not (caseless or nxt.isdigit() or nxt in "\"'“‘(["):
                continue
        end = m.start() + len(m.group(0).rstrip())
        _push(text, start, end, out)
        start = m.end()
    _push(text, start, len(text), out)
    return out


def _push(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    seg = text[start:end]
    lead = len(seg) - len(seg.lstrip())
    seg = seg.strip()
    if seg:
        out.append((start + lead, start + lead + len(seg)))


def split_clauses(sentence: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the clauses of one sentence: split at ``;``, a spaced
    dash and ", but" (...), not inside brackets ("Karel Purkyně (15 March 1834, Wrocław –
    5 April 1868, Prague) was a painter" is one clause: its dash joins two dates).

    >>> s = "Karel Purkyně (1834 – 1868) was a painter – and a good one; he lived in Prague."
    >>> [s[a:b] for a, b in split_clauses(s)]
    ['Karel Purkyně (1834 – 1868) was a painter', 'and a good one', 'he lived in Prague.']
    """
    out: list[tuple[int, int]] = []
    start = 0
    depth = _bracket_depth(sentence) if "(" in sentence or "[" in sentence else None
    for m in _CLAUSE_SPLIT.finditer(sentence):
        if depth is not None and depth[m.start()] > 0:
            continue
        _push(sentence, start, m.start(), out)
        start = m.end()
    _push(sentence, start, len(sentence), out)
    return out or [(0, len(sentence))]


def _bracket_depth(text: str) -> list[int]:
    """How many brackets (``(``, ``[``) are open before each character of ``text`` (an
    unmatched closing bracket counts as none)."""
    depth, out = 0, []
    for ch in text:
        out.append(depth)
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
    return out


def _prev_word(text: str, pos: int) -> str:
    words = word_tokens(text[max(0, pos - 40) : pos])
    return words[-1] if words else ""


_SPEECH_VERBS = (
    "said|says|say|cried|cries|asked|asks|replied|replies|answered|answers|exclaimed|"
    "whispered|shouted|continued|added|returned|rejoined|observed|remarked|muttered|"
    "murmured|repeated|went on"
)
_SPEECH_AFTER = re.compile(
    rf"^[\s,]*(?:(?:{_SPEECH_VERBS})\b|(?:he|she|I|they|we|you)\s+(?:[a-z]+ly\s+)?"
    rf"(?:{_SPEECH_VERBS})\b)")
_SPEECH_BEFORE = re.compile(rf"\b(?:{_SPEECH_VERBS})(?:\s+[a-z]+ly)?\s*[,:]\s*$")


def _speech(sentence: str, start: int, end: int) -> bool:
    """The quote at ``sentence[start:end]`` is dialogue: a speech verb follows it
    (``"Yes," said Mary``, ``"Ah!" she cried``) or introduces it (``he said, "…"``).

    >>> s = '"Hello Love" was a hit. "Ah!" she cried.'
    >>> _speech(s, 0, 12), _speech(s, 24, 29)
    (False, True)
    """
    return bool(_SPEECH_AFTER.match(sentence[end : end + 30])
                or _SPEECH_BEFORE.search(sentence[max(0, start - 30) : start]))


#: the lower-case title words the sentence-case test of :func:`_dialogue` sets aside: not
#: the words of English speech among them (the German "am" is also the "am" of "I am")
_CASE_NEUTRAL = _TITLE_LOWER - _SPEECH_WORDS


def _dialogue(inner: str, raw: str = "") -> bool:
    """The quoted ``inner`` reads as a line of English dialogue, not a title: it is written
    in sentence case (of its words after the first, ``"I"`` and the words titles leave
    lower-case aside — but not the words of speech among them, the ``"am"`` of ``"I am"`` —
    fewer than half are capitalised, and there is one such word) and it speaks (``raw``,
    the quoted text before trimming, ends in ``?`` or ``!``, or it holds a pronoun, an
    auxiliary or a negation). Sentence-case titles of other languages
    ("Dröm bort mig igen") and names ("Vespa mandarinia") stay titles.

    >>> [_dialogue(q) for q in ("Hello Love", "Shall I read it?", "No, no", "Sin amor",
    ...                         "Die Geschichte meiner Reise nach Pirmont", "Home", "I am")]
    [False, True, True, False, False, False, True]
    >>> _dialogue("What then", "What then?"), _dialogue("What then")
    (True, False)
    """
    found = re.findall(r"[^\W\d_][\w'’-]*", inner)
    words = [w for w in found[1:] if w != "I" and w.casefold() not in _CASE_NEUTRAL]
    caps = sum(1 for w in words if w[0].isupper())
    if not words or 2 * caps >= len(words):
        return False
    return (raw.rstrip(" \"'”’`.,").endswith(("?", "!"))
            or any(w.casefold().replace("’", "'") in _SPEECH_WORDS for w in found))


def _guess_type(tokens: list[str], sentence: str, start: int, end: int) -> str:
    first, last = tokens[0].rstrip("."), tokens[-1]
    tokset = set(tokens)
    prev = _prev_word(sentence, start)
    after = sentence[end : end + 14].lstrip(" ,").casefold()
    if tokset & _ORG_WORDS:
        return "organization"
    if tokset & _EVENT_WORDS:
        return "event"
    if tokset & _WORK_WORDS or prev in _WORK_CUES:
        return "work"
    if tokset & _LOC_WORDS or tokset & _PLACES:
        return "location"
    if (
        first in _HONORIFICS
        or (len(tokens) > 1 and first.casefold() in _FIRST_NAMES)
        or any(len(t) == 2 and t.endswith(".") and t[0].isupper() for t in tokens[1:-1])
        or prev in _ROLE_NOUNS
        or after.startswith(("(born", "( born", "was born", "who "))
    ):
        return "person"
    if len(tokens) == 1 and last in _DEMONYMS:
        return "nationality"
    if prev in _LOC_PREPS:
        return "location"
    if len(tokens) == 1 and first.casefold() in _FIRST_NAMES:
        return "person"
    return "entity"


def _not_a_name(run: list[str], sentence_start: bool, lower_vocab: frozenset[str]) -> bool:
    """A single capitalised word that is no name: a month or weekday, a closed-class word
    ("According", "Oh", "Two"), or, opening the sentence, a word also seen lower-cased or an
    imperative."""
    if len(run) != 1:
        return False
    lowered = run[0].casefold()
    return (run[0] in _CALENDAR or lowered in _NOT_NAMES
            or (sentence_start and (lowered in lower_vocab or lowered in _IMPERATIVES)))


def _opens_no_name(word: str, nxt: str) -> bool:
    """``word``, capitalised because it opens a sentence, is no name: a sentence adverb (7
    letters or more ending in one of :data:`_ADVERB_ENDS`), an opening participle
    ("Following", "Born"), a past participle before a preposition ("Founded in", "Built
    in") or an "-ing" word before a determiner ("Using the"); ``nxt`` is the word after it.

    >>> [_opens_no_name(w, n) for w, n in [("Originally", "the"), ("Italy", "is"),
    ...  ("Founded", "in"), ("Alfred", "was"), ("Following", "World"), ("Beijing", "is")]]
    [True, False, True, False, True, False]
    """
    if not (word.isalpha() and word.istitle()):
        return False
    low, after = word.casefold(), nxt.casefold()
    return (low in _OPENING_PARTICIPLES
            or (len(low) >= 7 and low.endswith(_ADVERB_ENDS))
            or (((len(low) >= 5 and low.endswith("ed")) or low in _IRREGULAR_PARTICIPLES)
                and after in _AFTER_PARTICIPLE)
            or (len(low) >= 5 and low.endswith("ing") and after in _AFTER_GERUND))


def _trimmed(ms: list[re.Match[str]], before: list[re.Match[str]],
             german: bool) -> list[re.Match[str]]:
    """The words ``ms`` of a run of capitalised words without its leading and trailing
    function words ("The", "In", "His", "of", "L'"), at most :data:`_MAX_NAME_TOKENS` long;
    in German text (``german``) without a noun a determiner opens (:func:`.german_run`),
    ``before`` being the words before the run."""
    words = list(before)
    while ms and (
        ms[0].group(0).casefold().rstrip(".") in STOPWORDS or ms[0].group(0) in _CALENDAR
        or ms[0].group(0).casefold() in _ELISIONS
    ):
        words.append(ms[0])
        ms = ms[1:]
    while ms and ms[-1].group(0).casefold() in _CONNECTORS:
        ms = ms[:-1]
    if german and ms:  # its nouns are capitalised too: "die Stadt Hamburg"
        start, end = german_run([m.group(0) for m in ms], [w.group(0) for w in words[-3:]])
        ms = ms[start:end]
    return ms[:_MAX_NAME_TOKENS]


def _name_runs(sentence: str, lower_vocab: frozenset[str], beside_cjk: bool,
               german: bool = False, connectors: bool = True) -> list[Span]:
    """Runs of capitalised words (``beside_cjk``: the sentence holds Chinese, Japanese or
    Korean, where a word ends; ``german``: German text, whose nouns are capitalised too:
    :mod:`.german`; ``connectors``: ``of``, ``the`` ... join two runs, not in a sentence
    written in capitals, :mod:`.shouted`)."""
    toks = list((_TOKEN_BESIDE_CJK if beside_cjk else _TOKEN).finditer(sentence))
    spans: list[Span] = []
    i = 0
    while i < len(toks):
        t = toks[i].group(0)
        if not (t[0].isupper() and not t.isdigit()):
            i += 1
            continue
        j = i
        while j + 1 < len(toks):
            gap = sentence[toks[j].end() : toks[j + 1].start()]
            if gap.strip() or "'s" in toks[j].group(0)[-2:] or "’s" in toks[j].group(0)[-2:]:
                break
            nxt = toks[j + 1].group(0)
            if nxt[0].isupper() or nxt == "&" or (nxt.isdigit() and len(nxt) <= 3):
                j += 1
            elif connectors and nxt.casefold() in _NAME_CONNECTORS and j + 2 < len(toks):
                k = j + 2
                if toks[k].group(0).casefold() in _NAME_CONNECTORS and k + 1 < len(toks):
                    k += 1
                if toks[k].group(0)[0].isupper() and not sentence[
                    toks[j].end() : toks[k].start()
                ].count(","):
                    j = k
                else:
                    break
            else:
                break
        ms = toks[i : j + 1]
        if (not sentence[: ms[0].start()].strip(" \"'“‘(`") and i + 1 < len(toks)
                and _opens_no_name(ms[0].group(0), toks[i + 1].group(0))):
            ms = ms[1:]  # "Originally", "Founded in", "Following World War II"
        ms = _trimmed(ms, toks[max(0, i - 3):j + 1 - len(ms)], german)
        if ms:
            s, e = ms[0].start(), ms[-1].end()
            run = [m.group(0) for m in ms]
            last = run[-1]
            if last.endswith(("'s", "’s")):
                run[-1] = last[:-2]
                e -= 2
            elif last.endswith(".") and not (
                len(last) == 2 or last.casefold().rstrip(".") in _ABBREV or "." in last[:-1]
            ):
                run[-1] = last[:-1]
                e -= 1
            single_start = len(run) == 1 and not sentence[:s].strip(" \"'“‘(`")
            if not _not_a_name(run, single_start, lower_vocab) and run[0]:
                name = (nominative(sentence[s:e], _prev_word(sentence, s)) if german
                        else sentence[s:e])
                spans.append(Span(s, e, name, _guess_type(run, sentence, s, e)))
        i = j + 1
    return spans


def find_spans(sentence: str, lower_vocab: frozenset[str] = frozenset()) -> list[Span]:
    """Entity mentions in one sentence, non-overlapping, in text order.

    ``lower_vocab`` holds words seen lower-cased in the surrounding text: a sentence-initial
    single capitalised word in it ("Today", "Since") is not taken for a name.
    """
    cands: list[tuple[int, Span]] = []  # (priority, span); lower priority wins ties
    for rx in _QUOTE_RES:
        for m in rx.finditer(sentence):
            inner = m.group(1).strip(" ,.")
            alpha = next((c for c in inner if c.isalpha()), "")
            if (alpha.isupper() and len(inner.split()) <= 12
                    and not _dialogue(inner, m.group(1))
                    and not _speech(sentence, m.start(), m.end())):
                cands.append((0, Span(m.start(), m.end(), inner, "work")))
    for rx in _DATE_RES:
        for m in rx.finditer(sentence):
            cands.append((1, Span(m.start(), m.end(), m.group(0), "date")))
    for rx in _QUANTITY_RES:
        for m in rx.finditer(sentence):
            cands.append((1, Span(m.start(), m.end(), m.group(0).strip(), "quantity")))
    beside_cjk = CJK_CHARS.search(sentence) is not None
    cased = small_syllabary(sentence)  # Cherokee: every letter a "capital"
    lowered = unshouted(cased, lower_vocab, STOPWORDS)  # "THE COMPANY SHALL ..."
    read = lowered or cased  # the names' text is the sentence's, as written
    for sp in _name_runs(read, lower_vocab, beside_cjk,
                         german_sentence(sentence, lower_vocab), lowered is None):
        if read is not sentence and sp.name == read[sp.start:sp.end]:
            sp = Span(sp.start, sp.end, sentence[sp.start:sp.end], sp.type)
        cands.append((2, sp))
    scripts = [*(cjk_candidates(sentence) if beside_cjk else ()),
               *(c for cues in TITLED for c in titled_names(sentence, cues))]
    cands += [(rank, Span(a, b, name, kind)) for rank, a, b, name, kind in scripts]
    cands.sort(key=lambda c: (c[0], c[1].start, -(c[1].end - c[1].start)))
    taken: list[Span] = []
    used = bytearray(len(sentence))  # characters already in a taken span
    for _, sp in cands:
        if not any(used[sp.start:sp.end]):
            taken.append(sp)
            used[sp.start:sp.end] = b"\x01" * (sp.end - sp.start)
    out = []
    for sp in sorted(taken, key=lambda s: s.start):
        try:
            normalize_key(sp.name)
        except ValueError:
            continue
        out.append(sp)
    return out
