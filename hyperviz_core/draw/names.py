"""Entity name labels: a name cut to its room, one that reads like a visual ID quoted, and
two different names never shown alike.
"""

from __future__ import annotations

import functools
import re

from .labels import distinct_names
from .text import truncate

__all__ = ["display_name", "display_names", "looks_like_id"]

_ID_LIKE = re.compile(r"[EH]\d+", re.IGNORECASE)


def looks_like_id(name: str) -> bool:
    """Whether an entity name reads like a visual ID (``E2``, ``h10``), spaces aside.

    >>> looks_like_id(" e2 "), looks_like_id("H10"), looks_like_id("E2 Street")
    (True, True, False)
    """
    return _ID_LIKE.fullmatch(" ".join(str(name).split())) is not None


def display_name(name: str, max_chars: int) -> str:
    """An entity's name label: cut to ``max_chars``; a name that reads like a visual ID is
    quoted (“E2”), so it is not taken for the ID of a node beside it.

    >>> display_name("H1", 16), display_name("Paris", 16)
    ('“H1”', 'Paris')
    """
    text = truncate(name, max_chars)
    return f"“{text}”" if text and looks_like_id(name) else text


def display_names(names: list[str], max_chars: int) -> list[str]:
    """The name labels of one panel's entities: :func:`display_name`, except that two
    different names never get the same text (:func:`~.labels.distinct_names`: a longer cut,
    or one in the middle, up to twice ``max_chars``).

    >>> display_names(["Jiménez Municipality, Coahuila", "Jiménez Municipality, Chihuahua",
    ...                "H1"], 16)
    ['Jiménez…Coahuila', 'Jiméne…Chihuahua', '“H1”']
    """
    return list(_display_names(tuple(names), max_chars))


@functools.lru_cache(maxsize=256)
def _display_names(names: tuple[str, ...], max_chars: int) -> tuple[str, ...]:
    """:func:`display_names`, remembered: both panels of a view, the room of a two-column
    layout and every shorter cut tried for the name labels ask for the same names again (and
    :func:`~.labels.distinct_names` folds every name against every other)."""
    return tuple(f"“{text}”" if text and looks_like_id(name) else text
                 for name, text in zip(names, distinct_names(list(names), max_chars),
                                       strict=True))
