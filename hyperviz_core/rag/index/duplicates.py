"""One document per id: the duplicate-id policies of a load.

Two documents of one load with the same id are never silently merged:
:func:`resolve_duplicates` (what ``vizrag index --on-duplicate`` uses) refuses them naming
both sources (``"error"``, the default), keeps the first (``"skip"``) or the last
(``"replace"``); exact repeats (same id, title, text and metadata: the same
:attr:`~hyperviz_core.rag.types.Document.hash`) are dropped and counted.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from ..types import Document
from .loaders import LoaderError

__all__ = ["DuplicatePolicy", "DuplicateReport", "check_duplicate_policy", "resolve_duplicates"]

DuplicatePolicy = Literal["error", "skip", "replace"]


def check_duplicate_policy(policy: object) -> None:
    """``ValueError`` unless ``policy`` is a :data:`DuplicatePolicy`."""
    if policy not in ("error", "skip", "replace"):
        raise ValueError(f"unknown duplicate policy {policy!r}; use error, skip or replace")


class DuplicateReport(BaseModel):
    """What reading the input did: ``read = kept + duplicates + repeats + limited``
    (documents), plus ``unreadable``: each file left out whole as ``"path: why"``
    (``on_unreadable="skip"``; its documents are not counted in ``read``)."""

    read: int = 0
    kept: int = 0
    duplicates: int = 0  # same id, different content: skipped or replaced per policy
    repeats: int = 0  # same id and identical content: dropped
    limited: int = 0  # left out by a limit (``--limit N``: only the first N are kept)
    policy: DuplicatePolicy = "error"
    examples: list[str] = []
    unreadable: list[str] = []
    #: what the folder walks left out, ``"path: why"`` (other suffixes, hidden entries,
    #: links to folders, broken links, second paths to a file read already)
    left_out: list[str] = []

    def record_duplicate(self, doc_id: str, first: str, later: str) -> None:
        """Count a later document with ``doc_id`` and other content (``first``/``later``:
        where each came from); under ``"error"`` a :class:`LoaderError` naming both."""
        if first != later and (unicodedata.normalize("NFC", first)
                               == unicodedata.normalize("NFC", later)):
            # the same name in two Unicode forms (as macOS writes decomposed names): they
            # print alike, so say which is which
            first, later = f"{first!a}", f"{later!a}"
            note = " (the two names differ only in Unicode form: composed and decomposed)"
        else:
            note = ""
        if self.policy == "error":
            raise LoaderError(f"duplicate document id {doc_id!r}: {first} and {later}{note} "
                              "(use --on-duplicate replace|skip)")
        self.duplicates += 1
        if len(self.examples) < 5:
            self.examples.append(f"{doc_id!r}: {first} and {later}{note}")


def resolve_duplicates(
    docs: Sequence[tuple[Document, str]], policy: DuplicatePolicy = "error"
) -> tuple[list[Document], DuplicateReport]:
    """One document per id, by ``policy``; :class:`LoaderError` naming both sources on
    ``"error"``.

    >>> a, b = Document(id="x", text="one"), Document(id="x", text="two")
    >>> docs, rep = resolve_duplicates([(a, "f.json (item 0)"), (b, "f.json (item 3)")], "skip")
    >>> [d.text for d in docs], rep.duplicates, rep.read == rep.kept + rep.duplicates
    (['one'], 1, True)
    >>> resolve_duplicates([(a, "a.json"), (b, "b.json")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.index.errors.LoaderError: duplicate document id 'x': a.json and b.json ...
    """
    check_duplicate_policy(policy)
    report = DuplicateReport(read=len(docs), policy=policy)
    first: dict[str, tuple[int, str]] = {}
    kept: list[Document | None] = []
    for doc, where in docs:
        if doc.id not in first:
            first[doc.id] = (len(kept), where)
            kept.append(doc)
            continue
        slot, src = first[doc.id]
        old = kept[slot]
        assert old is not None
        if old.hash == doc.hash:
            report.repeats += 1
            continue
        report.record_duplicate(doc.id, src, where)
        if policy == "replace":
            kept[slot] = doc
            first[doc.id] = (slot, where)
    out = [d for d in kept if d is not None]
    report.kept = len(out)
    return out, report
