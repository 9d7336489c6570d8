"""SQL ``LIKE`` matching for metadata filters, in time linear in the text.

A pattern matches a string as a whole: ``%`` stands for any run of characters (none
included), ``_`` for exactly one, and a backslash makes the next character literal
(PostgreSQL's default escape: ``\\%``, ``\\_``, ``\\\\``). ``ILIKE`` compares the
lower-cased pattern and text (``str.lower``, as PostgreSQL's ``lower()``; so ``_`` matches
the one character ``ß``).

The pattern is cut at its ``%`` into fixed-length pieces, and each piece is found leftmost
after the previous one (the first anchored at the start, the last at the end). That is the
whole search a pattern of fixed pieces and ``%`` needs, so no pattern backtracks: a
translation to a regular expression (``%`` → ``.*``) takes exponential time on
``%a%a%a%a%a%b`` against ``"a" * 300``, this a few microseconds.

A metadata value is matched as the text PostgreSQL's ``->>`` gives it (:func:`like_text`), so
``202%`` matches the number 2021 as it does in PGVector.

Example:
    >>> like("Ada Lovelace", "Ada%"), like("Ada", "A_a"), like("100%", "100\\\\%")
    (True, True, True)
    >>> like("ÉCOLE", "éc%", caseless=True), like("Straße", "stra_e", caseless=True)
    (True, True)
    >>> like("a" * 300, "%a%a%a%a%a%b")
    False
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = ["LikePattern", "like", "like_pattern", "like_text"]


def like_text(value: Any) -> str | None:
    """The text ``LIKE`` reads of a metadata value: a string itself, a bool ``true`` or
    ``false``, a number as PostgreSQL writes a JSON number (``->>``: plain digits, no
    exponent, ``2.0`` kept); None for anything else (a list, ``None``, NaN), which no
    pattern matches.

    Example:
        >>> like_text(2021), like_text(2.0), like_text(1e-07), like_text(True), like_text([1])
        ('2021', '2.0', '0.0000001', 'true', None)
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return format(Decimal(repr(abs(value) if value == 0 else value)), "f")
    return None


@dataclass(frozen=True)
class LikePattern:
    """A compiled pattern: its pieces between ``%`` (each a fixed-length regular expression
    of literals and ``_``) and their lengths; ``anywhere`` when it has a ``%``."""

    pieces: tuple[re.Pattern[str], ...]
    lengths: tuple[int, ...]
    anywhere: bool


_CACHE: dict[str, LikePattern] = {}
_CACHED = 1024


def like_pattern(pattern: str) -> LikePattern:
    """``pattern`` compiled (cached); a ``ValueError`` for one that ends in a lone
    backslash.

    >>> like_pattern("a%b_c").lengths
    (1, 3)
    """
    found = _CACHE.get(pattern)
    if found is not None:
        return found
    pieces: list[list[str]] = [[]]
    chars = iter(pattern)
    for char in chars:
        if char == "\\":
            char = next(chars, "")
            if not char:
                raise ValueError(f"a LIKE pattern must not end with a backslash (escape it "
                                 f"as \\\\), got {pattern!r:.60}")
            pieces[-1].append(re.escape(char))
        elif char == "%":
            pieces.append([])
        else:
            pieces[-1].append("." if char == "_" else re.escape(char))
    out = LikePattern(tuple(re.compile("".join(p), re.DOTALL) for p in pieces),
                      tuple(len(p) for p in pieces), len(pieces) > 1)
    if len(_CACHE) < _CACHED:
        _CACHE[pattern] = out
    return out


def like(text: str, pattern: str, *, caseless: bool = False) -> bool:
    """Whether ``text`` matches the SQL ``LIKE`` ``pattern`` (``caseless``: ``ILIKE``)."""
    if caseless:
        text, pattern = text.lower(), pattern.lower()
    compiled = like_pattern(pattern)
    first, *middle = compiled.pieces
    if not compiled.anywhere:
        return first.fullmatch(text) is not None
    *middle, last = middle
    if first.match(text) is None:
        return False
    pos = compiled.lengths[0]
    for piece in middle:
        found = piece.search(text, pos)
        if found is None:
            return False
        pos = found.end()
    start = len(text) - compiled.lengths[-1]
    return start >= pos and last.fullmatch(text, start) is not None
