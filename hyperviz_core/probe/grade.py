"""Grading probe answers: exact set match, partial credit (F1) reported separately; an
answer whose model call failed is counted in ``errors``, not graded.

Example:
    >>> from hyperviz_core.probe.types import Probe, ProbeAnswer
    >>> p = Probe(id="p1", task="overlap-core", image="p1.png", export="p1.json",
    ...           question="?", answer=["E1", "E2"])
    >>> r = grade([p], [ProbeAnswer(id="p1", answer="E2 and E1")])
    >>> r.overall.accuracy, r.overall.partial
    (1.0, 1.0)
    >>> parse_ids('{"answer": ["E3", "H2", "e4"]}', "E")
    ['E3', 'E4']
    >>> parse_ids('```json\\n{"answer": ["E2"], "explanation": "E3 is only in H1"}\\n```', "E")
    ['E2']
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ..rag import parse_json_object
from .tasks import vid_key
from .types import GradeReport, Probe, ProbeAnswer, TaskScore

__all__ = ["best_constant_answers", "f1", "grade", "parse_ids"]

_ID = re.compile(r"\b([EeHh])\s?-?(\d{1,6})\b")


def parse_ids(answer: Sequence[str] | str, kind: str | None = None) -> list[str]:
    """Visual IDs (``E#``/``H#``, normalised) in a model's answer, in first-seen order;
    ``kind`` ``"E"``/``"H"`` keeps one kind. A JSON ``{"answer": ...}`` is unwrapped,
    bare, fenced (```` ```json ````) or inside prose, as the judge replies are read
    (:func:`~hyperviz_core.rag.parse_json_object`): IDs in an explanation beside it do not
    count."""
    if isinstance(answer, str):
        obj = parse_json_object(answer) if "{" in answer else {}
        text = json.dumps(obj["answer"]) if "answer" in obj else answer
    else:
        text = " ".join(str(a) for a in answer)
    ids = [f"{m.group(1).upper()}{int(m.group(2))}" for m in _ID.finditer(text)]
    if kind:
        ids = [i for i in ids if i[0] == kind]
    return list(dict.fromkeys(ids))


def f1(got: Sequence[str], want: Sequence[str]) -> float:
    """F1 of two ID sets (1.0 when both are empty)."""
    g, w = set(got), set(want)
    if not g and not w:
        return 1.0
    hit = len(g & w)
    if not hit:
        return 0.0
    p, r = hit / len(g), hit / len(w)
    return round(2 * p * r / (p + r), 6)


def _kind(probe: Probe) -> str | None:
    kinds = {a[:1] for a in probe.answer}
    return kinds.pop() if len(kinds) == 1 else None


def best_constant_answers(probes: Sequence[Probe]) -> dict[str, list[str]]:
    """The best constant answer of every task: its most frequent expected answer (ties: the
    first in ID order). Always giving it scores the chance baseline of
    :attr:`~hyperviz_core.probe.types.TaskScore.chance`: visual IDs are numbered by
    importance (``E1``/``H1`` first), so a model could score well without reading the image.

    >>> from hyperviz_core.probe.types import Probe
    >>> ps = [Probe(id=str(i), task="bridge-hyperedge", image="", export="", question="?",
    ...             answer=a) for i, a in enumerate([["H1"], ["H2"], ["H1"]])]
    >>> best_constant_answers(ps)
    {'bridge-hyperedge': ['H1']}
    """
    counts: dict[str, dict[tuple[str, ...], int]] = {}
    for p in probes:
        key = tuple(sorted(p.answer, key=vid_key))
        per = counts.setdefault(p.task, {})
        per[key] = per.get(key, 0) + 1
    return {task: list(min(per.items(), key=lambda kv: (-kv[1], [vid_key(v) for v in kv[0]],
                                                        len(kv[0])))[0])
            for task, per in sorted(counts.items())}


def _chance(probes: Sequence[Probe], per: dict[str, TaskScore], overall: TaskScore
            ) -> dict[str, list[str]]:
    """Set ``chance`` (exact accuracy of the best constant answer) of every score."""
    best = best_constant_answers(probes)
    hits: dict[str, int] = {}
    for p in probes:
        hits[p.task] = hits.get(p.task, 0) + (sorted(p.answer, key=vid_key) == best[p.task])
    for task, score in per.items():
        score.chance = round(hits[task] / score.n, 4)
    overall.chance = round(sum(hits.values()) / overall.n, 4) if overall.n else None
    return best


def grade(probes: Sequence[Probe], answers: Sequence[ProbeAnswer]) -> GradeReport:
    """Score ``answers`` against ``probes`` per task and overall (:class:`ValueError` when
    no answer is to any of them). A missing answer scores 0;
    an answer whose model call failed (``error``) is counted in ``errors`` and not graded:
    accuracy and partial credit are over the other probes (``None`` when no probe was
    graded: every call failed, which is no 0 % result). ``chance`` is the exact accuracy of
    the best constant answer per task (:func:`best_constant_answers`), from the probes
    alone: read a model's accuracy against it."""
    by_id = {a.id: a for a in answers}
    if probes and not any(p.id in by_id for p in probes):
        raise ValueError(f"none of the {len(by_id)} answers is to one of the {len(probes)} "
                         "probes (answers of another probe set, or an empty file?)")
    other = next((p for p in probes if p.id in by_id and by_id[p.id].question
                  and by_id[p.id].question != p.question), None)
    if other is not None:  # ids are positional: another set's p0000 is not this p0000
        raise ValueError(f"the answer to probe {other.id!r} was to another question "
                         f"({by_id[other.id].question[:60]!r}): answers of another probe set?")
    per: dict[str, TaskScore] = {}
    overall = TaskScore(task="overall")
    first_error = ""
    for p in probes:
        score = per.setdefault(p.task, TaskScore(task=p.task))
        ans = by_id.get(p.id)
        failed = ans is not None and bool(ans.error)
        if ans is not None and ans.error and not first_error:
            first_error = ans.error
        got = parse_ids(ans.answer, _kind(p)) if ans is not None and not failed else []
        exact = ans is not None and sorted(got, key=vid_key) == sorted(p.answer, key=vid_key)
        part = f1(got, p.answer) if ans is not None and not failed else 0.0
        for s in (score, overall):
            s.n += 1
            s.errors += failed
            s.correct += exact and not failed
            s.partial = (s.partial or 0.0) + part
            s.missing += ans is None
    for s in [*per.values(), overall]:
        graded = s.n - s.errors
        s.accuracy = round(s.correct / graded, 4) if graded else None  # nothing to grade
        s.partial = round((s.partial or 0.0) / graded, 4) if graded else None
    best = _chance(probes, per, overall)
    return GradeReport(tasks=[per[t] for t in sorted(per)], overall=overall,
                       first_error=first_error, chance_answers=best)
