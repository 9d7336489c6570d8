"""``NameLinker`` finds exactly the names that trying every word n-gram finds."""

from __future__ import annotations

import random

from hyperviz_core.rag.retrieve.names import NameLinker


def _every_ngram(names: dict[tuple[str, ...], str], words: list[str]) -> list[str]:
    longest = max((len(w) for w in names), default=0)
    found = {names[tuple(words[j : j + n])] for n in range(1, longest + 1)
             for j in range(len(words) - n + 1) if tuple(words[j : j + n]) in names}
    return sorted(found)


def test_same_keys_as_every_ngram() -> None:
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(12)]
    for _ in range(300):
        linker, names = NameLinker(), {}
        for k in range(rng.randint(0, 8)):
            words = tuple(rng.choice(vocab) for _ in range(rng.randint(1, 4)))
            linker.add(words, f"key{k}")
            names.setdefault(words, f"key{k}")
        text = [rng.choice(vocab) for _ in range(rng.randint(0, 30))]
        assert linker.find(text) == _every_ngram(names, text)
        assert len(linker) == len(names) and bool(linker) == bool(names)


def test_first_key_of_a_sequence_wins_and_empty_is_ignored() -> None:
    linker = NameLinker()
    linker.add(("new", "york"), "new york")
    linker.add(("new", "york"), "new york city")
    linker.add((), "nothing")
    assert linker.find(["in", "new", "york", "new"]) == ["new york"]
    assert len(linker) == 1
