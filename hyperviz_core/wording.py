"""How a count is said: ``1 entity``, ``2 entities`` (the PNG's title and footer, the caption,
the CLI's lines). No dependency: the command line uses it without the drawing stack.

Example:
    >>> counted(1, "entity"), counted(0, "hyperedge"), counted(3, "entity")
    ('1 entity', '0 hyperedges', '3 entities')
"""

from __future__ import annotations

__all__ = ["TITLE_QUERY", "counted"]

#: what the PNG's title puts before the query it was drawn for (the HTML viewer finds the
#: query after it, to isolate it as the PNG does)
TITLE_QUERY = " · query: "

#: irregular plurals of the nouns counted
_PLURALS = {"entity": "entities"}


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, singular for exactly one."""
    return f"{n} {noun if n == 1 else _PLURALS.get(noun, noun + 's')}"
