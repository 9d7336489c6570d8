"""Finding JSON in model answers and reading extraction records from decoded JSON.

:func:`json_candidates` decodes what a model wrote (fenced blocks, the whole answer, the
first balanced value; trailing commas forgiven); :func:`salvage_objects` recovers the
complete objects of a truncated answer; :func:`from_json` feeds a decoded value of any of
the accepted shapes (see :mod:`hyperviz_core.rag.extract.parse.extraction`) to an
:class:`~hyperviz_core.rag.extract.parse.builder.ExtractionBuilder`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .builder import ExtractionBuilder
from .fields import MAX_ITEMS, NAME_KEYS, REL_TAGS, first_value, norm_tag

__all__ = ["JSON_START", "fenced_blocks", "from_json", "json_candidates", "salvage_objects",
           "without_trailing_commas"]

#: Where a JSON object or list may start.
JSON_START = re.compile(r"[{\[]")
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)(?:```|$)", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_MAX_SALVAGE = 5000
#: the characters the failed decodes of :func:`salvage_objects` may read, per character
_SCAN_FACTOR = 8

_TYPE_KEYS = ("type", "entity_type", "category", "kind", "label_type")
_DESC_KEYS = ("description", "desc", "summary", "sentence", "text", "fact", "relation")
_MEMBER_KEYS = ("members", "entities", "participants", "nodes", "entity_names", "arguments",
                "args", "entity_list", "related_entities")
_EDGE_LIST_KEYS = ("hyperedges", "hyper_relations", "relations", "relationships", "edges",
                   "facts", "hyperrelations", "hyper_edges")
_ENTITY_LIST_KEYS = ("entities", "nodes", "entity_list")


def fenced_blocks(text: str) -> list[str]:
    r"""The bodies of the code fences in ``text`` (an unclosed one runs to the end).

    >>> fenced_blocks('Sure:\n```json\n["a"]\n```\nand ```\n[1, 2')
    ['["a"]\n', '[1, 2']
    """
    return [m.group(1) for m in _FENCE.finditer(text)]


def without_trailing_commas(text: str) -> str:
    """``text`` with the commas before a closing ``}`` or ``]`` dropped (a model's
    JavaScript habit, which JSON refuses).

    >>> without_trailing_commas('{"a": [1, 2,], }')
    '{"a": [1, 2]}'
    """
    return _TRAILING_COMMA.sub(r"\1", text)


def json_candidates(text: str) -> list[Any]:
    """Decoded JSON values found in text: fences first, then the whole, then the first value."""
    found: list[Any] = []
    dec = json.JSONDecoder()
    sources = [*fenced_blocks(text), text]
    for src in sources:
        src = src.strip()
        for attempt in (src, without_trailing_commas(src)):
            try:
                found.append(json.loads(attempt))
                break
            except (ValueError, RecursionError):
                pass
            m = JSON_START.search(attempt)
            if m is None:
                break
            try:
                value, _ = dec.raw_decode(attempt, m.start())
            except (ValueError, RecursionError):
                continue
            found.append(value)
            break
    return found


def salvage_objects(text: str) -> list[dict[str, Any]]:
    """Complete ``{...}`` objects inside possibly truncated JSON, outermost first.

    The failed attempts may read :data:`_SCAN_FACTOR` times the text at most: a truncated
    answer costs about twice its length (the outer object fails at the end, the inner ones
    decode), while one nesting an unclosed object in every object would be read once per
    ``{`` (quadratic in the answer's length)."""
    dec = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    pos, tries, budget = 0, 0, _SCAN_FACTOR * len(text)
    while tries < _MAX_SALVAGE and budget > 0:
        i = text.find("{", pos)
        if i < 0:
            break
        tries += 1
        try:
            value, end = dec.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            budget -= exc.pos - i + 1
            pos = i + 1
            continue
        except (ValueError, RecursionError):
            budget -= len(text) - i
            pos = i + 1
            continue
        if isinstance(value, dict):
            out.append(value)
        pos = end
    return out


def _is_relation(obj: dict[str, Any]) -> bool:
    lower = {str(k).casefold(): v for k, v in obj.items()}
    if any(isinstance(lower.get(k), list) for k in _MEMBER_KEYS):
        return True
    if isinstance(lower.get("members"), str) or isinstance(lower.get("related_entities"), str):
        return True
    if {"source", "target"} <= lower.keys() or {"head", "tail"} <= lower.keys():
        return True
    tag = lower.get("type") or lower.get("record") or lower.get("kind") or ""
    return isinstance(tag, str) and norm_tag(tag) in REL_TAGS


def _add_relation(b: ExtractionBuilder, obj: dict[str, Any]) -> None:
    members = first_value(obj, _MEMBER_KEYS)
    if isinstance(members, str):  # "Marie Curie, Paris": one string of names (or "甲，乙")
        members = re.split(r"[|;,，、；｜]", members)
    if not isinstance(members, list):
        pairs = [("source", "target"), ("head", "tail"), ("src_id", "tgt_id")]
        members = next(([obj[a], obj[c]] for a, c in pairs if a in obj and c in obj), [])
    desc = first_value(obj, ("description", "desc", "summary", "sentence", "fact", "text"))
    b.relation(list(members), desc or "", first_value(obj, ("keywords", "keyword", "tags")),
               first_value(obj, ("strength", "weight", "score", "confidence")))


def _add_entity(b: ExtractionBuilder, obj: Any) -> None:
    if isinstance(obj, str):
        b.entity(obj)
    elif isinstance(obj, dict):
        b.entity(first_value(obj, NAME_KEYS), first_value(obj, _TYPE_KEYS) or "",
                 first_value(obj, _DESC_KEYS) or "")
    else:
        b.skipped += 1


def from_json(b: ExtractionBuilder, value: Any) -> bool:
    """Feed a decoded JSON value; False if it has no recognisable extraction shape."""
    if isinstance(value, dict):
        lower = {str(k).casefold(): v for k, v in value.items()}
        ents = next((lower[k] for k in _ENTITY_LIST_KEYS if isinstance(lower.get(k), list)), None)
        rels = next((lower[k] for k in _EDGE_LIST_KEYS if isinstance(lower.get(k), list)), None)
        if ents is None and rels is None:
            if _is_relation(value):
                _add_relation(b, value)
                return True
            if first_value(value, NAME_KEYS) is not None:
                _add_entity(b, value)
                return True
            return False
        for e in (ents or [])[: MAX_ITEMS * 2]:
            _add_entity(b, e)
        for r in (rels or [])[: MAX_ITEMS * 2]:
            if isinstance(r, dict):
                _add_relation(b, r)
            elif isinstance(r, list):
                b.relation(r, "", None, None)
            else:
                b.skipped += 1
        return True
    if isinstance(value, list) and value:
        ok = False
        for item in value[: MAX_ITEMS * 2]:
            if isinstance(item, dict) and _is_relation(item):
                _add_relation(b, item)
                ok = True
            elif isinstance(item, dict) and first_value(item, NAME_KEYS) is not None:
                _add_entity(b, item)
                ok = True
            else:
                b.skipped += 1
        return ok
    return False
