"""Written casing for names a source stored upper-cased (Hyper-RAG keeps entity names in
capitals): :class:`CaseIndex` finds a name's first whole-word occurrence in the source texts,
case-insensitively (Unicode case folding: ``STRAUSS`` matches "Strauß", ``İSTANBUL``
"İstanbul"), and gives its spelling there.

>>> CaseIndex(["Works by J. Strauss II."]).restore("J. STRAUSS II")
'J. Strauss II'
>>> cases = CaseIndex(["Johann Strauß lebte in Wien; İstanbul und Ödön."])
>>> [cases.restore(n) for n in ("JOHANN STRAUSS", "WIEN", "İSTANBUL", "ÖDÖN", "STRAUS")]
['Johann Strauß', 'Wien', 'İstanbul', 'Ödön', 'STRAUS']
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

__all__ = ["CaseIndex", "restore_case"]


class CaseIndex:
    """Texts prepared for :meth:`restore`: give upper-cased names their written casing back.

    The texts are joined and case-folded once; where folding changes a text's length
    (``ß`` → ``ss``, ``İ`` → ``i̇``) a map from folded to written positions is kept for
    that text alone, so the usual all-ASCII corpus costs one ``casefold()``.
    """

    def __init__(self, texts: Iterable[str]) -> None:
        self._text = "\x00".join(texts)
        folded = self._text.casefold()
        #: (folded start, written start, written position of each folded character or None
        #: when the two align) of each stretch of the joined text
        self._spans: list[tuple[int, int, list[int] | None]] = [(0, 0, None)]
        if len(folded) != len(self._text):
            folded = self._map_lengths()
        self._fold = folded
        self._starts = [s for s, _, _ in self._spans]

    def _map_lengths(self) -> str:
        """The folded text, and :attr:`_spans` for texts whose folding changes length."""
        parts: list[str] = []
        self._spans, at = [], 0
        start = 0
        for text in self._text.split("\x00"):
            fold = text.casefold()
            where: list[int] | None = None
            if len(fold) != len(text):
                where = [start + i for i, c in enumerate(text) for _ in c.casefold()]
            self._spans.append((at, start, where))
            parts.append(fold)
            at += len(fold) + 1
            start += len(text) + 1
        return "\x00".join(parts)

    def _written(self, i: int) -> int:
        """The written position of folded position ``i``."""
        k = bisect.bisect_right(self._starts, i) - 1
        fold_start, start, where = self._spans[k]
        return start + (i - fold_start) if where is None else where[i - fold_start]

    def restore(self, name: str) -> str:
        """The spelling of ``name`` at its first case-insensitive occurrence as a whole word
        (not inside another: ``EU`` is not taken from "Europe"), else ``name``.

        >>> CaseIndex(["Europe and the EU; a senator."]).restore("EU")
        'EU'
        >>> CaseIndex(["the senator"]).restore("NATO")
        'NATO'
        """
        want, text = name.casefold(), self._text
        if not want:
            return name
        i = self._fold.find(want)
        while i >= 0:
            a, b = self._written(i), self._written(i + len(want) - 1) + 1
            found = text[a:b]
            inside = ((a > 0 and text[a - 1].isalnum() and name[:1].isalnum())
                      or (b < len(text) and text[b].isalnum() and name[-1:].isalnum()))
            if not inside and found.upper() == name:
                return found
            i = self._fold.find(want, i + 1)
        return name


def restore_case(name: str, texts: Iterable[str]) -> str:
    """The spelling of upper-cased ``name`` in the first text containing it, else ``name``."""
    return CaseIndex(texts).restore(name)
