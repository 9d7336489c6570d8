"""Answer quality without a judge: exact match, token F1 and answer-in-context recall.

The normalisation is the SQuAD / HotpotQA / MuSiQue one: lower-case, drop punctuation, drop
the articles *a*, *an*, *the*, collapse whitespace. Punctuation is every Unicode punctuation
character (category ``P*``: „Faust“, ‹Faust›, ¡Hola!, 東京。) plus ASCII's symbols
(``$+<=>^`|~``). Hyphens, whichever code point (``-``, U+2010, U+2011), and the minus sign
U+2212 are dropped like SQuAD's ``-`` ("well‐known" = "wellknown", "−5" = "5"); dashes (en,
em, figure dash, horizontal bar, ...) become spaces ("1990–1995" = "1990 1995"). A
prediction is scored against every gold answer (MuSiQue lists aliases) and the best score
counts. Before that, the prediction loses what the engine adds around an answer
(:func:`strip_citations`): citation groups such as ``(H2, [1])``, ``[3]`` or ``(E3)`` and
the header line of an offline extractive summary, so a cited answer scores like the bare one
and a source number never matches a numeric answer. The gold answers get the same cleaning
(:func:`normalize_gold`), so a gold such as ``"Henry V (H2)"`` can still be matched; a gold
with nothing left after it (``"[3]"``, ``"!"``) is no gold (:func:`load_questions
<hyperviz_core.eval.load_questions>` leaves it out with a warning).

Example:
    >>> from hyperviz_core.eval.metrics import exact_match, token_f1, answer_in_context
    >>> exact_match("The Anglican Communion.", ["the Anglican Communion"])
    1.0
    >>> round(token_f1("Anglican church communion", "the Anglican Communion"), 3)
    0.8
    >>> answer_in_context(["35"], ["Publix has 35 stores in Tennessee.", "Other text"])
    True
    >>> answer_in_context(["35"], ["It has 350 stores."])   # whole tokens only
    False
    >>> exact_match("Karl Renner (H2, [1])", ["Karl Renner"])   # citations are not scored
    1.0
    >>> answer_in_context(["Hank Snow"], ["Hank\\nSnow wrote it"])  # no match across lines
    False
"""

from __future__ import annotations

import re
import string
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache

from ..rag.answer import EXTRACTIVE_LABEL

__all__ = [
    "answer_in_context",
    "answer_tokens",
    "contains_answer",
    "exact_match",
    "normalize_answer",
    "normalize_gold",
    "strip_citations",
    "token_f1",
]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_MINUS = "\u2212"
_NUMS = r"\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]"
_CITED = rf"(?:[EH]\d+|{_NUMS})"
_CITATION = re.compile(rf"\(\s*{_CITED}(?:\s*[,;]\s*{_CITED})*\s*\)|{_NUMS}")
_EXTRACTIVE_LINES = frozenset({EXTRACTIVE_LABEL, "(no passage matched the question)",
                               "(no passages retrieved)",
                               "(no retrieved passage shares a word with the question)"})


def strip_citations(text: str) -> str:
    """``text`` without the engine's citation markers and extractive-summary header.

    Removed: groups of visual IDs and source numbers in parentheses (``(H2, [1])``,
    ``(E3)``, ``(H2, E5, [1], [3])``), bare source numbers (``[1]``, ``[1, 2]``), and the
    lines the offline answerer writes around its quotes (the
    :data:`~hyperviz_core.rag.answer.EXTRACTIVE_LABEL` header and its "(no passage ...)"
    placeholders). Other parentheses and IDs in running text are kept. Applied to the
    prediction by :func:`exact_match`, :func:`token_f1` and :func:`contains_answer`, and to
    every gold answer (:func:`normalize_gold`), never to retrieved passages.

    Example:
        >>> strip_citations("Karl Renner (H2, [1]).")
        'Karl Renner .'
        >>> strip_citations("Publix has 35 stores [2] (E3) (in 2019)")
        'Publix has 35 stores (in 2019)'
    """
    lines = [ln for ln in str(text).splitlines() if ln.strip() not in _EXTRACTIVE_LINES]
    return " ".join(_CITATION.sub(" ", "\n".join(lines)).split())


@cache
def _punctuation_table() -> dict[int, str | None]:
    """``str.translate`` table: dashes → space; every other Unicode punctuation character
    (``P*``), ASCII punctuation and the minus sign → dropped (built once, on first use)."""
    table: dict[int, str | None] = dict.fromkeys(map(ord, string.punctuation + _MINUS))
    for code in range(sys.maxunicode + 1):
        cat = unicodedata.category(chr(code))
        if cat[0] != "P":
            continue
        name = unicodedata.name(chr(code), "")
        dash = cat == "Pd" and ("DASH" in name or name == "HORIZONTAL BAR")
        table[code] = " " if dash else None
    return table


@cache
def _range_dash() -> re.Pattern[str]:
    """A dash, hyphen or minus sign between two digits (``1990-1995``, ``1990–1995``)."""
    dashes = "".join(sorted({"-", _MINUS} | {chr(c) for c in _punctuation_table()
                                               if unicodedata.category(chr(c)) == "Pd"}))
    return re.compile(rf"(?<=\d)[{re.escape(dashes)}](?=\d)")


def normalize_answer(text: str) -> str:
    """SQuAD normalisation (NFKC, lower case, no punctuation, no articles, single spaces),
    except that any dash or hyphen between two digits parts them, so a range reads the same
    whichever character joins it (``1990-1995`` = ``1990–1995`` = ``1990 1995``).

    Example:
        >>> normalize_answer("  The  Beatles' album!")
        'beatles album'
        >>> normalize_answer("„Faust“ — ¡Hola! 東京。 −5")
        'faust hola 東京 5'
        >>> normalize_answer("1990-1995") == normalize_answer("1990–1995") == "1990 1995"
        True
    """
    text = unicodedata.normalize("NFKC", str(text)).lower()
    text = _range_dash().sub(" ", text).translate(_punctuation_table())
    return " ".join(_ARTICLES.sub(" ", text).split())


def normalize_gold(text: str) -> str:
    """A gold answer as the metrics compare it: :func:`strip_citations`, then
    :func:`normalize_answer` (the prediction's cleaning, so a gold holding ``(H2)`` or ``[3]``
    can match). ``""`` means the gold holds nothing to match.

    Example:
        >>> normalize_gold("Henry V (H2)"), normalize_gold("[3]")
        ('henry v', '')
    """
    return normalize_answer(strip_citations(text))


def answer_tokens(text: str) -> list[str]:
    """The normalised tokens of ``text``."""
    return normalize_answer(text).split()


def _golds(gold: str | Iterable[str]) -> list[str]:
    return [gold] if isinstance(gold, str) else [str(g) for g in gold]


def exact_match(prediction: str, gold: str | Iterable[str]) -> float:
    """1.0 when the normalised prediction (citations stripped) equals a normalised gold
    answer, else 0.0.

    An empty prediction or an empty gold list scores 0.0.
    """
    pred = normalize_answer(strip_citations(prediction))
    if not pred:
        return 0.0
    return float(any(pred == normalize_gold(g) for g in _golds(gold)))


def _f1(pred: Sequence[str], gold: Sequence[str]) -> float:
    if not pred or not gold:
        return float(pred == gold and bool(pred))
    common = Counter(pred) & Counter(gold)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, gold: str | Iterable[str]) -> float:
    """Best token-overlap F1 of ``prediction`` against the gold answers (0.0–1.0)."""
    pred = answer_tokens(strip_citations(prediction))
    return max((_f1(pred, normalize_gold(g).split()) for g in _golds(gold)), default=0.0)


def _contains(haystack: str, needle: str) -> bool:
    """Whole-token containment of normalised ``needle`` in normalised ``haystack``."""
    if not needle:
        return False
    return f" {needle} " in f" {haystack} "


def contains_answer(text: str, gold: str | Iterable[str]) -> bool:
    """True when a gold answer occurs (normalised, whole tokens) in ``text``.

    A lenient answer metric for long answers, e.g. the offline extractive summaries.

    Example:
        >>> contains_answer("Publix, with 35 stores in the state.", "35")
        True
    """
    hay = normalize_answer(strip_citations(text))
    return any(_contains(hay, normalize_gold(g)) for g in _golds(gold))


def answer_in_context(gold: str | Iterable[str], passages: Iterable[str]) -> bool:
    """Answer-in-context recall of one question: is a gold answer string in a passage?

    Args:
        gold: the gold answer or its aliases.
        passages: the retrieved passage texts (e.g. the top-k ``RetrievalResult.chunks``'
            ``text``, with their titles prepended on a line of their own if the titles
            should count: ``title + "\\n" + text``, as
            :func:`~hyperviz_core.eval.generate_answers` keeps them).

    Returns:
        True when some normalised gold answer occurs as whole tokens within one line of
        some passage (normalised). A match never spans a line break: the title/text
        boundary (title "Hank", text "Snow wrote ...") or a paragraph break is not an
        occurrence of "Hank Snow". Average it over questions for the recall of a mode.
    """
    golds = [n for n in (normalize_gold(g) for g in _golds(gold)) if n]
    if not golds:
        return False
    for passage in passages:
        for line in str(passage).splitlines():
            hay = normalize_answer(line)
            if any(_contains(hay, g) for g in golds):
                return True
    return False
