"""A FAKE vision model for tests and CI: it answers from the export JSON, not the pixels.

:class:`ExportOracleVisionModel` implements the engine's ``ChatModel`` protocol. It never
looks at the image: it finds the export registered for the image bytes (by SHA-256) and
answers the probe question from the drawn structure in it. It exists so the probe harness
(generation → asking → parsing → grading → selection → parameter search) runs end to end
without a real model. Its accuracy says nothing about any real vision model.

``perception="metrics"`` makes it err where a drawing is hard to read, by a deterministic
rule on the export's readability metrics (a *simulation* for exercising selection, also not
a measurement): the chance to miss one ID is
``min(0.9, 0.5·(1 − purity) + 0.05·(label collisions + ambiguous labels + node overlaps)
+ 0.01·unnamed entities + 0.004·incidence crossings + 0.1·unbridged splits)``.

Example:
    >>> m = ExportOracleVisionModel({})
    >>> m.model_name
    'fake-export-oracle (FAKE: answers from the export JSON, not the pixels)'
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from .disambiguation import parse_disambiguation, solve_disambiguation
from .tasks import bridges, edges_of, overlap_core, top_betweenness
from .types import Probe, ProbeAnswer

__all__ = ["FAKE_LABEL", "ExportOracleVisionModel", "fake_model"]

FAKE_LABEL = "FAKE: answers from the export JSON, not the pixels"
_FAKE_MARK = "FAKE:"
"""What every FAKE model of the harness puts in its ``model_name``."""


def fake_model(answers: Iterable[ProbeAnswer]) -> str:
    """The ``model`` of the first answer written by a FAKE model (its name holds
    ``"FAKE:"``), or ``""``: an answers file named after a real model may hold FAKE answers.

    >>> fake_model([ProbeAnswer(id="p", answer=[], model=ExportOracleVisionModel({}).model_name)])
    'fake-export-oracle (FAKE: answers from the export JSON, not the pixels)'
    """
    return next((a.model for a in answers if _FAKE_MARK in a.model), "")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ExportOracleVisionModel:
    """FAKE vision model (``ChatModel`` protocol) answering probe questions from exports."""

    def __init__(self, exports: Mapping[str, Mapping[str, Any]],
                 perception: Literal["exact", "metrics"] = "exact") -> None:
        self.exports = dict(exports)
        self.perception = perception
        self.calls = 0

    @property
    def model_name(self) -> str:
        """Names the fake as such in every table and answers file."""
        suffix = "-noisy" if self.perception == "metrics" else ""
        return f"fake-export-oracle{suffix} ({FAKE_LABEL})"

    def register(self, png: bytes, export: Mapping[str, Any]) -> None:
        """Make the export of ``png`` known."""
        self.exports[_sha(png)] = export

    @classmethod
    def for_probes(cls, probes: Sequence[Probe], base: str | Path,
                   perception: Literal["exact", "metrics"] = "exact"
                   ) -> ExportOracleVisionModel:
        """A fake that knows the exports of ``probes`` (paths relative to ``base``)."""
        root = Path(base)
        model = cls({}, perception)
        for p in probes:
            export = json.loads((root / p.export).read_text(encoding="utf-8"))
            model.register((root / p.image).read_bytes(), export)
        return model

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        """``{"answer": [...]}`` for the question in ``prompt`` about ``images[0]``."""
        self.calls += 1
        if not images or _sha(images[0]) not in self.exports:
            return json.dumps({"answer": []})
        export = self.exports[_sha(images[0])]
        answer = self._solve(prompt, export)
        if self.perception == "metrics" and answer:
            answer = self._perceive(answer, export, _sha(images[0]) + prompt)
        return json.dumps({"answer": answer})

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        """Same as :meth:`complete`."""
        return self.complete(prompt, images=images, system=system, json_mode=json_mode)

    @staticmethod
    def _solve(prompt: str, export: Mapping[str, Any]) -> list[str]:
        edges = edges_of(export)
        if parse_disambiguation(prompt) is not None:
            return solve_disambiguation(edges, prompt)
        if "bridges" in prompt:
            return bridges(edges)
        if "betweenness" in prompt:
            return top_betweenness(edges)
        named = [f"H{int(n)}" for n in re.findall(r"\bH(\d+)\b", prompt)]
        named = [h for h in dict.fromkeys(named) if h in edges]
        if not named:
            return []
        return overlap_core(edges, named, "most" if "at least two" in prompt else "all")

    @staticmethod
    def _perceive(answer: list[str], export: Mapping[str, Any], key: str) -> list[str]:
        m = export.get("metrics") or {}

        def g(name: str, default: float = 0.0) -> float:
            return float(m.get(name, default))

        p = min(0.9, 0.5 * (1.0 - g("purity", 1.0))
                + 0.05 * (g("label_label_collisions") + g("ambiguous_labels")
                          + g("node_overlaps"))
                + 0.01 * g("unnamed_entities") + 0.004 * g("incidence_crossings")
                + 0.1 * g("unbridged_splits"))
        draw = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        return answer[:-1] if draw < p else answer
