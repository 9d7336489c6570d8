"""A document a cancelled run cut off is not a failed document: what it raises once the run
is halted (a worker SIGTERM killed: ``BrokenProcessPool``) is neither counted nor said."""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool

import pytest

from hyperviz_core.rag import Document
from hyperviz_core.rag.index.failures import RunFailures
from hyperviz_core.rag.index.replace import SourceLedger
from hyperviz_core.rag.index.report import IndexReport


def test_failures_after_the_run_halted_are_not_reported(
        caplog: pytest.LogCaptureFixture) -> None:
    report = IndexReport()
    failures = RunFailures(report, SourceLedger(), "store")
    with caplog.at_level("WARNING"):
        failures.failure(Document(id="a", text="x"), ValueError("bad input"))
        failures.halted = True
        failures.failure(Document(id="b", text="y"), BrokenProcessPool("gone"))
    assert report.documents_failed == 1 and report.errors == ["a: ValueError: bad input"]
    assert [r.getMessage() for r in caplog.records] == ["indexing a failed: ValueError: bad input"]
