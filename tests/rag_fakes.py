"""Shared fakes for the retrieval/engine/CLI tests: a recording chat model and a tiny corpus."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

from hyperviz_core.rag.types import Document

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DEMO_DATA = Path(__file__).resolve().parents[1] / "hyperviz_core" / "data" / "demo"
_CAPS = re.compile(r"\b[A-Z][\w'-]+(?: [A-Z][\w'-]+)*")
_EID = re.compile(r"\bE\d+\b")


def demo_documents(first: int = 0, last: int = 20) -> list[Document]:
    """Passages ``first..last`` of the bundled demo corpus (MuSiQue, CC BY 4.0)."""
    items = json.loads((DEMO_DATA / "musique_demo_passages.json").read_text(encoding="utf-8"))
    return [Document(id=f"m{p['musique_corpus_idx']}", title=p["title"], text=p["text"])
            for p in items[first:last]]


def store_with(folder: Path, docs: Sequence[Document]) -> Path:
    """``folder`` made a store holding ``docs`` (offline defaults, no progress bar)."""
    from hyperviz_core.rag import VizRAG

    with VizRAG(folder, show_progress=False) as rag:
        rag.insert(list(docs))
    return folder


def fresh_copy(store: Path, tmp_path: Path) -> Path:
    """A copy of the store folder ``store`` under ``tmp_path`` (a test may damage it)."""
    import shutil

    return Path(shutil.copytree(store, tmp_path / "store"))


class ParrotChat:
    """A chat/vision model that answers from its prompt and records every call.

    - keyword prompts → the capitalised spans of the question as a JSON list;
    - locate prompts → ``locate_answer`` if set, else the first two ``E#`` of the listing;
    - answer prompts → a sentence quoting the first ``E#`` of the prompt.
    """

    model_name = "parrot-vision-1"

    def __init__(self, locate_answer: str | None = None, fail_stage: str | None = None,
                 streaming: bool = True) -> None:
        self.calls: list[dict[str, Any]] = []
        self.locate_answer = locate_answer
        self.fail_stage = fail_stage
        if not streaming:
            self.stream = None  # type: ignore[assignment]
            self.astream = None  # type: ignore[assignment]

    @staticmethod
    def stage(prompt: str) -> str:
        if "search keywords" in prompt:
            return "keywords"
        if "best starting points" in prompt:
            return "locate"
        if "Answer the question" in prompt:
            return "answer"
        return "other"

    def _answer(self, prompt: str, images: Sequence[bytes], system: str | None) -> str:
        stage = self.stage(prompt)
        self.calls.append({"stage": stage, "prompt": prompt, "images": list(images),
                           "system": system})
        if stage == self.fail_stage:
            raise RuntimeError(f"provider down during {stage}")
        if stage == "keywords":
            question = prompt.split("Question:", 1)[-1]
            return json.dumps(list(dict.fromkeys(_CAPS.findall(question))))
        if stage == "locate":
            if self.locate_answer is not None:
                return self.locate_answer
            listing = prompt.split("Themes and entities shown:", 1)[-1]
            ids = list(dict.fromkeys(_EID.findall(listing)))[:2]
            return json.dumps({"entities": ids})
        ids = _EID.findall(prompt.split("Entities:", 1)[-1])
        return f"Parrot answer citing {ids[0] if ids else 'nothing'} [1]."

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return self._answer(prompt, images, system)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        return self._answer(prompt, images, system)

    def stream(self, prompt: str, *, images: Sequence[bytes] = (),
               system: str | None = None) -> Iterator[str]:
        text = self._answer(prompt, images, system)
        for word in text.split(" "):
            yield word + " "

    async def astream(self, prompt: str, *, images: Sequence[bytes] = (),
                      system: str | None = None) -> AsyncIterator[str]:
        text = self._answer(prompt, images, system)
        for word in text.split(" "):
            yield word + " "

    def by_stage(self, stage: str) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["stage"] == stage]
