"""Answer-quality scores of whole answers files: EM, token F1, answer containment and
answer-in-context recall, overall and by hop count.

Example:
    >>> from hyperviz_core.eval import Question, score_answers
    >>> qs = [Question(id="2hop__a", question="?", answers=["Paris"]),
    ...       Question(id="3hop1__b", question="?", answers=["1998"])]
    >>> s = score_answers(qs, {"2hop__a": "Paris", "3hop1__b": "in 1997"})
    >>> s.overall.em, s.overall.f1, sorted(s.by_hops)
    (0.5, 0.5, ['2', '3'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from .data import Question
from .metrics import answer_in_context, contains_answer, exact_match, normalize_gold, token_f1

__all__ = ["AnswerScores", "GroupScore", "QuestionScore", "hop_order", "refuse_unmatched",
           "score_answers"]


class QuestionScore(BaseModel):
    """Scores of one answer."""

    id: str
    hops: int | None = None
    em: float
    f1: float
    contains: bool
    in_context: bool | None = None


class GroupScore(BaseModel):
    """Means over a group of questions (fractions 0–1)."""

    n: int
    em: float
    f1: float
    contains: float
    in_context: float | None = None


class AnswerScores(BaseModel):
    """Per question, overall and per hop count (keys ``"2"``, ``"3"``, ... in numeric order;
    ``"?"`` unknown, last)."""

    questions: list[QuestionScore]
    overall: GroupScore
    by_hops: dict[str, GroupScore] = Field(default_factory=dict)
    missing: int = 0
    """Questions without an answer in the file (scored as empty answers)."""
    unscorable: list[str] = Field(default_factory=list)
    """Ids of questions left out: every gold answer is empty once normalised as the
    prediction is (``"[3]"``, ``"!"``, ``"The"``), so no answer could ever match it."""

    def unscorable_note(self) -> str:
        """``""``, or how many questions were left out for gold answers with nothing to
        match (the first ids)."""
        if not self.unscorable:
            return ""
        first = ", ".join(self.unscorable[:3]) + (", ..." if len(self.unscorable) > 3 else "")
        return (f"{len(self.unscorable)} questions left out: their gold answers hold nothing "
                f"to match once normalised (punctuation, articles, citation marks): {first}")


def refuse_unmatched(questions: Sequence[Question],
                     answers: Mapping[str, Mapping[str, object]]) -> None:
    """:class:`ValueError` when a system's answers are to none of the questions (answers of
    another question set: scoring them would print zeros as if they were results); a system
    without any answer is no such mismatch (it is scored 0, and the tables note it).

    >>> refuse_unmatched([Question(id="q1", question="?")], {"a": {"q1": "x"}})
    >>> refuse_unmatched([Question(id="q1", question="?")], {"a": {"z9": "x"}})
    Traceback (most recent call last):
    ...
    ValueError: the answers of 'a' match none of the 1 question ids (answers to other questions?)
    """
    ids = [q.id for q in questions]
    for name, got in answers.items():
        if ids and got and not any(i in got for i in ids):
            raise ValueError(f"the answers of {name!r} match none of the {len(ids)} question "
                             "ids (answers to other questions?)")


def hop_order(key: str) -> tuple[int, int, str]:
    """Sort key of a hop group: numerically (``"2"`` before ``"10"``), ``"?"`` (unknown)
    and any other label last.

    >>> sorted(["10", "?", "2", "3"], key=hop_order)
    ['2', '3', '10', '?']
    """
    return (0, int(key), "") if key.isdigit() else (1, 0, key)


def _group(items: Sequence[QuestionScore]) -> GroupScore:
    n = len(items)
    if not n:
        return GroupScore(n=0, em=0.0, f1=0.0, contains=0.0)
    ctx = [q.in_context for q in items if q.in_context is not None]
    return GroupScore(
        n=n, em=sum(q.em for q in items) / n, f1=sum(q.f1 for q in items) / n,
        contains=sum(q.contains for q in items) / n,
        in_context=(sum(ctx) / len(ctx)) if len(ctx) == n else None,
    )


GOLD_KEYS = ('gold answers are read from a question\'s "answers" (a list) or "answer" key; '
             'other keys (e.g. "gold") are not read')


def score_answers(
    questions: Sequence[Question],
    answers: Mapping[str, str],
    contexts: Mapping[str, Sequence[str]] | None = None,
) -> AnswerScores:
    """Score an answers file (``{id: answer}``) against the questions' gold answers.

    Questions without gold answers are skipped, and so are those whose every gold answer is
    empty once normalised (``unscorable``: no answer could match it); a question missing
    from ``answers`` counts as an empty answer (0). ``contexts`` (``{id: passages}``) adds
    answer-in-context recall.
    """
    scored: list[QuestionScore] = []
    missing = 0
    unscorable: list[str] = []
    for q in questions:
        if not q.answers:
            continue
        if not any(normalize_gold(g) for g in q.answers):
            unscorable.append(q.id)
            continue
        if q.id not in answers:
            missing += 1
        pred = answers.get(q.id, "")
        in_ctx = (answer_in_context(q.answers, contexts.get(q.id, ()))
                  if contexts is not None else None)
        scored.append(QuestionScore(
            id=q.id, hops=q.hop_count, em=exact_match(pred, q.answers),
            f1=token_f1(pred, q.answers), contains=contains_answer(pred, q.answers),
            in_context=in_ctx))
    if not scored:
        raise ValueError("no question has gold answers to score against"
                         + (f" ({len(unscorable)} have gold answers with nothing to match once "
                            "normalised)" if unscorable else "")
                         + f"; {GOLD_KEYS}")
    groups: dict[str, list[QuestionScore]] = {}
    for s in scored:
        groups.setdefault(str(s.hops) if s.hops is not None else "?", []).append(s)
    by_hops = {k: _group(groups[k]) for k in sorted(groups, key=hop_order)}
    return AnswerScores(questions=scored, overall=_group(scored), by_hops=by_hops,
                        missing=missing, unscorable=unscorable)
