"""The CLI holds back log lines its output says itself, matching them by their format
string as well as their text."""

from __future__ import annotations

import pytest


def test_the_reports_own_lines_are_held_back_by_their_format(
        caplog: pytest.LogCaptureFixture) -> None:
    """``vizrag index`` holds back a document's failure log line (its report says it): the
    filter matches the line's format string, "indexing %s failed", as well as its text (a
    change that matched the text alone let every failure be said twice)."""
    import logging

    from hyperviz_core.cli.index_output import quiet_document_failures, said_later

    log = logging.getLogger("hyperviz_core.rag.index.failures")
    with caplog.at_level("WARNING"), quiet_document_failures():
        log.warning("indexing %s failed: %s: %s", "doc16", "BrokenProcessPool", "gone")
    assert caplog.records == []
    with caplog.at_level("WARNING"), said_later(("hyperviz_core.rag.answer",
                                                 "the answer cites ")) as held:
        logging.getLogger("hyperviz_core.rag.answer").warning("%s", "the answer cites [9], ...")
    assert held == ["the answer cites [9], ..."] and caplog.records == []
