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

__all__ = ["reasoning_end"]

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
