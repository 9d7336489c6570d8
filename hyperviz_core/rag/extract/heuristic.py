"""Offline, deterministic extraction: entities, n-ary hyperedges, themes and query keywords.

No model, no network, no randomness: the same text always gives the same output.

What it does
    * Sentences are split on ``.!?`` (guarding common abbreviations and initials), ``。！？``
      and line breaks; sentences are split into clauses on ``;``/``；``, dashes and ``, but/
      while/whereas``.
    * Entity spans: quoted titles (``"…"``, ``“…”``, ````…''``; not quoted speech, i.e. a
      quote that a speech verb follows or introduces: ``"Yes," said Mary``, or one in
      sentence case that speaks: ``"Shall I read it?"``, ``"No, no"``), dates
      (``12 March 1990``, ``January 1960``, years, decades, centuries), numbers with units
      or currency (``3.5 km``, ``$2 million``, ``45%``), and runs of capitalised words
      joined by connectors (``University of Copenhagen``, ``George T. Solomon``,
      ``Procter & Gamble``). French and Italian elisions are read apart: "l'École" gives
      ``École``, "Cortina d'Ampezzo" stays one name, a leading "L'" goes as "The" does.
      Chinese and Japanese (which have no capitals): bracketed titles, dates, amounts,
      katakana names and names ending in an organisation's or a place's suffix
      (:mod:`.cjk`); a Latin name ends where such a script starts ("Apple" of "Apple公司").
    * Types from simple cues: honorifics, initials, common first names and a preceding role
      noun ("psychologist Carl Rogers") → ``person``; suffixes such as Inc/University/Party →
      ``organization``; River/Mount/County/… or a preceding "in/at/near/from" → ``location``;
      War/Olympics/Festival/… → ``event``; quotes or a preceding "film/album/novel" →
      ``work``; demonyms → ``nationality``; plus ``date`` and ``quantity``; else ``entity``.
    * Hyperedges: each clause mentioning ≥ 2 entities becomes one relation hyperedge
      (description = the clause, keywords = its content words). Clauses with fewer than two
      entities are merged into a neighbouring clause first. A sentence starting with a
      pronoun ("He", "It", "The company" is *not* handled) also gets the chunk's topic
      entity (its ``title`` metadata, else its first named entity) as a member, marked
      ``member_attrs[key]["role"] = "implicit-subject"``.

Limits (honest)
    * English-centric, capitalisation-driven: lower-cased names ("iPhone" works, "e. e.
      cummings" does not), all-caps text and languages without capitalisation yield little
      (Chinese and Japanese only the mentions :mod:`.cjk` has cues for; Arabic, Hebrew,
      Thai, Devanagari ... none but dates and amounts in Latin digits).
    * Sentence-initial single words are only kept when they never occur lower-cased in the
      chunk, so "Paris is …" is found but a sentence-initial common noun usually is not;
      sentence adverbs, interjections, quantifiers and number words ("According", "Oh",
      "Several", "Two") are never a name on their own. Quoted dialogue with neither a
      speech verb nor the marks of speech ("Ah, Miss Trixit", "The drawing") is still taken
      for a title, and a sentence-case English title that holds a pronoun or an auxiliary
      ("In your name") is taken for dialogue.
    * Types are guesses from surface cues (no gazetteer beyond a few hundred words); expect
      many ``entity`` types and some wrong ones ("Washington" may be typed person or place).
    * No coreference beyond the pronoun rule, no relation labels, no negation: a hyperedge
      says "these entities co-occur in this clause", its meaning is the clause text.
    * Long capitalised headlines become one long name; names split by a line break or
      comma become two.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from ...model import Entity, Hyperedge, normalize_key, preferred_name
from ...unitext import plain_text
from ..providers.offline import STOPWORDS, content_words, word_pattern, word_tokens
from ..scripts import HIRAGANA
from ..types import Chunk, ChunkExtraction, ChunkTheme
from ._lexicon import _IMPERATIVES
from .spans import Span, find_spans, split_clauses, split_sentences

__all__ = ["KEYWORD_CHARS", "HeuristicExtractor", "HeuristicThemeExtractor",
           "heuristic_keywords"]


_ANAPHOR_START = re.compile(
    r"^[\"'“‘(]*(?:(?:He|She|It|They)\b|(?:The|This|These|That|Its|His|Her|Their)\s+[a-z])"
)
_DESC_CHARS = 300


def _shown(text: str, keys: list[str]) -> list[str]:
    """Keywords ``keys`` (case-folded content words of ``text``) as ``text`` writes them,
    lower-cased: case-folding is for matching, and spells ``Straße`` ``strasse`` and
    ``Ελλάδας`` ``ελλάδασ``; lower-casing keeps ``straße`` and ``ελλάδας`` (a ligature
    spelt out: ``ﬁve`` is shown ``five``)."""
    if text.isascii():  # lower-casing is case-folding
        return keys
    forms: dict[str, str] = {}
    for w in word_pattern(text).findall(text):
        forms.setdefault(w.casefold().replace("’", "'"),
                         plain_text(w).lower().replace("’", "'"))  # ligatures spelt out
    return [forms.get(k, k) for k in keys]


def _grammar(word: str) -> bool:
    """Whether ``word`` holds hiragana: a Japanese pair of particles and endings (``です``,
    ``は日``), ranked after other keywords."""
    return HIRAGANA.search(word) is not None


def _keyword_order(item: tuple[str, int]) -> tuple[int, bool, str]:
    """Theme keywords by count, then :func:`_grammar` pairs after other words, then
    alphabetically."""
    word, count = item
    return -count, _grammar(word), word


def _surname_persons(entities: dict[str, Entity]) -> None:
    """Type "Bernhard Riemann" and "Riemann" as persons when both occur in one chunk."""
    singles = {k for k, e in entities.items() if " " not in k and e.type in ("entity", "person")}
    for key, ent in list(entities.items()):
        parts = key.split()
        if ent.type == "entity" and 2 <= len(parts) <= 4 and parts[-1] in singles:
            entities[key] = ent.model_copy(update={"type": "person"})
            single = entities[parts[-1]]
            if single.type == "entity":
                entities[parts[-1]] = single.model_copy(update={"type": "person"})


def _desc(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DESC_CHARS else text[: _DESC_CHARS - 1].rstrip() + "…"


class HeuristicExtractor:
    """Offline :class:`~hyperviz_core.rag.extract.base.Extractor`: spans + clause hyperedges.

    See the module docstring for what it finds and its limits.

    Args:
        max_keywords: content words kept per hyperedge.
        include_dates: keep date entities (they link passages sharing a year).
        include_quantities: keep number-with-unit entities.
        pronoun_subject: add the chunk's topic entity to pronoun-initial sentences.
        max_members: a clause naming more entities (long lists) is split into hyperedges of
            at most this many members, each keeping the clause's first entity as anchor.
    """

    #: pure Python with no shared state: may run in worker processes (rag.index.workers)
    process_safe = True

    name = "heuristic-v1"
    metadata_keys = ("title",)  # the chunk metadata it reads (rag.index.extractors)

    def __init__(
        self,
        *,
        max_keywords: int = 8,
        include_dates: bool = True,
        include_quantities: bool = True,
        pronoun_subject: bool = True,
        max_members: int = 16,
    ) -> None:
        if max_members < 2:
            raise ValueError("max_members must be >= 2")
        self.max_members = max_members
        self.max_keywords = max_keywords
        self.include_dates = include_dates
        self.include_quantities = include_quantities
        self.pronoun_subject = pronoun_subject

    def _keep(self, sp: Span) -> bool:
        if sp.type == "date":
            return self.include_dates
        if sp.type == "quantity":
            return self.include_quantities
        return True

    def extract_text(
        self, text: str, chunk_id: str, metadata: Mapping[str, object] | None = None
    ) -> ChunkExtraction:
        """Extract from raw text (what :meth:`extract` does with ``chunk.text``)."""
        lower_vocab = frozenset(
            m.group(0) for m in re.finditer(r"\b[^\W\d_][\w'’]*", text) if m.group(0).islower()
        )
        entities: dict[str, Entity] = {}
        mentions: Counter[str] = Counter()
        edges: dict[str, Hyperedge] = {}
        title = str((metadata or {}).get("title") or "").strip()
        topic: str | None = None
        if title:
            try:
                topic = normalize_key(title)
                entities[topic] = Entity(
                    name=title, type="entity", description=_desc(title), source_ids=[chunk_id]
                )
            except ValueError:
                topic = None
        for s0, s1 in split_sentences(text):
            sentence = text[s0:s1]
            spans = [sp for sp in find_spans(sentence, lower_vocab) if self._keep(sp)]
            for sp in spans:
                key = normalize_key(sp.name)
                mentions[key] += 1
                if key not in entities:
                    entities[key] = Entity(
                        name=sp.name, type=sp.type, description=_desc(sentence),
                        source_ids=[chunk_id],
                    )
                else:
                    old = entities[key]
                    name = preferred_name(old.name, sp.name)  # "MOROCCO", then "Morocco"
                    typ = sp.type if old.type == "entity" else old.type
                    if (name, typ) != (old.name, old.type):
                        entities[key] = old.model_copy(update={"name": name, "type": typ})
                if topic is None and sp.type not in ("date", "quantity"):
                    topic = key
            implicit = None
            named = [sp for sp in spans if sp.type not in ("date", "quantity")]
            if (
                self.pronoun_subject
                and topic
                and spans
                and (_ANAPHOR_START.match(sentence) or not named)
            ):
                implicit = topic
            for edge in self._clause_edges(sentence, spans, implicit, entities, chunk_id):
                edges[edge.id] = edges[edge.id].merged(edge) if edge.id in edges else edge
        _surname_persons(entities)
        for key, n in mentions.items():
            ent = entities[key]
            entities[key] = ent.model_copy(update={"metadata": {**ent.metadata, "mentions": n}})
        return ChunkExtraction(
            chunk_id=chunk_id, entities=list(entities.values()), hyperedges=list(edges.values())
        )

    def _clause_edges(self, sentence: str, spans: list[Span], implicit: str | None,
                      entities: Mapping[str, Entity], chunk_id: str) -> list[Hyperedge]:
        """One relation hyperedge per clause of ``sentence`` naming at least two entities."""
        out = []
        for c0, c1, members in self._segments(sentence, spans, implicit, self.max_members):
            clause = sentence[c0:c1]
            names = {w for k in members for w in word_tokens(entities[k].name)}
            kws = sorted((w for w in content_words(clause) if w not in names), key=_grammar)
            out.append(Hyperedge(
                members=members,
                description=_desc(clause),
                keywords=_shown(clause, list(dict.fromkeys(kws))[: self.max_keywords]),
                source_ids=[chunk_id],
                member_attrs=(
                    {implicit: {"role": "implicit-subject"}}
                    if implicit and implicit in members
                    else {}
                ),
                metadata={"extractor": self.name},
            ))
        return out

    @staticmethod
    def _segments(
        sentence: str, spans: list[Span], implicit: str | None, max_members: int
    ) -> list[tuple[int, int, list[str]]]:
        clauses: list[tuple[int, int, list[str]]] = [
            (c0, c1, [normalize_key(sp.name) for sp in spans if c0 <= sp.start < c1])
            for c0, c1 in split_clauses(sentence)
        ]
        if implicit:
            clauses[0][2].insert(0, implicit)
        merged: list[tuple[int, int, list[str]]] = []
        for c in clauses:
            if merged and len(set(merged[-1][2])) < 2:
                merged[-1] = (merged[-1][0], c[1], merged[-1][2] + c[2])
            else:
                merged.append(c)
        if len(merged) > 1 and len(set(merged[-1][2])) < 2:
            last = merged.pop()
            merged[-1] = (merged[-1][0], last[1], merged[-1][2] + last[2])
        out = []
        for c0, c1, members in merged:
            uniq = list(dict.fromkeys(members))
            if len(uniq) > max_members:
                head, rest = uniq[0], uniq[1:]
                step = max_members - 1
                for i in range(0, len(rest), step):
                    out.append((c0, c1, [head, *rest[i : i + step]]))
            elif len(uniq) >= 2:
                out.append((c0, c1, uniq))
        return out

    def extract(self, chunk: Chunk) -> ChunkExtraction:
        """Entities and clause hyperedges of one chunk."""
        return self.extract_text(chunk.text, chunk.id, chunk.metadata)

    async def aextract(self, chunk: Chunk) -> ChunkExtraction:
        """Async twin of :meth:`extract` (CPU-bound; runs inline)."""
        return self.extract(chunk)


class HeuristicThemeExtractor:
    """Offline :class:`~hyperviz_core.rag.extract.base.ThemeExtractor`.

    Theme text = ``"<title or topic entity>: <top terms>"``; keywords = the chunk's most
    frequent content words; key entities = the most central entities of the chunk
    hypergraph (score = hyperedge degree + 0.5·mentions, named entities before dates and
    quantities, ties by first appearance). The image is ignored (no vision offline).
    """

    #: pure Python with no shared state: may run in worker processes (rag.index.workers)
    process_safe = True

    name = "heuristic-theme-v1"
    metadata_keys = ("title",)  # the chunk metadata it reads (rag.index.extractors)
    #: no vision offline: the indexer need not render chunk images for this extractor
    wants_image = False

    def __init__(self, *, max_key_entities: int = 5, max_keywords: int = 6) -> None:
        self.max_key_entities = max_key_entities
        self.max_keywords = max_keywords

    def theme(
        self, chunk: Chunk, extraction: ChunkExtraction, image: bytes | None = None
    ) -> ChunkTheme:
        """Theme, keywords and key entity keys of one chunk."""
        degree: Counter[str] = Counter()
        for edge in extraction.hyperedges:
            degree.update(edge.members)
        order = {e.key: i for i, e in enumerate(extraction.entities)}

        def score(ent: Entity) -> tuple[int, float, int]:
            minor = ent.type in ("date", "quantity")
            mentions = float(ent.metadata.get("mentions", 1) or 1)
            return (int(minor), -(degree[ent.key] + 0.5 * mentions), order[ent.key])

        ranked = sorted(extraction.entities, key=score)
        named = [e for e in ranked if e.type not in ("date", "quantity")]
        keys = [e.key for e in (named or ranked)][: self.max_key_entities]
        counts = Counter(content_words(chunk.text))
        keywords = [w for w, _ in sorted(counts.items(), key=_keyword_order)]
        keywords = _shown(chunk.text, keywords[: self.max_keywords])
        title = str(chunk.metadata.get("title") or "").strip()
        head = title or (named[0].name if named else "")
        theme = f"{head}: {', '.join(keywords)}" if head else ", ".join(keywords)
        theme = theme.strip(": ") or _desc(chunk.text)[:80] or chunk.id
        return ChunkTheme(chunk_id=chunk.id, theme=theme, key_entities=keys, keywords=keywords)

    async def atheme(
        self, chunk: Chunk, extraction: ChunkExtraction, image: bytes | None = None
    ) -> ChunkTheme:
        """Async twin of :meth:`theme`."""
        return self.theme(chunk, extraction, image)


#: keywords are read from a query's first this many characters (cut at a space): a pasted
#: document of 570 KB took seconds of name finding for 12 keywords (ranking reads it all)
KEYWORD_CHARS = 20_000


def heuristic_keywords(query: str, *, max_terms: int = 12) -> list[str]:
    """Keywords of a query: named spans (as written) first, then content terms, read from
    its first :data:`KEYWORD_CHARS` characters.

    Never empty for a query with any non-space character: falls back to the stripped query.
    """
    q = " ".join(str(query).split())
    if not q:
        return []
    if len(q) > KEYWORD_CHARS:
        q = q[:KEYWORD_CHARS].rsplit(" ", 1)[0] or q[:KEYWORD_CHARS]
    out: list[str] = []
    seen: set[str] = set()  # what ``out`` holds, case-folded (linear in the query's length)
    covered: set[str] = set()
    for sp in find_spans(q, frozenset(w for w in word_tokens(q) if w in STOPWORDS)):
        if len(out) >= max_terms:
            break
        if sp.name.casefold() not in seen:
            out.append(sp.name)
            seen.add(sp.name.casefold())
            covered.update(word_tokens(sp.name))
    words = content_words(q)
    first = word_tokens(q[:20])
    if words and first and first[0] == words[0] and first[0] in _IMPERATIVES:
        words = words[1:]  # "Name the ...", "List all ..."
    words.sort(key=_grammar)  # Japanese particles last
    for w in words:
        if len(out) >= max_terms:
            break
        if w not in covered and w not in out:  # ``out`` holds at most ``max_terms``
            out.append(w)
    return out[:max_terms] or [q]


class HeuristicKeywordExtractor:
    """Offline :class:`KeywordExtractor`: :func:`heuristic_keywords`."""

    def __init__(self, max_terms: int = 12) -> None:
        self.max_terms = max_terms

    def keywords(self, query: str) -> list[str]:
        return heuristic_keywords(query, max_terms=self.max_terms)

    async def akeywords(self, query: str) -> list[str]:
        return self.keywords(query)
