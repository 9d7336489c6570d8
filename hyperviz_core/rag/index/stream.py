"""Documents of files and folders as a stream, one id each, in bounded memory.

:class:`DocumentStream` applies the duplicate-id policy of
:func:`~.duplicates.resolve_duplicates` without holding the documents: a first pass reads
every input and keeps only (id, content hash, source) per document to decide which one each
id keeps; iterating the stream then reads the inputs again and yields the kept documents one
at a time (large text files as consecutive parts, see :mod:`.parts`). A PDF or Word file is
parsed once: the first pass keeps its documents on disk for the second (:class:`ParsedFiles`).
Memory is bounded by the largest single JSON file or text part, never by the corpus. With
``on_unreadable="skip"`` a file the first pass cannot read is left out whole (listed in
``report.unreadable``), so no part of it is ever indexed.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.txt").write_text("Marie Curie worked in Paris.")
    >>> _ = (d / "b.jsonl").write_text('{"id": "a", "text": "other"}\\n')
    >>> s = DocumentStream([d], on_duplicate="skip")
    >>> [x.id for x in s], s.report.duplicates, s.total_bytes > 0
    (['a'], 1, True)
"""

from __future__ import annotations

import json
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from ..callsite import caller_level
from ..types import Document
from .duplicates import DuplicatePolicy, DuplicateReport, check_duplicate_policy
from .errors import NotDocumentsError
from .loaders import (
    LoaderError,
    UnreadablePolicy,
    check_unreadable_policy,
    file_documents,
    input_files,
)
from .parts import PART_BYTES
from .replace import PART_ID, text_file_source
from .suffixes import HTML_SUFFIXES, JSON_SUFFIXES
from .wholefiles import WHOLE_FILES, WORKBOOKS

__all__ = ["PARSED_ONCE", "DocumentStream", "ParsedFiles", "caller_level", "dedupe_last",
           "warn_repeated_ids"]


class DocumentStream:
    """The documents of ``paths``, one per id (by ``on_duplicate``), streamed.

    Args:
        paths: files and folders (see :mod:`.loaders` for the formats).
        on_duplicate: ``"error"`` (default: :class:`LoaderError` naming both sources),
            ``"skip"`` (keep the first) or ``"replace"`` (keep the last).
        on_unreadable: ``"error"`` (default: the :class:`LoaderError` naming the file) or
            ``"skip"`` (the file is left out whole and named in ``report.unreadable``).
        part_bytes: text files larger than this are indexed as parts (None: never split).
        limit: keep only the first ``limit`` documents (the others are counted in
            ``report.limited``).
        follow_links: also read the files that symbolic links in a folder lead to outside
            it (by default they are left out, in ``report.left_out``).
        **fields: ``text_field``, ``id_field``, ``title_field``, ``id_from_path``,
            ``encoding`` (what a text file that is not UTF-8 is read in: :mod:`.legacy`).

    The constructor runs the planning pass (so errors surface before any indexing);
    :attr:`report`, :attr:`kept`, :attr:`total_bytes` (UTF-8 bytes of the kept texts) and
    :attr:`source_parts` are known from then on.
    """

    def __init__(
        self,
        paths: Iterable[str | Path],
        *,
        on_duplicate: DuplicatePolicy = "error",
        on_unreadable: UnreadablePolicy = "error",
        part_bytes: int | None = PART_BYTES,
        limit: int | None = None,
        follow_links: bool = False,
        **fields: str | bool | None,
    ) -> None:
        check_duplicate_policy(on_duplicate)
        check_unreadable_policy(on_unreadable)
        self.report = DuplicateReport(policy=on_duplicate)
        self.report_left_out = self.report.left_out
        self.paths = [Path(p) for p in paths]
        self.on_unreadable = on_unreadable
        self._files = input_files(self.paths, skipped=self.report_left_out,
                                  follow_links=follow_links)
        self._skipped: set[int] = set()  # ordinals in _files of the unreadable files
        self.part_bytes = part_bytes
        self.fields = fields
        #: file ordinal → {its document's position in the file: the planned id}, kept only
        self._kept_at: dict[int, dict[int, str]] = {}
        self._counts: dict[int, int] = {}  # file ordinal → documents the first pass read
        #: text file (its ``source``) → how many part documents it produces, for each file
        #: split into parts whose parts are all kept (the indexer then deletes the documents
        #: the file produced before and no longer produces: :mod:`.replace`)
        self.source_parts: dict[str, int] = {}
        self.total_bytes = 0
        self._parsed = ParsedFiles()
        self._plan(on_duplicate, limit)

    def _file(self, n: int) -> Iterator[tuple[Document, str]]:
        path, root = self._files[n]
        if path.suffix.lower() in PARSED_ONCE:
            return self._parsed.read(n, lambda: self._read(path, root))
        return self._read(path, root)

    def _read(self, path: Path, root: Path | None) -> Iterator[tuple[Document, str]]:
        return file_documents(path, root, part_bytes=self.part_bytes,  # the hint: no skipping
                              hint=self.on_unreadable == "error",
                              **self.fields)  # type: ignore[arg-type]

    def _planned(self) -> Iterator[tuple[int, str, str, str, int, str | None]]:
        """(file ordinal, id, hash, source, UTF-8 size, the file's path when the document
        is a part of a text file) of each document of the first pass; with ``"skip"``, a
        file's only once it has been read to its end without an error."""
        for n in range(len(self._files)):
            rows = ((n, d.id, d.hash, where, len(d.text.encode("utf-8")), _part_source(d))
                    for d, where in self._file(n))
            path, root = self._files[n]
            if self.on_unreadable == "error" and (
                    root is None or path.suffix.lower() not in JSON_SUFFIXES):
                yield from rows
                continue
            try:
                held = list(rows)  # no text held: a big file's parts are read one at a time
            except NotDocumentsError:  # a folder's package.json, a HIF export ...
                if root is None:  # named: the user meant it as documents
                    raise
                self._skipped.add(n)
                self.report_left_out.append(f"{path}: a JSON file of another kind (not "
                                            "documents: no text field, list or wrapper)")
                continue
            except LoaderError as exc:
                if self.on_unreadable == "error":
                    raise
                self._skipped.add(n)
                self.report.unreadable.append(str(exc))
                continue
            yield from held

    def _plan(self, policy: DuplicatePolicy, limit: int | None) -> None:
        """First pass: which ordinal each id keeps (only ids, hashes and sources held)."""
        first: dict[str, tuple[int, str, str]] = {}  # id -> (ordinal, hash, source)
        sizes: dict[int, int] = {}
        origin: dict[int, int] = {}  # kept ordinal -> where its id first came (--limit order)
        parts: dict[int, tuple[str, list[int]]] = {}  # file -> (path, its part ordinals)
        at: dict[int, tuple[int, int, str]] = {}  # ordinal -> (file, position in it, id)
        rep = self.report
        for n, (file_no, doc_id, digest, where, size, part_of) in enumerate(self._planned()):
            rep.read += 1
            pos = self._counts.get(file_no, 0)
            self._counts[file_no] = pos + 1
            at[n] = (file_no, pos, doc_id)
            if part_of is not None:
                parts.setdefault(file_no, (part_of, []))[1].append(n)
            if doc_id not in first:
                first[doc_id] = (n, digest, where)
                sizes[n], origin[n] = size, n
                continue
            slot, old, src = first[doc_id]
            if old == digest:
                rep.repeats += 1
                continue
            rep.record_duplicate(doc_id, src, where)
            if policy == "replace":  # the later version, in the first one's place
                del sizes[slot]
                first[doc_id] = (n, digest, where)
                sizes[n], origin[n] = size, origin.pop(slot)
        keep = sorted(sizes, key=origin.__getitem__)
        if limit is not None:
            rep.limited = max(0, len(keep) - max(0, limit))
            keep = keep[: max(0, limit)]
        kept = set(keep)
        for n in keep:
            file_no, pos, doc_id = at[n]
            self._kept_at.setdefault(file_no, {})[pos] = doc_id
        self.total_bytes = sum(sizes[n] for n in keep)
        rep.kept = len(keep)
        self.source_parts = {src: len(ords) for src, ords in parts.values()
                             if all(o in kept for o in ords)}

    @property
    def kept(self) -> int:
        """How many documents iterating yields."""
        return self.report.kept

    def __len__(self) -> int:
        return self.report.kept

    def __iter__(self) -> Iterator[Document]:
        """Second pass: the kept documents in input order, read again one at a time. A file
        whose documents differ from the first pass's (it changed in between: a text file
        grew by a part, a JSON file gained a record) is a :class:`LoaderError` naming it
        when the change is met; before, every later file's documents were matched by their
        place in the whole input, so another file's document could be left out."""
        for file_no in range(len(self._files)):
            if file_no in self._skipped:
                continue
            wanted = self._kept_at.get(file_no, {})
            count = 0
            for count, (doc, _) in enumerate(self._file(file_no), 1):
                planned = wanted.get(count - 1)
                if count > self._counts.get(file_no, 0) or (
                        planned is not None and doc.id != planned):
                    self._changed(file_no)
                if planned is not None:
                    yield doc
            if count < self._counts.get(file_no, 0):
                self._changed(file_no)
        self._parsed.close()

    def _changed(self, file_no: int) -> None:
        path = self._files[file_no][0]
        raise LoaderError(f"{path}: changed while it was being indexed (its documents differ "
                          "from the first reading); the documents stored so far stay, index "
                          "again to take the rest")


#: the files a reader parses as a package (a PDF, an Office file, a book: every file read
#: whole but a page, :mod:`.wholefiles`): the first pass keeps their documents on disk
#: (:class:`ParsedFiles`) and the second reads them from there
PARSED_ONCE = tuple(sorted(s for s in (*WHOLE_FILES, *WORKBOOKS) if s not in HTML_SUFFIXES))


class ParsedFiles:
    """Documents of parsed files, kept on disk (a temporary folder, one JSON line per
    document) from the first pass to the second: each such file is parsed once, and memory
    stays bounded by one file's documents."""

    def __init__(self) -> None:
        self._folder: tempfile.TemporaryDirectory[str] | None = None

    def read(self, n: int, parse: Callable[[], Iterator[tuple[Document, str]]]
             ) -> Iterator[tuple[Document, str]]:
        """The documents (and where each came from) of file ``n``: as kept, else
        ``parse()``'s, kept once they were all read."""
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="vizrag-parsed-")
        kept = Path(self._folder.name) / f"{n}.jsonl"
        if kept.exists():
            for line in kept.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                yield Document.model_validate(row["doc"]), row["where"]
            return
        docs = list(parse())
        kept.write_text("".join(json.dumps({"where": where, "doc": d.model_dump(mode="json")},
                                           ensure_ascii=False) + "\n" for d, where in docs),
                        encoding="utf-8")
        yield from docs

    def close(self) -> None:
        """Delete what is kept (a later pass parses the files again)."""
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


def _part_source(doc: Document) -> str | None:
    """The file a part document of a text file came from (None for any other document)."""
    return text_file_source(doc) if PART_ID.match(doc.id) else None


def warn_repeated_ids(docs: Sequence[Document]) -> list[str]:
    """Ids given more than once with different content (title, text or metadata), sorted;
    a ``UserWarning`` names them when there are any (the last version of each is indexed:
    :func:`dedupe_last`). Exact repeats are not counted."""
    versions: dict[str, set[str]] = {}
    counts = Counter(d.id for d in docs)
    for d in docs:
        if counts[d.id] > 1:  # only these are hashed: a bad document fails alone, later
            try:
                versions.setdefault(d.id, set()).add(d.hash)
            except UnicodeEncodeError:  # a lone surrogate: not an exact repeat
                versions.setdefault(d.id, set()).add(f"unhashable {id(d)}")
    ids = sorted(i for i, hashes in versions.items() if len(hashes) > 1)
    if ids:
        shown = ", ".join(repr(i) for i in ids[:5]) + (" ..." if len(ids) > 5 else "")
        warnings.warn(f"{len(ids)} document id(s) given more than once with different "
                      f"content; the last version of each is indexed: {shown}",
                      UserWarning, stacklevel=caller_level())
    return ids


def dedupe_last(docs: Sequence[Document]) -> list[Document]:
    """Keep the last version of each document id (later input wins), in input order; ids
    given with different content are named in a warning (:func:`warn_repeated_ids`)."""
    warn_repeated_ids(docs)
    last: dict[str, Document] = {}
    for d in docs:
        last[d.id] = d
    seen: set[str] = set()
    out = []
    for d in docs:
        if d.id not in seen and last[d.id] is d:
            out.append(d)
            seen.add(d.id)
    return out
