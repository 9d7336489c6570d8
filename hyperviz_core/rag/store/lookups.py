"""Reads behind lazy retrieval that both backends share: chunks by number, their evidence.

Lazy retrieval (:mod:`hyperviz_core.rag.retrieve.lazy`) names chunks by an integer *number*
— SQLite's ``rowid``, PostgreSQL's ``num`` of the derived lexical table
(:mod:`.postgres.lexical`) — so that postings, the chunk catalogue and the PageRank arrays
are integer arrays. :class:`ChunkLookupsMixin` holds the lookups written once in portable
SQL (``?`` placeholders through ``self._q``) with the number as an SQL expression over
``chunks c``: ``_NUM`` and the joins it needs, ``_NUM_JOIN``. Each backend adds its own
full-text candidates, generation token and whole-store arrays
(:mod:`.sqlite.lookups`, :mod:`.postgres.lookups`), and where it keeps what a query derives
per store state (``_kept_set``: :mod:`.sqlite.state_arrays`, :mod:`.postgres.state_arrays`):
the chunk catalogue here, the strings and float arrays of :meth:`~ChunkLookupsMixin.kept_strings`
and :meth:`~ChunkLookupsMixin.kept_floats`.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..types import Chunk, passage_text
from .kept import Arrays, Strings
from .sqlite.local_reads import _BATCH, _batches
from .sqlite.merge import entity_text, hyperedge_text
from .sqlite.schema import loads

__all__ = ["ChunkLookupsMixin", "KeptSet", "chunk_row", "pairs", "passage_title"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: what a query derives per store state: integer or float arrays and string lists
KeptSet = tuple[Arrays, Strings]


def pairs(cursor: Iterable[Any]) -> IntArray:
    """An (n, 2) int64 array of the (a, b) rows of ``cursor``."""
    flat = np.fromiter(itertools.chain.from_iterable(cursor), dtype=np.int64)
    return flat.reshape(-1, 2)


def chunk_row(row: Any) -> tuple[int, Chunk, str]:
    """(number, chunk, document title) of a row of :attr:`ChunkLookupsMixin._cols`."""
    num, cid, doc_id, text, idx, start, end, meta, title = row
    return int(num), Chunk(id=cid, doc_id=doc_id, text=text, index=idx, start=start,
                           end=end, metadata=loads(meta)), str(title or "")


def passage_title(doc_title: str | None, meta: str) -> str:
    """The title ranking gives a chunk: its document's, else ``metadata["title"]``."""
    return str(doc_title or loads(meta).get("title") or "")


class ChunkLookupsMixin:
    """Chunk and evidence lookups of lazy retrieval, by chunk number."""

    _lock: threading.RLock
    _q: Callable[..., list[Any]]
    _members: Callable[[set[str]], dict[str, list[str]]]  # LocalReadsMixin's
    #: SQL expression of a chunk's number in a query over ``chunks c`` ...
    _NUM = "c.rowid"
    #: ... and the joins it needs (after ``FROM chunks c``)
    _NUM_JOIN = ""

    def _cols(self) -> str:
        return (f'{self._NUM}, c.id, c.doc_id, c.text, c.idx, c.start, c."end", c.metadata, '
                "d.title")

    def _rows_in(self, sql: str, items: Iterable[Any], head: Sequence[Any] = ()
                 ) -> Iterator[Any]:
        """Rows of ``sql`` whose ``{marks}`` is an ``IN`` list over the distinct ``items``,
        in batches (``head`` parameters before each batch's)."""
        for part in _batches(items):
            yield from self._q(sql.format(marks=",".join("?" * len(part))), [*head, *part])

    def _by_number(self, select: str, nums: Iterable[int], head: Sequence[Any] = ()
                   ) -> Iterator[Any]:
        """Rows of ``SELECT {select} FROM chunks c <number joins> JOIN documents d ...
        WHERE <number> IN (...)`` over ``nums`` (``head`` parameters first)."""
        return self._rows_in(
            f"SELECT {select} FROM chunks c{self._NUM_JOIN} JOIN documents d ON "
            f"d.id = c.doc_id WHERE {self._NUM} IN ({{marks}})", (int(n) for n in nums), head)

    def lexical_passages(self, rowids: Iterable[int]) -> dict[int, str]:
        """Chunk number → the passage BM25 reads (title + newline + text)."""
        with self._lock:
            return {int(num): passage_text(passage_title(title, meta), text)
                    for num, text, meta, title in self._by_number(
                        f"{self._NUM}, c.text, c.metadata, d.title", rowids)}

    def iter_passages(self, batch: int = _BATCH) -> Iterator[str]:
        """Every chunk's passage (as :meth:`lexical_passages`), in number order, read
        ``batch`` chunks at a time (keyset pages: one page in memory, the store's lock held
        per page only)."""
        sql = (f"SELECT {self._NUM}, c.text, c.metadata, d.title FROM chunks c{self._NUM_JOIN}"
               f" JOIN documents d ON d.id = c.doc_id {{where}} ORDER BY {self._NUM} LIMIT ?")
        last: int | None = None
        while True:
            with self._lock:
                if last is None:
                    rows = self._q(sql.format(where=""), (batch,))
                else:
                    rows = self._q(sql.format(where=f"WHERE {self._NUM} > ?"), (last, batch))
            for _num, text, meta, title in rows:
                yield passage_text(passage_title(title, meta), text)
            if len(rows) < batch:
                return
            last = int(rows[-1][0])

    # ------------------------------------------------------------------ chunks
    def _kept_set(self, name: str, compute: Callable[[], KeptSet],
                  valid: Callable[[KeptSet], bool] | None = None) -> KeptSet:
        """``compute()`` kept in the store per state (each backend's own table); a kept
        set ``valid`` refuses is computed again and replaced."""
        raise NotImplementedError

    def kept_strings(self, name: str, compute: Callable[[], list[str]]) -> list[str]:
        """``compute()`` — strings derived from the store (the query-repair vocabulary) —
        kept in the store per state."""
        _, strings = self._kept_set(f"strings:{name}", lambda: ({}, {"strings": compute()}))
        return strings["strings"]

    def kept_floats(self, name: str, compute: Callable[[], FloatArray],
                    valid: Callable[[FloatArray], bool] | None = None) -> FloatArray:
        """``compute()`` — a float64 array derived from the store (the walk's two-step
        matrix) — kept in the store per state; a kept array ``valid`` refuses (made from
        other inputs than the caller's) is computed again and replaced."""
        check = None if valid is None else (
            lambda kept: "floats" in kept[0] and valid(kept[0]["floats"]))
        arrays, _ = self._kept_set(f"floats:{name}", lambda: ({"floats": compute()}, {}), check)
        found: FloatArray = arrays["floats"]
        return found

    def chunk_catalogue(self) -> list[tuple[int, str, str, int, str, str | None]]:
        """(number, chunk id, doc id, index, document title, metadata JSON when the title
        is empty) of every chunk, by chunk id — no texts; kept in the store per state."""
        def compute() -> KeptSet:
            with self._lock:
                rows = self._q(
                    f"SELECT {self._NUM}, c.id, c.doc_id, c.idx, d.title, "
                    f"CASE WHEN d.title = '' THEN c.metadata END FROM chunks c{self._NUM_JOIN} "
                    "JOIN documents d ON d.id = c.doc_id ORDER BY c.id")
            # metadata is JSON text, never empty: "" stands for none
            return ({"num": np.asarray([int(r[0]) for r in rows], dtype=np.int64),
                     "idx": np.asarray([int(r[3]) for r in rows], dtype=np.int64)},
                    {"id": [r[1] for r in rows], "doc": [r[2] for r in rows],
                     "title": [str(r[4] or "") for r in rows],
                     "meta": [r[5] or "" for r in rows]})

        arrays, strings = self._kept_set("catalogue", compute)
        return list(zip(arrays["num"].tolist(), strings["id"], strings["doc"],
                        arrays["idx"].tolist(), strings["title"],
                        [m or None for m in strings["meta"]], strict=True))

    def chunks_by_rowid(self, rowids: Iterable[int]) -> dict[int, tuple[Chunk, str]]:
        """Chunk number → (chunk, document title)."""
        with self._lock:
            found = [chunk_row(r) for r in self._by_number(self._cols(), rowids)]
        return {num: (chunk, title) for num, chunk, title in found}

    def chunk_rowids(self, ids: Iterable[str]) -> dict[str, int]:
        """Chunk id → number (unknown ids left out)."""
        with self._lock:
            return {r[0]: int(r[1]) for r in self._rows_in(
                f"SELECT c.id, {self._NUM} FROM chunks c{self._NUM_JOIN} "
                "WHERE c.id IN ({marks})", ids)}

    def chunk_heads(self, rowids: Iterable[int], chars: int) -> dict[int, str]:
        """Chunk number → the first ``chars`` characters of the chunk's text."""
        with self._lock:
            return {int(r[0]): r[1] for r in self._by_number(
                f"{self._NUM}, substr(c.text, 1, ?)", rowids, (chars,))}

    # ------------------------------------------------------------------ evidence
    def hyperedge_source_rowids(self, hids: Iterable[str]) -> dict[str, list[int]]:
        """Relation hyperedge id → numbers of the chunks it was extracted from."""
        out: dict[str, set[int]] = {}
        with self._lock:
            for hid, num in self._rows_in(
                    f"SELECT m.hid, {self._NUM} FROM hyperedge_mentions m JOIN chunks c "
                    f"ON c.id = m.chunk_id{self._NUM_JOIN} WHERE m.hid IN ({{marks}}) AND "
                    "EXISTS (SELECT 1 FROM hyperedges h WHERE h.id = m.hid AND "
                    "h.kind = 'relation')", hids):
                out.setdefault(hid, set()).add(int(num))
        return {k: sorted(v) for k, v in sorted(out.items())}

    def chunk_entity_keys(self, rowids: Iterable[int]) -> dict[int, list[str]]:
        """Chunk number → sorted keys of the entities extracted from it."""
        out: dict[int, list[str]] = {}
        with self._lock:
            for num, key in self._rows_in(
                    f"SELECT {self._NUM}, m.key FROM chunks c{self._NUM_JOIN} JOIN "
                    "entity_mentions m ON m.chunk_id = c.id JOIN entities e ON "
                    f"e.key = m.key WHERE {self._NUM} IN ({{marks}}) ORDER BY 1, 2",
                    (int(r) for r in rowids)):
                out.setdefault(int(num), []).append(key)
        return out

    def entity_info(self, keys: Iterable[str]) -> dict[str, tuple[str, str]]:
        """Entity key → (name, type) for the keys that exist."""
        with self._lock:
            return {r[0]: (r[1], r[2]) for r in self._rows_in(
                "SELECT key, name, type FROM entities WHERE key IN ({marks})", keys)}

    def entity_texts(self, keys: Iterable[str]) -> dict[str, str]:
        """Entity key → the text its vector is made of (:func:`~.sqlite.merge.entity_text`)
        for the keys that exist."""
        with self._lock:
            return {r[0]: entity_text(r[1], r[2] or "") for r in self._rows_in(
                "SELECT key, name, description FROM entities WHERE key IN ({marks})", keys)}

    def theme_texts(self, hids: Iterable[str]) -> dict[str, str]:
        """Theme hyperedge id → the text its vector is made of
        (:func:`~.sqlite.merge.hyperedge_text`) for the themes that exist."""
        with self._lock:
            rows = list(self._rows_in("SELECT id, description, keywords FROM hyperedges "
                                      "WHERE kind = 'theme' AND id IN ({marks})", hids))
            members = self._members({r[0] for r in rows})
            info = self.entity_info({k for ms in members.values() for k in ms})
        return {hid: hyperedge_text("theme", desc or "", [info.get(k, ("", ""))[0] or k
                                                         for k in members.get(hid, [])],
                                    loads(kws))
                for hid, desc, kws in rows}

    def hyperedge_kinds(self, hids: Iterable[str]) -> dict[str, str]:
        """Hyperedge id → kind (``relation``/``theme``) for the ids that exist."""
        with self._lock:
            return {r[0]: r[1] for r in self._rows_in(
                "SELECT id, kind FROM hyperedges WHERE id IN ({marks})", hids)}

    def hyperedge_members(self, hids: Iterable[str]) -> dict[str, list[str]]:
        """Hyperedge id → member keys in order (the ids that exist)."""
        with self._lock:
            return self._members(set(hids))

    def top_entity_keys(self) -> list[str]:
        """Keys of the entities of G_top (key entities of some theme), sorted."""
        with self._lock:
            return [r[0] for r in self._q("SELECT DISTINCT key FROM key_entities ORDER BY key")]
