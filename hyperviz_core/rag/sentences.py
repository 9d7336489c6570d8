"""The sentences of a passage, for the offline answer and the answer prompt's listings.

A sentence ends at ``.!?`` (Arabic ``؟``, Urdu ``۔``, Devanagari ``।``, Hebrew's ``׃`` ...)
followed by white space and a sentence start, or at a CJK, Khmer or Myanmar full stop
(``。！？``, ``។``, ``။``: white space or not after it).
"""

from __future__ import annotations

import re

__all__ = ["sentences"]

#: a sentence end: ``.!?`` (Arabic ``؟``, Urdu ``۔``, Devanagari ``।`` ...) and white space (a
#: sentence starts after it if :func:`_opens_sentence`), or CJK ``。！？`` and their closing
#: brackets, Khmer ``។ ៕`` and Myanmar ``။`` (white space or not)
_BREAK = re.compile(r"(?<=[.!?؟۔।॥։።׃])\s+|(?P<cjk>[。！？｡។៕။]+[」』”’）)\"']*)\s*")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


def sentences(text: str) -> list[str]:
    """The sentences of a passage, white space collapsed; Markdown heading lines (``# ...``)
    are titles, not sentences, and are left out rather than glued to the next sentence.

    >>> sentences("# Hello Love (song)\\n\\nHello Love is a 1974 single. It charted.")
    ['Hello Love is a 1974 single.', 'It charted.']
    >>> sentences("清华大学位于北京。张伟在清华任教！ Лев Толстой — писатель. Он жил в Ясной.")
    ['清华大学位于北京。', '张伟在清华任教！', 'Лев Толстой — писатель.', 'Он жил в Ясной.']
    >>> sentences("ភ្នំពេញជារាជធានី។ក្រុងនេះធំ។")
    ['ភ្នំពេញជារាជធានី។', 'ក្រុងនេះធំ។']
    """
    body = " ".join(line for line in text.splitlines() if not _HEADING.match(line))
    body = " ".join(body.split())
    out: list[str] = []
    start = 0
    for m in _BREAK.finditer(body):
        if m.group("cjk"):
            out.append(body[start:m.end("cjk")])
        elif _opens_sentence(body[m.end():m.end() + 1]):
            out.append(body[start:m.start()])
        else:
            continue
        start = m.end()
    out.append(body[start:])
    return [s for s in out if s]


def _opens_sentence(ch: str) -> bool:
    """Whether ``ch``, after ``.!?`` and white space, starts a sentence: a digit, a quote or
    parenthesis, an upper-case letter (``A``, ``É``, ``Л``, ``Σ``) or a letter of a script
    without case (CJK, Arabic, Hebrew, ...)."""
    return bool(ch) and (ch in "0123456789\"'(" or ch.isupper()
                         or (ch.isalpha() and ch.lower() == ch.upper()))
