"""Lines as every text file is read: ``\\n``, ``\\r\\n`` and a lone ``\\r`` each end one.

Example:
    >>> line_ends("one\\r\\ntwo\\rthree"), line_of(b"one\\r\\ntwo\\rthree", 9)
    ('one\\ntwo\\nthree', 3)
    >>> line_start(b"one\\r\\ntwo", 7)
    5
"""

from __future__ import annotations

__all__ = ["line_ends", "line_of", "line_start"]


def line_ends(text: str) -> str:
    """``text`` with ``\\r\\n`` and ``\\r`` read as ``\\n``, as every file is read.

    >>> line_ends("one\\r\\ntwo\\rthree")
    'one\\ntwo\\nthree'
    """
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def line_of(data: bytes, end: int) -> int:
    """1 + the line breaks (``\\n``, ``\\r\\n`` or a lone ``\\r``) in ``data[:end]``: the
    line that byte ``end`` is on, counted from 1."""
    head = data[:end]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def line_start(data: bytes, end: int) -> int:
    """The offset of the line holding byte ``end`` of ``data`` (after the last ``\\n`` or
    ``\\r`` before it)."""
    return max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end)) + 1
