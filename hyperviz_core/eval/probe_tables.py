"""Probe-based results: Table 5 (probe accuracy per model) and Fig. 2c (layout bias).

Both build on :mod:`hyperviz_core.probe` (structural probes with exact ground truth:
``overlap-core`` and ``bridge-hyperedge``, graded by exact set match with partial credit
reported separately).

- :func:`table5`: one row per model — exact accuracy per task, overall accuracy and partial
  credit — from the models' answers to the same probes.
- :func:`layout_bias`: the same samples and question seeds drawn with each single layout;
  every model answers every layout's probes; one row per (model, layout). The spread of
  accuracy across layouts is the layout bias of Fig. 2c.

Example (the FAKE export-oracle model answers from the exports, so it scores 1.0; it
measures no model):
    >>> import tempfile
    >>> from hyperviz_core.probe import ExportOracleVisionModel
    >>> from hyperviz_core.testing import random_hypergraph
    >>> from hyperviz_core.eval.probe_tables import layout_bias
    >>> fake = {"fake": ExportOracleVisionModel.for_probes}
    >>> t = layout_bias(random_hypergraph(40, 20, seed=3), fake, tempfile.mkdtemp(), n=2,
    ...                 layouts=["set-force", "bi-inc"], progress=False)
    >>> [r[:2] for r in t.rows], t.rows[0][-3]
    ([['fake', 'set-force'], ['fake', 'bi-inc']], '100.0%')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..model import Hypergraph
from ..probe import (
    TASKS,
    GradeReport,
    Probe,
    ProbeAnswer,
    ask_probes,
    fake_model,
    grade,
    make_probes,
)
from .markdown import pct
from .tables import PaperTable

__all__ = ["ModelFactory", "chance_note", "fake_row", "layout_bias", "probe_rows", "table5"]

ModelFactory = Callable[[Sequence[Probe], Path], Any]
"""``(probes, folder) -> ChatModel``: the vision model that answers one set of probes."""


def probe_rows(reports: Mapping[tuple[str, ...], GradeReport]
               ) -> tuple[list[str], list[list[str]]]:
    """Per task exact accuracy, overall exact accuracy, partial credit and count."""
    tasks = sorted({t.task for r in reports.values() for t in r.tasks},
                   key=lambda t: (TASKS.index(t) if t in TASKS else len(TASKS), t))
    rows = []
    for key, rep in reports.items():
        by_task = {t.task: t for t in rep.tasks}
        rows.append([*key, *(pct(by_task[t].accuracy) if t in by_task else "-" for t in tasks),
                     pct(rep.overall.accuracy), pct(rep.overall.partial), str(rep.overall.n)])
    return [*tasks, "overall", "partial credit", "probes"], rows


def fake_row(name: str, answers: Sequence[ProbeAnswer]) -> tuple[str, str]:
    """(row name, note): a model whose answers came from a FAKE model is marked ``(FAKE)``
    unless its name says so already, with a note naming the FAKE model."""
    model = fake_model(answers)
    if not model or "FAKE" in name:
        return name, ""
    return (f"{name} (FAKE)", f"{name} (FAKE): the answers come from {model}; they test "
            "the harness and measure no model")


def chance_note(report: GradeReport) -> str:
    """The chance baseline of a probe set: the accuracy of the best constant answer per task
    (each task's most frequent expected answer), per task and overall."""
    per = ", ".join(f"{t.task} {pct(t.chance)} ({' '.join(report.chance_answers[t.task])})"
                    for t in report.tasks)
    return (f"chance baseline (best constant answer per task, from the probes alone): {per}; "
            f"overall {pct(report.overall.chance)}. IDs are numbered by importance, so a "
            "model's accuracy means something only above this")


def table5(probes: Sequence[Probe], answers: Mapping[str, Sequence[ProbeAnswer]]
           ) -> PaperTable:
    """Probe accuracy of every model in ``answers`` (``{model: answers}``)."""
    if not probes:
        raise ValueError("Table 5 needs at least one probe")
    if not answers:
        raise ValueError("Table 5 needs the answers of at least one model")
    reports: dict[tuple[str, ...], GradeReport] = {
        (name,): grade(probes, got) for name, got in answers.items()}
    cols, rows = probe_rows(reports)
    notes = ["accuracy = exact set match of the expected IDs over the probes graded: a probe "
             "without an answer counts as wrong, a failed model call is not graded; partial "
             "credit = mean F1; '-' = no probe graded (every model call failed)",
             chance_note(next(iter(reports.values())))]
    for row, (name, got) in zip(rows, answers.items(), strict=True):
        row[0], note = fake_row(name, got)
        notes += [note] if note else []
    notes += [f"{n}: {r.overall.n - r.overall.missing} of {r.overall.n} probes answered, "
              f"{r.overall.missing} without an answer (counted wrong)"
              for (n,), r in reports.items() if r.overall.missing]
    notes += [f"{n}: {r.overall.errors} failed model calls (not scored; first: "
              f"{r.first_error[:120]})" for (n,), r in reports.items() if r.overall.errors]
    return PaperTable(table="5", title="Structural probe accuracy per model",
                      headers=["model", *cols], rows=rows, notes=notes,
                      data={n: r.model_dump() for (n,), r in reports.items()})


def layout_bias(
    source: Hypergraph | Sequence[Hypergraph],
    models: Mapping[str, ModelFactory],
    out_dir: str | Path,
    *,
    n: int = 20,
    layouts: Sequence[str] | None = None,
    seed: int = 0,
    progress: bool = True,
    limit: int | None = None,
) -> PaperTable:
    """Fig. 2c: probe accuracy per single layout (same samples and seeds for every layout).

    Probes go to ``out_dir/<layout>/`` (PNG, export, ``probes.jsonl``) and each model's
    answers to ``out_dir/<layout>/answers-<i>.jsonl`` (i = the model's position). ``limit``:
    only the first ``limit`` probes of each layout are asked and graded.
    """
    from .. import available_layouts
    from ..probe import write_jsonl

    names = list(layouts) if layouts else available_layouts()
    unknown = [x for x in names if x not in available_layouts()]
    if unknown:
        raise ValueError(f"unknown layout(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(available_layouts())}")
    if not models:
        raise ValueError("Fig. 2c needs at least one vision model")
    reports: dict[tuple[str, ...], GradeReport] = {}
    counts: dict[str, int] = {}
    for layout in names:
        folder = Path(out_dir) / layout
        probes = make_probes(source, n, folder, layouts=[layout], seed=seed, progress=progress)
        counts[layout] = len(probes)
        probes = probes[:limit] if limit else probes
        for i, (model_name, factory) in enumerate(models.items()):
            got = ask_probes(probes, folder, factory(probes, folder), progress=progress)
            write_jsonl(folder / f"answers-{i}.jsonl", got)
            reports[(model_name, layout)] = grade(probes, got)
    cols, rows = probe_rows(reports)
    order = {name: i for i, name in enumerate(names)}
    rows.sort(key=lambda r: (list(models).index(r[0]), order[r[1]]))
    spread = []
    for model_name in models:
        accs = [r.overall.accuracy for (m, _), r in reports.items()
                if m == model_name and r.overall.accuracy is not None]
        spread.append(f"{model_name}: accuracy spread across layouts "
                      f"{pct(max(accs) - min(accs) if accs else None)} (max - min)")
    notes = [f"{n} probe samples per layout requested, seed {seed}; made: "
             + ", ".join(f"{k} {v}" for k, v in counts.items())
             + (f" (the first {limit} of each asked: --limit)" if limit else ""), *spread]
    return PaperTable(table="2c", kind="Fig.", title="Layout bias: probe accuracy per layout",
                      headers=["model", "layout", *cols], rows=rows, notes=notes,
                      data={f"{m}|{lay}": r.model_dump() for (m, lay), r in reports.items()})
