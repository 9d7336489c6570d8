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

The pieces: :mod:`.json_text` (JSON), :mod:`.records` (delimited records), :mod:`.builder`
(the member rule), :mod:`.fields` (limits and field cleaning) and :mod:`.lists` (JSON objects,
string lists and visual-ID lists; re-exported here).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from ....model import Entity
from ...types import ChunkExtraction
from .builder import ExtractionBuilder
from .fields import MAX_DESC as MAX_DESC
from .fields import MAX_INPUT as MAX_INPUT
from .fields import MAX_ITEMS as MAX_ITEMS
from .fields import MAX_KEYWORDS as MAX_KEYWORDS
from .fields import MAX_KW as MAX_KW
from .fields import MAX_MEMBERS as MAX_MEMBERS
from .fields import MAX_NAME as MAX_NAME
from .fields import MAX_TYPE as MAX_TYPE
from .fields import answer_text
from .json_text import JSON_START, from_json, json_candidates, salvage_objects
from .lists import parse_id_list, parse_json_list, parse_json_object
from .records import from_records

__all__ = ["parse_extraction", "parse_id_list", "parse_json_list", "parse_json_object"]

log = logging.getLogger(__name__)


def parse_extraction(
    text: Any, chunk_id: str, *, known_entities: Iterable[Entity] = ()
) -> ChunkExtraction:
    """Parse an extraction answer (JSON first, delimited records second); never raises.

    ``text`` may also be ``None``, bytes, or an already-decoded dict/list (structured
    output). See the module docstring for the accepted formats and the member rule.
    ``known_entities`` (e.g. from an earlier gleaning round) resolve relation members by
    name without being re-declared; they are not repeated in the result's ``entities``.
    """
    b = ExtractionBuilder(chunk_id, known_entities)
    try:
        if isinstance(text, (dict, list)):
            from_json(b, text)
            return b.build()
        raw = answer_text(text)
        for value in json_candidates(raw):
            if from_json(b, value):
                return b.build()
        if from_records(b, raw):
            return b.build()
        recognised = False
        for obj in salvage_objects(raw):
            recognised = from_json(b, obj) or recognised
        if raw.strip() and (not recognised or JSON_START.search(raw)):
            b.skipped += 1  # unrecognised answer, or the truncated tail of a JSON answer
        return b.build()
    except Exception:  # a bug here must never kill an indexing run
        log.exception("parse_extraction failed on chunk %s; returning what was parsed", chunk_id)
        try:
            return b.build()
        except Exception:
            return ChunkExtraction(chunk_id=chunk_id, skipped=b.skipped + 1)
