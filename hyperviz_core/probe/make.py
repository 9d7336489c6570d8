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
import random
from collections.abc import MutableMapping, Sequence
from pathlib import Path
from typing import Any

from ..layouts.base import get_layout
from ..model import Hypergraph
from ..render import HyperViz, Rendering
from .sample import sample_subgraphs
from .tasks import DEFAULT_TASKS, TASKS, make_question
from .types import Probe, write_jsonl

__all__ = ["DEFAULT_PAIR", "ProbeSpec", "make_probes", "probe_key", "probe_specs",
           "render_probe"]

DEFAULT_PAIR: tuple[str, str] = ("set-force", "bi-inc")

ProbeSpec = tuple[str, Hypergraph, str, int]
"""(probe id, sub-hypergraph, task, question seed)."""


def probe_specs(
    source: Hypergraph | Sequence[Hypergraph], n: int, seed: int = 0,
    tasks: Sequence[str] = DEFAULT_TASKS, size: tuple[int, int] = (12, 30),
) -> list[ProbeSpec]:
    """``n`` probe specs, tasks taken in turn, each on its own sample of ``source`` (one
    hypergraph to sample from, or a list of hypergraphs used in turn, whole)."""
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
    if isinstance(source, Hypergraph):
        subs = sample_subgraphs(source, n, seed, (size[0], size[1]))
    else:
        subs = [source[i % len(source)] for i in range(n)]
    return [(f"p{i:04d}-{tasks[i % len(tasks)]}", subs[i], tasks[i % len(tasks)],
             seed * 7919 + i) for i in range(n)]


def render_probe(
    spec: ProbeSpec, layouts: Sequence[str], viz: HyperViz | None = None,
) -> tuple[Rendering, Probe] | None:
    """Render a spec and ask its question about what is drawn (None: no instance)."""
    pid, sub, task, qseed = spec
    rendering = (viz or HyperViz()).render(sub, layouts=list(layouts))
    q = make_question(rendering.export(), task, random.Random(qseed))
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


def _bar(items: Sequence[Any], on: bool, desc: str) -> Any:
    if not on:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="probe")


def make_probes(
    source: Hypergraph | Sequence[Hypergraph], n: int, out_dir: str | Path, *,
    layouts: Sequence[str] = DEFAULT_PAIR, seed: int = 0, viz: HyperViz | None = None,
    size: tuple[int, int] = (12, 30), progress: bool = True,
    tasks: Sequence[str] = DEFAULT_TASKS, counts: MutableMapping[str, int] | None = None,
) -> list[Probe]:
    """Write up to ``n`` distinct probes (PNG + export JSON each, and ``probes.jsonl``) into
    ``out_dir``, from ``n`` samples.

    A sample without an instance of its task (no overlapping pair, no hyperedge, no
    lexically similar unconnected distractor) is skipped, and so is a probe identical to an
    earlier one (:func:`probe_key`: same task, image, question and answer — a source of at
    most ``size[1]`` entities is drawn whole for every sample), so fewer than ``n`` probes
    can come back. ``counts``, when given, receives ``samples``, ``no_instance`` and
    ``duplicates``. ``tasks`` are taken in turn (default: overlap-core, bridge-hyperedge;
    see :data:`~hyperviz_core.probe.tasks.TASKS` for all, e.g. ``["disambiguation"]``).
    """
    specs = probe_specs(source, n, seed, tasks, size=size)  # checked before out_dir is made
    for name in layouts:
        get_layout(name)  # an unknown layout: ValueError naming the available ones
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out_dir} exists and is not a folder (probes go into a folder)")
    out.mkdir(parents=True, exist_ok=True)
    probes: list[Probe] = []
    seen: set[tuple[str, str, str, tuple[str, ...]]] = set()
    tally = {"samples": 0, "no_instance": 0, "duplicates": 0}
    for spec in _bar(specs, progress, "probes"):
        tally["samples"] += 1
        made = render_probe(spec, layouts, viz)
        if made is None:
            tally["no_instance"] += 1
            continue
        rendering, probe = made
        key = probe_key(rendering, probe)
        if key in seen:
            tally["duplicates"] += 1
            continue
        seen.add(key)
        rendering.save(out / probe.image)
        probes.append(probe)
    write_jsonl(out / "probes.jsonl", probes)
    if counts is not None:
        counts.update(tally)
    return probes
