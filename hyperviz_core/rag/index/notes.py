"""The numbering of the footnotes and endnotes the document readers show after the block
that refers to them (:mod:`.wordnotes` for ``.docx``, :mod:`.docfiles` for ``.doc``,
:mod:`.opendocs` for ``.odt``), so that all three show a note alike.

Example:
    >>> numbers = NoteNumbers()
    >>> numbers.shown("footnote", "Measured in 2019."), numbers.shown("footnote", " ")
    ('Footnote 1: Measured in 2019.', '')
    >>> numbers.shown("footnote", "At low tide."), numbers.shown("endnote", "A source.")
    ('Footnote 3: At low tide.', 'Endnote 1: A source.')
"""

from __future__ import annotations

__all__ = ["NoteNumbers"]


class NoteNumbers:
    """Each kind's notes (``"footnote"``, ``"endnote"``) numbered from 1 in the order they
    are shown; an empty note keeps its number, as a word processor shows it, and gives no
    block."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}

    def shown(self, kind: str, text: str) -> str:
        """The next note of ``kind`` as shown (``Footnote 3: text``), ``""`` when empty."""
        number = self._numbers[kind] = self._numbers.get(kind, 0) + 1
        return f"{kind.capitalize()} {number}: {text}" if text.strip() else ""
