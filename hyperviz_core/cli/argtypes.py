"""Argument types shared by the subcommands (argparse ``type=`` callables).

Example:
    >>> positive_int("3"), non_negative_int("0")
    (3, 0)
"""

from __future__ import annotations

import argparse

__all__ = ["non_negative_int", "positive_int"]


def _at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer of 1 or more, else a one-line argparse error naming the value."""
    return _at_least(text, 1)


def non_negative_int(text: str) -> int:
    """An integer of 0 or more, else a one-line argparse error naming the value."""
    return _at_least(text, 0)
