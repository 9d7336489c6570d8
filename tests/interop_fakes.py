"""Shared helpers of the Hyper-RAG interop tests: the fixture copy and a replaying fake."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

from hyperviz_core.prune import Budget
from hyperviz_core.render import HyperViz

#: A real Hyper-RAG working dir (see data/hyperrag/README.md for provenance and licence).
HYPERRAG_DIR = Path(__file__).parent / "data" / "hyperrag"


def fixture_copy(dst: Path) -> Path:
    """A writable copy of the fixture working dir (without ``queries.json``)."""
    out = dst / "workdir"
    shutil.copytree(HYPERRAG_DIR, out, ignore=shutil.ignore_patterns("queries.json", "*.md"))
    for f in out.iterdir():
        f.chmod(0o644)
    return out


def queries() -> list[dict[str, Any]]:
    """The fixture's recorded ``query(..., QueryParam(mode="hyper", return_type="json"))``s."""
    data: list[dict[str, Any]] = json.loads((HYPERRAG_DIR / "queries.json").read_text("utf-8"))
    return data


def small_renderer() -> HyperViz:
    """A quick single-view renderer with a tight budget (keeps the tests fast)."""
    return HyperViz(layouts=("bi-inc",), budget=Budget(max_entities=12, max_hyperedges=8))


class ReplayHyperRAG:
    """Duck-typed ``HyperRAG``: ``aquery`` replays the fixture's recorded JSON results."""

    def __init__(self) -> None:
        self.results = {q["query"]: q["result"] for q in queries()}
        self.calls: list[tuple[str, Any]] = []

    async def aquery(self, query: str, param: Any) -> Any:
        self.calls.append((query, param))
        if getattr(param, "mode", None) != "hyper" or getattr(param, "return_type", None) != "json":
            return "plain text answer"  # what Hyper-RAG returns without return_type="json"
        return copy.deepcopy(self.results[query])
