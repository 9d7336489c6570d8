"""Fake judges for the evaluation tests (also loadable as ``--judge python:eval_fakes:NAME``)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from hyperviz_core.eval import DIMENSIONS, OVERALL
from hyperviz_core.eval.judge_prompts import REPAIR_SUFFIX
from hyperviz_core.rag import ProviderError

_ANS = re.compile(r"<<<ANSWER 1\n(.*?)\nANSWER 1>>>.*?<<<ANSWER 2\n(.*?)\nANSWER 2>>>", re.S)
_ONE = re.compile(r"<<<ANSWER\n(.*?)\nANSWER>>>", re.S)
_GOLD = re.compile(r"Gold answer: (.*?)\nREFERENCE>>>", re.S)


def winners(choice: str) -> str:
    """A win-rate reply naming ``choice`` ("Answer 1"/"Answer 2") everywhere."""
    return json.dumps({d: {"Winner": choice, "Explanation": "fake"}
                       for d in (*DIMENSIONS, OVERALL)})


class _Base:
    model_name = "fake-judge"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def reply(self, prompt: str) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        self.calls.append(prompt)
        return self.reply(prompt)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        return self.complete(prompt, images=images, system=system, json_mode=json_mode)


class AlwaysFirst(_Base):
    """Always answers "Answer 1" (pure position bias); scores every answer 50."""

    def reply(self, prompt: str) -> str:
        if "<<<ANSWER 1" in prompt:
            return "```json\n" + winners("Answer 1") + "\n```"
        return json.dumps({d: {"Level": 3, "Score": 50} for d in DIMENSIONS})


class PrefersLonger(_Base):
    """Prefers the longer answer (no position bias); scores 100 if the answer holds the
    gold answer given in the reference, else 0."""

    def reply(self, prompt: str) -> str:
        m = _ANS.search(prompt)
        if m:
            return winners("Answer 1" if len(m.group(1)) >= len(m.group(2)) else "Answer 2")
        answer = _ONE.search(prompt)
        gold = _GOLD.search(prompt)
        ok = bool(answer and gold and answer.group(1).strip()
                  and gold.group(1).split(" | ")[0].lower() in answer.group(1).lower())
        return json.dumps({d: {"Score": 100 if ok else 0} for d in DIMENSIONS})


class RepairsOnce(_Base):
    """Malformed first reply, valid JSON when the repair suffix is appended."""

    def reply(self, prompt: str) -> str:
        if prompt.endswith(REPAIR_SUFFIX):
            return winners("Answer 2")
        return "I think the first one is better overall."


class Garbage(_Base):
    """Never gives a readable reply."""

    def reply(self, prompt: str) -> str:
        return "no JSON here"


class Down(_Base):
    """A provider that rejects every call (non-retryable)."""

    def reply(self, prompt: str) -> str:
        raise ProviderError("HTTP 401: bad key", status=401)


class EmptyVision(_Base):
    """A vision model that never names an ID (probe answers graded wrong)."""

    def reply(self, prompt: str) -> str:
        return '{"answer": []}'


def keyless() -> _Base:
    """A factory that fails as a provider client without its API key does."""
    raise RuntimeError("The api_key client option must be set")
