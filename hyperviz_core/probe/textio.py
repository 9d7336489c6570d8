"""Safe JSON-lines input and output shared by the probe and evaluation harnesses.

- :func:`jsonl_lines` splits a file's text on newlines only (a JSON string may hold U+2028,
  U+0085 or other characters that :meth:`str.splitlines` treats as line breaks).
- :func:`check_unicode` rejects a decoded JSON value holding an unpaired surrogate
  (``"\\ud800"`` is valid JSON but no Unicode text: it could never be written back as UTF-8).
- :func:`atomic_write_text` writes a temporary file in the target's folder and renames it
  over the target, so a failed write never leaves a truncated file behind.

Example:
    >>> import json, tempfile, pathlib
    >>> check_unicode(json.loads('{"q": "Who \\\\ud800?"}'), "q.jsonl", 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: q.jsonl:3: text with an unpaired surrogate escape (e.g. ...) is not valid Unicode
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.jsonl"
    >>> atomic_write_text(p, "one\\u2028line\\n") == p, jsonl_lines(p.read_text("utf-8"))
    (True, ['one\\u2028line'])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..atomic import atomic_write_bytes
from ..surrogates import first_surrogate

__all__ = ["atomic_write_text", "check_unicode", "decode_utf8", "jsonl_lines"]


def decode_utf8(data: bytes, path: str | Path) -> str:
    """``data`` as UTF-8 text (a byte-order mark skipped); ``ValueError`` naming the line and
    column of the first byte that is no UTF-8.

    >>> decode_utf8(b'{"a": 1}\\n{"b": "\\xff"}', "x.jsonl")
    Traceback (most recent call last):
    ...
    ValueError: x.jsonl:2: not UTF-8 text (byte 0xff at column 8; save the file as UTF-8)
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ValueError(f"{path}:{row}: not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                         f"column {column}; save the file as UTF-8)") from None


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSON-lines text, split on ``\\n`` only (a trailing ``\\r`` dropped,
    no empty last line after a final newline)."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def check_unicode(value: Any, path: str | Path, line: int) -> None:
    """Raise ``ValueError`` naming ``path:line`` when ``value`` holds an unpaired surrogate."""
    if first_surrogate(value) is not None:
        raise ValueError(f"{path}:{line}: text with an unpaired surrogate escape (e.g. "
                         "\\ud800) is not valid Unicode")


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder and
    :func:`os.replace`; parents are created. The previous file survives any failure."""
    data = text.encode("utf-8")  # fails (UnicodeEncodeError) before any file is touched
    return atomic_write_bytes(path, data)
