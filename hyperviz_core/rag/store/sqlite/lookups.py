"""Reads behind lazy retrieval (issue 17): candidate chunks, their evidence, compact arrays.

What :class:`~hyperviz_core.rag.retrieve.lazy.LazyCorpus` asks the SQLite store for instead
of loading both layers and every chunk: the chunks holding a query token (from the derived
FTS5 index of :mod:`.fts`), chunks by rowid, the source chunks of some entities and
hyperedges, the entity keys of some chunks (those shared with PostgreSQL are in
:mod:`..lookups`), and — once per store state, as integer arrays
without texts or descriptions — the entity–hyperedge incidences and the chunk–entity
mentions the personalised PageRank walks over. Every lookup uses a primary key or an index
(``entity_mentions(key)``, ``hyperedge_mentions(hid)``, ``incidences``).

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> from hyperviz_core.rag.types import Chunk, ChunkExtraction, Document
    >>> from hyperviz_core.model import Entity, Hyperedge
    >>> store = HypergraphStore(tempfile.mkdtemp())
    >>> ex = ChunkExtraction(chunk_id="c1", entities=[Entity(name="Hank Snow")],
    ...     hyperedges=[Hyperedge(members=["Hank Snow", "Nashville"])])
    >>> _ = store.add_document(Document(id="d", text="Hank Snow sang.", title="Snow"),
    ...     [Chunk(id="c1", doc_id="d", text="Hank Snow sang.")], [ex])
    >>> store.lexical_ready()
    True
    >>> [(c.id, title) for _, c, title in store.lexical_candidates(["sang"])]
    [('c1', 'Snow')]
    >>> store.close()
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from ...types import Chunk, passage_text
from ..lookups import (
    ChunkLookupsMixin,
    KeptSet,
    chunk_row,
    pairs,
    passage_title,
)
from .fts import (
    ensure_chunk_fts,
    fts_ready,
    lengths,
    match_chunks,
    missing_lengths,
    postings,
    store_lengths,
    term_postings,
)
from .state_arrays import kept_arrays
from .writes import WRITES_KEY

__all__ = ["QueryLookupsMixin"]

IntArray = npt.NDArray[np.int64]


_LETTERS = ("Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No")
_SEPARATORS = ("Zs", "Zl", "Zp", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So",
               "Cc", "Cf")
_SAFE: dict[str, bool] = {}


def _safe_char(c: str) -> bool:
    """Whether FTS5 ``unicode61`` and Python's ``\\w`` agree on ``c`` as far as tokens of
    ASCII characters go: a letter or digit of an old block (both count it as a token
    character, it lower-cases to one non-ASCII character) or a separator for both. (The
    ASCII underscore is never asked about: both split words at it — FTS5 by default, BM25
    through ``lexical_text``.)"""
    ok = _SAFE.get(c)
    if ok is None:
        cat = unicodedata.category(c)
        cp = ord(c)
        old = cp < 0x2C00 or 0x3040 <= cp < 0xA000 or 0xAC00 <= cp < 0xD7A4
        low = c.lower()
        ok = (cat in _SEPARATORS and cp < 0x3000) or (
            cat in _LETTERS and old and len(low) == 1 and not low.isascii()
            and len(c.casefold()) == 1 and not c.casefold().isascii())
        _SAFE[c] = ok
    return ok


def _same_ascii_tokens(text: str) -> bool:
    """Whether the FTS tokens of passage ``text`` that are ASCII equal its BM25 tokens that
    are ASCII (ASCII text; else only characters of :func:`_safe_char`)."""
    return text.isascii() or all(_safe_char(c) for c in set(text) if not c.isascii())


class QueryLookupsMixin(ChunkLookupsMixin):
    """Lookups of lazy retrieval (mixed into :class:`~.store.HypergraphStore`)."""

    _conn: sqlite3.Connection
    read_only: bool
    keeps_derived: Callable[[], bool]
    _check_file: Callable[[], None]
    #: term → {rowid: count} of the passages the last :meth:`lexical_lengths` measured but
    #: could not store (a read-only or busy store): their :data:`~.fts.TERMS` postings
    _unstored_terms: dict[str, dict[int, int]]
    #: (store state, piece → rowids of the passages holding it) of the last lexical_terms
    _piece_rows: tuple[tuple[int, int, int], dict[str, list[int]]]

    def _unstored(self) -> dict[str, dict[int, int]]:
        return getattr(self, "_unstored_terms", {})

    # ------------------------------------------------------------------ state
    def query_generation(self) -> tuple[int, int, int]:
        """A token that changes whenever a document is written or deleted (by this or
        another process): caches of derived query data are keyed by it.

        (``PRAGMA data_version``, the store's write counter, the last document sequence
        number): the first moves with other connections' commits, the second with every
        write of this version (this connection's included — after a delete and an add the
        document count and last sequence number may be what they were)."""
        with self._lock:
            self._check_file()  # a deleted or replaced store file: StoreError
            dv = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
            writes = self._conn.execute(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", (WRITES_KEY,)
            ).fetchone()
            seq = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM documents").fetchone()
        return dv, int(writes[0]) if writes else 0, int(seq[0])

    def lexical_ready(self, tokenize: Callable[[str], list[str]] | None = None, *,
                      prepare: bool = False) -> bool:
        """Whether BM25 candidates can come from the FTS5 index (made on first use; False
        on a read-only store that lacks it, or when a query — not ``prepare``, which waits
        as every write does — finds another process's write lock held past 0.2 s).
        ``tokenize`` (the ranking's tokenizer, which the PostgreSQL store's postings need)
        is not used: FTS5 tokenizes."""
        with self._lock:
            if not self.keeps_derived():
                return fts_ready(self._conn)
            return ensure_chunk_fts(self._conn, brief=not prepare)

    def lexical_candidates(self, tokens: Iterable[str]) -> list[tuple[int, Chunk, str]]:
        """(rowid, chunk, document title) of every chunk whose passage holds a token (an
        FTS token, a stored BM25 token FTS cannot find, or a piece of a run without spaces
        found as a substring of the passage: a scan of the chunks — of those holding a
        piece of it only, when :meth:`lexical_terms` just found them)."""
        from ...retrieve.lexical import cjk_token

        toks = sorted(set(tokens))
        with self._lock:
            unstored = self._unstored()
            extra = sorted({r for t in toks for r in unstored.get(t, {})})
            held = self._held_pieces()
            near = {t: [p for p in held if p in t] for t in toks if cjk_token(t)}
            rows = match_chunks(self._conn, toks, self._cols().replace(
                "d.title", "(SELECT d.title FROM documents d WHERE d.id = c.doc_id)"), extra,
                substrings=[t for t, ps in near.items() if not ps],
                within=([t for t, ps in near.items() if ps],
                        [r for t, ps in near.items() for p in ps for r in held[p]]))
        return [chunk_row(r) for r in rows]

    def lexical_terms(self, pieces: Sequence[str]) -> dict[str, list[str]]:
        """Each lone piece of a run without spaces (``猫``) → the BM25 tokens holding it
        (:func:`~...retrieve.lexical.holds_piece`), sorted: the tokens of the passages that
        hold it as a substring (a scan of the chunks). The scan of a piece stops once more
        than :data:`~...retrieve.lexical.MAX_PIECE_TERMS` tokens hold it (a common
        character, which :func:`~...retrieve.lexical.with_pieces` leaves as it is: those
        found so far are returned); the passages holding each other piece are kept for
        this state of the store, so the query's :meth:`lexical_candidates` looks for its
        pairs in them, not in every passage again."""
        from ...retrieve.lexical import MAX_PIECE_TERMS, cjk_token, piece_terms, tokens

        out: dict[str, list[str]] = {}
        held: dict[str, list[int]] = {}
        cols = "c.rowid, c.text, c.metadata, (SELECT title FROM documents WHERE id = c.doc_id)"
        with self._lock:
            state = self.query_generation()
            unstored = self._unstored()
            for piece in sorted(set(pieces)):
                found: set[str] = set()
                rowids: list[int] = []
                rows = match_chunks(self._conn, [piece], cols, sorted(unstored.get(piece, {})),
                                    substrings=[piece] if cjk_token(piece) else [], cursor=True)
                for rowid, text, meta, title in rows:
                    rowids.append(int(rowid))
                    passage = passage_text(passage_title(title, meta), text)
                    found.update(piece_terms(tokens(passage), [piece])[piece])
                    if len(found) > MAX_PIECE_TERMS:
                        rows.close()
                        break
                else:
                    held[piece] = rowids
                out[piece] = sorted(found)
            self._piece_rows = (state, held)
        return {p: out[p] for p in pieces}

    def _held_pieces(self) -> dict[str, list[int]]:
        """Piece → the rowids of the passages holding it, as the last :meth:`lexical_terms`
        found them, if the store has not changed since (else nothing)."""
        state, held = getattr(self, "_piece_rows", (None, {}))
        return held if held and state == self.query_generation() else {}

    def lexical_postings(self, terms: Iterable[str]) -> dict[str, tuple[IntArray, IntArray]]:
        """Token → (chunk rowids, occurrences) of the passages holding it: FTS tokens, and
        the BM25 tokens of the passages FTS tokenizes otherwise (their counts)."""
        wanted = sorted(set(terms))
        with self._lock:
            out = {t: postings(self._conn, t) for t in wanted}
            side = term_postings(self._conn, wanted)
            for term, found in self._unstored().items():
                if term in out:
                    side.setdefault(term, {}).update(found)
        for term, found in side.items():
            rowids, tfs = out[term]
            merged = dict(zip(rowids.tolist(), tfs.tolist(), strict=True))
            merged.update(found)
            order = sorted(merged)
            out[term] = (np.asarray(order, dtype=np.int64),
                         np.asarray([merged[r] for r in order], dtype=np.int64))
        return out

    def lexical_lengths(self, measure: Callable[[str], int]) -> tuple[IntArray, IntArray,
                                                                      IntArray]:
        """(rowids, BM25 lengths, exact flags) of every chunk. ``measure(passage)`` gives
        the length of the passages not measured yet (stored for the next reader when the
        store is writable); *exact* means the passage equals its indexed body (where
        Arabic's ``ي`` is ``ی`` ...: :func:`~...scripts.letters_swapped`) and its
        FTS tokens made of ASCII characters are its BM25 tokens made of ASCII characters
        (:func:`_same_ascii_tokens`), so ASCII query tokens may be counted by FTS. A
        passage FTS tokenizes otherwise (:func:`~...retrieve.lexical.segmented`: kana, Han,
        Hangul, Thai, Lao, Myanmar, Khmer, full-width forms, ``İ``) is not exact, and its
        BM25 tokens FTS cannot find it by (:func:`~...retrieve.lexical.plain_missed`:
        ``istanbul`` of ``İstanbul``, not the pieces of a Han run, found by substring) are
        stored with its length (kept in
        memory when they cannot be stored)."""
        from ...retrieve.lexical import plain_missed, segmented  # the ranking's own tokens
        from ...scripts import letters_swapped

        with self._lock:
            fresh: list[tuple[int, int, int]] = []
            terms: list[tuple[str, int, int]] = []
            for rowid, text, meta, title, body in missing_lengths(self._conn):
                text = passage_text(passage_title(title, meta), text)
                special = segmented(text)
                fresh.append((int(rowid), measure(text),
                              int(body == letters_swapped(text) and not special
                                  and _same_ascii_tokens(text))))
                if special:
                    terms.extend((t, int(rowid), n) for t, n in plain_missed(text, body).items())
            stored = bool(fresh) and self.keeps_derived() and store_lengths(
                self._conn, fresh, terms)
            unstored: dict[str, dict[int, int]] = {}
            for term, rowid, n in [] if stored else terms:
                unstored.setdefault(term, {})[rowid] = n
            self._unstored_terms = unstored
            rows = {r: (d, e) for r, d, e in lengths(self._conn)}
            rows.update((r, (d, e)) for r, d, e in fresh)
        order = sorted(rows)
        return (np.asarray(order, dtype=np.int64),
                np.asarray([rows[r][0] for r in order], dtype=np.int64),
                np.asarray([rows[r][1] for r in order], dtype=np.int64))

    # ------------------------------------------------------------------ compact arrays
    def _kept_set(self, name: str, compute: Callable[[], KeptSet],
                  valid: Callable[[KeptSet], bool] | None = None) -> KeptSet:
        """``compute()`` kept in the store file per state (:mod:`.state_arrays`); a
        read-only store computes what it lacks and keeps nothing. The store's lock is held
        while the table is read and written, not while ``compute`` runs."""
        return kept_arrays(self._conn, name, compute, writable=self.keeps_derived(),
                           lock=self._lock, valid=valid)

    def entity_catalogue(self) -> tuple[list[str], IntArray]:
        """Every entity key sorted, and the rowid of each."""
        with self._lock:
            rows = self._q("SELECT key, rowid FROM entities ORDER BY key")
        return [r[0] for r in rows], np.asarray([r[1] for r in rows], dtype=np.int64)

    def layer_structure(self, kind: str) -> tuple[list[str], IntArray, IntArray]:
        """The incidence structure of the hyperedges of ``kind`` without their texts:
        (their ids sorted, their rowids in that order, (hyperedge rowid, entity rowid)
        pairs in (id, member position) order). Kept in the store per state
        (:mod:`.state_arrays`): a new process reads them back instead of joining again."""
        def compute() -> tuple[dict[str, IntArray], dict[str, list[str]]]:
            with self._lock:
                rows = self._q("SELECT id, rowid FROM hyperedges WHERE kind = ? ORDER BY id",
                               (kind,))
                found = pairs(self._conn.execute(
                    "SELECT h.rowid, e.rowid FROM incidences i JOIN hyperedges h ON "
                    "h.id = i.hid JOIN entities e ON e.key = i.entity_key WHERE h.kind = ? "
                    "ORDER BY i.hid, i.position", (kind,)))
            rowids = np.asarray([r[1] for r in rows], dtype=np.int64)
            return {"rowids": rowids, "pairs": found}, {"ids": [r[0] for r in rows]}

        arrays, strings = self._kept_set(f"layer:{kind}", compute)
        return strings["ids"], arrays["rowids"], arrays["pairs"].reshape(-1, 2)

    def mention_rowids(self) -> IntArray:
        """Distinct (chunk rowid, entity rowid) pairs of every mention of an entity (kept
        in the store per state, as :meth:`layer_structure`)."""
        def compute() -> tuple[dict[str, IntArray], dict[str, list[str]]]:
            with self._lock:
                return {"pairs": pairs(self._conn.execute(
                    "SELECT c.rowid, e.rowid FROM entity_mentions m JOIN chunks c ON "
                    "c.id = m.chunk_id JOIN entities e ON e.key = m.key"))}, {}

        arrays, _ = self._kept_set("mentions", compute)
        return arrays["pairs"].reshape(-1, 2)
