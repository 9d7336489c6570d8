"""The languages whose people the offline extractor finds after a title, in scripts without
capitals: each one's cues (:class:`~.titled.TitleCues`), tried in turn on every sentence by
:func:`~.spans.find_spans`.

Example:
    >>> [cues.most for cues in TITLED]
    [3, 2, 2, 2, 3]
"""

from __future__ import annotations

from .arabic import ARABIC
from .hebrew import HEBREW
from .hindi import HINDI
from .persian import PERSIAN
from .titled import TitleCues
from .urdu import URDU

__all__ = ["TITLED"]

TITLED: tuple[TitleCues, ...] = (HINDI, ARABIC, HEBREW, PERSIAN, URDU)
"""Hindi, Arabic, Hebrew, Persian and Urdu (:mod:`.hindi` ... :mod:`.urdu`)."""
