"""Markdown tables and number formatting shared by the judge report and the paper tables.

Example:
    >>> from hyperviz_core.eval.markdown import markdown_table, pct
    >>> print(markdown_table(["system", "EM"], [["vizrag", pct(0.5)]]))
    | system | EM |
    |---|---|
    | vizrag | 50.0% |
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["cell", "markdown_table", "num", "pct"]


def cell(text: object) -> str:
    """A table cell: pipes escaped, newlines flattened."""
    return " ".join(str(text).replace("|", "\\|").split())


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def pct(value: float | None, digits: int = 1) -> str:
    """A fraction 0–1 as a percentage (``-`` for None)."""
    return "-" if value is None else f"{100 * value:.{digits}f}%"


def num(value: float | None, digits: int = 1) -> str:
    """A number with fixed decimals (``-`` for None)."""
    return "-" if value is None else f"{value:.{digits}f}"
