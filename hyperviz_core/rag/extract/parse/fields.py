"""Limits, text cleaning and field readers shared by the model-output parsers.

Everything here is total: odd input gives an empty string, ``None`` or a default, never an
exception. The limits (field lengths, item counts, input size) are documented in
:mod:`hyperviz_core.rag.extract.parse.extraction`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ....model import normalize_key
from ...reasoning import reasoning_end

__all__ = [
    "MAX_DESC",
    "MAX_INPUT",
    "MAX_ITEMS",
    "MAX_KEYWORDS",
    "MAX_KW",
    "MAX_MEMBERS",
    "MAX_NAME",
    "MAX_TYPE",
    "NAME_KEYS",
    "REL_TAGS",
    "STRENGTH_WORDS",
    "answer_text",
    "clean",
    "clean_name",
    "first_value",
    "keyword_list",
    "name_key",
    "norm_tag",
    "strength_weight",
]

MAX_INPUT = 400_000
MAX_NAME, MAX_TYPE, MAX_DESC, MAX_KW = 200, 50, 2000, 100
MAX_KEYWORDS, MAX_MEMBERS, MAX_ITEMS = 20, 64, 1000

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
_CTRL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

#: Record tags (normalised by :func:`norm_tag`) that declare a relation (hyperedge).
REL_TAGS = {
    "hyper_relation", "hyperrelation", "relation", "relationship", "relations",
    "hyperedge", "hyper_edge", "edge", "low_order_hyperedge", "high_order_hyperedge",
    "low_order_relation", "high_order_relation", "n_ary_relation", "nary_relation",
    "low_level_hyperedge", "high_level_hyperedge", "fact",
}
#: Keys that may hold an entity's name in a JSON object.
NAME_KEYS = ("name", "entity_name", "entity", "title", "label", "id", "text")
#: Strength words and the weight in [0, 1] each stands for.
STRENGTH_WORDS = {"very high": 1.0, "high": 0.9, "strong": 0.9, "medium": 0.6,
                  "moderate": 0.6, "low": 0.3, "weak": 0.3, "very low": 0.1}


def _utf8(text: str) -> str:
    """Replace lone surrogates (from bad bytes or ``"\\ud800"`` escapes) so text encodes."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _after_open_reasoning(text: str) -> str:
    """``text`` without the reasoning before an unpaired leading ``</think>`` ending its
    line (:func:`~hyperviz_core.rag.reasoning.reasoning_end`)."""
    end = reasoning_end(text)
    return text if end < 0 else text[end:]


def answer_text(text: Any) -> str:
    """A model answer as text: decoded, cut to ``MAX_INPUT``, reasoning removed: the
    ``<think>...</think>`` blocks (an unclosed one to the end) and the text up to an unpaired
    leading ``</think>`` (no ``<think>`` before it: the template opened it in the prompt)."""
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    text = _utf8(str(text)[:MAX_INPUT])
    return _THINK.sub("", _after_open_reasoning(text))


def clean(value: Any, limit: int) -> str:
    """One field as a single-line string without control characters or quotes, cut to
    ``limit`` (lists are joined with commas)."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        value = ", ".join(clean(v, limit) for v in value)
    text = _CTRL.sub(" ", _utf8(str(value)))
    text = " ".join(text.split()).strip().strip("\"'`*“”‘’").strip()
    return text[:limit]


def clean_name(value: Any) -> str:
    """An entity name: :func:`clean` without list bullets and trailing punctuation."""
    name = clean(value, MAX_NAME * 2).lstrip("-•#>").strip().strip("\"'`*“”").strip()
    name = name.rstrip(".,;:").strip()
    return name[:MAX_NAME]


def name_key(name: str) -> str | None:
    """The entity key of a cleaned name, or None for a name without a key."""
    try:
        return normalize_key(name) if name else None
    except ValueError:
        return None


def strength_weight(value: Any) -> float:
    """A relation strength (0–10, 0–1 or a word such as ``"high"``) as a weight in [0, 1]."""
    word = str(value).strip().strip("\"'()").casefold()
    if word in STRENGTH_WORDS:
        return STRENGTH_WORDS[word]
    try:
        w = float(str(value).strip().strip("\"'()"))
    except (TypeError, ValueError):
        return 1.0
    if w != w or w < 0:  # NaN / negative
        return 1.0
    return min(w / 10.0, 1.0) if w > 1.0 else w


def keyword_list(value: Any) -> list[str]:
    """Keywords from a list or a string separated by ``,``/``;``/``|`` or their full-width
    forms ``，``/``；``/``｜`` or the ideographic ``、``; cleaned, no duplicates."""
    if isinstance(value, str):
        items: Iterable[Any] = re.split(r"[,;|，、；｜]", value)
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return []
    out = [clean(v, MAX_KW) for v in items if not isinstance(v, (dict, list))]
    return list(dict.fromkeys(k for k in out if k))[:MAX_KEYWORDS]


def first_value(obj: dict[str, Any], keys: Iterable[str]) -> Any:
    """The value of the first of ``keys`` (case-insensitive) that is present and non-empty."""
    lower = {str(k).casefold(): v for k, v in obj.items()}
    for k in keys:
        if k in lower and lower[k] not in (None, "", [], {}):
            return lower[k]
    return None


def norm_tag(tag: str) -> str:
    """A record tag normalised for lookup: ``"High-order Hyperedge"`` → ``high_order_hyperedge``."""
    t = tag.strip().strip("\"'`*()[]“”").strip().casefold()
    return re.sub(r"[\s\-]+", "_", t)
