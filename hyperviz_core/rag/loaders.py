"""Read documents from text/markdown files and JSON / JSONL collections.

Supported inputs (by extension; directories are walked, sorted):

- ``.txt``, ``.md``, ``.markdown``, ``.rst``: one document per file; id ``<file stem>``
  unless ``id_from_path=False``; title = the first Markdown heading or the file stem.
- ``.jsonl``/``.ndjson``: one JSON object per line with a text field.
- ``.json``: a list of objects with a text field (e.g. ``[{"title", "text"}]`` works as is),
  a single such object, an object wrapping such a list under ``"data"``/``"documents"``/
  ``"passages"``/``"corpus"``, or a dict *title → list of sentences* (HotpotQA corpus
  format; sentences are concatenated).

``text_field``, ``id_field`` and ``title_field`` name the fields (defaults ``text``, ``id``,
``title``; ``text`` also falls back to ``content``/``contents``/``body``/``passage``).
Documents without an id get ``doc-<hash of title + text>``. Every other field goes into
the metadata. Bad input raises :class:`LoaderError` naming the file (and line).

Example:
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.json"
    >>> _ = p.write_text(json.dumps([{"title": "Paris", "text": "Paris is in France."}]))
    >>> [(d.title, d.text) for d in load_documents([p])]
    [('Paris', 'Paris is in France.')]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .types import Document

__all__ = [
    "TEXT_SUFFIXES",
    "LoaderError",
    "iter_documents",
    "load_documents",
    "records_to_documents",
]

TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".rst", ".text")
JSON_SUFFIXES = (".json",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_TEXT_FALLBACKS = ("content", "contents", "body", "passage", "paragraph_text")
_WRAPPERS = ("data", "documents", "docs", "passages", "corpus", "items", "records")


class LoaderError(ValueError):
    """An input file cannot be read as documents (the message names file and line)."""


def _where(path: Path, line: int | None = None, item: int | None = None) -> str:
    if line is not None:
        return f"{path}:{line}"
    if item is not None:
        return f"{path} (item {item})"
    return str(path)


def _record_to_doc(
    rec: Any,
    where: str,
    *,
    text_field: str,
    id_field: str,
    title_field: str,
) -> Document:
    if not isinstance(rec, Mapping):
        raise LoaderError(f"{where}: expected a JSON object with a {text_field!r} field, "
                          f"got {type(rec).__name__}")
    text = rec.get(text_field)
    used_text = text_field
    if text is None and text_field == "text":
        for alt in _TEXT_FALLBACKS:
            if alt in rec:
                text, used_text = rec[alt], alt
                break
    if text is None:
        raise LoaderError(f"{where}: missing text field {text_field!r} "
                          f"(fields: {sorted(map(str, rec))[:10]}; use --text-field)")
    if isinstance(text, list) and all(isinstance(s, str) for s in text):
        text = "".join(text) if any(s[:1].isspace() for s in text[1:]) else " ".join(text)
    if not isinstance(text, str):
        raise LoaderError(f"{where}: field {used_text!r} must be a string, "
                          f"got {type(text).__name__}")
    raw_id = rec.get(id_field)
    title = rec.get(title_field, "")
    if title is None:
        title = ""
    if not isinstance(title, str | int | float):
        raise LoaderError(f"{where}: field {title_field!r} must be a string")
    meta = {str(k): v for k, v in rec.items() if k not in (used_text, id_field, title_field)}
    return Document(id="" if raw_id is None else str(raw_id), text=text, title=str(title),
                    metadata=meta)


def records_to_documents(
    data: Any,
    source: str | Path = "<data>",
    *,
    text_field: str = "text",
    id_field: str = "id",
    title_field: str = "title",
) -> list[Document]:
    """Documents from already-parsed JSON (any of the shapes the module docstring lists)."""
    path = Path(source)
    kw = {"text_field": text_field, "id_field": id_field, "title_field": title_field}
    if isinstance(data, Mapping):
        if text_field in data or (text_field == "text" and any(f in data for f in
                                                                _TEXT_FALLBACKS)):
            return [_record_to_doc(data, str(path), **kw)]
        for key in _WRAPPERS:
            if isinstance(data.get(key), list):
                return records_to_documents(data[key], path, **kw)
        if data and all(isinstance(v, list) and all(isinstance(s, str) for s in v)
                        for v in data.values()):
            # HotpotQA corpus: title -> list of sentences
            return [_record_to_doc({title_field: t, text_field: sents}, f"{path} ({t!r})", **kw)
                    for t, sents in data.items()]
        raise LoaderError(
            f"{path}: a JSON object that is neither a document with a {text_field!r} field, "
            f"a wrapper of a list ({', '.join(_WRAPPERS[:4])}...), nor title -> sentences")
    if isinstance(data, list):
        out = []
        for i, rec in enumerate(data):
            if isinstance(rec, str):
                out.append(Document(text=rec))
            else:
                out.append(_record_to_doc(rec, _where(path, item=i), **kw))
        return out
    raise LoaderError(f"{path}: expected a JSON list or object, got {type(data).__name__}")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoaderError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise LoaderError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def _text_document(path: Path, id_from_path: bool) -> Document:
    text = _read_text(path)
    title = path.stem
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            title = s.lstrip("#").strip() or title
            break
        if s:
            break
    return Document(id=path.stem if id_from_path else "", text=text, title=title,
                    metadata={"source": str(path)})


def _jsonl_documents(path: Path, **kw: str) -> Iterator[Document]:
    text = _read_text(path)
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LoaderError(f"{path}:{n}: invalid JSON ({exc.msg} at column {exc.colno})") \
                from exc
        yield _record_to_doc(rec, _where(path, line=n), **kw)


def _expand(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in
                              (*TEXT_SUFFIXES, *JSON_SUFFIXES, *JSONL_SUFFIXES)))
        elif p.exists():
            out.append(p)
        else:
            raise LoaderError(f"{p}: no such file or directory")
    return out


def iter_documents(
    paths: Iterable[str | Path],
    *,
    text_field: str = "text",
    id_field: str = "id",
    title_field: str = "title",
    id_from_path: bool = True,
) -> Iterator[Document]:
    """Documents of every file (directories walked in sorted order)."""
    kw = {"text_field": text_field, "id_field": id_field, "title_field": title_field}
    for path in _expand(paths):
        suffix = path.suffix.lower()
        if suffix in JSONL_SUFFIXES:
            yield from _jsonl_documents(path, **kw)
        elif suffix in JSON_SUFFIXES:
            text = _read_text(path)
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise LoaderError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg} at column "
                                  f"{exc.colno})") from exc
            yield from records_to_documents(data, path, **kw)
        else:
            yield _text_document(path, id_from_path)


def load_documents(
    paths: Iterable[str | Path] | str | Path,
    *,
    text_field: str = "text",
    id_field: str = "id",
    title_field: str = "title",
    id_from_path: bool = True,
) -> list[Document]:
    """All documents of the given files/directories (see the module docstring)."""
    if isinstance(paths, str | Path):
        paths = [paths]
    return list(iter_documents(paths, text_field=text_field, id_field=id_field,
                               title_field=title_field, id_from_path=id_from_path))
