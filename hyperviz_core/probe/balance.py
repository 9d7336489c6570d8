"""Balanced expected answers: no answer may make up more than a quarter of a task's probes.

The renderer numbers entities and hyperedges by importance (``E1``/``H1`` first), so the
expected answer of a probe is often ``E1`` or ``H1`` and a constant answer scores well
(:func:`~hyperviz_core.probe.grade.best_constant_answers`). :func:`make_probes
<hyperviz_core.probe.make.make_probes>` therefore balances by default:

* each task is asked ``quota`` probes: the ``n`` asked for, split over the tasks taken in
  turn (:func:`task_quotas`);
* at most ``cap = ceil(quota / BALANCE_SHARE)`` probes of a task (``BALANCE_SHARE`` = 4: a
  quarter, rounded up; at least 1) share one expected answer, compared as a set of IDs
  (:func:`answer_key`); a sample whose probe would pass the cap is skipped (counted as
  ``balance``, and as a sample without a new probe towards ``STALE_LIMIT``);
* within one drawing, the question asked is the candidate whose answer is least used so
  far (:meth:`AnswerBalance.preference`);
* sampling goes on past ``n`` samples, for the tasks still short of their quota, up to
  ``BALANCE_DRAWS`` × ``n`` samples.

Example:
    >>> task_quotas(5, ["overlap-core", "bridge-hyperedge"])
    {'overlap-core': 3, 'bridge-hyperedge': 2}
    >>> b = AnswerBalance(20, ["overlap-core", "bridge-hyperedge"])
    >>> b.cap
    {'overlap-core': 3, 'bridge-hyperedge': 3}
    >>> for _ in range(3):
    ...     b.add("bridge-hyperedge", "Which?", ["H1"])
    >>> b.allows("bridge-hyperedge", ["H1"]), b.allows("bridge-hyperedge", ["H2"])
    (False, True)
    >>> prefer = b.preference("bridge-hyperedge")
    >>> prefer(("Which?", [], ["H1"])) > prefer(("Other?", [], ["H2"]))
    True
"""

from __future__ import annotations

from collections.abc import Sequence

from .tasks import Preference, Question, vid_key

__all__ = ["BALANCE_DRAWS", "BALANCE_SHARE", "AnswerBalance", "answer_key", "task_quotas"]

BALANCE_SHARE = 4
"""At most ``ceil(quota / BALANCE_SHARE)`` probes of a task share one expected answer."""
BALANCE_DRAWS = 10
"""Balanced sampling draws at most this many samples per probe asked for."""


def answer_key(answer: Sequence[str]) -> tuple[str, ...]:
    """An expected answer as a set: its distinct IDs in ID order (``E2`` before ``E10``).

    >>> answer_key(["E10", "E2", "E2"])
    ('E2', 'E10')
    """
    return tuple(sorted(dict.fromkeys(answer), key=vid_key))


def task_quotas(n: int, tasks: Sequence[str]) -> dict[str, int]:
    """Probes asked of each task: of ``n`` probes, probe ``i`` is of ``tasks[i % len]``."""
    out: dict[str, int] = {}
    for i in range(n):
        out[tasks[i % len(tasks)]] = out.get(tasks[i % len(tasks)], 0) + 1
    return out


class AnswerBalance:
    """Expected answers used so far, per task, against the caps of ``n`` probes."""

    def __init__(self, n: int, tasks: Sequence[str], share: int = BALANCE_SHARE) -> None:
        if isinstance(share, bool) or not isinstance(share, int) or share < 1:
            raise ValueError(f"the balance share must be a whole number >= 1, got {share!r}")
        self.quota = task_quotas(n, tasks)
        self.cap = {t: max(1, -(-q // share)) for t, q in self.quota.items()}
        self.made = dict.fromkeys(self.quota, 0)
        self._used: dict[str, dict[tuple[str, ...], int]] = {t: {} for t in self.quota}
        self._asked: dict[str, set[str]] = {t: set() for t in self.quota}

    def full(self, task: str) -> bool:
        """Whether ``task`` has all the probes asked of it (a task not asked: always)."""
        return self.made.get(task, 0) >= self.quota.get(task, 0)

    def done(self) -> bool:
        """Whether every task has all the probes asked of it."""
        return all(self.full(t) for t in self.quota)

    def used(self, task: str, answer: Sequence[str]) -> int:
        """Probes of ``task`` made so far with this expected answer (as a set)."""
        return self._used.get(task, {}).get(answer_key(answer), 0)

    def allows(self, task: str, answer: Sequence[str]) -> bool:
        """Whether one more probe of ``task`` may have this expected answer."""
        return self.used(task, answer) < self.cap.get(task, 1)

    def add(self, task: str, question: str, answer: Sequence[str]) -> None:
        """Count a probe made."""
        used = self._used.setdefault(task, {})
        used[answer_key(answer)] = used.get(answer_key(answer), 0) + 1
        self._asked.setdefault(task, set()).add(question)
        self.made[task] = self.made.get(task, 0) + 1

    def preference(self, task: str) -> Preference:
        """Rank of a candidate question of ``task`` (lowest is asked): an answer below its
        cap first, then a question not asked before (on a source drawn whole it would repeat
        a probe), then the least used answer."""
        def rank(q: Question) -> tuple[bool, bool, int]:
            used = self.used(task, q[2])
            return used >= self.cap.get(task, 1), q[0] in self._asked.get(task, ()), used

        return rank
