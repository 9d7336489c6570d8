"""Finding the list a model gave as its answer (keywords, entity names, visual IDs).

A list counts only where an answer's list would be and only when it reads as a list of
strings, so a bracket inside prose is no answer: in ``The keywords are "radium" [1]`` the
citation ``[1]`` is a list of numbers, and ``[radium]`` is no JSON at all. Where a list is
looked for, in order:

1. the body of each code fence, then the whole answer;
2. in each, the whole text when it is a JSON list (or an object of lists) that reads as
   a list of strings (at least one string, or object with a name, and no more numbers than
   those: ``[1]`` does not), else the first such value that starts a line, follows a
   lead-in ending with ``:`` on its line (``Keywords: [...]``), or sits on the first line
   after a lead-in of at most :data:`LEAD_IN` characters (``Sure! [...]``); the same again
   with trailing commas dropped;
3. a list cut short at the end of the answer, at such a place: its complete strings.

Example:
    >>> answer_items('Here are the keywords:\\n```json\\n["radium", "Marie Curie"]\\n```')
    ['radium', 'Marie Curie']
    >>> answer_items('Sure! {"keywords": ["radium",]}'), answer_items('["radium", "pol')
    (['radium'], ['radium'])
    >>> print(answer_items('The keywords are "radium" and "Marie Curie" [1]'))
    None
    >>> print(answer_items("As the text says [radium], see [1]"))
    None
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

from .fields import NAME_KEYS, first_value
from .json_text import JSON_START, fenced_blocks, without_trailing_commas

__all__ = ["LEAD_IN", "answer_items"]

#: the longest lead-in before a list on an answer's first line (``Sure! Here you go: ``)
LEAD_IN = 80
#: the most values decoded (or lists cut short read) per text
_MAX_DECODES = 64
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _items(value: Any) -> list[Any] | None:
    """The items of a decoded list, or of the list values of an object joined; None for
    anything else (an object without a list value too)."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        if lists:
            return [x for lst in lists for x in lst]
    return None


def _strings_expected(items: list[Any]) -> bool:
    """Whether ``items`` read as a list of strings: none, or at least one string (or object
    with a name) and no more numbers than those (``[1]`` is a citation, no keyword list)."""
    named = sum(1 for x in items if isinstance(x, str) or (
        isinstance(x, dict) and first_value(x, (*NAME_KEYS, "keyword")) is not None))
    numbers = sum(1 for x in items if isinstance(x, int | float) and not isinstance(x, bool))
    return not items or (named > 0 and numbers <= named)


def _answer_places(text: str) -> Iterator[int]:
    """Where in ``text`` (stripped) a JSON value may start as an answer's list, in order:
    at a line's start, after a lead-in ending with ``:`` on its line, or on the first line
    after at most :data:`LEAD_IN` characters. Linear in the length of ``text``."""
    first_nl, line_start, prev = text.find("\n"), 0, 0
    for m in JSON_START.finditer(text):
        i = m.start()
        k = text.rfind("\n", prev, i)  # each character looked at once
        line_start, prev = (k + 1 if k >= 0 else line_start), i
        j = i
        while j > line_start and text[j - 1].isspace():  # the blanks since the last value
            j -= 1
        if (i <= LEAD_IN and (first_nl < 0 or i < first_nl)) or j == line_start \
                or text[j - 1] == ":":
            yield i


def _scan(text: str) -> list[Any] | None:
    """The items of the list that is the answer in ``text``: the whole text, else the first
    credible value at an answer's place (see the module's docstring); at most
    :data:`_MAX_DECODES` values are decoded (a failed decode counts the lines before it)."""
    text = text.strip()
    try:
        items = _items(json.loads(text))
    except (ValueError, RecursionError):
        items = None
    if items is not None and _strings_expected(items):
        return items
    dec, pos, tries = json.JSONDecoder(), 0, 0
    for i in _answer_places(text):
        if i < pos:  # inside a value decoded already
            continue
        tries += 1
        if tries > _MAX_DECODES:
            break
        try:
            value, pos = dec.raw_decode(text, i)
        except (ValueError, RecursionError):
            continue
        items = _items(value)
        if items is not None and _strings_expected(items):
            return items
    return None


def _skip_space(text: str, pos: int) -> int:
    """The index of the first character at or after ``pos`` that is no white space."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _cut_list(text: str, i: int) -> list[str]:
    """The complete strings of a JSON list that starts at ``text[i]`` (``[``) and is cut
    short by the end of ``text``; ``[]`` when it is not one."""
    out: list[str] = []
    pos = i + 1
    while True:
        pos = _skip_space(text, pos)
        if pos >= len(text):
            return out
        if text[pos] != '"':
            return []
        m = _STRING.match(text, pos)
        if m is None:  # the string the answer was cut in
            return out
        try:
            out.append(json.loads(m.group(), strict=False))
        except ValueError:
            return []
        pos = _skip_space(text, m.end())
        if pos >= len(text):
            return out
        if text[pos] != ",":
            return []
        pos += 1


def _salvage(text: str) -> list[str]:
    """The complete strings of the list cut short at the end of ``text``, when such a list
    starts at an answer's place; ``[]`` otherwise."""
    text = text.strip()
    starts = (i for i in _answer_places(text) if text[i] == "[")
    for i in itertools.islice(starts, _MAX_DECODES):
        found = _cut_list(text, i)
        if found:
            return found
    return []


def answer_items(text: str) -> list[Any] | None:
    """The items of the list (or object of lists) a model answered with, or None when the
    answer holds no credible list (see the module's docstring); never raises."""
    sources = [*fenced_blocks(text), text]
    for src in sources:
        for variant in dict.fromkeys((src, without_trailing_commas(src))):
            items = _scan(variant)
            if items is not None:
                return items
    for src in sources:
        found = _salvage(src)
        if found:
            return found
    return None
