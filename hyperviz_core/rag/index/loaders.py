"""Read documents from text/markdown files, HTML pages, office files and JSON / JSONL / CSV
collections.

Supported inputs (by extension; directories are walked, sorted, following symbolic links,
see :func:`~.textfiles.walk`, which also says what a walk leaves out and why):

- ``.txt``, ``.md``, ``.markdown``, ``.rst``: one document per file (:mod:`.textfiles`);
  id = the file's path relative to the directory given (``a/README`` for
  ``DIR/a/README.md``; the stem for a file given directly), NFC, unless
  ``id_from_path=False``; title = the ``title`` of its front matter (YAML between ``---``
  lines or TOML between ``+++`` lines at the top, which is not part of the text), else the
  first Markdown heading (ATX ``# Title`` or setext ``Title`` over ``===``) among its first
  10 non-empty lines as plain text, else the file stem (:mod:`.titles`); metadata
  ``{"source": path}``.
- ``.html``/``.htm``/``.xhtml``, ``.pdf``, ``.docx``, ``.doc``, ``.pptx``, ``.ppt``,
  ``.xlsx``, ``.odt``,
  ``.odp``, ``.ods``, ``.epub``: as text files, but for the id keeping its suffix
  (:mod:`.wholefiles`).
- ``.jsonl``/``.ndjson``: one JSON object per line (of any length) with a text field.
- ``.csv``/``.tsv``: one document per row when the header has a text field, else one for
  the file, a row a line (:mod:`.csvfiles`); ``.xlsx``/``.ods`` sheets likewise, a sheet
  with the text field in its first row a document per row (:mod:`.workbooks`).
- ``.json``: a list of objects with a text field (e.g. ``[{"title", "text"}]`` works as is),
  a single such object, an object wrapping such a list under ``"data"``/``"documents"``/
  ``"passages"``/``"corpus"``, or a dict *title → list of sentences* (HotpotQA corpus
  format; sentences are concatenated).

``text_field``, ``id_field`` and ``title_field`` name the fields (defaults ``text``, ``id``,
``title``; with ``text_field`` left at None, ``text`` also falls back to
``content``/``contents``/``body``/``passage``; a text field you name must be there).
An id is a string or an integer (its decimal text); documents without one get
``doc-<hash of title + text>``. Every other field goes into the metadata. Bad input
(another id: ``1.0``, ``true``, an object) raises :class:`LoaderError` naming the file (and
line); so does JSON nested too deeply to parse, UTF-16 text without a byte-order mark
(with one, UTF-16 and UTF-32 are read as such), a binary file (a NUL
byte among its first 8,000 bytes, as git tells binary files, e.g. an image given by
name), a byte that is not UTF-8 (its line and its offset in the file are
named), a string holding a lone surrogate (a ``"\\ud800"`` escape: no store can keep it), a
file whose name is not valid UTF-8 (named by its ``repr``), a path the system refuses (too
long) and a sub-folder that cannot be listed. Two documents of one load with the same id are
never silently merged (:mod:`.duplicates`). A file that cannot be read stops the load,
naming it, unless ``on_unreadable="skip"``: then it is left out whole with a warning naming
it and why (:func:`input_files`, :func:`file_documents`: the same per file); the error ends
in :data:`SKIP_HINT`, which says so.

Example:
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.json"
    >>> _ = p.write_text(json.dumps([{"title": "Paris", "text": "Paris is in France."}]))
    >>> [(d.title, d.text) for d in load_documents([p])]
    [('Paris', 'Paris is in France.')]
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from ..types import Document
from .csvfiles import csv_documents
from .errors import (
    SKIP_HINT,
    LoaderError,
    NotDocumentsError,
    NotDocumentsFileError,
    UnreadableFileError,
)
from .guards import printable
from .jsontext import json_problem, parse_json
from .legacy import fallback_encoding
from .records import record_document, record_where, text_key, valid_document
from .suffixes import CSV_SUFFIXES, JSON_SUFFIXES, JSONL_SUFFIXES, READ_SUFFIXES, TEXT_SUFFIXES
from .textfiles import (
    Walk,
    check_not_binary,
    lines,
    read_text,
    text_documents,
    walk,
)
from .wholefiles import ENCODED_FILES, MAILBOXES, WHOLE_FILES, WORKBOOKS

__all__ = ["READ_SUFFIXES", "SKIP_HINT", "TEXT_SUFFIXES", "LoaderError", "UnreadableFileError",
           "UnreadablePolicy", "Walk", "check_unreadable_policy", "file_documents", "input_files",
           "iter_documents", "iter_sourced_documents", "load_documents", "no_documents",
           "records_to_documents", "skipped_files", "walk"]

UnreadablePolicy = Literal["error", "skip"]


def check_unreadable_policy(policy: object) -> None:
    """``ValueError`` unless ``policy`` is an :data:`UnreadablePolicy`."""
    if policy not in ("error", "skip"):
        raise ValueError(f"unknown unreadable-file policy {policy!r}; use error or skip")

_WRAPPERS = ("data", "documents", "docs", "passages", "corpus", "items", "records")


def records_to_documents(
    data: Any,
    source: str | Path = "<data>",
    *,
    text_field: str | None = None,
    id_field: str = "id",
    title_field: str = "title",
) -> list[Document]:
    """Documents from already-parsed JSON (any of the shapes the module docstring lists)."""
    path = Path(source)
    kw: dict[str, Any] = {"text_field": text_field, "id_field": id_field,
                          "title_field": title_field}
    field = text_field or "text"
    if isinstance(data, Mapping):
        if text_key(data, text_field) is not None:
            return [record_document(data, str(path), **kw)]
        for key in _WRAPPERS:
            if isinstance(data.get(key), list):
                return records_to_documents(data[key], path, **kw)
        if data and all(isinstance(v, list) and all(isinstance(s, str) for s in v)
                        for v in data.values()):
            # HotpotQA corpus: title -> list of sentences
            return [record_document({title_field: t, field: sents}, f"{path} ({t!r})", **kw)
                    for t, sents in data.items()]
        raise NotDocumentsError(
            f"{path}: a JSON object that is neither a document with a {field!r} field, "
            f"a wrapper of a list ({', '.join(_WRAPPERS[:4])}...), nor title -> sentences")
    if isinstance(data, list):
        out = []
        for i, rec in enumerate(data):
            if isinstance(rec, str):
                out.append(valid_document(record_where(path, item=i), "", rec))
            else:
                out.append(record_document(rec, record_where(path, item=i), **kw))
        return out
    raise NotDocumentsError(f"{path}: expected a JSON list or object, not {type(data).__name__}")


def no_documents(paths: Sequence[str | Path]) -> LoaderError:
    """The error for inputs that hold no document (a folder of PDFs, an empty JSON list):
    it names them (the first three) and the kinds of file read."""
    names = ", ".join(printable(str(p)) for p in paths[:3])
    more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
    return LoaderError(f"no documents in {names}{more}: vizrag index reads "
                       f"{', '.join(READ_SUFFIXES)} files (a folder is walked for these; "
                       "convert other documents to text first); nothing was written")


def _jsonl_documents(path: Path, encoding: str | None = None,
                     **kw: Any) -> Iterator[tuple[Document, str]]:
    for n, line in enumerate(lines(path, encoding), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LoaderError(f"{path}:{n}: invalid JSON ({json_problem(exc)})") from exc
        except RecursionError:
            raise LoaderError(f"{path}:{n}: JSON nested too deeply to read") from None
        yield record_document(rec, record_where(path, line=n), **kw), record_where(path, line=n)


def input_files(paths: Iterable[str | Path], *, skipped: list[str] | None = None,
                follow_links: bool = False) -> list[tuple[Path, Path | None]]:
    """(file, the directory it was found under or None for a file given directly), in order;
    a path that does not exist is a :class:`LoaderError`. ``skipped``, when given, gets
    ``"path: why"`` for each thing a folder walk left out (:func:`walk`, ``follow_links``)."""
    out: list[tuple[Path, Path | None]] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = walk(p, follow_links=follow_links)
            out.extend((f, p) for f in found.files)
            if skipped is not None:
                skipped.extend(f"{f}: {why}" for f, why in found.skipped)
        elif p.exists():
            out.append((p, None))
        else:
            raise LoaderError(f"{p}: no such file or directory")
    return out


def skipped_files(paths: Iterable[str | Path], *, follow_links: bool = False) -> list[str]:
    """``"path: why"`` for each thing the folder walks of ``paths`` leave out (what
    ``vizrag index`` lists; :func:`walk`)."""
    out: list[str] = []
    input_files(paths, skipped=out, follow_links=follow_links)
    return out


def file_documents(
    path: Path,
    root: Path | None = None,
    *,
    text_field: str | None = None,
    id_field: str = "id",
    title_field: str = "title",
    id_from_path: bool = True,
    part_bytes: int | None = None,
    hint: bool = True,
    encoding: str | None = None,
) -> Iterator[tuple[Document, str]]:
    """(document, where it came from: ``file``, ``file:line`` or ``file (item n)``) of one
    file (``root``: the directory it was found under, for its id).

    With ``part_bytes``, a text file larger than that is read incrementally as consecutive
    part documents (:func:`~.parts.iter_text_parts`); JSONL is always read line by line.
    ``encoding`` (``cp1252``, ``gb18030`` ...): a file read as text (text, Markdown, HTML
    without a declared charset, subtitles, CSV, JSON, JSONL) that is not UTF-8 is read in
    it from its first line that is not (:mod:`.legacy`; a ``ValueError`` names an encoding
    Python does not know or one that does not read ASCII as ASCII).
    Any failure is an :class:`UnreadableFileError` (its message ends in :data:`SKIP_HINT`
    unless ``hint=False``).
    """
    kw: dict[str, Any] = {"text_field": text_field, "id_field": id_field,
                          "title_field": title_field}
    codec = fallback_encoding(encoding)
    try:
        yield from _file_documents(path, root, id_from_path, part_bytes, kw, codec)
    except UnreadableFileError:
        raise
    except LoaderError as exc:  # (the kind kept: a folder walk leaves NotDocuments out)
        kind = NotDocumentsFileError if isinstance(exc, NotDocumentsError) else UnreadableFileError
        raise kind(str(exc), hint) from exc
    except OSError as exc:  # a path the system refuses (too long: ENAMETOOLONG) ...
        raise UnreadableFileError(f"{printable(str(path))}: {exc.strerror or exc}", hint) from exc


def _file_documents(path: Path, root: Path | None, id_from_path: bool,
                    part_bytes: int | None, kw: dict[str, Any], encoding: str | None,
                    ) -> Iterator[tuple[Document, str]]:
    if printable(str(path)) != str(path):  # surrogate escapes of undecodable bytes
        raise LoaderError(f"{printable(str(path))}: the file name is not valid UTF-8 "
                          "(rename the file)")
    if path.is_dir():  # a sub-folder a walk could not list
        try:
            os.scandir(path).close()
        except OSError as exc:
            raise LoaderError(f"{path}: cannot read the folder ({exc.strerror or exc})") from exc
        raise LoaderError(f"{path}: a folder, not a file")
    if path.exists() and not path.is_file():  # opened twice (sniffed, read): a second
        # open of a pipe reads nothing, and a FIFO's waits for a writer that never comes
        raise LoaderError(f"{path}: not a regular file (a pipe, FIFO or device): save what "
                          "it gives to a file and index that (`cat > corpus.jsonl`)")
    suffix = path.suffix.lower()
    if suffix in ENCODED_FILES:  # a page, subtitles, a message: in ``encoding`` too
        yield ENCODED_FILES[suffix](path, id_from_path, root, encoding=encoding), str(path)
        return
    read = WHOLE_FILES.get(suffix)
    if read is not None:  # a page, a PDF, a Word document, a deck: read whole, never in parts
        yield read(path, id_from_path, root), str(path)
        return
    if suffix in CSV_SUFFIXES:
        yield from csv_documents(path, id_from_path, root, encoding=encoding, **kw)
        return
    if suffix in MAILBOXES:  # a mailbox: a document a message
        yield from MAILBOXES[suffix](path, id_from_path, root, encoding=encoding)
        return
    if suffix in WORKBOOKS:  # a spreadsheet: records, a sheet's document
        yield from WORKBOOKS[suffix](path, id_from_path, root, **kw)
        return
    if suffix not in (*JSONL_SUFFIXES, *JSON_SUFFIXES):
        yield from text_documents(path, id_from_path, root, part_bytes, encoding)
        return
    check_not_binary(path, encoding)
    if suffix in JSONL_SUFFIXES:
        yield from _jsonl_documents(path, encoding, **kw)
        return
    docs = records_to_documents(parse_json(read_text(path, encoding), str(path)), path, **kw)
    for n, doc in enumerate(docs):
        yield doc, record_where(path, item=n) if len(docs) > 1 else str(path)


def iter_sourced_documents(
    paths: Iterable[str | Path], *, on_unreadable: UnreadablePolicy = "error",
    follow_links: bool = False, show_progress: bool = False, **fields: Any,
) -> Iterator[tuple[Document, str]]:
    """(document, where it came from) of every file of ``paths`` (``fields``: as
    :func:`file_documents`'s; ``follow_links``: :func:`input_files`'s). ``on_unreadable=
    "skip"`` reads each file whole first and leaves out one that fails, with a warning;
    ``show_progress``: a bar over the files (tqdm, on stderr)."""
    check_unreadable_policy(on_unreadable)
    fallback_encoding(fields.get("encoding"))  # a bad name fails before any file is read
    files: Iterable[tuple[Path, Path | None]] = input_files(paths, follow_links=follow_links)
    if show_progress:
        from tqdm.auto import tqdm

        files = tqdm(files, desc="reading", unit="file")
    for path, root in files:
        if on_unreadable == "error":
            yield from file_documents(path, root, **fields)
            continue
        try:
            docs = list(file_documents(path, root, hint=False, **fields))
        except LoaderError as exc:
            warnings.warn(f"skipped an unreadable file: {exc}", UserWarning, stacklevel=2)
            continue
        yield from docs


def iter_documents(
    paths: Iterable[str | Path], *, on_unreadable: UnreadablePolicy = "error",
    follow_links: bool = False, **fields: Any,
) -> Iterator[Document]:
    """Documents of every file (folders walked in sorted order): :func:`iter_sourced_documents`."""
    for doc, _ in iter_sourced_documents(paths, on_unreadable=on_unreadable,
                                         follow_links=follow_links, **fields):
        yield doc


def load_documents(
    paths: Iterable[str | Path] | str | Path,
    *,
    text_field: str | None = None,
    id_field: str = "id",
    title_field: str = "title",
    id_from_path: bool = True,
    on_unreadable: UnreadablePolicy = "error",
    follow_links: bool = False,
    encoding: str | None = None,
) -> list[Document]:
    """All documents of the given files/directories (see the module docstring).

    ``on_unreadable="skip"`` leaves out a file that cannot be read (binary, not UTF-8,
    invalid JSON, unreadable) with a :class:`UserWarning` naming it, instead of raising.
    ``follow_links=True`` also reads files that links in a folder lead to outside it.
    ``encoding="cp1252"`` (any encoding that reads ASCII as ASCII; ``"auto"``: guessed per
    file) reads a text file that is not UTF-8 in it, from its first line that is not
    (:func:`file_documents`).
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    return list(iter_documents(paths, on_unreadable=on_unreadable, text_field=text_field,
                               id_field=id_field, title_field=title_field,
                               id_from_path=id_from_path, follow_links=follow_links,
                               encoding=encoding))
