"""Scoring drawings without a model (readability) and probe runs with one (accuracy).

:func:`readability_score` turns the metrics of a rendering into one number in [0, 1]
(higher is better), used when no vision model is given:

    score = purity_disk · 0.5^(hard errors) · (1 − unnamed / nodes)
            · 1 / (1 + crossings / incidence edges) · (0.75 + 0.25·canvas utilisation)

with *hard errors* = label–label + label–node collisions + ambiguous labels + node
overlaps + unbridged splits + clipped labels.

Example:
    >>> readability_score({"purity_disk": 1.0, "nodes": 10, "canvas_utilisation": 1.0})
    1.0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..render import HyperViz
from .ask import ask_probes_inline
from .grade import grade
from .make import ProbeSpec, distinct_probes
from .types import GradeReport, Probe

__all__ = ["HARD_ERRORS", "readability_score", "run_specs"]

HARD_ERRORS = ("label_label_collisions", "label_node_collisions", "ambiguous_labels",
               "node_overlaps", "unbridged_splits", "labels_clipped")


def readability_score(m: Mapping[str, float | int]) -> float:
    """One readability number in [0, 1] from :func:`~hyperviz_core.metrics.compute_metrics`."""
    def g(name: str, default: float = 0.0) -> float:
        return float(m.get(name, default))

    hard = sum(g(k) for k in HARD_ERRORS)
    nodes = max(g("nodes"), 1.0)
    edges = max(g("incidence_edges"), 1.0)
    score = (g("purity_disk", 1.0) * 0.5**hard * (1.0 - min(g("unnamed_entities") / nodes, 1.0))
             / (1.0 + g("incidence_crossings") / edges)
             * (0.75 + 0.25 * min(max(g("canvas_utilisation"), 0.0), 1.0)))
    return round(max(score, 0.0), 6)


def run_specs(
    specs: Iterable[ProbeSpec], layouts: Sequence[str], viz: HyperViz, vlm: Any | None,
) -> dict[str, Any]:
    """Render every spec with ``layouts``; grade ``vlm``'s answers (if given) and average
    readability and coverage (drawn ÷ given entities) over the renderings. A probe identical
    to an earlier one (:func:`~hyperviz_core.probe.make.probe_key`) is left out, and the
    specs stop being drawn after :data:`~hyperviz_core.probe.make.STALE_LIMIT` samples in a
    row without a new probe: ``probes`` counts distinct probes. ``errors`` counts failed
    model calls (not graded), ``error`` is the first one's message."""
    probes: list[Probe] = []
    images: dict[str, tuple[bytes, dict[str, Any]]] = {}
    read, cover = [], []
    for spec, rendering, probe in distinct_probes(specs, layouts, viz):
        probes.append(probe)
        images[probe.id] = (rendering.png, rendering.export())
        read.append(readability_score(rendering.metrics))
        cover.append(len(rendering.id_map.entities) / max(len(spec[1].entities), 1))
    report: GradeReport | None = None
    if vlm is not None and probes:
        if hasattr(vlm, "register"):  # the FAKE export oracle needs the exports
            for png, export in images.values():
                vlm.register(png, export)
        report = grade(probes, ask_probes_inline(probes, images, vlm))
    n = max(len(probes), 1)
    return {"probes": len(probes), "readability": round(sum(read) / n, 4),
            "coverage": round(sum(cover) / n, 4),
            "accuracy": report.overall.accuracy if report else None,
            "partial": report.overall.partial if report else None,
            "errors": report.overall.errors if report else 0,
            "error": report.first_error if report else ""}
