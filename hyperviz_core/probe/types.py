"""Public data of the probe harness: probes, answers, grades (pydantic, JSON lines)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .textio import atomic_write_text, check_unicode, decode_utf8, jsonl_lines

__all__ = ["GradeReport", "Probe", "ProbeAnswer", "TaskScore", "read_jsonl", "write_jsonl"]


class Probe(BaseModel):
    """One structural probe: an image, its export, a question and the expected IDs.

    Paths are relative to the folder of ``probes.jsonl``.
    """

    model_config = ConfigDict(extra="ignore")

    id: str
    task: str
    image: str
    export: str
    question: str
    hyperedges: list[str] = Field(default_factory=list)
    """The hyperedges (H#) the question names."""
    answer: list[str]
    """The expected visual IDs (exact set)."""
    layouts: list[str] = Field(default_factory=list)


class ProbeAnswer(BaseModel):
    """A model's answer to one probe (``answers.jsonl``)."""

    model_config = ConfigDict(extra="ignore")

    id: str
    answer: list[str] | str
    """IDs, or raw text from which E#/H# IDs are read."""
    model: str = ""
    raw: str = ""
    error: str = ""
    """Why the model call failed (a provider error); empty when it answered. A failed call
    is not graded: :func:`~hyperviz_core.probe.grade` counts it in ``errors``."""
    question: str = ""
    """The probe's question when it was asked (``probes run`` records it): grading refuses
    an answer to another question under the same id (answers of another probe set)."""


class TaskScore(BaseModel):
    """Accuracy of one task (or ``overall``): exact set matches and mean partial credit."""

    task: str
    n: int = 0
    correct: int = 0
    accuracy: float | None = 0.0
    """Share of exact set matches among the graded probes (``n - errors``); ``None`` when
    none was graded (every model call failed)."""
    partial: float | None = 0.0
    """Mean F1 of answered against expected IDs (partial credit, reported separately);
    ``None`` when none was graded."""
    missing: int = 0
    """Probes without an answer in the file (graded 0)."""
    errors: int = 0
    """Probes whose model call failed (not graded)."""
    chance: float | None = None
    """Chance baseline: the exact accuracy of always giving the task's most frequent
    expected answer (overall: each task's), over all ``n`` probes; ``None`` without probes.
    IDs are numbered by importance, so ``H1``/``E1`` is often right: a model's accuracy
    means something only above this."""


class GradeReport(BaseModel):
    """Per-task and overall scores."""

    tasks: list[TaskScore] = Field(default_factory=list)
    overall: TaskScore = Field(default_factory=lambda: TaskScore(task="overall"))
    first_error: str = ""
    """The first failed model call's error (empty when none failed)."""
    chance_answers: dict[str, list[str]] = Field(default_factory=dict)
    """The best constant answer of every task (the chance baseline's answer)."""

    def table(self) -> str:
        """A plain-text table (one row per task, then overall); ``chance`` is the exact
        accuracy of the best constant answer (:meth:`chance_note`)."""
        rows = [f"{'task':<18} {'n':>4} {'exact':>7} {'partial':>8} {'chance':>7} "
                f"{'missing':>8} {'errors':>7}"]
        for t in [*self.tasks, self.overall]:
            acc = "-" if t.accuracy is None else f"{t.accuracy:.3f}"
            part = "-" if t.partial is None else f"{t.partial:.3f}"
            chance = "-" if t.chance is None else f"{t.chance:.3f}"
            rows.append(f"{t.task:<18} {t.n:>4} {acc:>7} {part:>8} {chance:>7} "
                        f"{t.missing:>8} {t.errors:>7}")
        return "\n".join(rows)

    def chance_note(self) -> str:
        """One line naming the chance baseline and the constant answers behind it."""
        best = "; ".join(f"{t}: {' '.join(a) or 'none'}" for t, a in self.chance_answers.items())
        return ("chance = exact accuracy of always giving each task's most frequent expected "
                f"answer ({best}); read 'exact' against it")


M = TypeVar("M", bound=BaseModel)


def read_jsonl(path: str | Path, model: type[M]) -> list[M]:
    """Read JSON lines into ``model`` objects; a bad line raises ``ValueError`` naming it."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror or exc}") from None
    lines = jsonl_lines(decode_utf8(data, p))
    out: list[M] = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            check_unicode(obj, p, no)
            out.append(model.model_validate(obj))
        except (json.JSONDecodeError, ValidationError) as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else _field_error(exc)
            raise ValueError(f"{p}:{no}: not a valid {model.__name__}: {msg}") from None
    return out


def _field_error(exc: ValidationError) -> str:
    """The first error of ``exc``, naming its field: ``field 'answer' required``."""
    err = exc.errors()[0]
    loc = ".".join(str(x) for x in err.get("loc", ()))
    if not loc:
        return str(err["msg"])
    if err.get("type") == "missing":
        return f"field {loc!r} required"
    return f"field {loc!r}: {err['msg']}"


def write_jsonl(path: str | Path, items: Iterable[BaseModel]) -> Path:
    """Write ``items`` as JSON lines (sorted keys, UTF-8), atomically: a failure leaves any
    previous file as it was."""
    text = "".join(json.dumps(i.model_dump(), ensure_ascii=False, sort_keys=True) + "\n"
                   for i in items)
    return atomic_write_text(path, text)
