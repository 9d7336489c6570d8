"""Reading delimited extraction records (Hyper-RAG/HyperGraphRAG style) from model answers.

``("entity"<|>NAME<|>TYPE<|>DESC)##("hyper-relation"<|>E1<|>...<|>DESC<|>KEYWORDS<|>STRENGTH)``
and its near misses (other tag spellings, `` | `` or ``<| >`` delimiters, newline or ``##``
separators); see :mod:`.extraction`. :func:`from_records` feeds them to an
:class:`~.builder.ExtractionBuilder`, counting malformed records.
"""

from __future__ import annotations

import re

from .builder import ExtractionBuilder
from .fields import (
    MAX_ITEMS,
    MAX_NAME,
    REL_TAGS,
    STRENGTH_WORDS,
    clean_name,
    name_key,
    norm_tag,
)

__all__ = ["from_records"]

# no leading \s* in delimiters: it makes search() quadratic on long whitespace runs
_TUPLE_DELIM = re.compile(r"<\s*\|\s*>|<SEP>")
_PIPE_DELIM = re.compile(r"\|")
_RECORD_SPLIT = re.compile(r"##|\n+|\)\s*(?=\()")
_COMPLETE = re.compile(r"<\s*\|\s*COMPLETE\s*\|\s*>", re.I)

_ENTITY_TAGS = {"entity", "entities", "node", "ent", "named_entity", "key_entity"}
_IGNORED_TAGS = {"content_keywords", "high_level_keywords", "low_level_keywords", "keywords",
                "theme"}


def _split_fields(record: str) -> list[str]:
    body = record.strip().lstrip("-*•0123456789.) ").strip()
    if body.startswith("("):
        body = body[1:]
    body = body.rstrip(",;. ")
    if body.endswith(")"):
        body = body[:-1]
    if _TUPLE_DELIM.search(body):
        parts = _TUPLE_DELIM.split(body)
    elif "|" in body:
        parts = _PIPE_DELIM.split(body)
    else:
        return []
    return [p.strip().strip("\"'`“”").strip() for p in parts]


def _looks_numeric(s: str) -> bool:
    s = s.strip().strip("\"'()")
    return bool(re.fullmatch(r"[-+]?\d+(?:\.\d+)?", s)) or s.casefold() in STRENGTH_WORDS


def _namelike(s: str) -> bool:
    return 0 < len(s) <= MAX_NAME and len(s.split()) <= 12


def _add_relation(b: ExtractionBuilder, fields: list[str], known: set[str]) -> None:
    """Hyper-RAG layout ``members..., description, keywords[, strength]``, members by name."""
    strength: str | None = None
    if fields and _looks_numeric(fields[-1]):
        strength = fields.pop()
    fields = [f for f in fields if f]
    if not fields:
        b.skipped += 1
        return
    member_idx = [i for i, f in enumerate(fields) if name_key(clean_name(f)) in known]
    members: list[str]
    if member_idx:
        last = member_idx[-1]
        members = [f for i, f in enumerate(fields[: last + 1]) if i in member_idx or _namelike(f)]
        rest = fields[last + 1 :]
        extra = max(len(rest) - 2, 0)  # undeclared names listed after the known members
        members += [f for f in rest[:extra] if _namelike(f)]
        rest = rest[extra:]
        desc = rest[0] if rest else ""
        kws = rest[1] if len(rest) > 1 else ""
    elif len(fields) >= 3:
        members, desc, kws = fields[:-2], fields[-2], fields[-1]
    elif len(fields) == 2 and all(len(f.split()) <= 6 for f in fields):
        members, desc, kws = fields, "", ""
    else:  # HyperGraphRAG: a sentence only; members = declared names it mentions
        members, desc, kws = [], max(fields, key=len), ""
    b.relation(members, desc, kws, strength)


def from_records(b: ExtractionBuilder, text: str) -> bool:
    """Feed the delimited records of ``text``; False if it holds none."""
    text = _COMPLETE.sub("\n", text)
    records = [r for r in _RECORD_SPLIT.split(text) if r and r.strip()]
    parsed: list[tuple[str, list[str]]] = []
    for rec in records[: MAX_ITEMS * 4]:
        fields = _split_fields(rec)
        if len(fields) < 2:
            if "<|>" in rec or ("(" in rec and "|" in rec):
                b.skipped += 1
            continue
        parsed.append((norm_tag(fields[0]), fields[1:]))
    if not parsed:
        return False
    for tag, fields in parsed:
        if tag in _ENTITY_TAGS:
            b.entity(fields[0], fields[1] if len(fields) > 1 else "",
                     fields[2] if len(fields) > 2 else "")
    known = set(b.entities) | set(b.known)
    for tag, fields in parsed:
        if tag in REL_TAGS or "relation" in tag or "hyperedge" in tag:
            _add_relation(b, list(fields), known)
        elif tag not in _ENTITY_TAGS and tag not in _IGNORED_TAGS:
            b.skipped += 1
    return True
