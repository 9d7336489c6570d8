"""LLM-as-judge protocols of the paper (§5, App. E): pairwise win rate and 0–100 scores.

**Win rate** (two systems): every question is judged twice, once with system A's answer as
"Answer 1" and once with system B's first. A system's win rate on a criterion is the share of
the verdicts that chose its answer, over both orders, so a judge that always prefers the
first-shown answer gives exactly 0.5 to each system. A question counts only when both orders
gave a valid verdict (keeping the orders balanced). ``position_bias`` is the share of the
counted verdicts (all criteria and the overall winner) that chose the first-shown answer
(0.5 = no bias); ``agreement`` (Markdown only) is the share of (question, criterion) pairs on
which both orders agree.

**Score** (one or more systems): each answer is rated alone, 0–100 per criterion with five
levels; a system's value is the mean over the questions on which every system's answer got
a valid verdict (paired, as the win rate's questions: a system is never averaged over
questions the others were not), and ``questions`` counts them; its overall value is the
mean of its six criteria.

Replies are parsed by :mod:`~hyperviz_core.eval.judge_parse`; an unreadable reply is asked
again once with a repair suffix (a different prompt, so never a stale cache hit), then counted
in ``invalid`` (provider errors that survive the middleware's retries count there too). Calls
run concurrently (bounded) with a tqdm progress bar.

**Missing answers.** A question that some system's answers lack is not judged (an absent
answer is not an empty one): ``missing`` counts them per system. When a system's answers
match none of the question ids (answers of other questions), or no question has an answer
from every system, the protocol raises ``ValueError`` before any call.

Example (a judge that always prefers the first answer):
    >>> import json
    >>> from hyperviz_core.eval import DIMENSIONS, OVERALL, Judge, Question
    >>> class First:
    ...     model_name = "first"
    ...     def complete(self, prompt, *, images=(), system=None, json_mode=False):
    ...         return json.dumps({d: {"Winner": "Answer 1"} for d in (*DIMENSIONS, OVERALL)})
    ...     async def acomplete(self, prompt, **kw):
    ...         return self.complete(prompt, **kw)
    >>> qs = [Question(id="1", question="Why?")]
    >>> rep = Judge(First(), show_progress=False).winrate(
    ...     qs, {"a": {"1": "because"}, "b": {"1": "no idea"}})
    >>> rep.overall, rep.position_bias, rep.invalid
    ({'a': 0.5, 'b': 0.5}, 1.0, 0)
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field
from tqdm.auto import tqdm

from ..rag import ChatModel, ProviderError
from .data import Question
from .judge_parse import JudgeParseError, parse_score_reply, parse_winrate_reply
from .judge_prompts import DIMENSIONS, JUDGE_SYSTEM, OVERALL, REPAIR_SUFFIX, score_prompt
from .judge_prompts import winrate_prompt as _winrate_prompt
from .markdown import markdown_table, num, pct
from .scoring import refuse_unmatched

__all__ = ["Judge", "JudgeReport"]

log = logging.getLogger(__name__)
T = TypeVar("T")

SHOWN_UNREADABLE = 3
"""Unreadable judge replies logged one by one per run; the rest are only counted."""
Answers = Mapping[str, Mapping[str, str]]


class JudgeReport(BaseModel):
    """Result of a judge protocol; :meth:`as_json` is the ``vizrag eval judge --json`` object."""

    protocol: Literal["winrate", "score"]
    systems: list[str]
    dimensions: dict[str, dict[str, float | None]]
    overall: dict[str, float | None]
    position_bias: float | None = None
    invalid: int = 0
    questions: int = 0
    """Questions that entered the figures."""
    calls: int = 0
    """Judge prompts sent (repairs included; cache hits included)."""
    agreement: float | None = None
    """Win rate: share of (question, criterion) pairs on which both orders agree."""
    missing: dict[str, int] = Field(default_factory=dict)
    """Per system: questions its answers lack (those questions are not judged)."""
    valid: int = 0
    """Judge verdicts that were readable (a question enters the figures only when all its
    verdicts were)."""

    def nothing_judged(self) -> str:
        """``""``, or one line saying why no question entered the figures although judge
        calls were made (every verdict invalid, or none valid for every answer)."""
        if self.questions or not self.invalid:
            return ""
        if not self.valid:
            return (f"every judge verdict was invalid ({self.invalid} calls failed or gave "
                    "unreadable replies); nothing to report")
        return (f"no question got a valid judge verdict for every answer ({self.invalid} "
                f"invalid, {self.valid} valid); nothing to report")

    def as_json(self) -> dict[str, Any]:
        """``{"protocol", "systems", "dimensions", "overall", "position_bias", "invalid",
        "questions", "missing", "agreement"}``."""
        keys = ("protocol", "systems", "dimensions", "overall", "position_bias", "invalid",
                "questions", "missing", "agreement")
        dump = self.model_dump()
        return {k: dump[k] for k in keys}

    def missing_note(self) -> str:
        """``""``, or which systems lacked answers to how many questions (not judged)."""
        if not any(self.missing.values()):
            return ""
        return ("questions without an answer, not judged: "
                + ", ".join(f"{n} {m}" for n, m in self.missing.items()))

    def to_markdown(self) -> str:
        """The table (criteria as rows, systems as columns) and a line of diagnostics."""
        fmt = pct if self.protocol == "winrate" else num
        rows = [[dim, *(fmt(self.dimensions[dim].get(s)) for s in self.systems)]
                for dim in DIMENSIONS]
        rows.append(["**Overall**", *(fmt(self.overall.get(s)) for s in self.systems)])
        head = "win rate" if self.protocol == "winrate" else "score (0-100)"
        text = markdown_table([f"criterion ({head})", *self.systems], rows)
        notes = [f"{self.questions} questions judged, {self.calls} judge calls, "
                 f"{self.invalid} invalid"]
        notes += [self.missing_note()] if self.missing_note() else []
        if self.protocol == "winrate":
            notes.append(f"position bias: the first-shown answer won {pct(self.position_bias)} "
                         f"of verdicts (50% = none); both orders agreed on "
                         f"{pct(self.agreement)}")
        return text + "\n\n" + "; ".join(notes) + "."


class Judge:
    """Runs the judge protocols with one chat model (wrap it in the middleware first).

    Args:
        chat: the judge model, typically ``build_chat_stack(provider, cache=SqliteCache(...),
            tracker=..., max_concurrency=N)``.
        concurrency: judge calls in flight at once.
        show_progress: a tqdm bar per protocol run.
        repair: ask once more with a repair suffix when a reply cannot be parsed.
    """

    def __init__(self, chat: ChatModel, *, concurrency: int = 8, show_progress: bool = True,
                 repair: bool = True) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        self.chat = chat
        self.concurrency = concurrency
        self.show_progress = show_progress
        self.repair = repair
        self.invalid = 0
        self.calls = 0
        self._unreadable = 0

    # ------------------------------------------------------------------ one call
    async def _ask(self, prompt: str, parse: Callable[[str], T]) -> T | None:
        for attempt in range(2 if self.repair else 1):
            text = prompt + (REPAIR_SUFFIX if attempt else "")
            self.calls += 1
            try:
                reply = await self.chat.acomplete(text, system=JUDGE_SYSTEM, json_mode=True)
            except ProviderError as exc:
                log.warning("judge call failed: %s", exc)
                break
            try:
                return parse(reply)
            except JudgeParseError as exc:
                self._unreadable += 1
                if self._unreadable <= SHOWN_UNREADABLE:  # a broken judge: not one per reply
                    log.warning("unreadable judge reply (%s): %.200r%s", exc, reply,
                                "; further ones are not shown"
                                if self._unreadable == SHOWN_UNREADABLE else "")
        self.invalid += 1
        return None

    async def _gather(self, jobs: Sequence[Awaitable[T]], desc: str) -> list[T]:
        sem = asyncio.Semaphore(self.concurrency)
        bar = tqdm(total=len(jobs), desc=desc, unit="call", disable=not self.show_progress)

        started: set[int] = set()

        async def run(job: Awaitable[T]) -> T:
            async with sem:
                started.add(id(job))
                try:
                    return await job
                finally:
                    bar.update(1)

        try:
            return list(await asyncio.gather(*(run(j) for j in jobs)))
        finally:
            bar.close()
            for job in jobs:  # cancelled (Ctrl-C) before their turn: never awaited
                if id(job) not in started and inspect.iscoroutine(job):
                    job.close()

    def _reset(self) -> None:
        self.invalid = 0
        self.calls = 0
        self._unreadable = 0

    # ------------------------------------------------------------------ win rate
    async def awinrate(self, questions: Sequence[Question], answers: Answers) -> JudgeReport:
        """Pairwise win rates of the two systems in ``answers`` (``{system: {id: answer}}``,
        first system first); questions either system lacks are not judged (``missing``)."""
        names = list(answers)
        if len(names) != 2:
            raise ValueError(f"the win-rate protocol compares exactly 2 systems, got "
                             f"{len(names)}")
        a, b = (answers[n] for n in names)
        questions, missing = _answered(questions, answers)
        self._reset()
        jobs = []
        for q in questions:
            x, y = a.get(q.id, ""), b.get(q.id, "")
            jobs.append(self._ask(_winrate_prompt(q.question, x, y), parse_winrate_reply))
            jobs.append(self._ask(_winrate_prompt(q.question, y, x), parse_winrate_reply))
        verdicts = await self._gather(jobs, "judge (win rate)")
        report = self._winrate_report(names, verdicts)
        report.missing = missing
        return report

    def _winrate_report(self, names: list[str], verdicts: list[dict[str, int] | None]
                        ) -> JudgeReport:
        keys = (*DIMENSIONS, OVERALL)
        wins = dict.fromkeys(keys, 0)
        first = agree = pairs = 0
        for v1, v2 in zip(verdicts[0::2], verdicts[1::2], strict=True):
            if v1 is None or v2 is None:
                continue
            pairs += 1
            for k in keys:
                a1, a2 = v1[k] == 1, v2[k] == 2  # system A won in order 1 / order 2
                wins[k] += a1 + a2
                first += (v1[k] == 1) + (v2[k] == 1)
                agree += a1 == a2

        def rate(k: str) -> dict[str, float | None]:
            if not pairs:
                return {names[0]: None, names[1]: None}
            r = wins[k] / (2 * pairs)
            return {names[0]: r, names[1]: 1.0 - r}

        n_verdicts = 2 * pairs * len(keys)
        return JudgeReport(
            protocol="winrate", systems=names,
            dimensions={d: rate(d) for d in DIMENSIONS}, overall=rate(OVERALL),
            position_bias=first / n_verdicts if n_verdicts else None,
            agreement=agree / (pairs * len(keys)) if pairs else None,
            invalid=self.invalid, questions=pairs, calls=self.calls,
            valid=sum(v is not None for v in verdicts),
        )

    # ------------------------------------------------------------------ score
    async def ascore(self, questions: Sequence[Question], answers: Answers) -> JudgeReport:
        """0–100 scores per criterion of every system in ``answers`` (on the questions every
        system answered; ``missing`` counts the others), averaged over the questions whose
        answers all got a valid verdict (``questions``)."""
        names = list(answers)
        if not names:
            raise ValueError("the score protocol needs at least one system")
        questions, missing = _answered(questions, answers)
        self._reset()
        jobs = [
            self._ask(score_prompt(q.question, answers[n].get(q.id, ""), _reference(q)),
                      parse_score_reply)
            for n in names for q in questions
        ]
        scores = await self._gather(jobs, "judge (score)")
        k = len(questions)
        # paired, as the win rate: a question counts only when every system's answer got a
        # valid verdict, so all systems are averaged over the same questions
        valid = [j for j in range(k) if all(scores[i * k + j] for i in range(len(names)))]
        dims: dict[str, dict[str, float | None]] = {d: {} for d in DIMENSIONS}
        overall: dict[str, float | None] = {}
        for i, n in enumerate(names):
            mine = [s for j in valid if (s := scores[i * k + j])]
            for d in DIMENSIONS:
                dims[d][n] = sum(s[d] for s in mine) / len(mine) if mine else None
            overall[n] = (sum(float(dims[d][n] or 0.0) for d in DIMENSIONS) / len(DIMENSIONS)
                          if mine else None)
        return JudgeReport(protocol="score", systems=names, dimensions=dims, overall=overall,
                           position_bias=None, invalid=self.invalid, questions=len(valid),
                           calls=self.calls, missing=missing,
                           valid=sum(s is not None for s in scores))

    # ------------------------------------------------------------------ sync
    def winrate(self, questions: Sequence[Question], answers: Answers) -> JudgeReport:
        """Sync :meth:`awinrate`."""
        return asyncio.run(self.awinrate(questions, answers))

    def score(self, questions: Sequence[Question], answers: Answers) -> JudgeReport:
        """Sync :meth:`ascore`."""
        return asyncio.run(self.ascore(questions, answers))

    def run(self, protocol: str, questions: Sequence[Question], answers: Answers
            ) -> JudgeReport:
        """``winrate`` or ``score`` by name."""
        if protocol == "winrate":
            return self.winrate(questions, answers)
        if protocol == "score":
            return self.score(questions, answers)
        raise ValueError(f"unknown judge protocol {protocol!r}; use 'winrate' or 'score'")


def _answered(questions: Sequence[Question], answers: Answers
              ) -> tuple[list[Question], dict[str, int]]:
    """The questions every system answered, and per system how many it lacks; raises
    ``ValueError`` when a system answers none of them or no question is answered by all."""
    refuse_unmatched(questions, answers)
    ids = [q.id for q in questions]
    missing = {n: sum(i not in got for i in ids) for n, got in answers.items()}
    kept = [q for q in questions if all(q.id in got for got in answers.values())]
    if ids and not kept:
        raise ValueError("no question has an answer from every system: "
                         + ", ".join(f"{n} lacks {m}" for n, m in missing.items()))
    return kept, missing


def _reference(q: Question) -> str | None:
    if q.reference:
        return q.reference
    if q.answers:
        return "Gold answer: " + " | ".join(q.answers)
    return None
