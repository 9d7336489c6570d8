"""Where a reasoning model's answer starts when its chat template opened ``<think>`` in the
prompt (DeepSeek-R1, QwQ, Qwen3 served without a reasoning parser): the reply is the
reasoning, an unpaired ``</think>`` ending its line, then the answer.

One rule for every reader of model text (stored extractions, answers, streams): a
``</think>`` counts only when no ``<think>`` opens before it and it ends its line (spaces,
then a line break or the end of the text), so an answer that quotes the tag in a sentence
("it closes its reasoning with the </think> tag") keeps its text.

>>> reasoning_end("plan\\n</think>\\n\\nAda"), reasoning_end("<think>plan</think>Ada")
(13, -1)
>>> reasoning_end("R1 closes with the </think> tag [1].")
-1
"""

from __future__ import annotations

import re

__all__ = ["ReasoningCut", "reasoning_end"]

_OPEN = "<think>"
_CLOSE = re.compile(r"</think>(?=[ \t]*(?:\r?\n|$))", re.I)


def reasoning_end(text: str) -> int:
    """Where the answer starts after an unpaired leading ``</think>`` that ends its line,
    or -1 (none; or a ``<think>`` opens before it: a paired block, removed elsewhere)."""
    m = _CLOSE.search(text)
    if m is None:
        return -1
    opened = text.lower().find(_OPEN)
    return -1 if 0 <= opened < m.start() else m.end()


class ReasoningCut:
    """A stream's pieces without the reasoning up to an unpaired leading ``</think>``
    (:func:`reasoning_end`), when ``active``: the start is held back until that tag (the
    text before it dropped), a ``<think>`` (a paired block: left to the caller), ``limit``
    characters held (``None``: no limit) or the end (:meth:`flush`).

    >>> cut = ReasoningCut(active=True)
    >>> [cut.feed(p) for p in ["plan", "\\n</think>\\n", "Ada"]] + [cut.flush()]
    ['', '\\n', 'Ada', '']
    """

    def __init__(self, active: bool, limit: int | None = None) -> None:
        self.held, self.holding, self.limit = "", active, limit

    def feed(self, piece: str) -> str:
        """What of ``piece`` (with what was held back) can be shown now."""
        if not self.holding:
            return piece
        self.held += piece
        end = reasoning_end(self.held)
        if (end < 0 and _OPEN not in self.held.lower()
                and (self.limit is None or len(self.held) < self.limit)):
            return ""
        text, self.held, self.holding = self.held, "", False
        return text[end:] if end >= 0 else text

    def flush(self) -> str:
        """The end of the stream: what was held back (no ``</think>`` ended it)."""
        text, self.held, self.holding = self.held, "", False
        return text
