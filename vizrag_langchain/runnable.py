"""``HyperVizRunnable``: retrieved documents → the rendered sub-hypergraph as an image block.

Works on VizRAG documents (entities read from the store when ``store`` is given and the
document ids are its chunk ids) and on any retriever's documents (the hypergraph is then
extracted from their text with the configured extractor; offline heuristic by default). A
``hyperviz_image`` document already in the input (``include_image=True``) is used as is.
The work is done by :func:`hyperviz_core.rag.render_passages`; this module only converts.

Example::

    >>> from langchain_core.documents import Document
    >>> from vizrag_langchain import HyperVizRunnable
    >>> out = HyperVizRunnable().invoke(
    ...     [Document(page_content="Marie Curie worked with Pierre Curie in Paris.")])
    >>> out["image"]["type"], out["image"]["mime_type"], out["image"]["base64"][:4]
    ('image', 'image/png', 'iVBO')
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, get_args

from langchain_core.callbacks import (
    AsyncCallbackManagerForChainRun,
    CallbackManagerForChainRun,
)
from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from hyperviz_core.rag import (
    RenderedView,
    StoreProtocol,
    VisualContext,
    arender_passages,
    render_passages,
)
from hyperviz_core.rag.result import rendered_links
from hyperviz_core.rag.retrieve.filters import ChunkFilter

from .documents import Elided, is_image_document, vizrag_key, vizrag_value
from .engine import SharedEngine
from .events import async_event_hook, event_hook
from .options import refuse_unknown
from .retriever import core_filter

__all__ = ["HyperVizInput", "HyperVizOutput", "HyperVizRunnable", "image_block",
           "split_documents"]

ImageFormat = Literal["image", "image_url"]
Detail = Literal["auto", "low", "high"]
HyperVizInput = Sequence[Document] | Mapping[str, Any]


#: what a call (or ``.bind``) may give ``HyperVizRunnable``: the constructor's options of
#: the same names, for that call
CALL_OPTIONS = ("filter", "image_format", "detail")


def _call_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A call's options, checked against the constructor's types (a ``TypeError`` naming a
    misspelt one, a ``ValueError`` a bad value), its ``filter`` made the engine's (a bad
    one fails before anything is drawn)."""
    refuse_unknown(kwargs, CALL_OPTIONS, "HyperVizRunnable.invoke()")
    for name, kind in (("image_format", ImageFormat), ("detail", Detail)):
        values = [repr(v) for v in get_args(kind)]
        if name in kwargs and kwargs[name] not in get_args(kind):
            allowed = ", ".join(values[:-1]) + " or " + values[-1]
            raise ValueError(f"{name} must be {allowed}, got {kwargs[name]!r}")
    if "filter" in kwargs:
        kwargs = {**kwargs, "filter": core_filter(kwargs["filter"])}
    return kwargs


def image_block(ctx: VisualContext, image_format: ImageFormat = "image",
                detail: str = "high") -> dict[str, Any]:
    """A deterministic content block for ``ctx`` (no random ``id``).

    ``"image"``: the v1 block ``{"type": "image", "base64", "mime_type"}``; ``"image_url"``:
    the legacy OpenAI part with a data URL and ``detail`` (kept by langchain-openai).

    >>> ctx = VisualContext(png_base64="AAAA", width=1, height=1, sha256="0")
    >>> image_block(ctx, "image_url")["image_url"]
    {'url': 'data:image/png;base64,AAAA', 'detail': 'high'}
    """
    if image_format == "image_url":
        return {"type": "image_url", "image_url": {"url": ctx.data_url, "detail": detail}}
    if image_format != "image":
        raise ValueError(f"unknown image_format {image_format!r}; use 'image' or 'image_url'")
    return {"type": "image", "base64": ctx.png_base64, "mime_type": ctx.mime_type}


class HyperVizOutput(dict[str, Any]):
    """The runnable's output: a plain ``dict`` (``image``, ``caption``, ``export``,
    ``documents``) whose ``repr`` shortens the image and the export, so that a notebook
    cell showing it stays readable."""

    def __repr__(self) -> str:
        image = self.get("image")
        shown = {**self,
                 "image": Elided(f"<{image.get('type')} block>") if isinstance(image, dict)
                 else image,
                 "export": Elided(f"<export: {len(self.get('export') or {})} keys>")}
        return f"HyperVizOutput({shown!r})"


def split_documents(docs: Sequence[Document]) -> tuple[list[Document], Document | None]:
    """(text documents, the first ``hyperviz_image`` document or None)."""
    text = [d for d in docs if not is_image_document(d)]
    image = next((d for d in docs if is_image_document(d)), None)
    return text, image


#: the keys of a mapping input: ``chat_history`` (what ``create_vizrag_chain`` passes on
#: beside them) is ignored
INPUT_KEYS = ("documents", "question", "chat_history")


def _input(value: HyperVizInput) -> tuple[list[Document], str | None]:
    """(documents, question) of an input; a mapping's unknown key (a misspelt
    ``"qestion"``, ``"docs"``) is a ``ValueError`` naming it, never dropped."""
    if isinstance(value, Mapping):
        unknown = sorted(str(k) for k in value if k not in INPUT_KEYS)
        if unknown:
            hints = [f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
                     for k in unknown
                     for close in [difflib.get_close_matches(k, INPUT_KEYS, n=1)]]
            raise ValueError(f"HyperVizRunnable input has unknown key{'s' * (len(hints) > 1)} "
                             f"{', '.join(hints)}; it takes 'documents', 'question' and "
                             "'chat_history' (ignored)")
        if "documents" not in value:
            raise TypeError("HyperVizRunnable input mapping needs a 'documents' key")
        query = value.get("question")
        return _input_docs(value["documents"]), None if query is None else str(query)
    return _input_docs(value), None


def _input_docs(docs: Any) -> list[Document]:
    if isinstance(docs, (str, bytes)) or not isinstance(docs, Sequence):
        raise TypeError(f"HyperVizRunnable expects a list of Documents, got {type(docs).__name__}")
    bad = [type(d).__name__ for d in docs if not isinstance(d, Document)]
    if bad:
        raise TypeError(f"HyperVizRunnable expects Documents, got {bad[0]}")
    return list(docs)


def _passage_id(doc: Document, n: int) -> str:
    """The id passage ``n`` (from 1) is rendered under: its id, chunk id or ``passage-n``."""
    return doc.id or str(doc.metadata.get("chunk_id") or f"passage-{n}")


def _passages(docs: Sequence[Document]) -> list[tuple[str, str]]:
    return [(_passage_id(d, i), d.page_content) for i, d in enumerate(docs, start=1)]


def _from_image_doc(doc: Document) -> VisualContext:
    m = doc.metadata
    return VisualContext.from_view(RenderedView(
        png_base64=m["image_base64"], width=int(m["width"]), height=int(m["height"]),
        caption=doc.page_content, export=dict(m.get("export") or {}), sha256=str(m["sha256"])))


def _renumbered(docs: list[Document], ctx: VisualContext) -> list[Document]:
    """``docs`` with the links of VizRAG documents taken from the rendering ``ctx``
    (:func:`~hyperviz_core.rag.result.rendered_links`: the E#/H# the model sees, not those of
    the retrieval's own sub-hypergraph, and the entities / hyperedges the image draws from
    the passage, also in ``naive`` mode); other documents unchanged."""
    out = []
    for n, doc in enumerate(docs, start=1):
        meta = doc.metadata
        if vizrag_key(meta, "entity_ids") is None and vizrag_key(meta, "hyperedge_ids") is None:
            out.append(doc)
            continue
        links = rendered_links(ctx.export, _passage_id(doc, n),
                               vizrag_value(meta, "entities", []),
                               vizrag_value(meta, "hyperedges", []))
        meta = {**meta, **{vizrag_key(meta, name) or name: value
                           for name, value in links.items()}}
        out.append(doc.model_copy(update={"metadata": meta}))
    return out


class HyperVizRunnable(SharedEngine, RunnableSerializable[HyperVizInput, dict[str, Any]]):
    """Render retrieved documents' sub-hypergraph for a multimodal model.

    Args:
        store: the VizRAG store (directory, ``.sqlite`` path, an open store or
            ``VizRAG``) whose chunk ids the documents may carry; ``None`` = extract all.
        extractor: a VizRAG ``Extractor`` for documents not in the store (default offline).
        renderer: a ``HyperViz`` (default: dual view, congestion control).
        image_format: ``"image"`` (v1 block) or ``"image_url"`` (legacy, keeps ``detail``).
        detail: the ``detail`` of ``image_url`` blocks (a 1536×768 dual view needs ``high``).
        filter: the metadata filter the documents were retrieved under (a ``filter=`` dict
            as the retriever takes it): the store's facts drawn are only those all of whose
            source chunks pass it, so no other tenant's text reaches the image or caption
            (:func:`~.chain.create_vizrag_chain` passes its retriever's).

    Input: a list of Documents, or ``{"documents": [...], "question": str}`` (the question
    guides what survives pruning; ``"chat_history"`` may be there and is ignored; any other
    key is a ``ValueError`` naming it). Output: ``{"image": block or None, "caption": str,
    "export": dict, "view": str, "documents": [text documents]}``; ``image`` is None when
    there is nothing to show, ``view`` is ``"passages"`` (rendered here) or the ``view`` of
    the image document used as is. VizRAG documents come back with ``entity_ids`` /
    ``hyperedge_ids`` renumbered to the E#/H# of the image rendered here, and ``entities`` /
    ``hyperedges`` holding what it draws from each of them (``naive`` documents too). Emits
    ``vizrag.render.start``/``end`` custom events (no image bytes).

    Like ``VizRAGRetriever``: ``copy.deepcopy`` and ``configurable_fields`` copies share the
    engine opened for a ``store`` path, pickling reopens the path, and ``close()`` (or
    ``with HyperVizRunnable(store=path) as hv:``) closes the store it opened.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    store: Any = Field(default=None, exclude=True)
    extractor: Any = Field(default=None, exclude=True)
    renderer: Any = Field(default=None, exclude=True)
    image_format: ImageFormat = "image"
    detail: Detail = "high"
    filter: ChunkFilter | None = None

    _store: StoreProtocol | None = PrivateAttr(None)
    _source: Callable[[RunnableConfig], tuple[StoreProtocol | None, Any]] | None = \
        PrivateAttr(None)

    @field_validator("filter", mode="before")
    @classmethod
    def _filter(cls, value: Any) -> ChunkFilter | None:
        return core_filter(value)

    def draw_under(self, source: Callable[[RunnableConfig], tuple[StoreProtocol | None, Any]]
                   | None) -> None:
        """Take each run's store and filter from ``source(config)`` (an open store or None,
        a ``filter=`` dict or None) instead of ``store`` and ``filter``: what
        :func:`~.chain.create_vizrag_chain` sets, so that the image is drawn from the store
        and under the filter of the retriever that runs (a ``configurable`` alternative or
        field of that run included)."""
        self._source = source

    def _run(self, config: RunnableConfig, options: Mapping[str, Any]
             ) -> tuple[StoreProtocol | None, ChunkFilter | None]:
        """The store and filter of a run: a call's ``filter=`` (``.bind(filter=...)``) over
        the run's source (:meth:`draw_under`) over the constructor's."""
        if self._source is None:
            store, flt = self._store, self.filter
        else:
            store, given = self._source(config)
            flt = core_filter(given)
        return store, options.get("filter", flt)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        self._open()  # after validation: a store error is raised as it is, not wrapped

    def _open(self) -> None:
        """Resolve ``store`` into an open store (a path: through an engine opened once and
        shared with copies)."""
        if self.store is None or isinstance(self.store, StoreProtocol):
            self._store = self.store
        else:
            self._store = self._open_engine(self.store).store

    def _output(self, docs: list[Document], ctx: VisualContext | None,
                image_doc: Document | None = None, options: Mapping[str, Any] = {}
                ) -> dict[str, Any]:
        show = ctx is not None and not ctx.is_empty
        image = image_block(ctx, options.get("image_format", self.image_format),
                            options.get("detail", self.detail)) if show and ctx else None
        view = str(vizrag_value(image_doc.metadata, "view") or "") if image_doc else "passages"
        return HyperVizOutput({"image": image,
                               "caption": ctx.caption if ctx is not None else "",
                               "export": dict(ctx.export) if ctx is not None else {},
                               "view": view if ctx is not None else "",
                               "documents": docs})

    def _render(self, value: HyperVizInput, run_manager: CallbackManagerForChainRun,
                config: RunnableConfig, **options: Any) -> dict[str, Any]:
        docs, image_doc, query = self._prepare(value)
        if image_doc is not None or not docs:
            return self._output(docs, _from_image_doc(image_doc) if image_doc else None,
                                image_doc, options)
        hook = event_hook(run_manager)
        store, flt = self._run(config, options)
        ctx = render_passages(_passages(docs), store=store, extractor=self.extractor,
                              filters=flt, renderer=self.renderer, query=query,
                              hooks=[hook] if hook else ())
        return self._output(_renumbered(docs, ctx), ctx, None, options)

    async def _arender(self, value: HyperVizInput, run_manager: AsyncCallbackManagerForChainRun,
                       config: RunnableConfig, **options: Any) -> dict[str, Any]:
        docs, image_doc, query = self._prepare(value)
        if image_doc is not None or not docs:
            return self._output(docs, _from_image_doc(image_doc) if image_doc else None,
                                image_doc, options)
        hook = async_event_hook(run_manager)
        store, flt = self._run(config, options)
        ctx = await arender_passages(_passages(docs), store=store, filters=flt,
                                     extractor=self.extractor, renderer=self.renderer,
                                     query=query, hooks=[hook] if hook else ())
        return self._output(_renumbered(docs, ctx), ctx, None, options)

    @staticmethod
    def _prepare(value: HyperVizInput) -> tuple[list[Document], Document | None, str | None]:
        docs, query = _input(value)
        text, image = split_documents(docs)
        return text, image, query

    def invoke(self, input: HyperVizInput, config: RunnableConfig | None = None,
               **kwargs: Any) -> dict[str, Any]:
        """Render synchronously (see the class docstring); ``kwargs``: this call's
        ``filter``, ``image_format`` or ``detail`` (``.bind(...)`` gives them)."""
        return self._call_with_config(self._render, input, config, **_call_options(kwargs))

    async def ainvoke(self, input: HyperVizInput, config: RunnableConfig | None = None,
                      **kwargs: Any) -> dict[str, Any]:
        """Render asynchronously (extraction awaited, drawing in a worker thread)."""
        return await self._acall_with_config(self._arender, input, config,
                                             **_call_options(kwargs))
