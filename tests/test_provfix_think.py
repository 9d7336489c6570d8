"""A reasoning model whose chat template opens ``<think>`` in the prompt (DeepSeek-R1, QwQ
served by vLLM/Ollama without a reasoning parser) replies with its reasoning, then an
unpaired ``</think>``: that reasoning never reaches stored themes, hyperedges or answers,
whole or streamed. Offline."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.answer import ThinkFilter
from hyperviz_core.rag.extract.parse.fields import answer_text

THOUGHT = 'Hmm, draft {"theme": "SECRET-THOUGHT", "entities": [{"name": "SECRET-THOUGHT"}]}'


@pytest.mark.parametrize(("reply", "kept"), [
    (f"{THOUGHT}</think>\n\nAda wrote [1].", "\n\nAda wrote [1]."),
    (f"{THOUGHT}</THINK>  \nAda", "  \nAda"),
    # a tag quoted inside a sentence (not ending its line) is text, not reasoning's end
    ("DeepSeek-R1 closes its reasoning with the </think> tag [1].",
     "DeepSeek-R1 closes its reasoning with the </think> tag [1]."),
    (f"{THOUGHT}</THINK>Ada", f"{THOUGHT}</THINK>Ada"),
    ("<think>plan</think>Ada</think> x", "Ada</think> x"),  # paired: as before
    ("Ada <think>plan</think> wrote", "Ada  wrote"),
    ("Ada wrote [1].", "Ada wrote [1]."),
    ("Ada <think>unclosed", "Ada "),
])
def test_answer_text_drops_reasoning_before_an_unpaired_leading_close(reply: str,
                                                                      kept: str) -> None:
    assert answer_text(reply) == kept


def _shown(pieces: Sequence[str], hold: int | None = None) -> list[str]:
    f = ThinkFilter() if hold is None else ThinkFilter(hold=hold)
    return [f.feed(p) for p in pieces] + [f.flush()]


def test_think_filter_drops_reasoning_before_an_unpaired_close() -> None:
    assert "".join(_shown(["Hmm, SECRET", "-THOUGHT</th", "ink>\n", "Ada ", "wrote"],
                          hold=100)) == "\nAda wrote"
    assert _shown(["SECRET</think>", "Ada ", "wrote"], hold=100) == ["", "Ada ", "wrote", ""]


@pytest.mark.parametrize("hold", [None, 0, 100])
def test_think_filter_paired_blocks_and_plain_answers(hold: int | None) -> None:
    assert _shown(["<think>plan</think>", "Ada ", "wrote"], hold)[1:] == ["Ada ", "wrote", ""]
    assert "".join(_shown(["Ada ", "wrote [1]."], hold)) == "Ada wrote [1]."  # all of it
    assert "".join(_shown(["Ada <thi", "nk>x</think> wrote"], hold)) == "Ada  wrote"
    assert "".join(_shown(["<think>a</think>b", "</think>c"], hold)) == "b</think>c"


def test_think_filter_hold_window() -> None:
    assert _shown(["Ada ", "wrote"]) == ["Ada ", "wrote", ""]  # default: shown at once
    assert _shown(["abc", "def", "gh"], hold=5) == ["", "abcdef", "gh", ""]


class R1:
    """Replies like DeepSeek-R1 behind a template that opened ``<think>``."""

    model_name = "r1-stub"

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        thought = THOUGHT + "</think>\n\n"
        if "Extract the knowledge" in prompt:
            return thought + json.dumps({
                "entities": [{"name": "Ada Lovelace", "type": "person", "description": "d"},
                             {"name": "Analytical Engine", "type": "work", "description": "d"}],
                "hyperedges": [{"members": ["Ada Lovelace", "Analytical Engine"],
                                "description": "Ada wrote about the Engine", "keywords": ["k"],
                                "strength": 8}]})
        if "describe its theme" in prompt:
            return thought + json.dumps({"theme": "Ada and the Engine",
                                         "keywords": ["computing"],
                                         "key_entities": ["Ada Lovelace"]})
        if "Answer the question" in prompt:
            return "The user asks about Ada. SECRET-THOUGHT</think>\n\nAda wrote about it [1]."
        return thought + '{"entities": ["E1"]}'

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        return self.complete(prompt, images=images, system=system, json_mode=json_mode)


class StreamingR1(R1):
    def stream(self, prompt: str, *, images: Sequence[bytes] = (),
               system: str | None = None) -> Iterator[str]:
        yield from ["The user asks", " about Ada. SECRET-", "THOUGHT</thi", "nk>\n\nAda ",
                    "wrote about it [1]."]


def test_reasoning_never_reaches_the_store_or_the_answer(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(ThinkFilter, "HOLD", 4096)  # a model streaming through its own code
    rag = VizRAG(str(tmp_path / "s"), chat=StreamingR1(), show_progress=False)
    rag.insert([Document(id="a", text="Ada Lovelace wrote notes on the Analytical Engine.")])
    answer = rag.query("What did Ada Lovelace write about?").answer
    streamed = "".join(rag.stream("What did Ada Lovelace write about?"))
    rag.close()
    assert answer == "Ada wrote about it [1]."
    assert streamed.strip() == "Ada wrote about it [1]."
    db = sqlite3.connect(tmp_path / "s" / "vizrag.sqlite")
    try:
        tables = [t for (t,) in db.execute("select name from sqlite_master where type='table'")
                  if t != "llm_cache"]  # the raw replies, as the model sent them
        stored = "\n".join(str(row) for t in tables for row in db.execute(f"select * from {t}"))
    finally:
        db.close()
    assert "Ada and the Engine" in stored and "Ada wrote about the Engine" in stored
    assert "SECRET-THOUGHT" not in stored
