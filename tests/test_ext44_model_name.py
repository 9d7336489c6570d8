"""A chat model without ``model_name`` is named by its class, with a warning once per class."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

import pytest

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.providers.protocols import with_async
from hyperviz_core.rag.types import Document

LOGGER = "hyperviz_core.rag.providers"


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and "has no model_name" in r.getMessage()]


def test_class_named_chat_model_warns_once_per_class(caplog: pytest.LogCaptureFixture) -> None:
    class Backend:
        def __init__(self, model: str) -> None:
            self.model = model

        def complete(self, prompt: str, **kw: object) -> str:
            return self.model

    class Other(Backend):
        pass

    with caplog.at_level(logging.WARNING, logger=LOGGER):
        a, b = with_async(Backend("model-A")), with_async(Backend("model-B"))
        assert a.model_name == b.model_name == "Backend"  # cache keys unchanged
        assert with_async(Other("x")).model_name == "Other"
    found = _warnings(caplog)
    assert len(found) == 2, found
    assert "Backend" in found[0] and "cache" in found[0] and "set model_name" in found[0]
    assert "Other" in found[1]


def test_named_chat_model_does_not_warn(caplog: pytest.LogCaptureFixture) -> None:
    class Named:
        model_name = "mine:model-a"

        def complete(self, prompt: str, **kw: object) -> str:
            return prompt

    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert with_async(Named()).model_name == "mine:model-a"
    assert _warnings(caplog) == []


class _MyChat:  # no model_name
    def __init__(self, backend: str) -> None:
        self.backend = backend

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return json.dumps({"entities": [{"name": f"From {self.backend}", "type": "t"},
                                        {"name": "Radium", "type": "t"}],
                           "hyperedges": [{"members": [f"From {self.backend}", "Radium"],
                                           "description": "x"}]})


def test_engine_warns_when_a_chat_model_is_named_by_its_class(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        rag = VizRAG(tmp_path / "st", chat=_MyChat("model-A"), show_progress=False)
        rag.insert([Document(id="a", text="Marie Curie discovered radium.")])
        rag.close()
    found = _warnings(caplog)
    assert len(found) == 1 and "_MyChat" in found[0], found
