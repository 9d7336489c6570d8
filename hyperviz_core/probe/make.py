"""Probe generation: sample, render, ask a question with exact ground truth, write files.

Example:
    >>> import tempfile
    >>> from hyperviz_core.testing import random_hypergraph
    >>> out = tempfile.mkdtemp()
    >>> probes = make_probes(random_hypergraph(60, 30, seed=2), 2, out, seed=1,
    ...                      progress=False)
    >>> [p.task for p in probes], probes[0].image
    (['overlap-core', 'bridge-hyperedge'], 'p0000-overlap-core.png')
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Iterator, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from ..layouts.base import get_layout
from ..model import Hypergraph
from ..render import HyperViz, Rendering
from .balance import BALANCE_DRAWS, AnswerBalance
from .sample import sample_at
from .tasks import DEFAULT_TASKS, TASKS, Preference, make_question
from .types import Probe, write_jsonl

__all__ = ["DEFAULT_PAIR", "STALE_LIMIT", "ProbeSpec", "SpecStream", "distinct_probes",
           "iter_probe_specs", "make_probes", "probe_key", "probe_specs", "render_probe"]

DEFAULT_PAIR: tuple[str, str] = ("set-force", "bi-inc")

ProbeSpec = tuple[str, Hypergraph, str, int]
"""(probe id, sub-hypergraph, task, question seed)."""


_KEPT_RENDERINGS = 16  # recent drawings kept by render_probe's cache

STALE_LIMIT = 50
"""Sampling stops once this many samples in a row gave no new probe (each repeated an
earlier probe or had no instance of its task): a small source yields only a few distinct
probes however many are asked for, and drawing the rest would only repeat them."""


def iter_probe_specs(
    source: Hypergraph | Sequence[Hypergraph], n: int, seed: int = 0,
    tasks: Sequence[str] = DEFAULT_TASKS, size: tuple[int, int] = (12, 30),
) -> Iterator[ProbeSpec]:
    """:func:`probe_specs`, drawn lazily one sample at a time (the arguments are checked at
    once)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"the number of probes must be a whole number >= 1, got {n!r}")
    if not tasks:
        raise ValueError(f"no probe task given; choose from {', '.join(TASKS)}")
    for t in tasks:
        if t not in TASKS:
            raise ValueError(f"unknown probe task {t!r}; choose from {', '.join(TASKS)}")
    if (not isinstance(size, tuple | list) or len(size) != 2
            or not all(isinstance(v, int) for v in size) or not 1 <= size[0] <= size[1]):
        raise ValueError(f"size must be (smallest, largest) entity counts with 1 <= smallest "
                         f"<= largest, got {size!r}")
    graphs = [source] if isinstance(source, Hypergraph) else list(source)
    if not graphs or not any(g.entities for g in graphs):
        raise ValueError("no hypergraph with an entity to make probes from")
    return _specs(source if isinstance(source, Hypergraph) else graphs, n, seed, tasks,
                  (size[0], size[1]))


def _specs(source: Hypergraph | list[Hypergraph], n: int, seed: int, tasks: Sequence[str],
           size: tuple[int, int]) -> Iterator[ProbeSpec]:
    for i in range(n):
        sub = (sample_at(source, i, seed, size) if isinstance(source, Hypergraph)
               else source[i % len(source)])
        yield (f"p{i:04d}-{tasks[i % len(tasks)]}", sub, tasks[i % len(tasks)],
               seed * 7919 + i)


def probe_specs(
    source: Hypergraph | Sequence[Hypergraph], n: int, seed: int = 0,
    tasks: Sequence[str] = DEFAULT_TASKS, size: tuple[int, int] = (12, 30),
) -> list[ProbeSpec]:
    """``n`` probe specs, tasks taken in turn, each on its own sample of ``source`` (one
    hypergraph to sample from, or a list of hypergraphs used in turn, whole)."""
    return list(iter_probe_specs(source, n, seed, tasks, size))


class SpecStream:
    """Lazily drawn probe specs, kept once drawn: every pass (one per layout pair or grid
    point) sees the same specs, and none is drawn before a pass needs it.

    >>> from hyperviz_core.testing import random_hypergraph
    >>> s = SpecStream(random_hypergraph(40, 20, seed=1), 3)
    >>> [x[0] for x in s] == [x[0] for x in s], len(s.drawn)
    (True, 3)
    """

    def __init__(self, source: Hypergraph | Sequence[Hypergraph], n: int, seed: int = 0,
                 tasks: Sequence[str] = DEFAULT_TASKS) -> None:
        self._it = iter_probe_specs(source, n, seed, tasks)
        self.drawn: list[ProbeSpec] = []

    def __iter__(self) -> Iterator[ProbeSpec]:
        i = 0
        while True:
            if i == len(self.drawn):
                nxt = next(self._it, None)
                if nxt is None:
                    return
                self.drawn.append(nxt)
            yield self.drawn[i]
            i += 1


def render_probe(
    spec: ProbeSpec, layouts: Sequence[str], viz: HyperViz | None = None,
    renderings: dict[str, Rendering] | None = None, prefer: Preference | None = None,
) -> tuple[Rendering, Probe] | None:
    """Render a spec and ask its question about what is drawn (None: no instance).
    ``renderings``, when given, keeps the drawings of recent samples by content (one
    :class:`HyperViz`): a sample drawn again (a small source is drawn whole every time) is
    not rendered again. ``prefer`` picks among the drawing's candidate questions
    (:func:`~hyperviz_core.probe.tasks.make_question`)."""
    pid, sub, task, qseed = spec
    key = ""
    if renderings is not None:
        key = hashlib.sha256(json.dumps(sub.to_hif(), sort_keys=True, default=str)
                             .encode()).hexdigest()
    rendering = renderings.get(key) if renderings is not None else None
    if rendering is None:
        rendering = (viz or HyperViz()).render(sub, layouts=list(layouts))
        if renderings is not None:
            if len(renderings) >= _KEPT_RENDERINGS:
                del renderings[next(iter(renderings))]
            renderings[key] = rendering
    q = make_question(rendering.export(), task, random.Random(qseed), prefer)
    if q is None:
        return None
    text, named, answer = q
    probe = Probe(id=pid, task=task, image=f"{pid}.png", export=f"{pid}.json", question=text,
                  hyperedges=named, answer=answer, layouts=list(layouts))
    return rendering, probe


def probe_key(rendering: Rendering, probe: Probe) -> tuple[str, str, str, tuple[str, ...]]:
    """What makes two probes the same for a model: task, image (SHA-256 of the PNG),
    question and expected answer. A source small enough to be drawn whole gives every sample
    the same image, and its bridge question has no random part, so repeats are common there;
    :func:`make_probes` and :func:`~hyperviz_core.probe.score.run_specs` keep the first."""
    return (probe.task, hashlib.sha256(rendering.png).hexdigest(), probe.question,
            tuple(probe.answer))


def distinct_probes(
    specs: Iterable[ProbeSpec], layouts: Sequence[str], viz: HyperViz | None = None,
    tally: MutableMapping[str, int] | None = None, balance: AnswerBalance | None = None,
) -> Iterator[tuple[ProbeSpec, Rendering, Probe]]:
    """Render ``specs`` in turn and yield each new probe, leaving out a sample with no
    instance of its task and a repeat of an earlier probe (:func:`probe_key`); stops after
    :data:`STALE_LIMIT` such samples in a row. ``tally`` counts ``samples``,
    ``no_instance`` and ``duplicates``, and gets ``stopped`` = 1 when the limit stopped it.

    ``balance``, when given, also leaves out a probe whose expected answer is at its cap
    (counted as ``balance``, a sample without a new probe), picks each drawing's question
    by :meth:`~hyperviz_core.probe.balance.AnswerBalance.preference`, passes over (renders
    nothing for, counts nothing for) a spec whose task has its quota, and stops once every
    task has."""
    count = tally if tally is not None else {}
    for name in ("samples", "no_instance", "duplicates", *(("balance",) if balance else ())):
        count.setdefault(name, 0)
    seen: set[tuple[str, str, str, tuple[str, ...]]] = set()
    renderings: dict[str, Rendering] = {}
    stale = 0
    for spec in specs:
        if balance is not None and balance.done():
            return
        if stale >= STALE_LIMIT:
            count["stopped"] = 1
            return
        if balance is not None and balance.full(spec[2]):
            continue
        count["samples"] += 1
        made = render_probe(spec, layouts, viz, renderings,
                            balance.preference(spec[2]) if balance is not None else None)
        key = probe_key(*made) if made is not None else None
        why = ("no_instance" if made is None else "duplicates" if key in seen
               else "balance" if balance is not None and not balance.allows(
                   spec[2], made[1].answer) else "")
        if why:
            count[why] += 1
            stale += 1
            continue
        assert made is not None and key is not None
        seen.add(key)
        if balance is not None:
            balance.add(spec[2], made[1].question, made[1].answer)
        stale = 0
        yield spec, made[0], made[1]


def _bar(items: Iterable[Any], on: bool, desc: str, total: int) -> Any:
    if not on:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="probe", total=total)


def make_probes(
    source: Hypergraph | Sequence[Hypergraph], n: int, out_dir: str | Path, *,
    layouts: Sequence[str] = DEFAULT_PAIR, seed: int = 0, viz: HyperViz | None = None,
    size: tuple[int, int] = (12, 30), progress: bool = True,
    tasks: Sequence[str] = DEFAULT_TASKS, counts: MutableMapping[str, int] | None = None,
    balance: bool = True,
) -> list[Probe]:
    """Write up to ``n`` distinct probes (PNG + export JSON each, and ``probes.jsonl``) into
    ``out_dir``, with balanced expected answers (:mod:`~hyperviz_core.probe.balance`: at
    most ``ceil(quota / 4)`` probes of a task share one expected answer; sampling goes on
    past ``n`` samples, up to ``10 n``, for the tasks still short of probes). ``balance``
    False: from ``n`` samples, each asking the question its seed draws (the probes made
    before balancing, exactly).

    A sample without an instance of its task (no overlapping pair, no hyperedge, no
    lexically similar unconnected distractor) is skipped, and so is a probe identical to an
    earlier one (:func:`probe_key`: same task, image, question and answer — a source of at
    most ``size[1]`` entities is drawn whole for every sample), so fewer than ``n`` probes
    can come back; sampling stops after :data:`STALE_LIMIT` such samples in a row.
    ``counts``, when given, receives ``samples``, ``no_instance`` and ``duplicates``
    (balanced: and ``balance``, the samples whose answer was at its cap), and ``stopped`` = 1
    when that limit stopped the sampling. ``tasks`` are taken in turn (default:
    overlap-core, bridge-hyperedge; see :data:`~hyperviz_core.probe.tasks.TASKS` for all,
    e.g. ``["disambiguation"]``).
    """
    specs = iter_probe_specs(source, n, seed, tasks, size=size)  # checked before out_dir
    if balance:  # the first n specs are the ones drawn without balancing
        specs = iter_probe_specs(source, n * BALANCE_DRAWS, seed, tasks, size=size)
    for name in layouts:
        get_layout(name)  # an unknown layout: ValueError naming the available ones
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out_dir} exists and is not a folder (probes go into a folder)")
    out.mkdir(parents=True, exist_ok=True)
    probes: list[Probe] = []
    tally: dict[str, int] = {}
    made = distinct_probes(specs, layouts, viz, tally,
                           AnswerBalance(n, tasks) if balance else None)
    for _, rendering, probe in _bar(made, progress, "probes", n):
        rendering.save(out / probe.image)
        probes.append(probe)
    write_jsonl(out / "probes.jsonl", probes)
    if counts is not None:
        counts.update(tally)
    return probes
