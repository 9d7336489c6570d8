"""Reading short list answers: a JSON object, a list of strings, visual IDs (``E3``/``H1``).

Used for keyword and locate answers. Nothing here raises: garbage gives ``{}`` or ``[]``
and is logged at WARNING (under the ``hyperviz_core.rag.extract.parse.extraction`` logger).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

from ....idmap import IdMap
from .fields import MAX_NAME, NAME_KEYS, answer_text, clean, first_value
from .json_text import json_candidates, salvage_objects

__all__ = ["parse_id_list", "parse_json_list", "parse_json_object"]

log = logging.getLogger("hyperviz_core.rag.extract.parse.extraction")


def parse_json_object(text: Any) -> dict[str, Any]:
    """The first JSON object in a model answer (fenced or bare), or ``{}``; never raises."""
    try:
        for value in json_candidates(answer_text(text)):
            if isinstance(value, dict):
                return value
        objs = salvage_objects(answer_text(text))
        return objs[0] if objs else {}
    except Exception:
        log.warning("unparseable JSON object answer: %.200r", text)
        return {}


def _strings(items: Iterable[Any]) -> list[str]:
    out: list[str] = []
    for item in items:
        if isinstance(item, dict):
            item = first_value(item, (*NAME_KEYS, "keyword"))
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            s = clean(item, MAX_NAME)
            if s:
                out.append(s)
    return list(dict.fromkeys(out))


def parse_json_list(text: Any) -> list[str]:
    """A JSON list of strings from a model answer; ``[]`` (logged) on garbage.

    Accepts a bare list, a fenced list, or an object whose list values are concatenated
    (``{"keywords": [...]}``, ``{"high_level_keywords": [...], "low_level_keywords": [...]}``).
    Items may be strings, numbers or objects with a ``name``; duplicates are dropped.
    """
    try:
        if isinstance(text, list):
            return _strings(text)
        raw = answer_text(text)
        for value in json_candidates(raw):
            if isinstance(value, list):
                return _strings(value)
            if isinstance(value, dict):
                lists = [v for v in value.values() if isinstance(v, list)]
                if lists:
                    return _strings(x for lst in lists for x in lst)
        # a truncated list: take the complete quoted strings
        i = raw.find("[")
        if i >= 0:
            items = re.findall(r'"((?:[^"\\]|\\.)*)"', raw[i:])
            if items:
                return _strings(items)
    except Exception:
        log.exception("parse_json_list failed")
        return []
    log.warning("no JSON list in model answer: %.200r", text)
    return []


def parse_id_list(text: Any, id_map: IdMap, *, kind: str = "E") -> list[str]:
    """Visual IDs (``E3``) of ``kind`` named in a model answer and known to ``id_map``.

    Reads a JSON list (or ``{"entities": [...]}``) when present and it names IDs, else
    scans the whole text for ``E#`` tokens (so a citation such as ``[1]`` beside the IDs
    does not hide them). Unknown IDs and other kinds are dropped and logged. ``kind="H"``
    reads hyperedge IDs; ``kind=""`` keeps both. Order of first mention, no duplicates.

    >>> from hyperviz_core import Entity, Hypergraph
    >>> ids = IdMap.build(Hypergraph(entities=[Entity(name=n) for n in ("Ada", "Bo", "Cy")]))
    >>> parse_id_list('["E3", "E1"]', ids), parse_id_list("E1 and E3 [1]", ids)
    (['E3', 'E1'], ['E1', 'E3'])
    """
    try:
        raw = answer_text(text)
        rx = re.compile(r"\b([EH])\s?-?(\d{1,6})\b", re.I)
        items = parse_json_list(raw) if "[" in raw else []
        listed = list(rx.finditer(" ".join(items)))
        found = [f"{m.group(1).upper()}{int(m.group(2))}"
                 for m in (listed or rx.finditer(raw))]
        known = set(id_map.entities.values()) | set(id_map.hyperedges.values())
        out: list[str] = []
        unknown: list[str] = []
        for vid in dict.fromkeys(found):
            if kind and not vid.startswith(kind):
                continue
            (out if vid in known else unknown).append(vid)
        if unknown:
            log.warning("model named unknown visual ids %s (ignored)", unknown[:20])
        if not out:
            log.warning("no known %s IDs in model answer: %.200r", kind or "visual", text)
        return out
    except Exception:
        log.exception("parse_id_list failed")
        return []
