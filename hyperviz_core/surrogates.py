"""Lone surrogates: text that is no valid Unicode (no UTF-8 file, store or caption holds it).

They come from undecodable bytes on a command line (``sys.argv`` decodes them with
``surrogateescape``) or from a ``"\\ud800"`` escape in a JSON file; every reader refuses them
with a message saying where, before anything is written.

Example:
    >>> surrogate_at("ok"), surrogate_at("caf" + chr(0xDCE9))
    (None, 3)
    >>> first_surrogate({"nodes": [{"node": "ok"}, {"node": "x" + chr(0xD800)}]})
    ('nodes/1/node', 1)
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["check_text", "first_surrogate", "locale_hint", "not_unicode", "surrogate_at"]


def surrogate_at(value: str) -> int | None:
    """The position of the first lone surrogate in ``value``, or None."""
    try:
        value.encode("utf-8")
        return None
    except UnicodeEncodeError as exc:
        return exc.start


def not_unicode(value: str, what: str, hint: str = "") -> str | None:
    """The one-line message for ``what`` holding a lone surrogate (its position counted
    from 1, as every reader names it), or None for valid text.

    >>> print(not_unicode("caf" + chr(0xDCE9), "--query"))
    --query is not valid Unicode text (character 4: '\\udce9')
    """
    at = surrogate_at(value)
    if at is None:
        return None
    return f"{what} is not valid Unicode text (character {at + 1}: {value[at]!r}{hint})"


def check_text(value: object, what: str) -> None:
    """A ``TypeError`` when ``value`` is no string, a ``ValueError`` (:func:`not_unicode`)
    when it holds a lone surrogate (``"\\ud800"`` in a JSON request: nothing made of it
    could be serialised or stored).

    >>> check_text("Who owns Quasar?", "the query")
    """
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type(value).__name__}")
    if why := not_unicode(value, what):
        raise ValueError(why)


def locale_hint(value: str) -> str:
    """Why a command-line argument holds lone surrogates when its bytes are UTF-8 text that
    a locale of another encoding decoded (``LC_ALL=C``): ``"; its bytes are UTF-8 but the
    locale's encoding is ascii (LC_ALL=C): run with a UTF-8 locale ..."``; ``""`` when the
    locale is UTF-8 or the bytes are not UTF-8 either (then they are not text)."""
    encoding = sys.getfilesystemencoding()
    if encoding.lower().replace("-", "").replace("_", "") == "utf8":
        return ""
    try:
        os.fsencode(value).decode("utf-8")
    except (UnicodeError, ValueError):
        return ""
    setting = next((f"{k}={os.environ[k]}" for k in ("LC_ALL", "LC_CTYPE", "LANG")
                    if os.environ.get(k)), "no locale set")
    return (f"; its bytes are UTF-8 but the locale's encoding is {encoding} ({setting}): "
            "run with a UTF-8 locale (LC_ALL=C.UTF-8) or PYTHONUTF8=1")


def first_surrogate(value: Any) -> tuple[str, int] | None:
    """Where the first lone surrogate of a JSON-like value is: its path (keys and list
    positions joined by ``/``; ``" (key)"`` when a dict key holds it) and its position in
    that string, or None. Iterative, so any nesting depth is fine."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            at = surrogate_at(item)
            if at is not None:
                return where or "<root>", at
        elif isinstance(item, dict):
            for k in reversed(list(item)):
                path = f"{where}/{k}" if where else str(k)
                stack.append((path, item[k]))
                stack.append((f"{path} (key)", str(k)))
        elif isinstance(item, list | tuple):
            for i in range(len(item) - 1, -1, -1):
                stack.append((f"{where}/{i}" if where else str(i), item[i]))
    return None
