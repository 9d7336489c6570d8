"""One record of a collection (a JSON or JSONL object, a CSV row) as a document: its text
field (``text``, else ``content``, ``contents``, ``body``, ``passage`` or
``paragraph_text``, or the field named), its id field (a string or an integer; none: a
content-hash id) and title field; every other field goes into the metadata.

Example:
    >>> doc = record_document({"id": 7, "title": "Oslo", "text": "A city.", "lang": "en"},
    ...                       "a.jsonl:1", text_field=None, id_field="id", title_field="title")
    >>> doc.id, doc.title, doc.text, doc.metadata
    ('7', 'Oslo', 'A city.', {'lang': 'en'})
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..types import Document
from .errors import LoaderError
from .guards import check_fields

__all__ = ["TEXT_FALLBACKS", "header_fields", "record_document", "record_id", "record_where",
           "text_key", "valid_document"]

#: the text fields tried after ``text`` when none is named
TEXT_FALLBACKS = ("content", "contents", "body", "passage", "paragraph_text")


def text_key(fields: Container[str], text_field: str | None) -> str | None:
    """The field a record with ``fields`` (its keys, a CSV header) takes its text from:
    ``text_field`` when one is named, else ``text`` or the first of :data:`TEXT_FALLBACKS`
    it has; None when it has none.

    >>> text_key({"id", "body"}, None), text_key({"text"}, "summary")
    ('body', None)
    """
    if text_field is not None:
        return text_field if text_field in fields else None
    return next((f for f in ("text", *TEXT_FALLBACKS) if f in fields), None)


def header_fields(header: Sequence[str], *, text_field: str | None, id_field: str,
                  title_field: str) -> list[str]:
    """The fields of the records under a CSV or sheet header, people's column names: a
    column named in other letter case than a field looked for by default (``Text``,
    ``Body``, ``Title``, ``ID``) is that field, unless the header also has the field as
    written; a field you name (``--text-field Summary``) is matched as written.

    >>> header_fields(["ID", "Title", "Text", "Lang"], text_field=None, id_field="id",
    ...               title_field="title")
    ['id', 'title', 'text', 'Lang']
    >>> header_fields(["Text", "text"], text_field=None, id_field="id", title_field="title")
    ['Text', 'text']
    """
    wanted = [f for f, default in ((id_field, "id"), (title_field, "title")) if f == default]
    if text_field is None:
        wanted += ["text", *TEXT_FALLBACKS]
    free = {w for w in wanted if w not in header}
    out: list[str] = []
    for name in header:
        folded = name.casefold()
        out.append(folded if folded in free and name not in wanted else name)
        free.discard(folded)
    return out


def record_where(path: Path, line: int | None = None, item: int | None = None) -> str:
    """Where a record is: ``f.jsonl:3`` (a line), ``f.json (item 2)``, else the path."""
    if line is not None:
        return f"{path}:{line}"
    if item is not None:
        return f"{path} (item {item})"
    return str(path)


def record_document(
    rec: Any,
    where: str,
    *,
    text_field: str | None,
    id_field: str,
    title_field: str,
) -> Document:
    """The document of the record ``rec`` (see the module's docs); a :class:`LoaderError`
    naming ``where`` for a record that is no object, lacks its text or a field the user
    named, or holds a value of the wrong type."""
    if not isinstance(rec, Mapping):
        raise LoaderError(f"{where}: expected a JSON object with a {text_field or 'text'!r} "
                          f"field, got {type(rec).__name__}")
    used_text = text_field or "text"
    text = rec.get(used_text)
    if text is None and text_field is None:  # the default: "text" or a usual alternative
        for alt in TEXT_FALLBACKS:
            if alt in rec:
                text, used_text = rec[alt], alt
                break
    if text is None:
        what = "is null" if used_text in rec else "is missing"
        raise LoaderError(f"{where}: text field {used_text!r} {what} "
                          f"(fields: {sorted(map(str, rec))[:10]}; use --text-field)")
    if isinstance(text, list) and all(isinstance(s, str) for s in text):
        text = "".join(text) if any(s[:1].isspace() for s in text[1:]) else " ".join(text)
    if not isinstance(text, str):
        raise LoaderError(f"{where}: field {used_text!r} must be a string, "
                          f"got {type(text).__name__}")
    for field, flag in ((id_field, "id"), (title_field, "title")):
        if field != flag and field not in rec:  # a field the user named: a typo?
            raise LoaderError(f"{where}: missing {flag} field {field!r} (fields: "
                              f"{sorted(map(str, rec))[:10]}; check --{flag}-field)")
    raw_id = rec.get(id_field)
    title = rec.get(title_field, "")
    if title is None:
        title = ""
    if not isinstance(title, str | int | float):
        raise LoaderError(f"{where}: field {title_field!r} must be a string")
    meta = {str(k): v for k, v in rec.items() if k not in (used_text, id_field, title_field)}
    return valid_document(where, record_id(raw_id, where), text, str(title), meta)


def record_id(raw: Any, where: str) -> str:
    """A record's id: a string, or an integer as its decimal text ("" for none: a hash id);
    anything else (a float, a boolean, an object) is a :class:`LoaderError`."""
    if raw is None or isinstance(raw, str):
        return raw or ""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    shown = json.dumps(raw, ensure_ascii=False, default=str)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    raise LoaderError(f"{where}: id must be a string or an integer, got "
                      f"{type(raw).__name__} {shown}")


def valid_document(where: str, doc_id: str, text: str, title: str = "",
           meta: dict[str, Any] | None = None) -> Document:
    """The document, or a :class:`LoaderError` at ``where`` when a field holds a lone
    surrogate (a ``"\\ud800"`` escape in JSON), which no store can keep."""
    try:
        check_fields(doc_id, title, text, meta or {})
    except ValueError as exc:
        raise LoaderError(f"{where}: {exc}") from None
    return Document(id=doc_id, text=text, title=title, metadata=meta or {})
