"""VizRAG in a LangChain LCEL chain: retriever → HyperViz image → multimodal model → answer.

Offline by default: the store is built from the bundled MuSiQue passages with the offline
defaults, and the chat model is LangChain's ``GenericFakeChatModel`` (a canned answer,
labelled as such) — what the run shows is the message a real model would receive: the
question, the numbered passages, the caption and the rendered sub-hypergraph::

    python examples/langchain_lcel.py --out out/langchain

The one-line switch to a real multimodal model (needs a key / a running Ollama)::

    python examples/langchain_lcel.py --llm openai          # ChatOpenAI(model="gpt-4o-mini")
    python examples/langchain_lcel.py --llm ollama --model llava   # ChatOllama (vision model)

Data: ``hyperviz_core/data/demo`` (MuSiQue, CC BY 4.0; subset selection from HippoRAG, MIT).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any
from uuid import UUID

from hyperviz_core.demo import demo_passages
from hyperviz_core.extras import exit_without_extra
from hyperviz_core.rag import Document, VizRAG

exit_without_extra("langchain_core", extra="langchain", who=Path(__file__).name)

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage  # noqa: E402

from vizrag_langchain import VizRAGRetriever, create_vizrag_chain  # noqa: E402

FAKE_ANSWER = "(fake model, canned answer) Iron Maiden formed in Leyton, East London [1]."


def build_store(store: Path) -> None:
    """Index the bundled passages into ``store`` (identical re-runs are no-ops)."""
    docs = [Document(id=f"musique-{p.musique_corpus_idx}", title=p.title, text=p.text)
            for p in demo_passages()]
    with VizRAG(store, show_progress=False) as rag:
        rag.insert(docs)


def make_llm(kind: str, model: str | None) -> Any:
    """The chat model: the offline fake, or the one-line switch to a real provider."""
    if kind == "openai":
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(model=model or "gpt-4o-mini")
    if kind == "ollama":
        from langchain_ollama import ChatOllama  # pip install langchain-ollama

        return ChatOllama(model=model or "llava")
    return GenericFakeChatModel(messages=iter([AIMessage(FAKE_ANSWER)]))


class ShowMessage(BaseCallbackHandler):
    """Keeps the message the chat model received (to print it and save the image).

    That is the output of the chain's ``vizrag_message`` step, as it goes to the model:
    the copy ``on_chat_model_start`` gets is converted for tracing (an ``image`` block
    shows there as ``image_url``). A chain without that step: the traced copy."""

    def __init__(self) -> None:
        self.message: BaseMessage | None = None
        self.events: list[str] = []
        self._step: UUID | None = None  # the run of the vizrag_message step

    def on_chain_start(self, serialized: dict[str, Any], inputs: Any, *, run_id: UUID,
                       **kwargs: Any) -> None:
        if kwargs.get("name") == "vizrag_message":
            self._step = run_id

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if run_id == self._step and isinstance(outputs, list) and outputs:
            self.message = outputs[-1]

    def on_chat_model_start(self, serialized: dict[str, Any],
                            messages: list[list[BaseMessage]], *, run_id: UUID,
                            **kwargs: Any) -> None:
        if self._step is None:
            self.message = messages[0][-1]

    def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.events.append(f"{name} {json.dumps(data, sort_keys=True)[:100]}")


def report(seen: ShowMessage, out: Path) -> None:
    """Print what the model received; write the image it got."""
    assert seen.message is not None and isinstance(seen.message.content, list)
    for part in seen.message.content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            print("--- text sent to the model ---\n" + str(part["text"])[:1200])
        elif part.get("type") in ("image", "image_url"):
            data = (part.get("base64") if part["type"] == "image"
                    else str(part["image_url"]["url"]).split(",", 1)[1])
            png = base64.b64decode(str(data))
            (out / "image.png").write_bytes(png)
            print(f"--- image sent to the model: {part['type']} block, {len(png)} bytes PNG "
                  f"-> {out / 'image.png'}")
    print("--- engine/runnable events ---\n" + "\n".join(seen.events))


async def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    build_store(out / "store")
    retriever = VizRAGRetriever(store=str(out / "store"), k=args.k)
    chain = create_vizrag_chain(retriever, make_llm(args.llm, args.model),
                                image_format=args.image_format)
    seen = ShowMessage()
    print(f"Question: {args.question}\nAnswer: ", end="", flush=True)
    async for piece in chain.astream(args.question, config={"callbacks": [seen]}):
        print(piece, end="", flush=True)
    print()
    report(seen, out)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="out/langchain", help="output directory")
    parser.add_argument("--question",
                        default="Where did the band form that made the live album Maiden Japan?")
    parser.add_argument("--k", type=int, default=3, help="passages retrieved")
    parser.add_argument("--llm", choices=("fake", "openai", "ollama"), default="fake")
    parser.add_argument("--model", default=None, help="model name for --llm openai/ollama")
    parser.add_argument("--image-format", choices=("image", "image_url"), default="image_url",
                        help="image_url keeps detail=high (needed for OpenAI)")
    args = parser.parse_args(argv)
    if args.k < 1:
        parser.error("--k must be at least 1")
    needs = {"openai": ("langchain_openai", "langchain-openai"),
             "ollama": ("langchain_ollama", "langchain-ollama")}.get(args.llm)
    if needs and importlib.util.find_spec(needs[0]) is None:  # fail before any work
        parser.error(f"--llm {args.llm} needs `pip install {needs[1]}`")
    if args.llm == "openai" and not os.environ.get("OPENAI_API_KEY"):
        parser.error("--llm openai needs OPENAI_API_KEY in the environment")
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
