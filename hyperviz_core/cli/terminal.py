"""Text from documents, stores and models, made safe to print on a terminal (the escaping
itself lives in :mod:`hyperviz_core.textsafe`), and streams that print every character.

Example:
    >>> terminal_safe("red \\x1b[31m text\\r and \\u202eevil")
    'red \\\\x1b[31m text\\\\r and \\\\u202eevil'
    >>> terminal_safe("two\\nlines\\tand tabs")
    'two\\nlines\\tand tabs'
"""

from __future__ import annotations

import codecs
import sys

from ..textsafe import one_line, terminal_safe

__all__ = ["one_line", "stdout_is_unicode", "terminal_safe", "tolerant_streams"]


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
