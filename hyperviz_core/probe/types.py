"""Public data of the probe harness: probes, answers, grades (pydantic, JSON lines)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .textio import atomic_write_text, check_unicode, jsonl_lines

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


class GradeReport(BaseModel):
    """Per-task and overall scores."""

    tasks: list[TaskScore] = Field(default_factory=list)
    overall: TaskScore = Field(default_factory=lambda: TaskScore(task="overall"))
    first_error: str = ""
    """The first failed model call's error (empty when none failed)."""

    def table(self) -> str:
        """A plain-text table (one row per task, then overall)."""
        rows = [f"{'task':<18} {'n':>4} {'exact':>7} {'partial':>8} {'missing':>8} "
                f"{'errors':>7}"]
        for t in [*self.tasks, self.overall]:
            acc = "-" if t.accuracy is None else f"{t.accuracy:.3f}"
            part = "-" if t.partial is None else f"{t.partial:.3f}"
            rows.append(f"{t.task:<18} {t.n:>4} {acc:>7} {part:>8} {t.missing:>8} "
                        f"{t.errors:>7}")
        return "\n".join(rows)


M = TypeVar("M", bound=BaseModel)


def read_jsonl(path: str | Path, model: type[M]) -> list[M]:
    """Read JSON lines into ``model`` objects; a bad line raises ``ValueError`` naming it."""
    p = Path(path)
    try:
        lines = jsonl_lines(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{p}: not UTF-8 text") from None
    out: list[M] = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            check_unicode(obj, p, no)
            out.append(model.model_validate(obj))
        except (json.JSONDecodeError, ValidationError) as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else exc.errors()[0]["msg"]
            raise ValueError(f"{p}:{no}: not a valid {model.__name__}: {msg}") from None
    return out


def write_jsonl(path: str | Path, items: Iterable[BaseModel]) -> Path:
    """Write ``items`` as JSON lines (sorted keys, UTF-8), atomically: a failure leaves any
    previous file as it was."""
    text = "".join(json.dumps(i.model_dump(), ensure_ascii=False, sort_keys=True) + "\n"
                   for i in items)
    return atomic_write_text(path, text)
