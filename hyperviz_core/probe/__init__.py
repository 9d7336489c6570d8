"""Structural probes (paper Fig. 2b), the disambiguation probe (Table 3), probe-driven
dual-view selection (§3.2(2)) and the congestion-control parameter search (App. B.2).

Example:
    >>> import tempfile
    >>> from hyperviz_core.probe import ExportOracleVisionModel, ask_probes, grade, make_probes
    >>> from hyperviz_core.testing import random_hypergraph
    >>> out = tempfile.mkdtemp()
    >>> probes = make_probes(random_hypergraph(50, 25, seed=4), 2, out, progress=False)
    >>> fake = ExportOracleVisionModel.for_probes(probes, out)  # FAKE: reads the exports
    >>> grade(probes, ask_probes(probes, out, fake, progress=False)).overall.accuracy
    1.0
"""

from __future__ import annotations

from .ask import SYSTEM, ask_probes, probe_prompt
from .disambiguation import (
    SIMILARITY_MIN,
    Triple,
    disambiguation_question,
    disambiguation_triples,
    name_similarity,
    parse_disambiguation,
    solve_disambiguation,
)
from .fake import FAKE_LABEL, ExportOracleVisionModel, fake_model
from .grade import best_constant_answers, f1, grade, parse_ids
from .make import DEFAULT_PAIR, STALE_LIMIT, make_probes, probe_specs, render_probe
from .sample import sample_subgraph, sample_subgraphs
from .score import readability_score
from .search import DEFAULT_GRID, TuneResult, TuneRow, parse_grid, tune
from .select import (
    DualViewChoice,
    PairScore,
    ViewSettings,
    load_view_settings,
    save_view_settings,
    select_dual_view,
    settings_path,
)
from .tasks import DEFAULT_TASKS, TASKS, bridges, make_question, overlap_core, top_betweenness
from .types import GradeReport, Probe, ProbeAnswer, TaskScore, read_jsonl, write_jsonl

__all__ = [
    "DEFAULT_GRID",
    "DEFAULT_PAIR",
    "DEFAULT_TASKS",
    "FAKE_LABEL",
    "SIMILARITY_MIN",
    "STALE_LIMIT",
    "SYSTEM",
    "TASKS",
    "DualViewChoice",
    "ExportOracleVisionModel",
    "GradeReport",
    "PairScore",
    "Probe",
    "ProbeAnswer",
    "TaskScore",
    "Triple",
    "TuneResult",
    "TuneRow",
    "ViewSettings",
    "ask_probes",
    "best_constant_answers",
    "bridges",
    "disambiguation_question",
    "disambiguation_triples",
    "f1",
    "fake_model",
    "grade",
    "load_view_settings",
    "make_probes",
    "make_question",
    "name_similarity",
    "overlap_core",
    "parse_disambiguation",
    "parse_grid",
    "parse_ids",
    "probe_prompt",
    "probe_specs",
    "read_jsonl",
    "readability_score",
    "render_probe",
    "sample_subgraph",
    "sample_subgraphs",
    "save_view_settings",
    "select_dual_view",
    "settings_path",
    "solve_disambiguation",
    "top_betweenness",
    "tune",
    "write_jsonl",
]
