"""Indexing a text file again replaces every document it produced before.

A text file is one document ``ID`` or, above the part size, the parts ``ID#part00001``,
``ID#part00002`` ... (:mod:`.parts`). When the file shrinks (fewer parts), grows past the
part size (parts instead of ``ID``), falls under it (``ID`` instead of parts) or the part size
changes, the documents it produced before and no longer produces are deleted at the end of
the run, so the store never holds its text twice, nor text it no longer has. Safeguards:

* a file is cleaned only once **every** document it produces now is stored (written by this
  run or unchanged; none failed), after the run's writes are committed: a run that fails or
  is interrupted deletes nothing;
* only documents with the shape the loader gives a text file's documents (metadata
  ``source`` alone, or ``source``/``part``/``offset`` with the part number of the id; a
  PDF's, deck's or workbook's also ``pages`` and ``page_starts``) whose
  ``source`` names the same file (the same string, or the same file once resolved) are
  deleted: documents of other inputs are never touched. Besides the ids the file produces
  now, the ids it got in other runs are looked at (the file given directly gets its stem,
  inside a folder its relative path: indexing ``notes/a.txt`` after ``notes/`` replaces
  ``a``'s old document ``a`` wherever it was indexed from);
* the run must know which documents the file produces now: a whole-file document is
  complete by itself; for parts, :class:`~.stream.DocumentStream` tells how many there are
  (its ``source_parts``). Parts from any other iterable delete nothing.

Example:
    >>> from hyperviz_core.rag.types import Document
    >>> ledger = SourceLedger()
    >>> ledger.note(Document(id="a", text="t", metadata={"source": "docs/a.md"}))
    >>> ledger.complete()
    [('docs/a.md', 'a', {'a'})]
"""

from __future__ import annotations

import contextlib
import os
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from ..store.protocol import stored_document_ids
from ..types import Document
from .parts import part_id
from .suffixes import id_path, keeps_suffix

__all__ = ["PART_ID", "SourceConflictError", "SourceLedger", "clean_up",
           "missing_file_documents", "remove_stale", "stored_state", "text_file_source"]

#: the id of a part document: ``<base>#part<number, 5 digits or more>``
PART_ID = re.compile(r"^(?P<base>.+)#part(?P<n>\d{5,})$")
#: what a document of pages has besides ``source`` (a PDF, a deck, a workbook:
#: :mod:`.pages`): its page count and where each page starts
_PAGE_KEYS = frozenset({"pages", "page_starts"})


def text_file_source(doc: Document) -> str | None:
    """The ``source`` of a document shaped like a text file's (see the module doc), else
    None."""
    meta = doc.metadata
    src = meta.get("source")
    if not isinstance(src, str) or not src:
        return None
    m = PART_ID.match(doc.id)
    if m is None:
        keys = set(meta) - _PAGE_KEYS if isinstance(meta.get("pages"), int) else set(meta)
        return src if keys == {"source"} else None
    part = meta.get("part")
    ok = (set(meta) == {"source", "part", "offset"} and isinstance(part, int)
          and part == int(m.group("n")))
    return src if ok else None


class SourceConflictError(ValueError):
    """A text file would replace the stored document of another file that has the same id
    (two folders with the same layout indexed into one store)."""


def stored_state(store: Any, doc: Document) -> Literal["new", "unchanged", "changed"]:
    """Whether ``store`` holds no document of ``doc``'s id (``new``), holds ``doc``
    unchanged (nothing to do) or another version of it (``changed``). A changed text file's
    document (see :func:`text_file_source`) may replace the stored one only when that came
    from the same file, or from a file that no longer exists (a moved folder): else a
    :class:`SourceConflictError`, before any model call, so the other file's document is
    kept. ``teamA/README.md`` and ``teamB/README.md`` indexed as two folders both get the id
    ``README``; the second replaced the first.

    The stored source must be an absolute path (a folder given by its absolute path, or
    any ``--prune-missing`` run): a relative one names a file only with the directory its
    run started in, which the store does not know (``README.md`` from ``proj/docs`` is
    ``docs/README.md`` from ``proj``), so it is replaced as before. The new source is this
    run's, read from the current directory.
    """
    stored_hash = store.document_hash(doc.id)
    if stored_hash is None:
        return "new"
    if stored_hash == doc.hash:
        return "unchanged"
    new_src = text_file_source(doc)
    if new_src is None:
        return "changed"
    old = store.documents([doc.id])
    old_src = text_file_source(old[0]) if old else None
    if (old_src is None or not Path(old_src).is_absolute()  # relative: from where? unknown
            or _same_file(old_src, os.path.abspath(new_src)) or not _is_file(old_src)):
        return "changed"
    raise SourceConflictError(
        f"document {doc.id!r} is stored from {old_src}, which still exists; {new_src} has the "
        "same id. Index the folders' common parent (ids then differ by their folder), use "
        f"another store, or delete {doc.id!r} first to replace it")


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def _same_file(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError, ValueError):
        return False


class SourceLedger:
    """Which text files a run indexed, and whether each is complete and stored.

    Args:
        part_counts: source → how many part documents that file produces now (from a
            :class:`~.stream.DocumentStream`); None or a missing source: unknown.
    """

    def __init__(self, part_counts: Mapping[str, int] | None = None) -> None:
        self.part_counts = dict(part_counts or {})
        self._seen: dict[str, set[str]] = {}
        self._failed: set[str] = set()

    def note(self, doc: Document) -> None:
        """``doc`` is being indexed (stored or found unchanged unless :meth:`failed`)."""
        src = text_file_source(doc)
        if src is not None:
            self._seen.setdefault(src, set()).add(doc.id)

    def failed(self, doc: Document) -> None:
        """``doc`` failed: its file is not cleaned in this run."""
        src = text_file_source(doc)
        if src is not None:
            self._failed.add(src)

    def complete(self) -> list[tuple[str, str, set[str]]]:
        """(source, base id, the ids it produces now) of each file whose documents are all
        stored, sorted by source."""
        out: list[tuple[str, str, set[str]]] = []
        for src, ids in sorted(self._seen.items()):
            if src in self._failed:
                continue
            matches = [PART_ID.match(i) for i in ids]
            if not any(matches):
                if len(ids) == 1:  # one whole document: complete by itself
                    out.append((src, next(iter(ids)), ids))
                continue
            bases = {m.group("base") if m else None for m in matches}
            want = self.part_counts.get(src)
            if len(bases) != 1 or None in bases or want is None:
                continue
            base = str(bases.pop())
            if ids == {part_id(base, n) for n in range(1, want + 1)}:
                out.append((src, base, ids))
        return out


def _path_ids(src: str) -> list[str]:
    """The ids the loader may have given the file ``src`` in other runs: its path without
    the suffix, from each folder above it (``a/b/c.txt`` → ``c``, ``b/c``, ``a/b/c``; given
    directly a file gets its stem, inside a folder its path relative to the folder), for the
    given and the resolved path; a file whose id keeps its suffix (a page, a PDF ...:
    :func:`~.suffixes.keeps_suffix`) with it first (``c.pdf`` ..., then ``c`` ..., its ids
    before stop 54).

    >>> _path_ids("corpus/sub/note.txt")[:3]
    ['note', 'sub/note', 'corpus/sub/note']
    """
    out: list[str] = []
    paths = [Path(src)]
    with contextlib.suppress(OSError, RuntimeError, ValueError):
        paths.append(Path(src).resolve())
    for path in paths:
        for spelt in dict.fromkeys((id_path(path), path.with_suffix(""))):
            parts = [p for p in spelt.parts if p != path.anchor]
            for n in range(1, len(parts) + 1):
                if parts[-n] in ("..", "."):
                    break
                candidate = "/".join(parts[-n:])
                if candidate not in out:
                    out.append(candidate)
    return out


def remove_stale(store: Any, complete: list[tuple[str, str, set[str]]],
                 delete: Callable[[str], Any]) -> list[str]:
    """Delete (with ``delete(doc_id)``) the documents each complete file of
    :meth:`SourceLedger.complete` produced before and no longer produces; their ids."""
    if not complete:
        return []
    stored = stored_document_ids(store)
    parts_of: dict[str, list[str]] = {}
    for doc_id in stored:
        m = PART_ID.match(doc_id)
        if m:
            parts_of.setdefault(m.group("base"), []).append(doc_id)
    removed: list[str] = []
    for src, base, keep in complete:
        candidates = [doc_id for b in sorted({base, *_path_ids(src)})
                      for doc_id in ([b] if b in stored else []) + sorted(parts_of.get(b, []))]
        for doc_id in candidates:
            if doc_id in keep:
                continue
            old = store.get_document(doc_id)
            old_src = None if old is None else text_file_source(old)
            if old_src is None or not _same_file(old_src, src):
                continue
            delete(doc_id)
            removed.append(doc_id)
    return removed


def clean_up(store: Any, ledger: SourceLedger, delete: Callable[[str], Any],
             errors: list[str]) -> int:
    """:func:`remove_stale` of the files ``ledger`` found complete; how many documents were
    removed. A failure is appended to ``errors`` (the run's own documents are stored
    already; the next run removes what is left), never raised."""
    try:
        return len(remove_stale(store, ledger.complete(), delete))
    except Exception as exc:  # e.g. a store error while deleting
        errors.append(f"stale documents of text files not all removed: "
                      f"{type(exc).__name__}: {exc}")
        return 0


def _gone_from(src: str, root: Path, base: str) -> bool:
    """Whether ``src``, the file the folder ``root`` gives the id ``base``, is gone: ``src``
    is the file ``root/<base><suffix>`` (the same string or the same file once resolved),
    or lies in ``root`` at a relative path whose composed form (NFC) is ``base`` (the loader
    makes ids NFC: a file macOS named decomposed, ``Mu\u0308ller.md``, has the id
    ``M\u00fcller``), and it no longer exists. A page's, PDF's ... id keeps its
    suffix (``FOLDER/guide.html`` is ``guide.html``; before stop 54 it was ``guide``, which
    still names it)."""
    for name in (base + Path(src).suffix, *([base] if keeps_suffix(src) else [])):
        if _same_file(src, str(root / name)):
            return not (root / name).exists()
    for folder in (Path(os.path.abspath(root)), root.resolve()):
        with contextlib.suppress(ValueError):
            rel = Path(os.path.abspath(src)).relative_to(folder)
            if base in {unicodedata.normalize("NFC", p.as_posix())
                        for p in (rel.with_suffix(""), id_path(rel))}:
                return not Path(src).exists()
    return False


def missing_file_documents(store: Any, folders: Sequence[str | Path], *,
                           unchecked: list[str] | None = None) -> list[str]:
    """Ids (sorted) of the stored documents shaped like a text file's (see the module doc)
    that one of ``folders`` gave and whose file is gone (deleted or renamed since it was
    indexed: ``vizrag index FOLDER --prune-missing``).

    A document counts only when its ``source`` is an absolute path naming the very file
    the folder gives its id: ``FOLDER/<id><suffix>``, the same string or the same file once
    resolved. A relative source names a file only together with the directory the run that
    stored it started in, which the store does not know (``notes/a.md`` from ``/A`` and from
    ``/B`` are two files), so it is never taken for a missing one; ``unchecked``, when
    given, gets the ids of those whose source, read from the current directory, lies under a
    folder and is not found there (for the caller to name, not to delete).

    >>> import tempfile
    >>> from hyperviz_core.rag.store import open_store
    >>> folder = tempfile.mkdtemp()
    >>> store = open_store(tempfile.mkdtemp())
    >>> _ = store.add_document(Document(id="gone", text="t",
    ...                                 metadata={"source": f"{folder}/gone.txt"}), [], [])
    >>> missing_file_documents(store, [folder])
    ['gone']
    >>> store.close()
    """
    roots = [Path(f).expanduser() for f in folders]
    spelt = [os.path.abspath(os.path.expanduser(f)) + os.sep for f in map(str, folders)]
    out: list[str] = []
    for doc in store.documents():
        src = text_file_source(doc)
        if src is None:
            continue
        if not Path(src).is_absolute():  # never pruned; named when it is not found here
            if (unchecked is not None and any(os.path.abspath(src).startswith(f)
                                              for f in spelt) and not _is_file(src)):
                unchecked.append(doc.id)
            continue
        part = PART_ID.match(doc.id)
        base = part.group("base") if part else doc.id
        try:
            gone = any(_gone_from(src, root, base) for root in roots)
        except (OSError, RuntimeError, ValueError):
            continue
        if gone:
            out.append(doc.id)
    return sorted(out)
