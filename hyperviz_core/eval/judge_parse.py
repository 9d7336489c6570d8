"""Tolerant parsing of judge replies (JSON first, then a pattern fallback).

A reply is accepted only when every criterion (and, for the win-rate protocol, the overall
winner) can be read; otherwise :class:`JudgeParseError` names what is missing, and the
protocol retries once with a repair prompt before counting the call invalid.

Keys match case-insensitively and ignoring spaces, underscores and hyphens
(``"logical_coherence"`` is ``"Logical Coherence"``); a winner may be written ``"Answer 1"``,
``"answer1"``, ``"1"`` or ``1``; a score may be a number, a numeric string (``"85"``,
``"85/100"``), a range (its midpoint) or, when missing, a level 1–5 (its range's midpoint).

Example:
    >>> from hyperviz_core.eval.judge_parse import parse_winrate_reply
    >>> dims = ["Comprehensiveness", "Empowerment", "Relevance", "Consistency", "Clarity",
    ...         "Logical Coherence", "Overall Winner"]
    >>> reply = {d: {"Winner": "Answer 2", "Explanation": "..."} for d in dims}
    >>> import json
    >>> parse_winrate_reply("```json\\n" + json.dumps(reply) + "\\n```")["Overall Winner"]
    2
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..rag import parse_json_object
from .judge_prompts import DIMENSIONS, LEVELS, OVERALL

__all__ = ["JudgeParseError", "parse_score_reply", "parse_winrate_reply"]


class JudgeParseError(ValueError):
    """A judge reply that does not give every criterion."""


def _norm(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.casefold())


_ALIASES = {"logical": "Logical Coherence", "overall": OVERALL, "overallwinner": OVERALL}


def _lookup(obj: Mapping[str, Any], name: str) -> Any:
    want = _norm(name)
    for key in sorted(obj, key=str):
        nk = _norm(str(key))
        if nk == want or _ALIASES.get(nk) == name:
            return obj[key]
    return None


def _field(value: Any, field: str) -> Any:
    if isinstance(value, Mapping):
        return _lookup(value, field)
    return value


_WINNER = re.compile(r"^\s*(?:answer|ans\.?|response)?\s*([12])\s*$", re.IGNORECASE)


def _winner(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value in (1, 2) else None
    if isinstance(value, str):
        m = _WINNER.match(value.strip().strip('"*.'))
        if m:
            return int(m.group(1))
    return None


def _fallback(text: str, name: str, field: str) -> str | None:
    """``"<name>": {... "<field>": "<value>"`` found by pattern in a non-JSON reply."""
    words = r"[\s_-]*".join(re.escape(w) for w in name.split())
    pat = re.compile(
        rf"[\"']?{words}[\"']?\s*[:=]\s*\{{[^{{}}]*?[\"']?{field}[\"']?\s*[:=]\s*"
        rf"(?:\"([^\"]*)\"|'([^']*)'|([\w.\-/]+))",
        re.IGNORECASE | re.DOTALL,
    )
    m = pat.search(text)
    if not m:
        return None
    return next(g for g in m.groups() if g is not None)


_Conv = Callable[[Any], Any]


def _value(obj: Mapping[str, Any], text: str, name: str,
           fields: Sequence[tuple[str, _Conv]]) -> Any:
    """The first readable ``field`` of criterion ``name`` (JSON, then the pattern)."""
    entry = _lookup(obj, name) if obj else None
    for field, conv in fields:
        value = conv(_field(entry, field)) if entry is not None else None
        if value is None:
            raw = _fallback(text, name, field)
            value = conv(raw) if raw is not None else None
        if value is not None:
            return value
    return None


def _read(text: str, names: Sequence[str], fields: Sequence[tuple[str, _Conv]]
          ) -> dict[str, Any]:
    text = str(text)
    obj = parse_json_object(text)
    out: dict[str, Any] = {}
    missing: list[str] = []
    for name in names:
        value = _value(obj, text, name, fields)
        if value is None:
            missing.append(name)
        else:
            out[name] = value
    if missing:
        raise JudgeParseError(
            f"judge reply lacks a valid {fields[0][0]} for: {', '.join(missing)}")
    return out


def parse_winrate_reply(text: str) -> dict[str, int]:
    """``{criterion: 1 | 2}`` for the six criteria and ``"Overall Winner"``.

    Raises:
        JudgeParseError: when any of them is missing or not "Answer 1"/"Answer 2".
    """
    return _read(text, (*DIMENSIONS, OVERALL), [("Winner", _winner)])


_NUM = re.compile(r"(?<!\d)-?\d+(?:\.\d+)?")


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        num = float(value)
    elif isinstance(value, str):
        nums = [float(x) for x in _NUM.findall(value)]
        if not nums:
            return None
        is_range = len(nums) == 2 and re.search(r"\d\s*(?:-|–|to)\s*\d", value) is not None
        num = (nums[0] + nums[1]) / 2 if is_range else nums[0]
    else:
        return None
    return num if 0.0 <= num <= 100.0 else None


def _level_score(value: Any) -> float | None:
    level = _score(value)
    for lv, lo, hi, _ in LEVELS:
        if level == lv:
            return (lo + hi) / 2
    return None


def parse_score_reply(text: str) -> dict[str, float]:
    """``{criterion: score 0–100}`` for the six criteria.

    A criterion without a usable ``Score`` falls back to its ``Level`` (midpoint of the
    level's range).

    Raises:
        JudgeParseError: when a criterion has neither.
    """
    return _read(text, DIMENSIONS, [("Score", _score), ("Level", _level_score)])
