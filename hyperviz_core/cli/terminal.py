"""Text from documents, stores and models, made safe to print on a terminal.

Stored text and model replies are untrusted: an escape sequence in a document
(``ESC ] 0 ; title BEL``, ``ESC [ 8 m``, a carriage return) would set the window title, hide
or rewrite what the user reads, or reach the clipboard (OSC 52) if printed raw.
:func:`terminal_safe` shows every control character other than newline and tab, and every
bidirectional-override character, as a visible escape instead.

Example:
    >>> terminal_safe("red \\x1b[31m text\\r and \\u202eevil")
    'red \\\\x1b[31m text\\\\r and \\\\u202eevil'
    >>> terminal_safe("two\\nlines\\tand tabs")
    'two\\nlines\\tand tabs'
"""

from __future__ import annotations

import re

__all__ = ["one_line", "terminal_safe"]

#: C0 controls but tab and newline, DEL, C1 controls, and the bidirectional controls
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match[str]) -> str:
    ch = m.group(0)
    return {"\r": "\\r"}.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100
                                     else f"\\u{ord(ch):04x}")


def terminal_safe(text: object) -> str:
    """``str(text)`` with its terminal control characters shown as escapes (``\\x1b``)."""
    return _UNSAFE.sub(_visible, str(text))


def one_line(text: object) -> str:
    """:func:`terminal_safe` for a name printed within a line (a title, an id): its
    newlines and tabs shown as ``\\n`` / ``\\t`` too, so a file named ``line\\nbreak``
    cannot split a listing's line.

    >>> one_line("line\\nbreak\\there")
    'line\\\\nbreak\\\\there'
    """
    return terminal_safe(text).replace("\n", "\\n").replace("\t", "\\t")
