"""Answer generation for evaluation: one answers file per retrieval mode (or variant).

:func:`generate_answers` runs ``VizRAG.aquery`` for every question with bounded concurrency
and a progress bar, and keeps the retrieved passages so that answer-in-context recall can be
computed from the same run. :func:`open_engine` wraps a chat model in the engine's
middleware (persistent cache in the store, retries, usage accounting, concurrency limit), so
re-generating with the same model and prompts costs zero provider calls.

Offline (no chat model) the answers are the engine's labelled extractive summaries and
nothing is rendered; with a model the renderings are produced and sent as the mode asks.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag import Document, VizRAG
    >>> from hyperviz_core.eval import Question, generate_answers, open_engine
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with VizRAG(d, show_progress=False) as rag:  # the store to evaluate
    ...         _ = rag.insert([Document(title="Ada", text="Ada Lovelace wrote notes in 1843.")])
    ...     engine = open_engine(d, show_progress=False)
    ...     out = generate_answers(engine, [Question(id="1", question="When did Ada write?")],
    ...                            "naive", show_progress=False)
    ...     engine.close()
    >>> out[0].answer_kind, "1843" in out[0].answer
    ('extractive', True)
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from tqdm.auto import tqdm

from ..rag import (
    ChatModel,
    Embedder,
    StoreCacheBackend,
    UsageTracker,
    VizRAG,
    build_chat_stack,
)
from ..rag.store import open_store
from .data import AnswerRecord, Question, write_answers

__all__ = ["GeneratedAnswer", "agenerate_answers", "generate_answers", "open_engine",
           "write_generated"]


class GeneratedAnswer(BaseModel):
    """One generated answer with the passages it was given (not written to answers files)."""

    id: str
    question: str
    answer: str
    answer_kind: str = "none"
    contexts: list[str] = Field(default_factory=list)
    """``title + newline + text`` of the ranked passages, best first."""

    def record(self) -> AnswerRecord:
        return AnswerRecord(id=self.id, question=self.question, answer=self.answer)


def open_engine(
    store: str | Path,
    chat: ChatModel | None = None,
    embedder: Embedder | None = None,
    *,
    tracker: UsageTracker | None = None,
    concurrency: int = 8,
    max_retries: int = 5,
    show_progress: bool = True,
    **engine_kwargs: Any,
) -> VizRAG:
    """A :class:`VizRAG` on the existing ``store`` (a directory, ``.sqlite`` file or
    ``postgresql://`` URL; :class:`~hyperviz_core.rag.StoreNotFoundError` when there is none)
    whose chat model (if any) goes through the middleware.

    The model's answers are cached in the store (the same cache as extraction calls).
    ``engine_kwargs`` go to :class:`VizRAG` (e.g. ``index_visualization=False``, ``top_k``).
    """
    st = open_store(store, must_exist=True)
    stack = None
    if chat is not None:
        stack = build_chat_stack(chat, cache=StoreCacheBackend(st), tracker=tracker,
                                 max_retries=max_retries, max_concurrency=concurrency)
    try:
        return VizRAG(st, chat=stack, embedder=embedder, show_progress=show_progress,
                      close_store=True, **engine_kwargs)
    except Exception:
        st.close()
        raise


async def agenerate_answers(
    engine: VizRAG,
    questions: Sequence[Question],
    mode: str = "vizrag",
    *,
    overrides: Mapping[str, Any] | None = None,
    concurrency: int = 4,
    show_progress: bool | None = None,
) -> list[GeneratedAnswer]:
    """Answer every question with ``engine.aquery(question, mode=mode, **overrides)``, with a
    progress bar (``show_progress``; None: as the engine's ``show_progress``).

    ``overrides`` are :class:`~hyperviz_core.rag.RetrievalConfig` fields (the Table 2
    switches ``retrieval_visualization``, ``congestion_control``, ``dual_view``, or
    ``top_k``). Results keep the question order.
    """
    opts = dict(overrides or {})
    opts.setdefault("render", engine.chat is not None)
    sem = asyncio.Semaphore(max(1, concurrency))
    bar = tqdm(total=len(questions), desc=f"answers ({mode})", unit="q",
               disable=not (engine.show_progress if show_progress is None else show_progress))

    async def one(q: Question) -> GeneratedAnswer:
        async with sem:
            try:
                res = await engine.aquery(q.question, mode=mode, **opts)
            finally:
                bar.update(1)
        contexts = [(c.title + "\n" + c.text) if c.title else c.text for c in res.chunks]
        return GeneratedAnswer(id=q.id, question=q.question, answer=res.answer or "",
                               answer_kind=res.answer_kind, contexts=contexts)

    try:
        return list(await asyncio.gather(*(one(q) for q in questions)))
    finally:
        bar.close()


def generate_answers(engine: VizRAG, questions: Sequence[Question], mode: str = "vizrag",
                     **kwargs: Any) -> list[GeneratedAnswer]:
    """Sync :func:`agenerate_answers`."""
    return asyncio.run(agenerate_answers(engine, questions, mode, **kwargs))


def write_generated(path: str | Path, answers: Sequence[GeneratedAnswer]) -> Path:
    """Write generated answers as an answers file (``{"id", "question", "answer"}``)."""
    return write_answers(path, [a.record() for a in answers])
