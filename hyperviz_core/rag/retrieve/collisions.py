"""Vector search without the offline embedder's hash collisions.

:class:`~..providers.offline.HashingEmbedder` (the offline default) hashes every feature into
one of ``dim`` (512) signed buckets, so a word shares its bucket and sign with about one
word in a thousand: the entity *Ada* scored 0.61 for the keyword "Iron Maiden" ("w:ada" and
"w:iron" fall in bucket 381) and came into the view, linked to nothing shown. On the
MuSiQue bench store, of the 969 top-3 entity hits of the 47 dev questions' keywords, 646
had a similarity without collisions under half the hashed one, and 539 shared no feature
with the keyword at all; of the 969 top-3 theme hits, 342 shared none.

:func:`checked_search` scores each hit of the vector search again by the cosine of the texts
the two vectors are made of — the query's, and the entity's ``name: description`` or the
theme's description, member names and keywords, as the store embeds them
(:func:`~..store.sqlite.merge.entity_text`, :func:`~..store.sqlite.merge.hyperedge_text`) —
without hash collisions (:meth:`~..providers.offline.HashingEmbedder.cosine_to`), and keeps
those that name a word of the query, best first (ties by id): the word itself, or a word
spelt like it — the same first letter and a character-trigram Dice of at least
``RankWeights.spelling_similarity`` (0.5), the query repair's test (:func:`names_word`:
"Germany" names *german*, "location" not *education*; in a script without spaces, a word
of two characters or more inside the other: "图灵" in "图灵在哪里工作"). A hit sharing
character n-grams only is left out: on the MuSiQue bench store, of the hits a cosine above 0
kept, 167 of 627 theme hits and 48 of 749 entity hits shared no word with their keyword (cosines
0.003-0.029, against 0.10-1 for those that did: "Population" → the theme of *Irrigation in
India*, "Kim Jong-chul" → *Salzböde*); 2 themes pass the word test among those 167.
Another embedder's hits are returned as searched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy.typing as npt

from ..index.caseless import written_without_case
from ..providers.offline import HashingEmbedder, word_tokens
from .lexicon import trigrams, unaccented
from .search import search

if TYPE_CHECKING:
    from .state import RetrievalState

__all__ = ["checked_search", "names_word"]


def checked_search(st: RetrievalState, space: Literal["entity", "theme"],
                   texts: Sequence[str], vectors: npt.ArrayLike, k: int
                   ) -> list[list[tuple[str, float]]]:
    """Up to ``k`` entities or themes most similar to each of ``texts`` (``vectors``: their
    embeddings), as ``(id, cosine)`` best first: for the hashed offline embedder the
    cosines without collisions, hits that share nothing with the text left out (see the
    module docstring); else the vector search's."""
    found = search(st.store, st.corpus, space, vectors, k)
    emb = st.embedder
    if not isinstance(emb, HashingEmbedder):
        return found
    ids = sorted({hit for hits in found for hit, _ in hits})
    stored = (st.corpus.entity_texts(ids) if space == "entity"
              else st.corpus.theme_texts(ids))
    dice = st.cfg.weights.spelling_similarity
    out: list[list[tuple[str, float]]] = []
    for text, hits in zip(texts, found, strict=True):
        query = emb.exact_features(text)
        words = [f[2:] for f in query if f.startswith("w:")]
        scored = sorted((-emb.cosine_to(query, stored[hit]), hit)
                        for hit, _ in hits if hit in stored)
        out.append([(hit, -neg) for neg, hit in scored
                    if neg < 0 and names_word(stored[hit], words, dice)])
    return out


def _inside(part: str, whole: str) -> bool:
    """``part`` (two characters or more, of a script without capitals, whose words are not
    spaced) inside ``whole``."""
    return len(part) > 1 and part in whole and written_without_case(part)


def names_word(text: str, words: Sequence[str], dice: float = 0.5) -> bool:
    """Whether ``text`` holds one of ``words`` (lower-cased tokens), or a word with the same
    first letter whose character trigrams (accents aside) have a Dice similarity of at least
    ``dice`` with one (the query repair's test, :mod:`.lexicon`).

    >>> names_word("Michael Lerchl: german footballer", ["germany"])
    True
    >>> names_word("Irrigation in India: irrigation", ["population"])
    False
    >>> names_word("Journal of Engineering Education: education", ["location"])
    False
    >>> names_word("图灵: 图灵在布莱切利园破解了恩尼格玛", ["图灵在哪里工作"])
    True
    """
    found = set(word_tokens(text))
    if not found.isdisjoint(words):
        return True
    if any(_inside(a, b) or _inside(b, a) for a in found for b in words):
        return True  # a script without spaces: "图灵" in the query's "图灵在哪里工作"
    grams = [(unaccented(w)[:1], trigrams(unaccented(w))) for w in words]
    for token in found:
        first, mine = unaccented(token)[:1], trigrams(unaccented(token))
        for initial, theirs in grams:
            if initial == first and 2 * len(mine & theirs) >= dice * (len(mine) + len(theirs)):
                return True
    return False
