"""Public data types of the VizRAG engine (documents, chunks, extraction results).

These pydantic models are shared by chunking, extraction, the store, indexing and retrieval.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..model import Entity, Hyperedge
from ..surrogates import surrogate_at
from ..unitext import nfc, plain_text

__all__ = [
    "Chunk",
    "ChunkExtraction",
    "ChunkTheme",
    "Document",
    "content_hash",
    "json_safe_metadata",
    "nfc",
    "passage_text",
]


def content_hash(text: str, *, length: int = 16) -> str:
    """Hex SHA-256 prefix of ``text`` (UTF-8); the basis of document and chunk ids."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def json_safe_metadata(meta: Mapping[Any, Any]) -> dict[str, Any]:
    """``meta`` with string keys, sorted, made JSON-safe value by value (what a framework
    document's metadata becomes in the store): mappings, lists and tuples are converted
    item by item, sets become sorted lists, a date, time or datetime its ISO 8601
    ``isoformat()`` (as a filter's date value is compared), anything else JSON cannot hold (a
    NaN or an infinity included) its ``str()``, with a default ``repr``'s memory address left
    out, so the same metadata gives the same stored value (and document hash) in every
    process.

    >>> import datetime
    >>> json_safe_metadata({"year": 1903, "when": datetime.date(1903, 12, 10)})
    {'when': '1903-12-10', 'year': 1903}
    >>> json_safe_metadata({"tags": {"b", "a"}, "seen": [datetime.date(1903, 1, 2)]})
    {'seen': ['1903-01-02'], 'tags': ['a', 'b']}
    >>> json_safe_metadata({"at": datetime.datetime(2024, 1, 2, 3, 4, 5)})
    {'at': '2024-01-02T03:04:05'}
    >>> json_safe_metadata({"owner": object()})
    {'owner': '<object object>'}
    >>> json_safe_metadata({"score": float("nan"), "best": float("inf")})
    {'best': 'inf', 'score': 'nan'}

    Metadata nested more than :data:`MAX_METADATA_DEPTH` levels deep is a ``ValueError``
    (untrusted input: it would exhaust Python's recursion limit).
    """
    return _json_safe_map(meta, 0)


#: how deep mappings and lists may nest in a document's metadata
MAX_METADATA_DEPTH = 100


def _json_safe_map(meta: Mapping[Any, Any], depth: int) -> dict[str, Any]:
    return {str(key): _json_safe(value, depth)
            for key, value in sorted(meta.items(), key=lambda kv: str(kv[0]))}


_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+>")


def _json_safe(value: Any, depth: int) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # 'nan', 'inf', '-inf': strict JSON holds none of them
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, Mapping | list | tuple | set | frozenset) and depth >= MAX_METADATA_DEPTH:
        raise ValueError(f"the metadata is nested more than {MAX_METADATA_DEPTH} levels deep")
    if isinstance(value, Mapping):
        return _json_safe_map(value, depth + 1)
    if isinstance(value, list | tuple):
        return [_json_safe(v, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        items = [_json_safe(v, depth + 1) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()  # what a filter's date is compared as (its str() has a space)
    return _ADDRESS.sub(">", str(value))


def _refuse_surrogate(field: str, value: str) -> None:
    """A ``ValueError`` naming ``field`` and where it holds a lone surrogate (not valid
    Unicode), as the indexer names it."""
    at = surrogate_at(value)
    if at is not None:
        raise ValueError(f"field {field!r} holds a lone surrogate {value[at]!a} at character "
                         f"{at + 1} (not valid Unicode; fix the input's encoding)")


def passage_text(title: str, text: str) -> str:
    """A retrieved passage as ranked and read: ``title + newline + text``, the title once
    (left out when the text already starts with it).

    >>> passage_text("Ada", "Ada Falk was a printer."), passage_text("Ada", "She printed.")
    ('Ada Falk was a printer.', 'Ada\\nShe printed.')
    """
    if not title or text.lstrip().startswith(title):
        return text
    return f"{title}\n{text}"


class Document(BaseModel):
    """A source document. ``id`` defaults to ``doc-<hash of title+text>``.

    ``one_chunk=True``: the text is already a chunk (a framework splitter's node): it is
    indexed as one chunk whose id is the document's, whatever its length, never windowed
    again. An unknown field (``source=``, a misspelt ``titel=``) is an error: put what is
    not a field in ``metadata``.
    """

    model_config = ConfigDict(extra="forbid")

    id: str = ""
    text: str
    title: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    one_chunk: bool = False

    @model_validator(mode="before")
    @classmethod
    def _id_of_the_text_given(cls, data: Any) -> Any:
        """The default id hashes title and text as given, before :meth:`_composed`: a
        document without an id keeps the id a store made before NFC holds for it."""
        if isinstance(data, dict) and not data.get("id") and isinstance(data.get("text"), str):
            title = data.get("title", "")
            if isinstance(title, str):
                for field in ("title", "text"):  # the hash below could not encode it
                    _refuse_surrogate(field, title if field == "title" else data["text"])
                data = {**data, "id": "doc-" + content_hash(title + "\x1f" + data["text"])}
        return data

    @field_validator("metadata")
    @classmethod
    def _json_safe(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Metadata JSON cannot hold made JSON-safe as the store would keep it
        (:func:`json_safe_metadata`: a set as a sorted list, a date or another object as its
        ``str()``); a set failed the document at insert with json's "Object of type set is
        not JSON serializable". Metadata ``json.dumps`` takes (NaN included) stays as it is."""
        try:
            json.dumps(value)
        except (TypeError, ValueError, RecursionError):
            return json_safe_metadata(value)
        return value

    @field_validator("text", "title")
    @classmethod
    def _composed(cls, value: str) -> str:
        """Text as a reader sees it (:func:`~hyperviz_core.unitext.plain_text`): composed
        (NFC: ``"e\u0301"`` from macOS file names or PDFs is stored as ``"\u00e9"``), soft
        hyphens dropped and ligatures (``ﬁ``) spelt out, so words, names and queries match
        whichever form they were written in."""
        return plain_text(value)

    def model_post_init(self, __context: Any) -> None:
        if not self.id:
            self.id = "doc-" + content_hash(self.title + "\x1f" + self.text)

    @property
    def hash(self) -> str:
        """Content hash of title, text and metadata: re-inserting an identical document is a
        no-op, a change of any of the three (metadata alone included) replaces it.

        A document without metadata hashes its title and text only, as stores written before
        metadata counted hold (they stay unchanged); ``one_chunk`` counts when set. Metadata
        is hashed as sorted JSON, each value JSON cannot hold as its ``str()``
        (:func:`json_safe_metadata`, what the store keeps).

        >>> a = Document(id="x", text="one", metadata={"year": 1903})
        >>> a.hash == Document(id="x", text="one", metadata={"year": 1903}).hash
        True
        >>> a.hash == Document(id="x", text="one", metadata={"year": 1911}).hash
        False
        >>> Document(id="x", text="one").hash == content_hash("\x1fone")
        True
        """
        body = self.title + "\x1f" + self.text
        if self.metadata:
            body += "\x1f" + json.dumps(json_safe_metadata(self.metadata), sort_keys=True,
                                          ensure_ascii=False, separators=(",", ":"))
        if self.one_chunk:  # the same text chunked otherwise is another version
            body += "\x1f\x1fone_chunk"
        return content_hash(body)


class Chunk(BaseModel):
    """A window of a document. ``id`` is ``chunk-<hash of doc id + text>``."""

    id: str
    doc_id: str
    text: str
    index: int = 0
    start: int = 0
    end: int = 0
    metadata: dict[str, Any] = Field(default_factory=dict)


class ChunkExtraction(BaseModel):
    """Bottom-layer output for one chunk: entities and relation hyperedges.

    ``skipped`` counts malformed records the parser dropped.
    """

    chunk_id: str
    entities: list[Entity] = Field(default_factory=list)
    hyperedges: list[Hyperedge] = Field(default_factory=list)
    skipped: int = 0


class ChunkTheme(BaseModel):
    """Top-layer output for one chunk: its theme and key entity keys."""

    chunk_id: str
    theme: str
    key_entities: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
