"""Unicode normal forms for the text the library stores, draws and matches.

The same word can arrive as different code points: decomposed accents (``"e\\u0301"``, from
macOS file names and text copied out of PDFs), a soft hyphen left inside a word by a PDF or
e-book (``"Donau\\u00addampf"``), or a typographic ligature (``"\\ufb01nanzielle"``). Each is
drawn like the plain word, but would not match it, would be drawn with a loose accent, or
would make two entities of one name.

Example:
    >>> nfc("Zu\\u0308rich") == "Zürich"
    True
    >>> plain_text("Donau\\u00addampf \\ufb01nanzielle Zu\\u0308rich")
    'Donaudampf finanzielle Zürich'
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["nfc", "plain_text"]

#: the soft hyphen and the Latin ligatures U+FB00–U+FB06, and what they are read as
_HINTS = re.compile("[\u00ad\ufb00-\ufb06]")
_PLAIN = str.maketrans({"\u00ad": None, "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl",
                        "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"})


def nfc(text: str) -> str:
    """``text`` in Unicode's composed form (NFC); quick when it already is (ASCII always).

    >>> nfc("Le\\u0300ve") == "L\\u00e8ve"
    True
    """
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def plain_text(text: str) -> str:
    """:func:`nfc` of ``text`` without soft hyphens (``U+00AD``, an invisible hint where a
    word may break) and with the Latin ligatures ``ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ`` spelt out: what a reader
    sees, so that words match whichever form they were written in. Other compatibility
    characters (``²``, ``½``, full-width letters) are kept as they are.

    >>> plain_text("e\\u0301tude o\\ufb00re\\u00ad²")
    'étude offre²'
    """
    if text.isascii():
        return text
    text = nfc(text)
    return text.translate(_PLAIN) if _HINTS.search(text) else text
