"""JSON text read from a file (a collection, a notebook), its errors naming the file, the
line and the column.

Example:
    >>> parse_json('{"a": [1, 2]}', "a.json")
    {'a': [1, 2]}
    >>> parse_json('{"a": }', "a.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.index.errors.LoaderError: a.json:1: invalid JSON (Expecting value at column 7)
"""

from __future__ import annotations

import json
from typing import Any

from .errors import LoaderError

__all__ = ["json_problem", "parse_json"]


def parse_json(text: str, where: str) -> Any:
    """The value of the JSON ``text`` of ``where`` (a file's name); a
    :class:`~.errors.LoaderError` naming it and the line otherwise."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoaderError(f"{where}:{exc.lineno}: invalid JSON ({json_problem(exc)})") from exc
    except RecursionError:
        raise LoaderError(f"{where}: JSON nested too deeply to read") from None


def json_problem(exc: json.JSONDecodeError) -> str:
    """``"Expecting value at column 3"`` (the decoder's message ends in "at" for some)."""
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
