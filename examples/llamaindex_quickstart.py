"""VizRAG in LlamaIndex: index, retriever (chunks + hypergraph image), query engine, persist.

Offline by default: the bundled MuSiQue passages are indexed with the offline defaults and
the "multimodal model" is LlamaIndex's ``MockLLMWithChatMemoryOfLastCall`` (a chat model that
echoes its prompt) — what the run shows is the message a real model receives: the passages,
the rendered sub-hypergraph (PNG) and its caption::

    python examples/llamaindex_quickstart.py --out out/llamaindex

The one-line switch to a real multimodal model (``pip install llama-index-llms-openai`` and
``OPENAI_API_KEY``)::

    python examples/llamaindex_quickstart.py --llm openai      # OpenAI(model="gpt-4o-mini")

Data: ``hyperviz_core/data/demo`` (MuSiQue, CC BY 4.0; subset selection from HippoRAG, MIT).
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from hyperviz_core.extras import exit_without_extra

exit_without_extra("llama_index.core", extra="llamaindex", who=Path(__file__).name)

from llama_index.core import Document, StorageContext, load_index_from_storage  # noqa: E402
from llama_index.core.base.llms.types import ImageBlock, LLMMetadata, TextBlock  # noqa: E402
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall  # noqa: E402

from hyperviz_core.demo import demo_passages  # noqa: E402
from vizrag_llamaindex import VizRAGImageNode, VizRAGIndex  # noqa: E402

QUESTION = "Who is the wife of Kim Jong-chul's father?"


def documents(limit: int | None = None) -> list[Document]:
    """The bundled passages as LlamaIndex documents (``id_`` = the MuSiQue corpus index)."""
    return [Document(text=p.text, id_=f"musique-{p.musique_corpus_idx}",
                     metadata={"title": p.title}) for p in demo_passages()[:limit]]


class FakeVisionLLM(MockLLMWithChatMemoryOfLastCall):
    """LlamaIndex's recording mock chat model with gpt-4o-mini's context window (128k), so
    the passages, the image and its caption go out in one call, as with the real model."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=128_000, num_output=256, is_chat_model=True,
                           model_name="fake-vision (echoes its prompt)")


def make_llm(kind: str) -> Any:
    """The chat model: the offline fake, or the one-line switch to a real provider."""
    if kind == "openai":
        from llama_index.llms.openai import OpenAI

        return OpenAI(model="gpt-4o-mini")
    return FakeVisionLLM()


def describe_message(llm: Any) -> list[str]:
    """What the fake model received: one line per content block (no base64)."""
    lines = []
    for message in getattr(llm, "last_chat_messages", None) or []:
        for block in message.blocks:
            if isinstance(block, ImageBlock):
                png = block.resolve_image().read()
                lines.append(f"  [{message.role.value}] image: {len(png)} PNG bytes, "
                             f"detail={block.detail}")
            elif isinstance(block, TextBlock):
                head = " ".join(block.text.split())[:90]
                lines.append(f"  [{message.role.value}] text: {head}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", choices=("fake", "openai"), default="fake")
    parser.add_argument("--out", type=Path, default=Path("out/llamaindex"))
    parser.add_argument("--limit", type=int, default=None, help="index only N passages")
    args = parser.parse_args(argv)
    if args.llm == "openai":  # fail before any work, in one line
        if importlib.util.find_spec("llama_index.llms.openai") is None:
            parser.error("--llm openai needs `pip install llama-index-llms-openai`")
        if not os.environ.get("OPENAI_API_KEY"):
            parser.error("--llm openai needs OPENAI_API_KEY in the environment")

    # 1. index: documents go to the engine whole, by doc.id_ (re-inserting is a no-op)
    index = VizRAGIndex.from_documents(documents(args.limit))
    print(f"indexed: {index.engine.stats().documents} documents")

    # 2. retriever: ranked chunks as TextNodes plus one VizRAGImageNode (I_bot)
    nodes = index.as_retriever(top_k=3, image_view="bottom").retrieve(QUESTION)
    for n in nodes:
        if isinstance(n.node, VizRAGImageNode):
            png = base64.b64decode(n.node.image or "")
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "hypergraph.png").write_bytes(png)
            print(f"image  {n.score:.3f}  {n.node.node_id}  -> {args.out / 'hypergraph.png'}")
        else:
            print(f"chunk  {n.score:.3f}  {n.node.metadata.get('title', '')}")

    # 3. query engine: a chat LLM gets [passages..., image, caption]
    llm = make_llm(args.llm)
    response = index.as_query_engine(llm=llm, top_k=3).query(QUESTION)
    print("sent to the model:")
    print("\n".join(describe_message(llm)) or "  (a real provider: see its logs)")
    print("answer:", " ".join(str(response).split())[:160])

    # 4. persist next to LlamaIndex's JSON files and load it back
    persist = args.out / "storage"
    index.storage_context.persist(persist_dir=str(persist))
    loaded = load_index_from_storage(StorageContext.from_defaults(persist_dir=str(persist)))
    print(f"reloaded {type(loaded).__name__} from {persist}: "
          f"{len(loaded.ref_doc_info)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
