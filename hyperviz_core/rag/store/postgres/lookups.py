"""Lazy retrieval's lookups on PostgreSQL: postings, generation, whole-store integer arrays.

With these the PostgreSQL store serves lazy retrieval (:mod:`hyperviz_core.rag.retrieve.lazy`)
as the SQLite store does: a query reads its candidate chunks, their evidence and integer
arrays of the incidence structure instead of loading both layers, every chunk and a BM25
index over all of them. Chunks are numbered by the derived lexical table (:mod:`.lexical`);
entities and hyperedges by their rank in key / id order, computed in the statement that
reads each array (a writer committing between two such reads moves the store's generation,
and lazy retrieval then runs the query again on the new state).

Example (needs a server; see ``tests/test_lazy_query_pg.py``)::

    store = PostgresStore("postgresql://...")
    store.lexical_ready(tokens)          # postings of chunks an older writer left without
    store.lexical_postings(["snow"])     # {"snow": (chunk numbers, counts)}
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...types import Chunk
from ..lookups import ChunkLookupsMixin, KeptSet, chunk_row, pairs
from .connection import Pool
from .lexical import LEX, TERMS, ensure_lexical, term_key
from .schema import CHANGE_TOKEN
from .state_arrays import PgKeptArrays

__all__ = ["PgQueryLookupsMixin"]

IntArray = npt.NDArray[np.int64]

log = logging.getLogger(__name__)

#: seconds before a database that refused the postings tables is asked again
RETRY_REFUSED_S = 600

_ENTITY_RANKS = "SELECT key, ROW_NUMBER() OVER (ORDER BY key) - 1 AS o FROM entities"
_FETCH = 100_000
_POSTINGS = (f"SELECT term, string_agg(int8send(num), ''::bytea ORDER BY num), "
             f"string_agg(int4send(tf), ''::bytea ORDER BY num) FROM {TERMS} "
             "WHERE term = ANY(?) GROUP BY term")


class PgQueryLookupsMixin(ChunkLookupsMixin):
    """Lookups of lazy retrieval (mixed into :class:`~.store.PostgresStore`)."""

    #: the postings count every token as the ranking does (ASCII or not): a query never
    #: re-reads candidate texts to count its tokens (SQLite's FTS5 postings are exact for
    #: ASCII tokens only)
    EXACT_POSTINGS = True
    _pool: Pool
    _lexical_refused: float | None = None
    _lexical_made = False  # the postings were made (and filled) through this object
    _NUM = "l.num"
    _NUM_JOIN = f" JOIN {LEX} l ON l.chunk_id = c.id"

    def _pairs(self, sql: str, params: tuple[Any, ...] = ()) -> IntArray:
        """The (a, b) integer rows of ``sql`` as an (n, 2) array, fetched in batches."""
        parts: list[IntArray] = []
        with self._pool.read() as c:
            cur = c.execute(sql, params)
            while rows := cur.fetchmany(_FETCH):
                parts.append(pairs(rows))
        return np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)

    # ------------------------------------------------------------------ state
    def query_generation(self) -> tuple[int, int, int]:
        """A token that changes whenever a document is written or deleted (by any
        process) — :data:`~.schema.CHANGE_TOKEN` of ``data_changes``, which every write adds to — or
        the postings tables are made anew (the chunk table's object id: chunk numbers of
        dropped tables mean nothing)."""
        row = self._q(f"SELECT t.*, COALESCE(to_regclass(?)::oid::bigint, 0) "
                      f"FROM ({CHANGE_TOKEN}) t", (LEX,))[0]
        return int(row[0]), int(row[1]), int(row[2])

    def lexical_ready(self, tokenize: Callable[[str], list[str]] | None = None, *,
                      prepare: bool = False) -> bool:
        """Whether BM25 candidates can come from the postings: with the ranking's
        ``tokenize``, the tables are made when missing and the chunks without postings
        (written by a version that wrote none) get theirs (False without ``tokenize`` or
        when the database refuses). ``prepare`` changes nothing here: PostgreSQL has no
        lock over the whole store that another process's indexing holds. In this thread's
        read snapshot (a pinned query) nothing can be written: the postings count when they
        were made before, and nothing is taken for a refusal (before, the refused write
        turned lazy retrieval off for :data:`RETRY_REFUSED_S`)."""
        if tokenize is None:
            return False
        if self._pool.pinned_here():
            return self._lexical_made
        with self._lock:
            refused = self._lexical_refused
            if refused is not None and time.monotonic() - refused < RETRY_REFUSED_S:
                return False  # asked again in a while, not on every query
            reason = ensure_lexical(self._pool, tokenize)
            if reason is None:
                self._lexical_refused, self._lexical_made = None, True
                return True
            log.log(logging.WARNING if refused is None else logging.INFO,
                    "lazy retrieval unavailable on %s (%s): queries load the whole store "
                    "(asked again in %d s)", self._pool.where, reason, RETRY_REFUSED_S)
            self._lexical_refused = time.monotonic()
            return False

    def lexical_candidates(self, tokens: Iterable[str]) -> list[tuple[int, Chunk, str]]:
        """(number, chunk, document title) of every chunk whose passage holds a token."""
        with self._lock:
            keys = sorted({term_key(t) for t in tokens})
            nums = [r[0] for r in self._q(f"SELECT DISTINCT num FROM {TERMS} WHERE "
                                          "term = ANY(?)", (keys,))]
            return sorted(chunk_row(r) for r in self._by_number(self._cols(), nums))

    def lexical_terms(self, pieces: Sequence[str]) -> dict[str, list[str]]:
        """Each lone piece of a run without spaces (``猫``) → the BM25 tokens holding it
        (:func:`~...retrieve.lexical.holds_piece`), sorted: the postings' terms that hold it
        as a substring (a scan of the distinct terms)."""
        from ...retrieve.lexical import piece_terms

        with self._lock:
            terms = [t for piece in pieces for (t,) in self._q(
                f"SELECT DISTINCT term FROM {TERMS} WHERE strpos(term, ?) > 0", (piece,))]
        return piece_terms(terms, pieces)

    def lexical_postings(self, terms: Iterable[str]) -> dict[str, tuple[IntArray, IntArray]]:
        """Token → (chunk numbers, occurrences) of the passages holding it (each token's
        postings one index range, sent packed as big-endian integers)."""
        wanted = sorted(set(terms))
        with self._lock:
            rows = self._q(_POSTINGS, (sorted({term_key(t) for t in wanted}),))
        found = {key: (np.frombuffer(nums, dtype=">i8").astype(np.int64),
                       np.frombuffer(tfs, dtype=">i4").astype(np.int64))
                 for key, nums, tfs in rows}
        empty = np.zeros(0, dtype=np.int64)
        return {term: found.get(term_key(term), (empty, empty)) for term in wanted}

    def lexical_lengths(self, measure: Callable[[str], int]) -> tuple[IntArray, IntArray,
                                                                      IntArray]:
        """(numbers, BM25 lengths, exact flags) of every chunk with postings. The lengths
        were measured with the ranking's tokenizer when the postings were made
        (``measure`` is not needed); every flag is 1: the postings are the passages' BM25
        tokens, whatever their characters."""
        found = self._pairs(f"SELECT num, length FROM {LEX} ORDER BY num")
        return found[:, 0].copy(), found[:, 1].copy(), np.ones(len(found), dtype=np.int64)

    # ------------------------------------------------------------------ compact arrays
    def entity_catalogue(self) -> tuple[list[str], IntArray]:
        """Every entity key sorted, and its number (its rank in that order)."""
        with self._lock:
            keys = [r[0] for r in self._q("SELECT key FROM entities ORDER BY key")]
        return keys, np.arange(len(keys), dtype=np.int64)

    @property
    def _kept(self) -> PgKeptArrays:
        found = self.__dict__.get("_kept_arrays")
        if found is None:
            found = self.__dict__["_kept_arrays"] = PgKeptArrays(self._pool,
                                                                 self.query_generation)
        return found

    def _kept_set(self, name: str, compute: Callable[[], KeptSet],
                  valid: Callable[[KeptSet], bool] | None = None) -> KeptSet:
        """``compute()`` kept in the database per state (:mod:`.state_arrays`), through
        the pool: no store lock is held while ``compute`` runs."""
        return self._kept.get(name, compute, valid)

    def layer_structure(self, kind: str) -> tuple[list[str], IntArray, IntArray]:
        """The incidence structure of the hyperedges of ``kind`` without their texts:
        (their ids sorted, their numbers, (hyperedge number, entity number) pairs in (id,
        member position) order), read in one snapshot; kept in the database per state
        (:mod:`.state_arrays`)."""
        def compute() -> tuple[dict[str, IntArray], dict[str, list[str]]]:
            with self._pool.read() as c:
                ids = [r[0] for r in c.execute(
                    "SELECT id FROM hyperedges WHERE kind = ? ORDER BY id", (kind,)).fetchall()]
                found = pairs(c.execute(
                    f"WITH e AS ({_ENTITY_RANKS}), h AS (SELECT id, ROW_NUMBER() OVER (ORDER "
                    "BY id) - 1 AS o FROM hyperedges WHERE kind = ?) SELECT h.o, e.o FROM "
                    "incidences i JOIN h ON h.id = i.hid JOIN e ON e.key = i.entity_key "
                    "ORDER BY i.hid, i.position", (kind,)).fetchall())
            return {"pairs": found}, {"ids": ids}

        arrays, strings = self._kept_set(f"layer:{kind}", compute)
        ids = strings["ids"]
        return ids, np.arange(len(ids), dtype=np.int64), arrays["pairs"].reshape(-1, 2)

    def mention_rowids(self) -> IntArray:
        """Distinct (chunk number, entity number) pairs of every mention of an entity (kept
        in the database per state)."""
        def compute() -> tuple[dict[str, IntArray], dict[str, list[str]]]:
            return {"pairs": self._pairs(
                f"WITH e AS ({_ENTITY_RANKS}) SELECT l.num, e.o FROM entity_mentions m "
                f"JOIN {LEX} l ON l.chunk_id = m.chunk_id JOIN e ON e.key = m.key")}, {}

        arrays, _ = self._kept_set("mentions", compute)
        return arrays["pairs"].reshape(-1, 2)
