"""The paper's result tables built from answers files and judge reports.

- **Table 1** (:func:`table1`): selection-based win rates of one system against each other
  system (e.g. a Hyper-RAG or LightRAG answers file), both answer orders averaged.
- **Table 2** (:func:`table2`): the ablations (:data:`ABLATIONS`: full VizRAG, without index
  visualization, retrieval visualization, congestion control or dual view), scored by a
  judge (score or win-rate protocol) and, when the questions have gold answers, by EM / F1.
- **Table 4** (:func:`table4`): multi-hop exact match and token F1 by hop count (MuSiQue),
  with answer containment and, when passages are known, answer-in-context recall.

Each returns a :class:`PaperTable` (Markdown via :meth:`PaperTable.to_markdown`, JSON via
``model_dump``); the commands are ``vizrag eval table 1|2|4``.

Example:
    >>> from hyperviz_core.eval import Question, table4
    >>> qs = [Question(id="2hop__a", question="?", answers=["Paris"])]
    >>> t = table4(qs, {"gold": {"2hop__a": "Paris"}, "empty": {}})
    >>> [row[:3] for row in t.rows]
    [['gold', '100.0', '100.0'], ['empty', '0.0', '0.0']]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from .data import Question
from .judge import Judge, JudgeReport
from .judge_prompts import DIMENSIONS
from .markdown import markdown_table, num, pct
from .scoring import GOLD_KEYS, AnswerScores, hop_order, refuse_unmatched, score_answers

__all__ = ["ABLATIONS", "PaperTable", "answer_quality_rows", "table1", "table2", "table4"]

#: Table 2 variants: system name → (VizRAG constructor switches, RetrievalConfig overrides).
#: ``no-index-viz`` needs a store indexed with ``index_visualization=False``
#: (``vizrag index --no-visualization``): the switch acts at indexing time.
ABLATIONS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "full": ({}, {}),
    "no-index-viz": ({"index_visualization": False}, {}),
    "no-retrieval-viz": ({}, {"retrieval_visualization": False}),
    "no-congestion-control": ({}, {"congestion_control": False}),
    "no-dual-view": ({}, {"dual_view": False}),
}


class PaperTable(BaseModel):
    """One result table: headers, formatted rows, the raw figures and notes."""

    table: str
    title: str
    kind: str = "Table"
    """``Table`` or ``Fig.`` (Fig. 2c)."""
    headers: list[str]
    rows: list[list[str]]
    data: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    def to_markdown(self) -> str:
        out = (f"**{self.kind} {self.table}. {self.title}**\n\n"
               + markdown_table(self.headers, self.rows))
        if self.notes:
            out += "\n\n" + "\n".join(f"- {n}" for n in self.notes)
        return out


# ---------------------------------------------------------------------------- Table 1
def table1(judge: Judge, questions: Sequence[Question], ours: str,
           answers: Mapping[str, Mapping[str, str]]) -> PaperTable:
    """Win rates of system ``ours`` against every other system in ``answers``;
    ``ValueError`` when no comparison got a valid verdict (every judge call invalid)."""
    if ours not in answers:
        raise ValueError(f"system {ours!r} is not among {sorted(answers)}")
    others = [n for n in answers if n != ours]
    if not others:
        raise ValueError("Table 1 needs at least one system to compare against")
    reports = {o: judge.winrate(questions, {ours: answers[ours], o: answers[o]})
               for o in others}
    _refuse_unjudged(list(reports.values()))
    headers = ["criterion"]
    for o in others:
        headers += [f"{ours} (vs {o})", o]
    rows: list[list[str]] = []
    for dim in (*DIMENSIONS, "Overall"):
        row = [dim]
        for o in others:
            vals = reports[o].overall if dim == "Overall" else reports[o].dimensions[dim]
            row += [pct(vals[ours]), pct(vals[o])]
        rows.append(row)
    notes = [f"{o}: {r.questions} questions, position bias {pct(r.position_bias)} "
             f"(first-shown answer chosen; 50% = none), {r.invalid} invalid judge calls"
             + (f"; {r.missing_note()}" if r.missing_note() else "")
             for o, r in reports.items()]
    return PaperTable(table="1", title=f"Win rates of {ours} (both answer orders averaged)",
                      headers=headers, rows=rows,
                      data={o: r.as_json() for o, r in reports.items()}, notes=notes)


# ---------------------------------------------------------------------------- Table 4
def answer_quality_rows(scores: Mapping[str, AnswerScores], hops: Sequence[str]
                        ) -> tuple[list[str], list[list[str]]]:
    """Headers and rows: per system EM / F1 per hop group and overall (percentages)."""
    with_ctx = any(s.overall.in_context is not None for s in scores.values())
    headers = ["system"]
    for h in (*hops, "all"):
        label = {"all": "all", "?": "unknown-hop"}.get(h, f"{h}-hop")
        headers += [f"{label} EM", f"{label} F1"]
    headers.append("answer contains gold")
    if with_ctx:
        headers.append("answer in context")
    rows = []
    for name, s in scores.items():
        row = [name]
        for h in (*hops, "all"):
            g = s.overall if h == "all" else s.by_hops.get(h)
            row += [num(100 * g.em), num(100 * g.f1)] if g else ["-", "-"]
        row.append(num(100 * s.overall.contains))
        if with_ctx:  # "-": no contexts given for this system
            ctx = s.overall.in_context
            row.append("-" if ctx is None else num(100 * ctx))
        rows.append(row)
    return headers, rows


def table4(questions: Sequence[Question], answers: Mapping[str, Mapping[str, str]],
           contexts: Mapping[str, Mapping[str, Sequence[str]]] | None = None) -> PaperTable:
    """Exact match / token F1 (percent) by hop count for every system in ``answers``.

    ``contexts`` (``{system: {id: passages}}``) adds an "answer in context" column; a
    system without contexts shows ``-`` there. Questions without gold answers are left out,
    and a note counts them."""
    if not answers:
        raise ValueError("Table 4 needs at least one answers file")
    refuse_unmatched(questions, answers)
    scores = {n: score_answers(questions, a, (contexts or {}).get(n))
              for n, a in answers.items()}
    hops = sorted({h for s in scores.values() for h in s.by_hops}, key=hop_order)
    if hops == ["?"]:  # no hop counts at all (e.g. HotpotQA): overall columns only
        hops = []
    headers, rows = answer_quality_rows(scores, hops)
    first = next(iter(scores.values()))
    counts = ", ".join(f"{h}-hop {g.n}" if h != "?" else f"hop count unknown {g.n}"
                       for h, g in first.by_hops.items())
    notes = [f"{first.overall.n} questions with gold answers ({counts}); EM and F1 use "
             "SQuAD normalisation, best over the gold aliases.", *_missing_notes(scores)]
    dropped = sum(1 for q in questions if not q.answers)
    if dropped:
        notes.append(f"{dropped} of {len(questions)} questions left out: no gold answers "
                     f"({GOLD_KEYS})")
    if contexts is not None and len(contexts) < len(answers):
        notes.append("answer in context: '-' for " + ", ".join(
            n for n in answers if n not in contexts) + " (no retrieved contexts given)")
    data = {n: {"overall": s.overall.model_dump(),
                "by_hops": {h: g.model_dump() for h, g in s.by_hops.items()}}
            for n, s in scores.items()}
    return PaperTable(table="4", title="Multi-hop exact match / F1 (%) by hop count",
                      headers=headers, rows=rows, data=data, notes=notes)


def _refuse_unjudged(reports: Sequence[JudgeReport]) -> None:
    """``ValueError`` when no report has a judged question although calls were made (every
    verdict invalid): a table of ``-`` would read as a result."""
    why = [r.nothing_judged() for r in reports]
    if why and all(why):
        raise ValueError(why[0])


def _missing_notes(scores: Mapping[str, AnswerScores]) -> list[str]:
    first = next(iter(scores.values()))
    return [*([first.unscorable_note()] if first.unscorable else []),
            *(f"{n}: {s.missing} questions had no answer (scored 0)"
              for n, s in scores.items() if s.missing)]


# ---------------------------------------------------------------------------- Table 2
def table2(questions: Sequence[Question], answers: Mapping[str, Mapping[str, str]],
           judge: Judge | None = None, protocol: str = "score",
           contexts: Mapping[str, Mapping[str, Sequence[str]]] | None = None) -> PaperTable:
    """Ablation variants (``answers``: ``{variant: {id: answer}}``, ``full`` first).

    With a judge: ``score`` rates every variant (criteria as columns); ``winrate`` compares
    ``full`` against each other variant (the full system's win rate; ``ValueError`` with
    ``full`` alone). When every judge verdict was invalid, ``ValueError`` (as for
    :func:`table1`), not a table of ``-``. Without a judge the
    variants are compared by EM / F1 against the gold answers (if any), and by
    answer-in-context recall when ``contexts`` (``{variant: {id: passages}}``) are given.
    """
    names = list(answers)
    if judge is None:
        refuse_unmatched(questions, answers)
        scores = {n: score_answers(questions, a, (contexts or {}).get(n))
                  for n, a in answers.items()}
        headers, rows = answer_quality_rows(scores, [])
        first = next(iter(scores.values()))
        return PaperTable(table="2", title="Ablations: answer quality against gold answers "
                          "(no judge)", headers=headers, rows=rows,
                          data={n: s.overall.model_dump() for n, s in scores.items()},
                          notes=[f"{first.overall.n} questions with gold answers.",
                                 *_missing_notes(scores)])
    if protocol == "score":
        rep = judge.score(questions, answers)
        _refuse_unjudged([rep])
        rows = [[n, *(num(rep.dimensions[d][n]) for d in DIMENSIONS), num(rep.overall[n])]
                for n in names]
        return PaperTable(table="2", title="Ablations: judge scores (0-100)",
                          headers=["variant", *DIMENSIONS, "Overall"], rows=rows,
                          data=rep.as_json(),
                          notes=[f"{rep.questions} questions, {rep.invalid} invalid calls",
                                 *([rep.missing_note()] if rep.missing_note() else [])])
    if protocol != "winrate":
        raise ValueError(f"unknown judge protocol {protocol!r}; use 'winrate' or 'score'")
    base, others = names[0], names[1:]
    if not others:
        raise ValueError(f"Table 2 --protocol winrate compares {base!r} with each other "
                         "variant: it needs two or more systems")
    reps: dict[str, JudgeReport] = {
        o: judge.winrate(questions, {base: answers[base], o: answers[o]}) for o in others}
    _refuse_unjudged(list(reps.values()))
    rows = [[o, *(pct(reps[o].dimensions[d][base]) for d in DIMENSIONS),
             pct(reps[o].overall[base]), pct(reps[o].position_bias)] for o in others]
    return PaperTable(table="2", title=f"Ablations: win rate of {base} against each variant",
                      headers=["variant", *DIMENSIONS, "Overall", "position bias"],
                      rows=rows, data={o: r.as_json() for o, r in reps.items()},
                      notes=[f"{o}: {r.missing_note()}" for o, r in reps.items()
                             if r.missing_note()])
