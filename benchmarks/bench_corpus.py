"""Data and table helpers of ``retrieval_bench.py``: the benchmark corpora of ``../shared/data``
(MuSiQue, HotpotQA, the novels, UltraDomain *mix*), answer matching, flat-baseline windows,
result rows, the ``--split`` halves, the printed tables and the margins (with a
paired-bootstrap interval).

Example:
    >>> half_of("2hop__1_2") in ("A", "B")
    True
    >>> answer_hit("King Arthur", ["the court of king arthur."])
    True
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from bm25s.stopwords import STOPWORDS_EN_PLUS

from hyperviz_core.rag import Document

_WORD = re.compile(r"\w+")


# ------------------------------------------------------------------ data
@dataclass
class Corpus:
    """A benchmark corpus: documents for the index, units for the flat baselines."""

    name: str
    kind: str  # "passages" (recall of gold passages) or "answers" (answer in top-5 chunks)
    docs: list[Document]
    texts: list[str]  # flat-baseline units (passages; windows are made later for novels)
    questions: list[dict[str, Any]]
    titled: bool = True
    notes: list[str] = field(default_factory=list)
    data: Path | None = None  # the dataset folder (the novels' --triples reads it again)


def load_corpus(data: Path, untitled: bool) -> Corpus:
    """Load a dataset folder of ``../shared/data`` (MuSiQue, HotpotQA, the novels or
    UltraDomain *mix*)."""
    if (data / "mix_unique_contexts.json").exists():
        return _contexts(data)
    raw = json.loads((data / "corpus.json").read_text(encoding="utf-8"))
    if isinstance(raw, list) and raw and "context" in raw[0]:
        return _novels(data, raw)
    if isinstance(raw, dict):
        passages = [(str(t), "".join(str(s) for s in sents)) for t, sents in raw.items()]
    else:
        passages = [(str(p["title"]), str(p["text"])) for p in raw]
    questions = _jsonl(data / "queries_dev.jsonl")
    if untitled:
        passages = [("", x) for _, x in passages]
    docs = [Document(id=f"p{i:05d}", title=t, text=x) for i, (t, x) in enumerate(passages)]
    texts = [f"{t}\n{x}" if t else x for t, x in passages]
    name = data.name + (" --untitled" if untitled else "")
    return Corpus(name, "passages", docs, texts, questions, titled=not untitled)


def missing_file(data: Path) -> Path | None:
    """The first file :func:`load_corpus` needs that ``data`` lacks (the folder itself when
    it is not one), or None: the check made before anything is loaded or built.

    >>> str(missing_file(Path("no-such-dataset")))
    'no-such-dataset'
    """
    if not data.is_dir():
        return data
    if (data / "mix_unique_contexts.json").exists():
        needed = [data / "mix_qa.jsonl"]
    elif (data / "questions.jsonl").exists():  # the novels
        needed = [data / "corpus.json"]
    else:
        needed = [data / "corpus.json", data / "queries_dev.jsonl"]
    return next((p for p in needed if not p.is_file()), None)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _novels(data: Path, raw: list[dict[str, Any]]) -> Corpus:
    docs = [Document(id=f"n{i:02d}", title="", text=str(d["context"]),
                     metadata={"source": str(d["corpus_name"])}) for i, d in enumerate(raw)]
    questions = [q for q in _jsonl(data / "questions.jsonl")
                 if q.get("question_type") == "Fact Retrieval"
                 and len(str(q["answer"]).split()) <= 4]
    return Corpus(data.name, "answers", docs, [d.text for d in docs], questions, titled=False,
                  data=data)


def _contexts(data: Path) -> Corpus:
    """UltraDomain *mix*: 61 long untitled contexts; each question keeps its answer and the
    index of its (inferred) context."""
    raw = json.loads((data / "mix_unique_contexts.json").read_text(encoding="utf-8"))
    texts = [str(t) for t in raw]
    docs = [Document(id=f"u{i:02d}", title="", text=t) for i, t in enumerate(texts)]
    questions = [{"id": str(q["query_id"]), "question": str(q["question"]),
                  "answer": str(q["answer"]), "context": int(q["silver_context_idx"])}
                 for q in _jsonl(data / "mix_qa.jsonl")]
    return Corpus(data.name, "contexts", docs, texts, questions, titled=False, data=data)


_TRIPLE = re.compile(r"^\s*\((.*)\)\s*\.?\s*$", re.S)


def triple_questions(data: Path, exclude: set[str], texts: Sequence[str],
                     max_units: int = 50) -> list[dict[str, Any]]:
    """The novels' other questions (``--triples``): every question not in ``exclude`` whose
    ``evidence_triple`` "(head, relation, tail)" has a head and a tail of 3+ characters that
    occur together in 1 to ``max_units`` of ``texts`` (the engine's chunks) — answerable and
    specific. Each gets ``head`` and ``tail``; a hit is a top-5 unit holding both
    (:func:`pair_hit`)."""
    unit_words = [words(t) for t in texts]
    out = []
    for q in _jsonl(data / "questions.jsonl"):
        m = _TRIPLE.match(str(q.get("evidence_triple") or ""))
        parts = [p.strip() for p in m.group(1).split(",")] if m else []
        if str(q["id"]) in exclude or len(parts) < 3:
            continue
        head, tail = words(parts[0]), words(parts[-1])
        if len(head.strip()) < 3 or len(tail.strip()) < 3:
            continue
        n = sum(1 for w in unit_words if head in w and tail in w)
        if 1 <= n <= max_units:
            out.append({**q, "head": parts[0], "tail": parts[-1]})
    return out


def pair_hit(head: str, tail: str, texts: Sequence[str]) -> bool:
    """``head`` and ``tail`` (words, in order each) occur together in one of ``texts``.

    >>> pair_hit("Hank Snow", "Nova Scotia", ["Hank Snow was born in Nova Scotia.", "x"])
    True
    >>> pair_hit("Hank Snow", "Nova Scotia", ["Hank Snow", "Nova Scotia"])
    False
    """
    h, t = words(head), words(tail)
    return any(h in w and t in w for w in map(words, texts))


def words(text: str) -> str:
    """Lower-cased words joined by single spaces, padded (for whole-word containment)."""
    return " " + " ".join(_WORD.findall(text.casefold())) + " "


def answer_hit(answer: str, texts: Sequence[str]) -> bool:
    """The answer's words occur, in order and as whole words, in one of ``texts``."""
    return answerable([answer], texts)[0]


def answerable(answers: Sequence[str], texts: Sequence[str]) -> list[bool]:
    """For each answer, whether its words occur, in order and as whole words, in one of
    ``texts`` (the rule of :func:`answer_hit` and hit@5): the questions that *some* ranking
    of these units can hit, i.e. the ceiling of answer-in-top-k.

    >>> answerable(["Nova Scotia", "Merlin produced King Arthur.", "scotia born"],
    ...            ["Hank Snow was born in Nova Scotia.", "Merlin and King Arthur"])
    [True, False, False]
    """
    haystack = "\n".join(map(words, texts))  # words() never yields a newline
    return [(a := words(x)).strip() != "" and a in haystack for x in answers]


def print_ceiling(questions: Sequence[dict[str, Any]], units: Sequence[str],
                  wins: Sequence[str], split: bool) -> None:
    """How many answers occur in some engine chunk (and in some flat window), whole set and,
    with ``--split``, per half: no ranking can hit the other questions."""
    answers = [str(q["answer"]) for q in questions]
    in_unit, in_window = answerable(answers, units), answerable(answers, wins)
    groups = [("all", list(range(len(questions))))]
    if split:
        groups += [(f"half {h}", [i for i, q in enumerate(questions)
                                  if half_of(str(q["id"])) == h]) for h in ("A", "B")]
    parts = []
    for name, rows in groups:
        c, w = sum(in_unit[i] for i in rows), sum(in_window[i] for i in rows)
        parts.append(f"{name} {c}/{len(rows)} = {c / max(len(rows), 1):.3f} "
                     f"(in a window: {w})")
    print("ceiling (questions whose answer occurs in some engine chunk; no ranking hits the "
          "others): " + "; ".join(parts))


def windows(texts: Sequence[str], size: int, overlap: float = 0.25) -> list[tuple[int, str]]:
    """(document index, window) pairs of ``size`` characters with ``overlap`` between them."""
    step = max(1, int(size * (1 - overlap)))
    out: list[tuple[int, str]] = []
    for d, text in enumerate(texts):
        for s in range(0, max(len(text) - size, 0) + step, step):
            out.append((d, text[s : s + size]))
            if s + size >= len(text):
                break
    return out


def answer_words(text: str) -> set[str]:
    """Content words of a (long) answer: lower-cased words of 3+ characters that are not in
    bm25s's English stop list.

    >>> sorted(answer_words("The Witch's mother became a star, then a Cloud."))
    ['became', 'cloud', 'mother', 'star', 'witch']
    """
    return {w for w in _WORD.findall(text.casefold())
            if len(w) >= 3 and w not in STOPWORDS_EN_PLUS}


def context_scores(q: dict[str, Any], top: Sequence[tuple[int, str]], k: int = 5
                   ) -> dict[str, float]:
    """``doc@k``: share of the ``k`` best units (``(document index, text)``) that come from
    the question's context (``q["context"]``; fewer than ``k`` units count as misses);
    ``ans@k``: share of the answer's content words (:func:`answer_words`) found in them.

    >>> q = {"answer": "Mary dislikes the poem", "context": 0}
    >>> context_scores(q, [(0, "The poem, Mary said."), (3, "She dislikes it.")], 4)
    {'doc@4': 0.25, 'ans@4': 1.0}
    >>> context_scores(q, [(0, "The poem, Mary said."), (3, "She dislikes it.")], 1)["ans@1"]
    0.6666666666666666
    """
    top = top[:k]
    want = answer_words(str(q["answer"]))
    seen = {w for _, t in top for w in _WORD.findall(t.casefold())}
    return {f"doc@{k}": sum(d == q["context"] for d, _ in top) / k,
            f"ans@{k}": len(want & seen) / len(want) if want else 0.0}


# ------------------------------------------------------------------ rows and halves
@dataclass
class Row:
    name: str
    scores: dict[str, float]
    p50: float
    p95: float
    cpu50: float = float("nan")
    per_q: list[dict[str, float]] = field(default_factory=list)


def mean_scores(per_q: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each metric's mean over the questions that have it (a hop column only over the
    questions of that hop count).

    >>> mean_scores([{"R@5": 1.0, "2hop": 1.0}, {"R@5": 0.5}])
    {'2hop': 1.0, 'R@5': 0.75}
    """
    keys = sorted({k for s in per_q for k in s})
    return {k: statistics.fmean(s[k] for s in per_q if k in s) for k in keys}


def half_of(question_id: str) -> str:
    """``"A"`` when the SHA-256 of ``question_id`` is even, else ``"B"`` (``--split``)."""
    return "A" if int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 2 == 0 else "B"


def split_rows(rows: Sequence[Row], questions: Sequence[dict[str, Any]], half: str
               ) -> list[Row]:
    """``rows`` with their scores averaged over the questions of ``half`` only."""
    keep = [i for i, q in enumerate(questions) if half_of(str(q["id"])) == half]
    out = []
    for r in rows:
        per_q = [r.per_q[i] for i in keep]
        out.append(Row(r.name, mean_scores(per_q), r.p50, r.p95, r.cpu50, per_q))
    return out


def print_split(rows: Sequence[Row], questions: Sequence[dict[str, Any]],
                columns: Sequence[str], metric: str, against: Sequence[str]) -> None:
    """The table and margins of each half (``--split``); latency columns are the whole
    run's."""
    for half in ("A", "B"):
        n = sum(1 for q in questions if half_of(str(q["id"])) == half)
        print(f"half {half} ({n} questions; sha256(id) {'even' if half == 'A' else 'odd'})")
        if not n:
            continue
        sub = split_rows(rows, questions, half)
        print_table(sub, columns)
        print_margins(sub, metric, against)


# ------------------------------------------------------------------ output
def print_table(rows: Sequence[Row], columns: Sequence[str]) -> None:
    width = max(13, *(len(r.name) for r in rows))
    print(f"{'method':<{width}} " + " ".join(f"{c:>6}" for c in columns)
          + f" {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8}")
    for r in rows:
        cells = " ".join(f"{r.scores[c]:6.3f}" if c in r.scores else f"{'-':>6}"
                         for c in columns)
        print(f"{r.name:<{width}} {cells} {r.p50:8.1f} {r.p95:8.1f} {r.cpu50:8.1f}")


def paired_interval(diffs: Sequence[float], n_boot: int = 2000, seed: int = 0
                    ) -> tuple[float, float]:
    """95% paired-bootstrap interval of the mean of per-question score differences
    (``n_boot`` resamples of the questions with replacement, fixed ``seed``: the same
    input prints the same interval).

    >>> paired_interval([1.0] * 5)
    (1.0, 1.0)
    >>> lo, hi = paired_interval([1.0, 0.0, 0.0, 0.0])
    >>> 0.0 <= lo < 0.25 < hi <= 1.0
    True
    """
    d = np.asarray(diffs, dtype=np.float64)
    if not d.size:
        return float("nan"), float("nan")
    means = d[np.random.default_rng(seed).integers(0, d.size, (n_boot, d.size))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def margin(target: Row, base: Row, metric: str) -> str:
    """``target``'s mean ``metric`` minus ``base``'s, its 95% paired-bootstrap interval, and
    on how many questions ``target`` scored above / below ``base``."""
    diffs = [t[metric] - b[metric] for t, b in zip(target.per_q, base.per_q, strict=True)
             if metric in t and metric in b]
    lo, hi = paired_interval(diffs)
    up, down = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    return (f"{target.scores[metric] - base.scores[metric]:+.3f} vs {base.name} "
            f"(95% CI {lo:+.3f}..{hi:+.3f}; above on {up}, below on {down} of {len(diffs)})")


def print_margins(rows: Sequence[Row], metric: str, against: Sequence[str]) -> None:
    """Each of ``vizrag`` and ``hyper-lite`` against the baselines ``against``: the margin of
    the mean ``metric`` with its paired interval (:func:`margin`)."""
    by = {r.name: r for r in rows}
    for target in ("vizrag", "hyper-lite"):
        if target not in by:
            continue
        for b in against:
            if b in by:
                print(f"{target} {metric}: {margin(by[target], by[b], metric)}")
