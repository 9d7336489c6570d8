"""A cancelled query's ``model_call`` error event keeps the ``stage`` and ``images`` of its
start (a tracer sees which stage's call was cut); it had ``error`` alone."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, VizRAG


class SlowChat:
    """A chat model that takes 5 s to answer (``asked`` is set once a call began)."""

    model_name = "slow"

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    def complete(self, prompt: str, **kw: Any) -> str:
        return "[]"

    async def acomplete(self, prompt: str, **kw: Any) -> str:
        self.asked.set()
        await asyncio.sleep(5)
        return "[]"


def test_a_cancelled_model_call_keeps_its_stage(tmp_path: Path) -> None:
    VizRAG(tmp_path / "s", show_progress=False).insert(
        [Document(id="a", text="Marie Curie discovered radium in Paris.")])
    events: list[tuple[str, str, dict[str, Any]]] = []

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        events.append((name, phase, dict(payload)))

    async def run() -> None:
        chat = SlowChat()
        rag = VizRAG(tmp_path / "s", chat=chat, show_progress=False)
        task = asyncio.ensure_future(rag.aquery("Who discovered radium?", hooks=[hook]))
        # cancelled once the model call began (a fixed 0.5 s timeout cut the store's
        # opening instead on a loaded machine)
        await asyncio.wait_for(chat.asked.wait(), 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    errors = [(n, p) for n, ph, p in events if ph == "error"]
    assert errors[0] == ("model_call", {"stage": "keywords", "images": 0,
                                        "error": "CancelledError"})
    assert errors[1] == ("keywords", {"error": "CancelledError"})


def test_a_broken_hook_logs_one_traceback_per_call(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """It logged a full traceback for every event (16 for one offline query)."""
    def broken(name: str, phase: str, payload: dict[str, Any]) -> None:
        raise RuntimeError("tracer down")

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="a", text="Marie Curie discovered radium in Paris.")])
        with caplog.at_level("WARNING", logger="hyperviz_core.rag.hooks"):
            for _ in range(2):
                rag.query("Who discovered radium?", hooks=[broken])
    failures = [r for r in caplog.records if "stage hook" in r.getMessage()]
    # one per call: the retrieval's and the answer's (before: one per event, 16 a query)
    assert len(failures) == 4 and all(r.exc_info for r in failures)
    assert "later failures in this call are logged at debug level" in failures[0].getMessage()
