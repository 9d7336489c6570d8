"""Tolerant parsers for model output: extraction records, JSON lists and visual-ID lists.

Nothing here raises on model output: garbage gives an empty result (logged at WARNING for
list answers, counted in ``ChunkExtraction.skipped`` for extraction records).

Extraction formats, tried in order (:func:`parse_extraction`):

1. JSON — the whole answer, a fenced ```` ```json ```` block, or the first balanced
   ``{...}``/``[...]`` in the text: ``{"entities": [...], "hyperedges": [...]}`` (also
   ``relations``/``relationships``/``hyper_relations``/``edges``), or a list of records
   with a ``type`` field. Entities are ``{"name", "type", "description"}`` or bare strings;
   hyperedge members are ``members``/``entities``/``participants``/``nodes`` (or
   ``source``+``target``, ``head``+``tail``). Truncated JSON is salvaged object by object.
2. Delimited records (Hyper-RAG/HyperGraphRAG style)::

       ("entity"<|>NAME<|>TYPE<|>DESC)##("hyper-relation"<|>E1<|>E2<|>...<|>DESC<|>KEYWORDS<|>STRENGTH)<|COMPLETE|>

   Near-miss tags are accepted (``"Entity"``, ``relationship``, ``low_order_hyperedge``,
   ``High-order Hyperedge``, ...), as are `` | `` and ``<| >`` delimiters and newline or
   ``##`` record separators. Malformed records are skipped and counted.

Relation members are resolved **by name**, never by position alone: a member field that
names an entity of the same answer binds to it; a non-empty name the answer never declared
creates a new entity (type ``"entity"``, description from the relation) — models often
forget to declare an entity they relate, and dropping the relation would lose the fact. A
relation record with no member fields (HyperGraphRAG's ``("hyper-relation"<|>sentence<|>
score)``) gets as members the declared entities whose names occur in its sentence; it is
skipped if fewer than two do. Relations left with fewer than two members are skipped.

Strength 0–10 (Hyper-RAG) becomes ``weight`` in [0, 1]; default 1.0. Fields are truncated
(names 200, types 50, descriptions 2,000, keywords 100 characters; 20 keywords, 64 members,
1,000 entities and 1,000 hyperedges per answer; input 400,000 characters).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from typing import Any

from ..idmap import IdMap
from ..model import Entity, Hyperedge, normalize_key
from .types import ChunkExtraction

__all__ = ["parse_extraction", "parse_id_list", "parse_json_list", "parse_json_object"]

log = logging.getLogger(__name__)

MAX_INPUT = 400_000
MAX_NAME, MAX_TYPE, MAX_DESC, MAX_KW = 200, 50, 2000, 100
MAX_KEYWORDS, MAX_MEMBERS, MAX_ITEMS = 20, 64, 1000
_MAX_SALVAGE = 5000

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)(?:```|$)", re.S)
# no leading \s* in delimiters: it makes search() quadratic on long whitespace runs
_TUPLE_DELIM = re.compile(r"<\s*\|\s*>|<SEP>")
_PIPE_DELIM = re.compile(r"\|")
_RECORD_SPLIT = re.compile(r"##|\n+|\)\s*(?=\()")
_COMPLETE = re.compile(r"<\s*\|\s*COMPLETE\s*\|\s*>", re.I)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_JSON_START = re.compile(r"[{\[]")
_CTRL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

_ENTITY_TAGS = {"entity", "entities", "node", "ent", "named_entity", "key_entity"}
_REL_TAGS = {
    "hyper_relation", "hyperrelation", "relation", "relationship", "relations",
    "hyperedge", "hyper_edge", "edge", "low_order_hyperedge", "high_order_hyperedge",
    "low_order_relation", "high_order_relation", "n_ary_relation", "nary_relation",
    "low_level_hyperedge", "high_level_hyperedge", "fact",
}
_IGNORED_TAGS = {"content_keywords", "high_level_keywords", "low_level_keywords", "keywords",
                 "theme"}
_NAME_KEYS = ("name", "entity_name", "entity", "title", "label", "id", "text")
_TYPE_KEYS = ("type", "entity_type", "category", "kind", "label_type")
_DESC_KEYS = ("description", "desc", "summary", "sentence", "text", "fact", "relation")
_MEMBER_KEYS = ("members", "entities", "participants", "nodes", "entity_names", "arguments",
                "args", "entity_list", "related_entities")
_EDGE_LIST_KEYS = ("hyperedges", "hyper_relations", "relations", "relationships", "edges",
                   "facts", "hyperrelations", "hyper_edges")
_ENTITY_LIST_KEYS = ("entities", "nodes", "entity_list")


# ---------------------------------------------------------------------------- helpers
def _utf8(text: str) -> str:
    """Replace lone surrogates (from bad bytes or ``"\\ud800"`` escapes) so text encodes."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _clean(value: Any, limit: int) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        value = ", ".join(_clean(v, limit) for v in value)
    text = _CTRL.sub(" ", _utf8(str(value)))
    text = " ".join(text.split()).strip().strip("\"'`*“”‘’").strip()
    return text[:limit]


def _clean_name(value: Any) -> str:
    name = _clean(value, MAX_NAME * 2).lstrip("-•#>").strip().strip("\"'`*“”").strip()
    name = name.rstrip(".,;:").strip()
    return name[:MAX_NAME]


def _key(name: str) -> str | None:
    try:
        return normalize_key(name) if name else None
    except ValueError:
        return None


_STRENGTH_WORDS = {"very high": 1.0, "high": 0.9, "strong": 0.9, "medium": 0.6,
                   "moderate": 0.6, "low": 0.3, "weak": 0.3, "very low": 0.1}


def _weight(value: Any) -> float:
    word = str(value).strip().strip("\"'()").casefold()
    if word in _STRENGTH_WORDS:
        return _STRENGTH_WORDS[word]
    try:
        w = float(str(value).strip().strip("\"'()"))
    except (TypeError, ValueError):
        return 1.0
    if w != w or w < 0:  # NaN / negative
        return 1.0
    return min(w / 10.0, 1.0) if w > 1.0 else w


def _keywords(value: Any) -> list[str]:
    if isinstance(value, str):
        items: Iterable[Any] = re.split(r"[,;|]", value)
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return []
    out = [_clean(v, MAX_KW) for v in items if not isinstance(v, (dict, list))]
    return list(dict.fromkeys(k for k in out if k))[:MAX_KEYWORDS]


def _first(obj: dict[str, Any], keys: Iterable[str]) -> Any:
    lower = {str(k).casefold(): v for k, v in obj.items()}
    for k in keys:
        if k in lower and lower[k] not in (None, "", [], {}):
            return lower[k]
    return None


class _Builder:
    """Collects entities and pending relations, then resolves members by name."""

    def __init__(self, chunk_id: str, known: Iterable[Entity] = ()) -> None:
        self.chunk_id = chunk_id
        self.known = {e.key: e for e in known}
        self.entities: dict[str, Entity] = {}
        self.pending: list[tuple[list[str], str, list[str], float]] = []
        self.skipped = 0

    def entity(self, name: Any, etype: Any = "", desc: Any = "") -> str | None:
        clean = _clean_name(name)
        key = _key(clean)
        if key is None or (len(self.entities) >= MAX_ITEMS and key not in self.entities):
            self.skipped += 1
            return None
        t = _clean(etype, MAX_TYPE).casefold().replace(" ", "_") or "entity"
        ent = Entity(
            name=clean, type=t, description=_clean(desc, MAX_DESC), source_ids=[self.chunk_id]
        )
        self.entities[key] = self.entities[key].merged(ent) if key in self.entities else ent
        return key

    def relation(self, members: list[Any], desc: Any, keywords: Any, strength: Any) -> None:
        if len(self.pending) >= MAX_ITEMS:
            self.skipped += 1
            return
        names = [_clean_name(m.get("name") if isinstance(m, dict) else m) for m in members]
        self.pending.append(
            ([n for n in names if n][:MAX_MEMBERS], _clean(desc, MAX_DESC),
             _keywords(keywords), _weight(strength) if strength is not None else 1.0)
        )

    def _mentioned(self, text: str) -> list[str]:
        low = text.casefold()
        hits: list[tuple[int, str]] = []
        pool = {**self.known, **self.entities}
        for key, ent in list(pool.items())[:500]:
            m = re.search(r"(?<!\w)" + re.escape(ent.name.casefold()) + r"(?!\w)", low)
            if m:
                hits.append((m.start(), key))
        return [k for _, k in sorted(hits)]

    def build(self) -> ChunkExtraction:
        edges: dict[str, Hyperedge] = {}
        for names, desc, kws, weight in self.pending:
            if names:
                keys = []
                for n in names:
                    key = _key(n)
                    if key is not None and key not in self.entities and key not in self.known:
                        key = self.entity(n, "entity", desc)
                    if key is not None:
                        keys.append(key)
            else:
                keys = self._mentioned(desc)
            keys = list(dict.fromkeys(keys))
            if len(keys) < 2:
                self.skipped += 1
                continue
            edge = Hyperedge(members=keys, description=desc, keywords=kws, weight=weight,
                             source_ids=[self.chunk_id])
            edges[edge.id] = edges[edge.id].merged(edge) if edge.id in edges else edge
        return ChunkExtraction(
            chunk_id=self.chunk_id, entities=list(self.entities.values()),
            hyperedges=list(edges.values())[:MAX_ITEMS], skipped=self.skipped,
        )


# ---------------------------------------------------------------------------- JSON
def _json_candidates(text: str) -> list[Any]:
    """Decoded JSON values found in text: fences first, then the whole, then the first value."""
    found: list[Any] = []
    dec = json.JSONDecoder()
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for src in sources:
        src = src.strip()
        for attempt in (src, _TRAILING_COMMA.sub(r"\1", src)):
            try:
                found.append(json.loads(attempt))
                break
            except (ValueError, RecursionError):
                pass
            m = _JSON_START.search(attempt)
            if m is None:
                break
            try:
                value, _ = dec.raw_decode(attempt, m.start())
            except (ValueError, RecursionError):
                continue
            found.append(value)
            break
    return found


def _salvage_objects(text: str) -> list[dict[str, Any]]:
    """Complete ``{...}`` objects inside possibly truncated JSON, outermost first."""
    dec = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    pos, tries = 0, 0
    while tries < _MAX_SALVAGE:
        i = text.find("{", pos)
        if i < 0:
            break
        tries += 1
        try:
            value, end = dec.raw_decode(text, i)
        except (ValueError, RecursionError):
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
    return isinstance(tag, str) and _norm_tag(tag) in _REL_TAGS


def _add_json_relation(b: _Builder, obj: dict[str, Any]) -> None:
    members = _first(obj, _MEMBER_KEYS)
    if not isinstance(members, list):
        pairs = [("source", "target"), ("head", "tail"), ("src_id", "tgt_id")]
        members = next(([obj[a], obj[c]] for a, c in pairs if a in obj and c in obj), [])
    if isinstance(members, str):
        members = re.split(r"[|;,]", members)
    desc = _first(obj, ("description", "desc", "summary", "sentence", "fact", "text"))
    b.relation(list(members), desc or "", _first(obj, ("keywords", "keyword", "tags")),
               _first(obj, ("strength", "weight", "score", "confidence")))


def _add_json_entity(b: _Builder, obj: Any) -> None:
    if isinstance(obj, str):
        b.entity(obj)
    elif isinstance(obj, dict):
        b.entity(_first(obj, _NAME_KEYS), _first(obj, _TYPE_KEYS) or "",
                 _first(obj, _DESC_KEYS) or "")
    else:
        b.skipped += 1


def _from_json(b: _Builder, value: Any) -> bool:
    """Feed a decoded JSON value; False if it has no recognisable extraction shape."""
    if isinstance(value, dict):
        lower = {str(k).casefold(): v for k, v in value.items()}
        ents = next((lower[k] for k in _ENTITY_LIST_KEYS if isinstance(lower.get(k), list)), None)
        rels = next((lower[k] for k in _EDGE_LIST_KEYS if isinstance(lower.get(k), list)), None)
        if ents is None and rels is None:
            if _is_relation(value):
                _add_json_relation(b, value)
                return True
            if _first(value, _NAME_KEYS) is not None:
                _add_json_entity(b, value)
                return True
            return False
        for e in (ents or [])[: MAX_ITEMS * 2]:
            _add_json_entity(b, e)
        for r in (rels or [])[: MAX_ITEMS * 2]:
            if isinstance(r, dict):
                _add_json_relation(b, r)
            elif isinstance(r, list):
                b.relation(r, "", None, None)
            else:
                b.skipped += 1
        return True
    if isinstance(value, list) and value:
        ok = False
        for item in value[: MAX_ITEMS * 2]:
            if isinstance(item, dict) and _is_relation(item):
                _add_json_relation(b, item)
                ok = True
            elif isinstance(item, dict) and _first(item, _NAME_KEYS) is not None:
                _add_json_entity(b, item)
                ok = True
            else:
                b.skipped += 1
        return ok
    return False


# ---------------------------------------------------------------------------- records
def _norm_tag(tag: str) -> str:
    t = tag.strip().strip("\"'`*()[]“”").strip().casefold()
    return re.sub(r"[\s\-]+", "_", t)


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
    return bool(re.fullmatch(r"[-+]?\d+(?:\.\d+)?", s)) or s.casefold() in _STRENGTH_WORDS


def _namelike(s: str) -> bool:
    return 0 < len(s) <= MAX_NAME and len(s.split()) <= 12


def _add_record_relation(b: _Builder, fields: list[str], known: set[str]) -> None:
    """Hyper-RAG layout ``members..., description, keywords[, strength]``, members by name."""
    strength: str | None = None
    if fields and _looks_numeric(fields[-1]):
        strength = fields.pop()
    fields = [f for f in fields if f]
    if not fields:
        b.skipped += 1
        return
    member_idx = [i for i, f in enumerate(fields) if _key(_clean_name(f)) in known]
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


def _from_records(b: _Builder, text: str) -> bool:
    text = _COMPLETE.sub("\n", text)
    records = [r for r in _RECORD_SPLIT.split(text) if r and r.strip()]
    parsed: list[tuple[str, list[str]]] = []
    for rec in records[: MAX_ITEMS * 4]:
        fields = _split_fields(rec)
        if len(fields) < 2:
            if "<|>" in rec or ("(" in rec and "|" in rec):
                b.skipped += 1
            continue
        parsed.append((_norm_tag(fields[0]), fields[1:]))
    if not parsed:
        return False
    for tag, fields in parsed:
        if tag in _ENTITY_TAGS:
            b.entity(fields[0], fields[1] if len(fields) > 1 else "",
                     fields[2] if len(fields) > 2 else "")
    known = set(b.entities) | set(b.known)
    for tag, fields in parsed:
        if tag in _REL_TAGS or "relation" in tag or "hyperedge" in tag:
            _add_record_relation(b, list(fields), known)
        elif tag not in _ENTITY_TAGS and tag not in _IGNORED_TAGS:
            b.skipped += 1
    return True


# ---------------------------------------------------------------------------- public
def _as_text(text: Any) -> str:
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    text = _utf8(str(text)[:MAX_INPUT])
    return _THINK.sub("", text)


def parse_extraction(
    text: Any, chunk_id: str, *, known_entities: Iterable[Entity] = ()
) -> ChunkExtraction:
    """Parse an extraction answer (JSON first, delimited records second); never raises.

    ``text`` may also be ``None``, bytes, or an already-decoded dict/list (structured
    output). See the module docstring for the accepted formats and the member rule.
    ``known_entities`` (e.g. from an earlier gleaning round) resolve relation members by
    name without being re-declared; they are not repeated in the result's ``entities``.
    """
    b = _Builder(chunk_id, known_entities)
    try:
        if isinstance(text, (dict, list)):
            _from_json(b, text)
            return b.build()
        raw = _as_text(text)
        for value in _json_candidates(raw):
            if _from_json(b, value):
                return b.build()
        if _from_records(b, raw):
            return b.build()
        recognised = False
        for obj in _salvage_objects(raw):
            recognised = _from_json(b, obj) or recognised
        if raw.strip() and (not recognised or _JSON_START.search(raw)):
            b.skipped += 1  # unrecognised answer, or the truncated tail of a JSON answer
        return b.build()
    except Exception:  # a bug here must never kill an indexing run
        log.exception("parse_extraction failed on chunk %s; returning what was parsed", chunk_id)
        try:
            return b.build()
        except Exception:
            return ChunkExtraction(chunk_id=chunk_id, skipped=b.skipped + 1)


def parse_json_object(text: Any) -> dict[str, Any]:
    """The first JSON object in a model answer (fenced or bare), or ``{}``; never raises."""
    try:
        for value in _json_candidates(_as_text(text)):
            if isinstance(value, dict):
                return value
        objs = _salvage_objects(_as_text(text))
        return objs[0] if objs else {}
    except Exception:
        log.warning("unparseable JSON object answer: %.200r", text)
        return {}


def _strings(items: Iterable[Any]) -> list[str]:
    out: list[str] = []
    for item in items:
        if isinstance(item, dict):
            item = _first(item, (*_NAME_KEYS, "keyword"))
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            s = _clean(item, MAX_NAME)
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
        raw = _as_text(text)
        for value in _json_candidates(raw):
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

    Reads a JSON list (or ``{"entities": [...]}``) when present, else scans the text for
    ``E#`` tokens. Unknown IDs and other kinds are dropped and logged. ``kind="H"`` reads
    hyperedge IDs; ``kind=""`` keeps both. Order of first mention, no duplicates.
    """
    try:
        raw = _as_text(text)
        items = parse_json_list(raw) if "[" in raw else []
        source = " ".join(items) if items else raw
        rx = re.compile(r"\b([EH])\s?-?(\d{1,6})\b", re.I)
        found = [f"{m.group(1).upper()}{int(m.group(2))}" for m in rx.finditer(source)]
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
