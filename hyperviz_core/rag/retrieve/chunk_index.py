"""The chunk index ranking reads: chunks, titles, BM25, home map and chunk → entity sources.

Built once per store state by the retriever (see :mod:`.rank` for how it is scored).

Example:
    >>> title_keys("Hello Love (song)")
    ['hello love (song)', 'hello love']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...model import Hypergraph, normalize_key
from ..providers.offline import word_tokens
from ..types import Chunk, passage_text
from .lexical import lone_pieces, piece_terms, query_tokens, tokens, with_pieces
from .lexicon import QueryLexicon, lexicon_for
from .names import NameLinker
from .walk import EntityWalk

__all__ = ["ChunkIndex", "FloatArray", "title_keys"]

_PAREN = re.compile(r"\s*\([^()]*\)\s*$")

FloatArray = npt.NDArray[np.float64]


def title_keys(title: str) -> list[str]:
    """Entity keys a document title stands for: the title, and without a trailing
    parenthetical (``"Hello Love (song)"`` → ``["hello love (song)", "hello love"]``)."""
    out: list[str] = []
    for variant in (title, _PAREN.sub("", title)):
        try:
            key = normalize_key(variant)
        except ValueError:
            continue
        if key not in out:
            out.append(key)
    return out


class ChunkIndex:
    """Everything chunk ranking needs, built once per store state.

    Holds the chunks (sorted by id), their document titles, a BM25 index over
    ``title + newline + text``, the *home* map (entity key → chunks of the document titled by
    it) and the inverse of the bottom layer's ``source_ids`` (chunk → entity keys).
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        titles: Mapping[str, str] | None = None,
        bottom: Hypergraph | None = None,
        *,
        link_names: bool = True,
        infer_homes: bool = True,
    ) -> None:
        from ...bm25_import import bm25s as _bm25s
        bm25s = _bm25s()

        titles = titles or {}
        self.chunks: list[Chunk] = sorted(chunks, key=lambda c: c.id)
        self.position: dict[str, int] = {c.id: i for i, c in enumerate(self.chunks)}
        self.titles: list[str] = [
            str(titles.get(c.doc_id) or c.metadata.get("title") or "") for c in self.chunks
        ]
        self.home: dict[str, list[int]] = {}
        for i, title in enumerate(self.titles):
            for key in title_keys(title) if title else []:
                self.home.setdefault(key, []).append(i)
        self._bottom = bottom
        self._walk: EntityWalk | None = None
        self.chunk_entities: list[list[str]] = [[] for _ in self.chunks]
        self.entity_sources: dict[str, list[int]] = {}
        self.hyperedge_sources: dict[str, list[int]] = {}
        if bottom is not None:
            for key in sorted(bottom.entities):
                pos = self._positions(bottom.entities[key].source_ids)
                self.entity_sources[key] = pos
                for p in pos:
                    self.chunk_entities[p].append(key)
            for hid in sorted(bottom.hyperedges):
                self.hyperedge_sources[hid] = self._positions(bottom.hyperedges[hid].source_ids)
        if bottom is not None and infer_homes:
            self._lead_homes(bottom)
        self.home_of: list[list[str]] = [[] for _ in self.chunks]
        for key, positions in sorted(self.home.items()):
            for p in positions:
                self.home_of[p].append(key)
        self._arrays: dict[tuple[str, str], npt.NDArray[np.int64]] = {}
        self._names = NameLinker()
        if link_names:
            self._link_names()
        self._bm25: Any = None  # a bm25s.BM25
        self._vocab: dict[str, int] = {}
        self._pieces: dict[str, list[str]] | None = None
        # the tokens of .lexical.tokens, numbered in order of first use as bm25s.tokenize
        # numbers them (the same index, bit for bit, where those are bm25s's own tokens)
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in tokens(self.passage_text(i))]
               for i in range(len(self.chunks))]
        if vocab:
            self._bm25 = bm25s.BM25()
            self._bm25.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab),
                             show_progress=False)
            self._vocab = vocab

    def __len__(self) -> int:
        return len(self.chunks)

    # the interface rank_chunks reads, shared with the lazy CandidateIndex
    @property
    def total(self) -> int:
        """Chunks in the corpus (here: all of them are indexed)."""
        return len(self.chunks)

    def tiebreak(self) -> npt.NDArray[np.int64]:
        """Rank of each position in chunk-id order (ties of a score go to the smaller)."""
        return np.arange(len(self.chunks), dtype=np.int64)

    def require(self, *, lexical_query: str | None = None, entities: Iterable[str] = (),
                hyperedges: Iterable[str] = (), chunk_ids: Iterable[str] = (),
                top_k: int = 0) -> None:
        """Make sure these are indexed (a no-op: every chunk is)."""

    def lexicon(self) -> QueryLexicon:
        """The query-repair lexicon of these chunks (:func:`~.lexicon.lexicon_for`)."""
        return lexicon_for(self)

    def source_count(self, key: str) -> int:
        """Number of source chunks of entity ``key``."""
        return len(self.entity_sources.get(key, []))

    def chunk_at(self, pos: int) -> Chunk:
        """The chunk at position ``pos``."""
        return self.chunks[pos]

    def title_at(self, pos: int) -> str:
        """The title of the chunk at position ``pos``."""
        return self.titles[pos]

    @property
    def walk(self) -> EntityWalk | None:
        """PPR over the bottom layer's entity–hyperedge incidence graph (built on first use;
        None without a bottom layer)."""
        if self._walk is None and self._bottom is not None and self._bottom.entities:
            self._walk = EntityWalk(self._bottom, self.entity_sources, len(self.chunks))
        return self._walk

    def _lead_homes(self, bottom: Hypergraph, window: int = 100, max_chunks: int = 3) -> None:
        """Give every short untitled document (at most ``max_chunks`` chunks) a home entity:
        the named entity (not a date or a quantity) its first chunk opens with — the subject
        of an encyclopedic passage ("Hank Snow was a Canadian singer ..."), found in the first
        ``window`` characters. A long document (a novel) is about more than its opening."""
        docs: dict[str, list[int]] = {}
        for i, c in enumerate(self.chunks):
            docs.setdefault(c.doc_id, []).append(i)
        for _doc, positions in sorted(docs.items()):
            if self.titles[positions[0]] or len(positions) > max_chunks:
                continue
            first = min(positions, key=lambda p: (self.chunks[p].index, p))
            head = self.chunks[first].text[:window].casefold()
            best: tuple[int, int, str] | None = None
            for key in self.chunk_entities[first]:
                ent = bottom.entities[key]
                if ent.type in ("date", "quantity") or len(key) < 4 or key.isdigit():
                    continue
                m = re.search(r"(?<!\w)" + re.escape(ent.name.casefold()) + r"(?!\w)", head)
                if m and (best is None or (m.start(), -len(key), key) < best):
                    best = (m.start(), -len(key), key)
            if best is not None:
                self.home.setdefault(best[2], []).extend(positions)

    def _link_names(self, max_words: int = 6) -> None:
        """Index the document-title entities by their words and add to ``chunk_entities``
        the ones a chunk names verbatim (catching mentions the extractor missed)."""
        for key in self.home:
            words = tuple(word_tokens(key))
            if words and len(key) >= 4 and len(words) <= max_words:
                self._names.add(words, key)
        for i, chunk in enumerate(self.chunks):
            found = set(self.chunk_entities[i]) | set(self.link(chunk.text))
            self.chunk_entities[i] = sorted(found)

    def link(self, text: str) -> list[str]:
        """Keys of the document-title entities named verbatim (word n-grams) by ``text``."""
        return self._names.find(word_tokens(text)) if self._names else []

    def _array(self, kind: str, key: str, positions: Sequence[int]) -> npt.NDArray[np.int64]:
        arr = self._arrays.get((kind, key))
        if arr is None:
            arr = np.asarray(positions, dtype=np.int64)
            self._arrays[(kind, key)] = arr
        return arr

    def home_array(self, key: str) -> npt.NDArray[np.int64]:
        """Positions of the chunks of the document titled ``key`` (numpy, cached)."""
        return self._array("home", key, self.home.get(key, []))

    def source_array(self, key: str) -> npt.NDArray[np.int64]:
        """Positions of the source chunks of entity ``key`` (numpy, cached)."""
        return self._array("entity", key, self.entity_sources.get(key, []))

    def hyperedge_array(self, hid: str) -> npt.NDArray[np.int64]:
        """Positions of the source chunks of hyperedge ``hid`` (numpy, cached)."""
        return self._array("edge", hid, self.hyperedge_sources.get(hid, []))

    def _positions(self, source_ids: Sequence[str]) -> list[int]:
        return sorted({self.position[s] for s in source_ids if s in self.position})

    def passage_text(self, i: int) -> str:
        """``title + newline + text`` of chunk ``i`` (title once, even if the text repeats it)."""
        return passage_text(self.titles[i], self.chunks[i].text)

    def _piece_terms(self) -> dict[str, list[str]]:
        """Each character or cluster of the indexed pairs of runs without spaces → those
        pairs, sorted (:func:`~.lexical.holds_piece`); made on the first query of a lone
        piece."""
        if self._pieces is None:
            self._pieces = piece_terms(self._vocab)
        return self._pieces

    def bm25(self, query: str) -> FloatArray:
        """BM25 score of every chunk for ``query`` (0 when no query term is indexed)."""
        out = np.zeros(len(self.chunks), dtype=np.float64)
        if self._bm25 is None:
            return out
        toks = query_tokens(query)
        lone = lone_pieces(toks)
        if lone:  # ``猫``: the pairs holding it (the lazy path asks the store for them)
            toks = with_pieces(toks, {p: self._piece_terms().get(p, []) for p in lone})
        known = [t for t in toks if t in self._vocab]
        if not known:
            return out
        return np.asarray(self._bm25.get_scores(known), dtype=np.float64)
