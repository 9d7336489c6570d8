"""Mention descriptions stored as spans of their chunk's text (store schema 3, issue 17).

The offline extractor describes an entity or a relation by the sentence it was found in, so
every entity of a sentence repeats that sentence in its mention row: on an entity-rich
corpus the mention tables held the chunk text four to five times over. A description that
occurs verbatim in its chunk's text is stored as ``(d_start, d_len)`` — character offsets
into ``chunks.text`` — with an empty ``description``; any other description (an LLM's
paraphrase) is stored as it is, with both offsets NULL. Reads resolve both forms in SQL
(:data:`DESCRIPTION_SQL`, portable to PostgreSQL), so every read returns the description
that was written.

Example:
    >>> text = "Ada Falk was born in Port Haven. She founded the Free Library."
    >>> span("She founded the Free Library.", text)
    (33, 29)
    >>> span("An astronomer.", text) is None
    True
    >>> mention_description("She founded the Free Library.", text)
    ('', 33, 29)
"""

from __future__ import annotations

__all__ = ["DESCRIPTION_SQL", "MIN_SPAN", "mention_description", "span"]

#: descriptions shorter than this are stored as text (two offsets would save little)
MIN_SPAN = 16

#: the description of a mention row ``m`` joined with its chunk ``ch``
DESCRIPTION_SQL = "COALESCE(substr(ch.text, m.d_start + 1, m.d_len), m.description)"


def span(description: str, text: str) -> tuple[int, int] | None:
    """(start, length) of the first occurrence of ``description`` in ``text``, or None
    (absent, too short, or a text SQL could cut differently: one holding a NUL)."""
    if len(description) < MIN_SPAN or "\x00" in text:
        return None
    start = text.find(description)
    return None if start < 0 else (start, len(description))


def mention_description(description: str, text: str) -> tuple[str, int | None, int | None]:
    """The ``(description, d_start, d_len)`` columns of a mention whose chunk text is
    ``text``."""
    found = span(description, text)
    if found is None:
        return description, None, None
    return "", found[0], found[1]
