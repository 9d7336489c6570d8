"""Reading short list answers: a JSON object, a list of strings, visual IDs (``E3``/``H1``).

Used for keyword and locate answers. Nothing here raises: garbage gives ``{}`` or ``[]``
and is logged at WARNING (under the ``hyperviz_core.rag.extract.parse.extraction`` logger).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from ....idmap import IdMap
from ....items import EmptyNameError, normalize_key
from .answer_list import answer_items
from .fields import MAX_NAME, NAME_KEYS, answer_text, clean, first_value
from .json_text import json_candidates, salvage_objects

__all__ = ["parse_id_list", "parse_json_list", "parse_json_object", "read_ids", "scan_ids"]

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

    Accepts a bare list, a fenced list, a list after a short lead-in (``Keywords: [...]``,
    ``Sure! [...]``), or an object whose list values are concatenated (``{"keywords":
    [...]}``, ``{"high_level_keywords": [...], "low_level_keywords": [...]}``); a list cut
    short gives its complete strings. Items may be strings, numbers or objects with a
    ``name``; duplicates are dropped. A bracket inside prose is no list (a citation ``[1]``,
    ``[radium]``): the answer gives ``[]`` and the caller falls back (see
    :mod:`~hyperviz_core.rag.extract.parse.answer_list`).

    >>> parse_json_list('Keywords: ["radium", "Marie Curie"]')
    ['radium', 'Marie Curie']
    >>> parse_json_list('The keywords are "radium" and "Marie Curie" [1]')
    []
    """
    try:
        if isinstance(text, list):
            return _strings(text)
        items = answer_items(answer_text(text))
        if items is not None:
            return _strings(items)
    except Exception:
        log.exception("parse_json_list failed")
        return []
    log.warning("no JSON list in model answer: %.200r", text)
    return []


def _answer_strings(raw: str) -> list[str]:
    """The strings of the list ``raw`` answers with (:func:`parse_json_list` without its
    warning: a locate answer without a list is read for IDs instead)."""
    try:
        return _strings(answer_items(raw) or [])
    except Exception:
        log.exception("reading the list of a model answer failed")
        return []


#: a visual ID: ``E3``, ``e 3``, ``E-3``
_ID = re.compile(r"\b([EH])\s?-?(\d{1,6})\b", re.I)
#: a range of visual IDs: ``E1-E3``, ``E1–3``, ``E2 to E5``, ``H1..H4``
_RANGE = re.compile(r"\b([EH])\s?-?(\d{1,6})\s*(?:[-–—]\s*(?:\1\s?-?)?|(?:\.\.|to)\s*\1\s?-?)"
                    r"(\d{1,6})\b", re.I)
#: a visual ID as an answer's citation: ``E3`` written as the prompt wrote it (a capital, no
#: space or hyphen), not inside a word, a tag (``<h1>``) or a number (``E1.5``)
_CITED_ID = re.compile(r"(?<![A-Za-z0-9_.])(?<!</)([EH])(\d{1,6})(?![A-Za-z0-9_>]|[.\-–]\d)")
_CITED_RANGE = re.compile(r"(?<![A-Za-z0-9_.])(?<!</)([EH])(\d{1,6})\s*(?:[-–—]\s*\1?|(?:\.\.|to)"
                          r"\s*\1)(\d{1,6})(?![A-Za-z0-9_>]|\.\d)")


def _key_of(text: str) -> str | None:
    """The entity key ``text`` names (:func:`~hyperviz_core.items.normalize_key`: NFKC,
    case-folded, white space collapsed), None for an empty name."""
    try:
        return normalize_key(text)
    except EmptyNameError:
        return None


def _expand(text: str, known: set[str], *, ends: bool = False,
            ranges: re.Pattern[str] = _RANGE, widest: int | None = None) -> str:
    """``text`` with each range of IDs written as the IDs of it that ``known`` holds (a range
    none of whose IDs is known is left as written); ``ends``: with the range's ends that
    ``known`` does not hold after them (``E1-E500`` of twelve drawn names ``E500`` too);
    ``widest``: a range whose end is a bare number (``H1-2024``) reaching further than this
    is no range."""
    def ids(m: re.Match[str]) -> str:
        kind, lo, hi = m.group(1).upper(), int(m.group(2)), int(m.group(3))
        if widest is not None and hi - lo > widest and m.group().upper().count(kind) < 2:
            return m.group()
        inside = sorted((v for v in known if v[0] == kind and lo <= int(v[1:]) <= hi),
                        key=lambda v: int(v[1:]))
        if ends:
            inside += [v for v in (f"{kind}{lo}", f"{kind}{hi}") if v not in known]
        return ", ".join(inside) if lo < hi and inside else m.group()
    return ranges.sub(ids, text)


def scan_ids(text: str, known: set[str], *, ends: bool = False,
             strict: bool = False) -> list[str]:
    """Every ``E#``/``H#`` written in ``text`` (a range of IDs read as those of it that
    ``known`` holds, and with ``ends`` its ends that ``known`` does not hold), in order of
    first mention, no duplicates; nothing is parsed as JSON. ``strict`` (an answer's
    citations, in running text): only IDs written as the prompt wrote them, a capital
    letter against the number, not inside a Latin word, a tag or a decimal (so ``E 400``,
    ``E-2 Hawkeye``, ``<h1>``, ``E1.5`` and ``H1-2024`` are no IDs; ``E1 visa`` and the
    ``H2`` of ``H2 2023`` still are).

    >>> scan_ids("E2 and H1-H3, then e2 again", {"H1", "H2", "H3"})
    ['E2', 'H1', 'H2', 'H3']
    >>> scan_ids("H1-H9", {"H1", "H2"}, ends=True)
    ['H1', 'H2', 'H9']
    >>> scan_ids("(E2, H1-H2) e3, E 4, E-5, <h1>, E1.5, H1-2024", {"H1", "H2"}, strict=True)
    ['E2', 'H1', 'H2']
    >>> scan_ids("E1-E500 and H1-3", {"E1", "E2", "H1", "H2", "H3"}, ends=True, strict=True)
    ['E1', 'E2', 'E500', 'H1', 'H2', 'H3']
    >>> scan_ids("E1/E2 (H1/H3); エイダはE4とE5", set(), strict=True)
    ['E1', 'E2', 'H1', 'H3', 'E4', 'E5']
    """
    ids, ranges = (_CITED_ID, _CITED_RANGE) if strict else (_ID, _RANGE)
    text = _expand(text, known, ends=ends, ranges=ranges, widest=50 if strict else None)
    return list(dict.fromkeys(f"{m.group(1).upper()}{int(m.group(2))}"
                              for m in ids.finditer(text)))


def read_ids(text: Any, id_map: IdMap, *, kind: str = "E",
             names: Mapping[str, str] | None = None) -> tuple[list[str], list[str]]:
    """The known and the unknown visual IDs of ``kind`` a model answer names (see
    :func:`parse_id_list`), each in order of first mention, no duplicates."""
    raw = unicodedata.normalize("NFKC", answer_text(text))  # full-width Ｅ２ is E2
    known = set(id_map.entities.values()) | set(id_map.hyperedges.values())
    found: list[str] = []
    for item in _answer_strings(raw) if "[" in raw else []:
        ids = [f"{m.group(1).upper()}{int(m.group(2))}"
               for m in _ID.finditer(_expand(item, known))]
        key = _key_of(item)
        named = (names or {}).get(key) if key else None
        found += ids or ([named] if named else [])
    if not found:  # no list, or one naming nothing: the IDs anywhere in the text
        found = scan_ids(raw, known)
    wanted = [v for v in dict.fromkeys(found) if not kind or v.startswith(kind)]
    return [v for v in wanted if v in known], [v for v in wanted if v not in known]


def parse_id_list(text: Any, id_map: IdMap, *, kind: str = "E",
                  names: Mapping[str, str] | None = None) -> list[str]:
    """Visual IDs (``E3``) of ``kind`` named in a model answer and known to ``id_map``.

    Reads a JSON list (or ``{"entities": [...]}``) when present and it names IDs, else
    scans the whole text for ``E#`` tokens (so a citation such as ``[1]`` beside the IDs
    does not hide them). The answer is NFKC-folded first (full-width ``Ｅ２`` is ``E2``); a
    range (``E1-E3``, ``E2 to E5``) stands for the IDs of it that ``id_map`` knows; a list
    item that names no ID but the key of an entity in ``names`` (entity key → its ID; case,
    width and spacing aside)
    stands for that ID. Unknown IDs and other kinds are dropped and logged. ``kind="H"``
    reads hyperedge IDs; ``kind=""`` keeps both. Order of first mention, no duplicates.

    >>> from hyperviz_core import Entity, Hypergraph
    >>> ids = IdMap.build(Hypergraph(entities=[Entity(name=n) for n in ("Ada", "Bo", "Cy")]))
    >>> parse_id_list('["E3", "E1"]', ids), parse_id_list("E1 and E3 [1]", ids)
    (['E3', 'E1'], ['E1', 'E3'])
    >>> parse_id_list("E1-E3", ids), parse_id_list('["bo"]', ids, names={"bo": "E2"})
    (['E1', 'E2', 'E3'], ['E2'])
    """
    try:
        out, unknown = read_ids(text, id_map, kind=kind, names=names)
        if unknown:
            log.warning("model named unknown visual ids %s (ignored)", unknown[:20])
        if not out:
            log.warning("no known %s IDs in model answer: %.200r", kind or "visual", text)
        return out
    except Exception:
        log.exception("parse_id_list failed")
        return []
