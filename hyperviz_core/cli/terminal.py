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

import codecs
import re
import sys

__all__ = ["one_line", "stdout_is_unicode", "terminal_safe", "tolerant_streams"]

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


def _is_unicode(stream: object) -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        return codecs.lookup(encoding).name.startswith("utf")
    except LookupError:
        return False


def stdout_is_unicode() -> bool:
    """Whether standard output can encode every character (a UTF encoding). JSON written to
    another one (``PYTHONIOENCODING=iso8859-15``, an old terminal) is ASCII-escaped."""
    return _is_unicode(sys.stdout)


def tolerant_streams() -> None:
    """Let standard output and error print every character whatever their encoding: one
    the encoding lacks (a name in ``Łódź`` on a Latin-9 terminal, the CLI's own ``—``) is
    written as a backslash escape instead of failing the command after its work is done.
    UTF streams, and streams that cannot be reconfigured (tests' ``StringIO``), are left as
    they are."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and not _is_unicode(stream):
            reconfigure(errors="backslashreplace")
