"""Untrusted text (documents, stores, model replies, a server's error body) made safe to
print or log.

An escape sequence in a document (``ESC ] 0 ; title BEL``, ``ESC [ 8 m``, a carriage
return) would set the window title, hide or rewrite what the user reads, or reach the
clipboard (OSC 52) if printed raw. :func:`terminal_safe` shows every control character other
than newline and tab, every line or paragraph separator and every bidirectional-override
character as a visible escape instead; :func:`one_line` escapes newlines and tabs too;
:func:`server_text` quotes what a server said in an error: one line, cut, credentials masked.
A leaf module (the CLI and the providers both use it).

Example:
    >>> terminal_safe("red \\x1b[31m text\\r and \\u202eevil")
    'red \\\\x1b[31m text\\\\r and \\\\u202eevil'
    >>> terminal_safe("two\\nlines\\tand tabs")
    'two\\nlines\\tand tabs'
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

__all__ = ["ERROR_TEXT_LIMIT", "one_line", "server_text", "terminal_safe"]

#: C0 controls but tab and newline, DEL, C1 controls, the line and paragraph separators, and
#: the bidirectional controls
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match[str]) -> str:
    ch = m.group(0)
    return {"\r": "\\r"}.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100
                                     else f"\\u{ord(ch):04x}")


def terminal_safe(text: object) -> str:
    """``str(text)`` with its terminal control characters shown as escapes (``\\x1b``)."""
    return _UNSAFE.sub(_visible, str(text))


def one_line(text: object) -> str:
    """:func:`terminal_safe` for text printed within a line (a title, an id, an error
    message): its newlines and tabs shown as ``\\n`` / ``\\t`` too, so a file named
    ``line\\nbreak`` cannot split a listing's line. Applying it again changes nothing.

    >>> one_line("line\\nbreak\\there")
    'line\\\\nbreak\\\\there'
    """
    return terminal_safe(text).replace("\n", "\\n").replace("\t", "\\t")


#: the most characters of a server's text (an error body) an error quotes
ERROR_TEXT_LIMIT = 400
_CREDENTIAL = re.compile(r"\b(Bearer|Basic)(\s+)([A-Za-z0-9._~+/-]+=*)", re.IGNORECASE)


def b64_text(text: str) -> str:
    """``text`` decoded from base64 (``""`` when it is not base64)."""
    try:
        return base64.b64decode(text, validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return ""


def _masked(m: re.Match[str]) -> str:
    """``Bearer ***`` for a token (8+ characters with a digit, or 20+), ``Basic ***`` for
    a ``user:password`` pair in base64; other words after them as they are."""
    kind, token = m.group(1), m.group(3)
    secret = (":" in b64_text(token) if kind.lower() == "basic" else
              len(token) >= 20 or (len(token) >= 8 and any(c.isdigit() for c in token)))
    return f"{kind}{m.group(2)}***" if secret else m.group(0)


def server_text(text: object, secrets: Iterable[str] = (),
                limit: int = ERROR_TEXT_LIMIT) -> str:
    """What a server said (an error body, an exception quoting one), fit for an error
    message: whitespace runs as one space, the ``secrets`` the client sent (6+ characters)
    and any ``Bearer``/``Basic`` credential masked, cut to ``limit`` characters (saying so),
    escape sequences as escapes (:func:`one_line`).

    >>> server_text("bad key Bearer sk-SECRET123 for\\n  bob: hunter22", {"hunter22"})
    'bad key Bearer *** for bob: ***'
    >>> server_text("E" * 10_000, limit=5)
    'EEEEE... (cut; 10,000 characters in all)'
    """
    raw = str(text)
    keep = 8 * limit + 1024  # read no further (a 5 MB HTML page)
    masks = sorted({s for s in secrets if len(s) >= 6}, key=len, reverse=True)
    line = " ".join(raw[:keep].split())
    if len(raw) > keep:  # a credential cut in half at ``keep`` would not be recognised
        line = line[:max(len(line) - max(map(len, masks), default=0) - 64, 0)]
    for secret in masks:
        line = line.replace(secret, "***")
    line = _CREDENTIAL.sub(_masked, line)
    if len(line) > limit or len(raw) > keep:
        line = f"{line[:limit]}... (cut; {len(raw):,} characters in all)"
    return one_line(line)
