"""Names found verbatim in text: a phrase dictionary from word sequences to entity keys.

Ranking links text to entities in three places (the document-title entities a chunk names,
on the loaded and on the lazy path, and the entities a query names for the personalised
PageRank); each tokenizes its own way and hands the words here. A word lower-cased from
Turkish ``İ`` (``i`` + combining dot) is read as ``i``: ``İstanbul`` names ``Istanbul``; and
Hebrew and the Arabic script as BM25 reads them (:func:`~..scripts.letters_alike`: without
points and harakat, Arabic's ``ي`` and ``ك`` as Persian's ``ی`` and ``ک`` ...): ``علي`` names
``علی``, and two keys so written apart (two entities, one from text typed each way) are both
named.

Example:
    >>> names = NameLinker()
    >>> names.add(("hello", "love"), "hello love")
    >>> names.add(("hank", "snow"), "hank snow")
    >>> names.find(["who", "sang", "hello", "love", "hank", "snow"])
    ['hank snow', 'hello love']
    >>> names.add(("i\u0307stanbul",), "i\u0307stanbul")  # "İstanbul".casefold()
    >>> names.find(["istanbul"]) == ["i\u0307stanbul"]
    True
    >>> names.add(("علي",), "علي")
    >>> names.add(("علی",), "علی")
    >>> names.find(["آقای", "علی"]) == ["علي", "علی"]
    True
"""

from __future__ import annotations

from collections.abc import Sequence

from ..scripts import letters_alike
from .lexicon import undot

__all__ = ["NameLinker"]


class NameLinker:
    """Word sequences → key; :meth:`find` looks up only the sequences that start at a word
    some name starts with (the same keys as trying every n-gram, far fewer lookups)."""

    def __init__(self) -> None:
        self._names: dict[tuple[str, ...], str] = {}
        #: more keys of a sequence: written apart from its first only in Arabic's letters
        self._alike: dict[tuple[str, ...], list[str]] = {}
        self._lengths: dict[str, list[int]] = {}  # first word → word counts of its names

    def __bool__(self) -> bool:
        return bool(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def add(self, words: tuple[str, ...], key: str) -> None:
        """Name ``key`` by ``words`` (a sequence already added keeps its first key, and
        takes this one too when the two differ only in letters read alike)."""
        words = tuple(_read(w) for w in words)
        if not words:
            return
        first = self._names.get(words)
        if first is not None:
            if (first != key and not key.isascii() and letters_alike(first) == letters_alike(key)
                    and key not in (more := self._alike.setdefault(words, []))):
                more.append(key)
            return
        self._names[words] = key
        lengths = self._lengths.setdefault(words[0], [])
        if len(words) not in lengths:
            lengths.append(len(words))

    def find(self, words: Sequence[str]) -> list[str]:
        """The keys whose words occur as a contiguous run of ``words``, sorted."""
        found: set[str] = set()
        names = self._names
        if not all(w.isascii() for w in words):
            words = _read_all(words)
        for j, word in enumerate(words):
            for n in self._lengths.get(word, ()):
                run = tuple(words[j : j + n])
                key = names.get(run)
                if key is not None:
                    found.add(key)
                    found.update(self._alike.get(run, ()))
        return sorted(found)


def _read_all(words: Sequence[str]) -> list[str]:
    """:func:`_read` of each of ``words``, read as one text (a passage's words: one pass,
    not one per word); word by word should one hold a line break."""
    read = letters_alike(undot("\n".join(words))).split("\n")
    return read if len(read) == len(words) else [_read(w) for w in words]


def _read(word: str) -> str:
    """``word`` as names are looked up: ``i`` + combining dot as ``i``, Hebrew and the
    Arabic script as :func:`~..scripts.letters_alike` reads them."""
    return word if word.isascii() else letters_alike(undot(word))
