"""Question files and answers files of the evaluation harness.

- **Questions** (JSONL, one object per line): ``{"id", "question"}`` plus optional gold
  ``"answers"`` (a list; a string ``"answer"`` also works, as in GraphRAG-Bench; each gold a
  non-empty string or a number: a blank string or a null field is no gold, anything else —
  null, a list, an object, a boolean — is an error naming the line), ``"hops"``
  (MuSiQue; derived from an id such as ``"3hop1__..."`` when missing) and
  ``"reference"`` (text a score judge may use). Lines without an ``id`` get their line number;
  an ``id`` must be a non-empty string or a whole number (``null`` is an error, never
  ``"None"``).
- **Answers** (JSONL): ``{"id", "question", "answer"}`` per line, what ``vizrag eval
  generate`` writes (one file per mode) and what ``vizrag eval judge`` reads. A system is
  named by its file stem (``answers/vizrag.jsonl`` → ``vizrag``). ``"answer"`` is a string
  or a number (``null``: an empty answer; a boolean, list or object is an error naming the
  line). The recorded ``"question"`` must be the question file's question of that id
  (:func:`refuse_other_questions`): ids alone do not tell question sets apart.

Example:
    >>> from hyperviz_core.eval.data import Question, system_name
    >>> Question(id="2hop__1_2", question="Who?", answers=["Ann"]).hop_count
    2
    >>> system_name("out/hyper-lite.jsonl")
    'hyper-lite'
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..probe.textio import atomic_write_text, check_unicode, decode_utf8, jsonl_lines

__all__ = [
    "AnswerRecord",
    "Question",
    "answers_by_id",
    "load_answers",
    "load_questions",
    "refuse_other_questions",
    "system_name",
    "write_answers",
]

_HOPS = re.compile(r"^(\d+)hop")


class Question(BaseModel):
    """One evaluation question (gold answers optional)."""

    id: str
    question: str
    answers: list[str] = Field(default_factory=list)
    hops: int | None = None
    reference: str | None = None

    @property
    def hop_count(self) -> int | None:
        """``hops``, else the number in a MuSiQue-style id (``"3hop1__..."`` → 3)."""
        if self.hops is not None:
            return self.hops
        m = _HOPS.match(self.id)
        return int(m.group(1)) if m else None


class AnswerRecord(BaseModel):
    """One line of an answers file."""

    id: str
    question: str = ""
    answer: str = ""


def system_name(path: str | Path) -> str:
    """The name of the system an answers file holds: its file stem."""
    return Path(path).stem


def _jsonl(path: str | Path) -> Iterable[tuple[int, dict[str, Any]]]:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror or exc}") from None
    text = decode_utf8(data, p)  # a byte-order mark (Windows) is skipped
    for n, line in enumerate(jsonl_lines(text), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{p}:{n}: expected a JSON object")
        check_unicode(obj, p, n)
        yield n, obj


def _gold(path: str | Path, n: int, value: Any) -> str:
    """One gold answer as text (``""``: blank, no gold); ``ValueError`` unless a string or a
    finite number."""
    if isinstance(value, str):
        return value if value.strip() else ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return str(value)
    raise ValueError(f"{path}:{n}: a gold answer must be a non-empty string or a number, got "
                     f"{json.dumps(value, ensure_ascii=False)[:80]}")


def _golds(path: str | Path, n: int, obj: dict[str, Any]) -> list[str]:
    """The gold answers of a question line, blanks left out."""
    raw = obj.get("answers", obj.get("answer"))
    if raw is None:
        return []
    golds = raw if isinstance(raw, list) else [raw]
    return [g for g in (_gold(path, n, v) for v in golds) if g]


_OTHER_ID_KEYS = ("qid", "_id", "question_id", "qa_id", "uid", "ID", "Id")
"""Keys other datasets use for a question id: a line with one and no ``"id"`` is refused."""


def _id(path: str | Path, n: int, obj: dict[str, Any], default: str | None) -> str:
    """The ``"id"`` of a line as text (``default`` when absent); ``ValueError`` naming the
    line unless a non-empty string or a whole number."""
    if "id" not in obj:
        other = next((k for k in _OTHER_ID_KEYS if k in obj), None)
        if other is not None:  # its line number would silently match no answer
            raise ValueError(f"{path}:{n}: no \"id\" but {other!r}: the id key is \"id\" "
                             f"(rename {other!r} to \"id\")")
        if default is None:
            raise ValueError(f"{path}:{n}: answer line without an \"id\"")
        return default
    value = obj["id"]
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    raise ValueError(f"{path}:{n}: \"id\" must be a non-empty string or a whole number, got "
                     f"{json.dumps(value, ensure_ascii=False)[:80]}")


def _question(path: str | Path, n: int, obj: dict[str, Any]) -> Question:
    text = obj.get("question")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{path}:{n}: expected an object with a non-empty \"question\"")
    golds = _golds(path, n, obj)
    hops = obj.get("hops")
    if hops is not None and (not isinstance(hops, int) or isinstance(hops, bool) or hops < 1):
        raise ValueError(f"{path}:{n}: \"hops\" must be a whole number >= 1, got {hops!r}")
    ref = obj.get("reference")
    return Question(id=_id(path, n, obj, str(n)), question=text, answers=golds,
                    hops=hops, reference=str(ref) if ref is not None else None)


def load_questions(path: str | Path, limit: int | None = None) -> list[Question]:
    """Read a questions JSONL file (first ``limit`` questions, ``limit`` >= 1); duplicate ids
    are an error."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    out: list[Question] = []
    seen: dict[str, int] = {}  # id -> its line
    numbered: set[str] = set()  # ids given by line number (the line had no "id")
    for n, obj in _jsonl(path):
        q = _question(path, n, obj)
        if q.id in seen:
            why = (f" (line {seen[q.id]} has no \"id\" and was given its line number)"
                   if q.id in numbered else f" (also on line {seen[q.id]})")
            raise ValueError(f"{path}:{n}: duplicate question id {q.id!r}{why}")
        seen[q.id] = n
        if "id" not in obj:
            numbered.add(q.id)
        out.append(q)
        if limit is not None and len(out) >= limit:
            break
    if not out:
        raise ValueError(f"{path}: no questions")
    return out


def load_answers(path: str | Path) -> list[AnswerRecord]:
    """Read an answers JSONL file (``{"id", "question", "answer"}`` per line)."""
    out: list[AnswerRecord] = []
    seen: set[str] = set()
    for n, obj in _jsonl(path):
        if "answer" not in obj:  # a misspelt key must not score as an empty answer
            keys = ", ".join(f'"{k}"' for k in list(obj)[:6]) or "none"
            raise ValueError(f'{path}:{n}: no "answer" (null for an empty answer); its keys: '
                             f"{keys}")
        rec = AnswerRecord(id=_id(path, n, obj, None), question=str(obj.get("question") or ""),
                           answer=_answer_text(path, n, obj.get("answer")))
        if rec.id in seen:
            raise ValueError(f"{path}:{n}: duplicate answer id {rec.id!r}")
        seen.add(rec.id)
        out.append(rec)
    return out


def _answer_text(path: str | Path, n: int, value: Any) -> str:
    """An answer as text: a string, a finite number, or ``null`` (empty)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return str(value)
    raise ValueError(f"{path}:{n}: \"answer\" must be a string (or a number), got "
                     f"{json.dumps(value, ensure_ascii=False)[:80]}")


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def refuse_other_questions(questions: Iterable[Question], records: Iterable[AnswerRecord],
                           name: str) -> None:
    """``ValueError`` naming the first id whose recorded question (an answers file's
    ``"question"``, when given) differs from the question file's question of that id
    (whitespace aside): the answers are to another question set that reuses the ids.

    >>> q = [Question(id="1", question="Capital of France?")]
    >>> refuse_other_questions(q, [AnswerRecord(id="1", question="Capital of France?")], "a")
    >>> refuse_other_questions(q, [AnswerRecord(id="1", question="Who?", answer="x")], "a")
    Traceback (most recent call last):
    ...
    ValueError: a: the answer to question '1' was to another question ('Who?'; ...
    """
    asked = {q.id: q.question for q in questions}
    for r in records:
        want = asked.get(r.id)
        if want is not None and r.question and not _same_text(r.question, want):
            raise ValueError(f"{name}: the answer to question {r.id!r} was to another question "
                             f"({r.question[:60]!r}; the question file asks {want[:60]!r}): "
                             "answers of another question set?")


def answers_by_id(records: Iterable[AnswerRecord]) -> dict[str, str]:
    """``{id: answer}`` of an answers file's records."""
    return {r.id: r.answer for r in records}


def write_answers(path: str | Path, records: Iterable[AnswerRecord | Mapping[str, Any]]) -> Path:
    """Write an answers JSONL file (parents created) atomically: a failure leaves any previous
    file as it was (text that is no valid Unicode raises ``ValueError``); returns the path."""
    lines = []
    for r in records:
        rec = r if isinstance(r, AnswerRecord) else AnswerRecord.model_validate(dict(r))
        lines.append(json.dumps({"id": rec.id, "question": rec.question, "answer": rec.answer},
                                ensure_ascii=False))
    try:
        return atomic_write_text(path, "".join(line + "\n" for line in lines))
    except UnicodeEncodeError:
        raise ValueError(f"{path}: an answer holds an unpaired surrogate (not valid Unicode); "
                         "nothing written") from None
