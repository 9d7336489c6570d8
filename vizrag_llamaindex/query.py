"""A ``RetrieverQueryEngine`` that hands the hypergraph image to a chat LLM.

A chat LLM answers from ``[TextBlock(passages), ImageBlock(png), TextBlock(caption)]``
(``multimodal=True``): each passage numbered ``[n]`` (the n-th passage node, as in
``response.source_nodes``), its metadata lines, then its text fenced between
``<<<PASSAGE n`` / ``PASSAGE n>>>``; the caption fenced as ``CAPTION`` (the core's
:func:`~hyperviz_core.rag.fence`, as the LangChain chain does), and the prompt says that fenced
text is data, not instructions. A completion-only LLM cannot receive images: it reads the
chunks and the caption, and one ``UserWarning`` says so. ``Settings.llm`` is never read — with
no LLM a clear ``ValueError`` is raised instead of silently resolving to OpenAI.

The :class:`VizRAGQueryEngine` reads the ``[n]`` citations of its answers back (the core's
:func:`~hyperviz_core.rag.citations.answer_citations`, against the passages it numbered) into
``response.metadata``: ``"citations"`` (a :class:`~hyperviz_core.rag.result.Citations`),
``"cited_nodes"`` (the source nodes cited, in order of first mention) and
``"citation_warning"`` (the made-up citations as one line, also logged; None when none).
When the prompt carried a VizRAG image, the ``E#``/``H#`` the answer names are read too
(:func:`~hyperviz_core.rag.citations.visual_citations`): ``citations.ids`` holds those the
image labels, ``"cited_items"`` the :class:`~hyperviz_core.rag.citations.LabelledItem` s they
name (entity key or hyperedge id, and the view), and an ID no image labels is made up.

Every query engine :func:`build_query_engine` builds (:class:`UsageQueryEngine`, for a chat
LLM its subclass :class:`VizRAGQueryEngine`) puts the model usage of its VizRAG retrieval in
``response.metadata["usage"]``: the core ``UsageReport`` as a JSON-safe dict (``calls``,
``prompt_tokens``, ``completion_tokens`` ...), read from the retrieved nodes before the
postprocessors run (:func:`~.nodes.retrieval_usage`), or None when no model was called. It
counts VizRAG's own calls (query keywords, locate); the answer's LLM call, made by
LlamaIndex's synthesizer, is not in it (LlamaIndex's ``TokenCountingHandler`` counts both).
When a step after the retrieval fails (a postprocessor, the synthesizer's LLM call, a
streaming response's tokens), the exception carries that usage as ``exc.usage``
(:func:`hyperviz_core.rag.usage_of`; :mod:`~.response_usage`), its type and message unchanged.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Sequence
from typing import Any

import llama_index.core.instrumentation as instrument
from llama_index.core.base.llms.base import BaseLLM
from llama_index.core.base.llms.types import ChatResponse
from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.callbacks.schema import CBEventType, EventPayload
from llama_index.core.chat_engine import (
    MultiModalCondensePlusContextChatEngine,
    MultiModalContextChatEngine,
)
from llama_index.core.llms import LLM, ChatMessage, ImageBlock
from llama_index.core.prompts import PromptTemplate, RichPromptTemplate
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers.context_only import ContextOnly
from llama_index.core.response_synthesizers.no_text import NoText
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from hyperviz_core.rag import CaptionOnlyWarning
from hyperviz_core.rag.citations import LabelledItem, visual_citations

from .captions import ImageCaptionPostprocessor
from .nodes import drawn_items, is_image_node, retrieval_usage
from .prompt_views import (
    CHAT_CONTEXT_PROMPT,
    IMAGE_DETAIL,
    QA_TEMPLATE,
    REFINE_TEMPLATE,
    SUMMARY_TEMPLATE,
    SYSTEM_PROMPT,
    PassageBlock,
    format_passage,
    numbered_passages,
    prompt_views,
)
from .response_usage import RESPONSE_USAGE_KEY, charging, with_usage
from .retriever import RETRIEVER_OPTIONS

__all__ = [
    "CHAT_CONTEXT_PROMPT",
    "QA_TEMPLATE",
    "REFINE_TEMPLATE",
    "RESPONSE_USAGE_KEY",
    "SUMMARY_TEMPLATE",
    "SYSTEM_PROMPT",
    "CaptionOnlyWarning",
    "DetailedImageLLM",
    "DetailedImagePrompt",
    "PassageBlock",
    "UsageQueryEngine",
    "VizRAGCondensePlusContextChatEngine",
    "VizRAGContextChatEngine",
    "VizRAGQueryEngine",
    "build_query_engine",
    "format_passage",
    "multimodal_chat_engine",
    "prompt_views",
]

dispatcher = instrument.get_dispatcher(__name__)
log = logging.getLogger(__name__)

class DetailedImagePrompt(RichPromptTemplate):  # type: ignore[no-redef]  # mypy: field "kwargs"
    """A rich chat prompt that keeps ``detail="high"`` on the images it formats.

    LlamaIndex's stock multimodal prompts rebuild every image block from its URL and drop
    its ``detail``; providers then pick their default (OpenAI: "auto", often low), at which
    a rendering's E#/H# labels are unreadable.
    """

    def format_messages(self, llm: BaseLLM | None = None, **kwargs: Any) -> list[ChatMessage]:
        messages = super().format_messages(llm, **kwargs)
        for message in messages:
            for block in message.blocks:
                if isinstance(block, ImageBlock) and not block.detail:
                    block.detail = IMAGE_DETAIL
        return messages


def with_detail(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Copies of ``messages`` whose image blocks without a ``detail`` have ``"high"`` (the
    given messages are not changed)."""
    out = []
    for message in messages:
        if any(isinstance(b, ImageBlock) and not b.detail for b in message.blocks):
            blocks = [b.model_copy(update={"detail": IMAGE_DETAIL})
                      if isinstance(b, ImageBlock) and not b.detail else b
                      for b in message.blocks]
            message = message.model_copy(update={"blocks": blocks})
        out.append(message)
    return out


class DetailedImageLLM:
    """A chat LLM seen through :func:`with_detail`: its ``chat``/``achat``/``stream_chat``/
    ``astream_chat`` receive the image blocks with ``detail="high"``; anything else is the
    LLM's own (``metadata``, ``complete`` ...).

    LlamaIndex's multimodal chat engines build each image block from the image node
    (``image_node_to_image_block``) without a ``detail``, and offer no hook to set one;
    :func:`multimodal_chat_engine` hands them the LLM wrapped in this.
    """

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def __getattr__(self, name: str) -> Any:
        if name == "llm":  # not set yet (copy/unpickle): no recursion
            raise AttributeError(name)
        return getattr(self.llm, name)

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.llm.chat(with_detail(messages), **kwargs)

    def stream_chat(self, messages: Sequence[ChatMessage],
                    **kwargs: Any) -> Iterator[ChatResponse]:
        return self.llm.stream_chat(with_detail(messages), **kwargs)

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return await self.llm.achat(with_detail(messages), **kwargs)

    async def astream_chat(self, messages: Sequence[ChatMessage],
                           **kwargs: Any) -> AsyncIterator[ChatResponse]:
        return await self.llm.astream_chat(with_detail(messages), **kwargs)

    def __repr__(self) -> str:
        return f"DetailedImageLLM({self.llm!r})"


def _templates() -> dict[str, RichPromptTemplate]:
    # RichPromptTemplate's own __init__ takes template_str positionally (mypy's pydantic
    # plugin does not see it)
    qa = DetailedImagePrompt(QA_TEMPLATE)  # type: ignore[call-arg]
    refine = DetailedImagePrompt(REFINE_TEMPLATE)  # type: ignore[call-arg]
    return {"chat_content_qa_template": qa, "chat_content_refine_template": refine}


def _with_sources(response: Any, nodes: Sequence[NodeWithScore],
                  additional: Sequence[NodeWithScore] | None = None) -> Any:
    """``response`` with its source nodes (and a chat engine's ``text_nodes`` /
    ``image_nodes`` metadata) the original ``nodes``, not the prompt views."""
    if hasattr(response, "source_nodes"):
        response.source_nodes = [*nodes, *(additional or [])]
    meta = getattr(response, "metadata", None)
    if isinstance(meta, dict) and "text_nodes" in meta:
        meta["image_nodes"] = [n for n in nodes if is_image_node(n.node)]
        meta["text_nodes"] = [n for n in nodes if not is_image_node(n.node)]
    return response


def _record_citations(meta: dict[str, Any], answer: str, passages: Sequence[NodeWithScore],
                      drawn: Sequence[LabelledItem]) -> None:
    """Put what ``answer`` cites of ``passages`` (numbered from 1) and of the ``drawn``
    items in ``meta``."""
    citations, items = visual_citations(answer, carried=len(passages), drawn=drawn)
    meta["citations"] = citations
    meta["cited_nodes"] = [passages[n - 1] for n in citations.passages]
    meta["cited_items"] = items
    meta["citation_warning"] = warning = citations.warning()
    if warning:
        log.warning("%s", warning)


def _read_on_completion(tokens: Iterator[str], meta: dict[str, Any],
                        passages: list[NodeWithScore], drawn: list[LabelledItem]
                        ) -> Generator[str, None, None]:
    pieces: list[str] = []
    for token in tokens:
        pieces.append(token)
        yield token
    _record_citations(meta, "".join(pieces), passages, drawn)


async def _aread_on_completion(tokens: AsyncIterator[str], meta: dict[str, Any],
                               passages: list[NodeWithScore], drawn: list[LabelledItem]
                               ) -> AsyncGenerator[str, None]:
    pieces: list[str] = []
    async for token in tokens:
        pieces.append(token)
        yield token
    _record_citations(meta, "".join(pieces), passages, drawn)


def _with_citations(response: Any, nodes: Sequence[NodeWithScore]) -> Any:
    """``response`` with the citations of its answer in its ``metadata``
    (:func:`_record_citations`); a streaming response's once its tokens are all read. A
    structured (pydantic) response has no text to read."""
    if not isinstance(response, Response | StreamingResponse | AsyncStreamingResponse):
        return response
    if response.metadata is None:
        response.metadata = {}
    passages, drawn = numbered_passages(nodes), drawn_items(nodes)
    if isinstance(response, Response):
        _record_citations(response.metadata, response.response or "", passages, drawn)
    elif isinstance(response, StreamingResponse) and response.response_gen is not None:
        response.response_gen = _read_on_completion(response.response_gen,
                                                    response.metadata, passages, drawn)
    elif isinstance(response, AsyncStreamingResponse) and response.response_gen is not None:
        response.response_gen = _aread_on_completion(response.response_gen,
                                                     response.metadata, passages, drawn)
    return response


class UsageQueryEngine(RetrieverQueryEngine):
    """A ``RetrieverQueryEngine`` whose responses carry the model usage of the retrieval in
    ``response.metadata["usage"]`` (the module docstring): read from the retriever's nodes
    before the postprocessors, so a postprocessor that drops every VizRAG node (a
    ``SimilarityPostprocessor``) does not lose it. Per query: nothing is kept on the
    engine, so concurrent ``aquery`` calls each get their own."""

    def with_retriever(self, retriever: BaseRetriever) -> UsageQueryEngine:
        return type(self)(retriever=retriever, response_synthesizer=self._response_synthesizer,
                          callback_manager=self.callback_manager,
                          node_postprocessors=self._node_postprocessors)

    @dispatcher.span
    def _query(self, query_bundle: QueryBundle) -> Any:
        with self.callback_manager.event(
                CBEventType.QUERY, payload={EventPayload.QUERY_STR: query_bundle.query_str}
        ) as query_event:
            nodes = self._retriever.retrieve(query_bundle)
            usage = retrieval_usage(nodes)
            with charging(usage):  # a failure past the retrieval carries its usage
                nodes = self._apply_node_postprocessors(nodes, query_bundle=query_bundle)
                response = with_usage(self.synthesize(query_bundle, nodes), usage)
            query_event.on_end(payload={EventPayload.RESPONSE: response})
        return response

    @dispatcher.span
    async def _aquery(self, query_bundle: QueryBundle) -> Any:
        with self.callback_manager.event(
                CBEventType.QUERY, payload={EventPayload.QUERY_STR: query_bundle.query_str}
        ) as query_event:
            nodes = await self._retriever.aretrieve(query_bundle)
            usage = retrieval_usage(nodes)
            with charging(usage):
                nodes = await self._async_apply_node_postprocessors(
                    nodes, query_bundle=query_bundle)
                response = with_usage(await self.asynthesize(query_bundle, nodes), usage)
            query_event.on_end(payload={EventPayload.RESPONSE: response})
        return response


class VizRAGQueryEngine(UsageQueryEngine):
    """The ``RetrieverQueryEngine`` :func:`build_query_engine` builds for a chat LLM: its
    synthesizer reads the nodes through :func:`prompt_views` (numbered, fenced passages; the
    image, then its fenced caption), in every response mode, streaming included;
    ``response.source_nodes`` are the retrieved nodes themselves, and ``response.metadata``
    has the answer's citations (``"citations"``, ``"cited_nodes"``, ``"cited_items"``,
    ``"citation_warning"``:
    :func:`_record_citations`; a streaming response's once its tokens are all read) and the
    retrieval's ``"usage"`` (:class:`UsageQueryEngine`). The text-free modes (``no_text``,
    ``context_only``) read the nodes as they are, and no citations."""

    def _textless(self) -> bool:
        return isinstance(self._response_synthesizer, NoText | ContextOnly)

    def _views(self, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
        return nodes if self._textless() else prompt_views(nodes)

    def _answered(self, response: Any, nodes: list[NodeWithScore],
                  additional: Sequence[NodeWithScore] | None) -> Any:
        response = _with_sources(response, nodes, additional)
        return response if self._textless() else _with_citations(response, nodes)

    def synthesize(self, query_bundle: QueryBundle, nodes: list[NodeWithScore],
                   additional_source_nodes: Sequence[NodeWithScore] | None = None) -> Any:
        response = self._response_synthesizer.synthesize(
            query=query_bundle, nodes=self._views(nodes),
            additional_source_nodes=additional_source_nodes)
        return self._answered(response, nodes, additional_source_nodes)

    async def asynthesize(self, query_bundle: QueryBundle, nodes: list[NodeWithScore],
                          additional_source_nodes: Sequence[NodeWithScore] | None = None
                          ) -> Any:
        response = await self._response_synthesizer.asynthesize(
            query=query_bundle, nodes=self._views(nodes),
            additional_source_nodes=additional_source_nodes)
        return self._answered(response, nodes, additional_source_nodes)


SUMMARY_PROMPT_KEY = "response_synthesizer:chat_summary_template"
"""The multimodal summary prompt of ``response_mode="tree_summarize"`` (``from_args`` takes
no argument for it: :func:`build_query_engine` sets it on the engine it built)."""


def build_query_engine(retriever: BaseRetriever, llm: Any, *,
                       callback_manager: CallbackManager | None = None,
                       **kwargs: Any) -> RetrieverQueryEngine:
    """``RetrieverQueryEngine.from_args`` with ``multimodal`` set from the LLM.

    ``kwargs`` are query-engine arguments (``streaming``, ``response_mode``,
    ``node_postprocessors``, ``chat_summary_template`` ...); retriever options among them are
    dropped. With ``multimodal`` the engine is a :class:`VizRAGQueryEngine` (numbered,
    fenced passages, then the image, then the fenced caption) and every chat prompt of the
    synthesizer VizRAG builds (QA, refine, tree summary: :data:`QA_TEMPLATE` ...) keeps
    ``detail="high"`` on the image, unless given here.
    """
    if llm is None:
        raise ValueError("a VizRAG query engine needs an LLM: pass llm=... (Settings.llm is "
                         "never read, so no provider is picked for you)")
    if not isinstance(llm, LLM):
        raise TypeError(f"llm must be a LlamaIndex LLM, got {type(llm).__name__}")
    engine_args = {k: v for k, v in kwargs.items() if k not in RETRIEVER_OPTIONS}
    is_chat = bool(llm.metadata.is_chat_model)
    multimodal = engine_args.pop("multimodal", None)
    if multimodal is None:
        multimodal = is_chat
        if not is_chat and getattr(retriever, "include_image", False):
            warnings.warn(f"{type(llm).__name__} is not a chat model: the hypergraph image "
                          "cannot be sent, only its caption", CaptionOnlyWarning,
                          stacklevel=3)
    summary = engine_args.pop("chat_summary_template", None)
    own_synthesizer = engine_args.get("response_synthesizer") is not None
    if multimodal:
        for key, template in _templates().items():
            engine_args.setdefault(key, template)
    _textless_synthesizer(engine_args, llm, multimodal, callback_manager)
    kind = VizRAGQueryEngine if multimodal else UsageQueryEngine
    engine = kind.from_args(retriever, llm=llm, multimodal=multimodal,
                            callback_manager=callback_manager, **engine_args)
    if summary is None and multimodal and not own_synthesizer:
        summary = DetailedImagePrompt(SUMMARY_TEMPLATE)  # type: ignore[call-arg]
    if summary is not None and SUMMARY_PROMPT_KEY in engine.get_prompts():
        engine.update_prompts({SUMMARY_PROMPT_KEY: summary})
    return engine


def _textless_synthesizer(engine_args: dict[str, Any], llm: LLM, multimodal: bool,
                          callback_manager: CallbackManager | None) -> None:
    """``response_mode="no_text"`` / ``"context_only"``: the synthesizer built here with
    ``llm`` (LlamaIndex's factory builds these two without it, so they read
    ``Settings.llm``, which VizRAG never uses; a missing OpenAI key failed the query)."""
    from llama_index.core.response_synthesizers import ResponseMode
    from llama_index.core.response_synthesizers.context_only import ContextOnly
    from llama_index.core.response_synthesizers.no_text import NoText

    mode = engine_args.get("response_mode")
    kinds = {ResponseMode.NO_TEXT: NoText, ResponseMode.CONTEXT_ONLY: ContextOnly}
    kind = kinds.get(ResponseMode(mode)) if isinstance(mode, str) else None
    if kind is None or engine_args.get("response_synthesizer") is not None:
        return
    engine_args.pop("response_synthesizer", None)
    engine_args.pop("response_mode")
    engine_args["response_synthesizer"] = kind(
        llm=llm, callback_manager=callback_manager,
        streaming=bool(engine_args.pop("streaming", False)), multimodal=multimodal)


class _ChatViews:
    """Mixin of the multimodal chat engines :func:`multimodal_chat_engine` builds: the LLM
    reads the nodes through :func:`prompt_views` (``keep_images``: these engines send the
    image node's image, before the context text); the response keeps the original nodes."""

    def synthesize(self, query: Any, nodes: list[NodeWithScore],
                   additional_source_nodes: Sequence[NodeWithScore] | None = None,
                   streaming: bool = False) -> Any:
        response = super().synthesize(  # type: ignore[misc]
            query, prompt_views(nodes, keep_images=True), additional_source_nodes, streaming)
        return _with_sources(response, nodes)

    async def asynthesize(self, query: Any, nodes: list[NodeWithScore],
                          additional_source_nodes: Sequence[NodeWithScore] | None = None,
                          streaming: bool = False) -> Any:
        response = await super().asynthesize(  # type: ignore[misc]
            query, prompt_views(nodes, keep_images=True), additional_source_nodes, streaming)
        return _with_sources(response, nodes)


class VizRAGContextChatEngine(_ChatViews, MultiModalContextChatEngine):
    """``MultiModalContextChatEngine`` reading numbered, fenced passages
    (``chat_mode="context"``)."""


class VizRAGCondensePlusContextChatEngine(_ChatViews, MultiModalCondensePlusContextChatEngine):
    """``MultiModalCondensePlusContextChatEngine`` reading numbered, fenced passages
    (``chat_mode="condense_plus_context"`` and ``"best"``)."""


def multimodal_chat_engine(retriever: BaseRetriever, chat_mode: Any, llm: Any,
                           **kwargs: Any) -> Any:
    """The retrieving chat engine of ``chat_mode`` (``best``, ``condense_plus_context``,
    ``context``) in its multimodal form when ``llm`` is a chat model and ``retriever``
    returns images (LlamaIndex's own engines would drop the image nodes silently), with an
    :class:`~.captions.ImageCaptionPostprocessor` last, as those drop the caption; None
    otherwise: the other modes, and any mode with a completion LLM, go through the base
    ``as_chat_engine``, whose query engine (:func:`build_query_engine`) sends the image or
    warns that only the caption is sent. The engine's LLM is ``llm`` seen through
    :class:`DetailedImageLLM`, so the image goes with ``detail="high"``. The passages are
    numbered and fenced, the caption fenced (:func:`prompt_views`); ``system_prompt``
    defaults to :data:`SYSTEM_PROMPT` (LlamaIndex sends an empty or null system message,
    which some OpenAI-compatible servers reject) and the context prompt to
    :data:`CHAT_CONTEXT_PROMPT` (``context_template=`` / ``context_prompt=`` override it)."""
    from llama_index.core.chat_engine.types import ChatMode

    engines: dict[ChatMode, Any] = {  # (the engine classes' from_defaults, not the base's)
        ChatMode.BEST: VizRAGCondensePlusContextChatEngine,
        ChatMode.CONDENSE_PLUS_CONTEXT: VizRAGCondensePlusContextChatEngine,
        ChatMode.CONTEXT: VizRAGContextChatEngine}
    engine = engines.get(ChatMode(chat_mode)) if isinstance(chat_mode, str) else None
    if (engine is None or not getattr(retriever, "include_image", False)
            or not (isinstance(llm, LLM) and llm.metadata.is_chat_model)):
        return None
    engine_args = {k: v for k, v in kwargs.items() if k not in RETRIEVER_OPTIONS}
    # these engines drop an image node's text: its caption (the E#/H# legend) goes as text
    engine_args["node_postprocessors"] = [*(engine_args.get("node_postprocessors") or []),
                                          ImageCaptionPostprocessor()]
    if not engine_args.get("system_prompt"):
        engine_args["system_prompt"] = SYSTEM_PROMPT
    context_key = ("context_template" if engine is VizRAGContextChatEngine
                   else "context_prompt")
    engine_args.setdefault(context_key, PromptTemplate(CHAT_CONTEXT_PROMPT))
    return engine.from_defaults(retriever=retriever, multi_modal_llm=DetailedImageLLM(llm),
                                **engine_args)
