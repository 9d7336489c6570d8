"""``VizRAGRetriever``: the VizRAG engine as a LlamaIndex retriever (text nodes + an image).

The retriever is thin: it calls ``VizRAG.retrieve``/``aretrieve`` and maps the result to
nodes (:mod:`vizrag_llamaindex.nodes`). With ``include_image`` it appends the engine's
rendering (``image_view``: ``"bottom"`` = I_bot, ``"top"`` = I_top, ``"both"``); when the mode
renders nothing (``naive``, ``text``), or its view shows nothing (a filter none of it passes),
the sub-hypergraph of the ranked chunks is rendered instead
(:func:`hyperviz_core.rag.render_passages` over the store). The engine renders only
when an image is asked for (``render=True``) or its chat model reads the renderings.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag import Document, VizRAG
    >>> rag = VizRAG(tempfile.mkdtemp(), show_progress=False)
    >>> _ = rag.insert([Document(id="d1", text="Marie Curie worked with Pierre Curie.")])
    >>> nodes = VizRAGRetriever(rag, top_k=1).retrieve("Who worked with Marie Curie?")
    >>> [type(n.node).__name__ for n in nodes], nodes[0].node.ref_doc_id
    (['VizRAGTextNode', 'VizRAGImageNode'], 'd1')
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Literal, NoReturn, get_args

from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import IndexNode, NodeWithScore, QueryBundle
from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters

from hyperviz_core.rag import (
    RetrievalResult,
    VisualContext,
    VizRAG,
    arender_passages,
    check_hops,
    check_mode,
    render_passages,
)
from hyperviz_core.rag.engine_args import refuse_unknown_options
from hyperviz_core.rag.retrieve.filter_python import python_bools
from hyperviz_core.rag.retrieve.filters import (
    ENGINE_CHUNK_ID,
    ENGINE_DOC_ID,
    ChunkFilter,
    MetadataCondition,
)

from .instrumentation import StageSpans, dispatcher
from .nodes import REF_DOC_KEY, chunk_nodes, image_node, low_score

__all__ = ["RETRIEVER_OPTIONS", "ImageView", "OptionTypeError", "VizRAGRetriever",
           "check_options", "check_top_k", "core_filter"]



ImageView = Literal["bottom", "top", "both"]
RETRIEVER_OPTIONS: tuple[str, ...] = ("top_k", "mode", "hops", "include_image", "image_view",
                                      "similarity_top_k", "callback_manager", "verbose",
                                      "objects", "filters", "doc_ids", "node_ids")
"""Keyword arguments ``as_retriever`` passes on (others belong to the query engine)."""

UNSUPPORTED_OPTIONS: tuple[str, ...] = ("vector_store_query_mode", "sparse_top_k")
"""Vector-store retriever options VizRAG cannot honour: refused, never silently dropped."""


def check_unsupported(options: dict[str, Any]) -> None:
    """Refuse vector-store options (``vector_store_query_mode``, ``sparse_top_k``) that
    VizRAG would ignore."""
    given = sorted(k for k in UNSUPPORTED_OPTIONS if not _no_op(k, options.get(k)))
    if given:
        raise ValueError(f"VizRAGRetriever does not support {', '.join(given)}: it ranks every "
                         "chunk of the store with its own fusion of BM25, vectors and the "
                         "hypergraph (pass mode='naive' for vector similarity alone)")


def _no_op(name: str, value: Any) -> bool:
    """Whether a vector-store option's value asks for nothing (None, the ``"default"``
    query mode): accepted, as code that always builds one passes it."""
    return value is None or (name == "vector_store_query_mode" and str(getattr(
        value, "value", value)) == "default")


def _ids(name: str, ids: Any) -> list[str]:
    if isinstance(ids, str) or not isinstance(ids, list | tuple | set | frozenset):
        raise TypeError(f"{name} must be a list of ids, got {ids!r:.80}")
    bad = next((i for i in ids if not isinstance(i, str)), None)
    if bad is not None:
        raise TypeError(f"{name} must hold string ids, got {bad!r:.80}")
    return sorted(ids)


def _converted(filters: MetadataFilters) -> ChunkFilter:
    parts: list[MetadataCondition | ChunkFilter] = []
    for item in filters.filters:
        if isinstance(item, MetadataFilters):
            parts.append(_converted(item))
        elif isinstance(item, MetadataFilter):
            parts.append(python_bools(  # ``published == 1`` holds for True, as in LlamaIndex
                MetadataCondition(key=item.key, op=item.operator, value=item.value)))
        else:
            raise TypeError(f"filters hold MetadataFilter or MetadataFilters objects, got "
                            f"{type(item).__name__}")
    return ChunkFilter(filters=parts, condition=filters.condition or "and")


def core_filter(filters: MetadataFilters | None = None, doc_ids: Any = None,
                node_ids: Any = None) -> ChunkFilter | None:
    """The engine's :class:`~hyperviz_core.rag.retrieve.filters.ChunkFilter` of LlamaIndex's
    retriever options (all of them hold; ``None`` when none is given, an empty
    ``MetadataFilters`` or list included): ``filters`` operator for operator (every
    ``FilterOperator``, nested ``MetadataFilters``, ``and``/``or``/``not``), ``doc_ids``: the
    nodes' ``ref_doc_id`` is one of them, ``node_ids``: the node id is one of them.

    >>> from llama_index.core.vector_stores import MetadataFilters, MetadataFilter
    >>> core_filter(MetadataFilters(filters=[MetadataFilter(key="year", value=2020,
    ...                                                     operator=">")])).filters[0].op
    '>'
    """
    parts: list[MetadataCondition | ChunkFilter] = []
    if filters is not None:
        if not isinstance(filters, MetadataFilters):
            raise TypeError(f"filters must be a llama_index MetadataFilters, got "
                            f"{type(filters).__name__}")
        if filters.filters:
            parts.append(_converted(filters))
    if doc_ids is not None and (refs := _ids("doc_ids", doc_ids)):
        parts.append(ChunkFilter(condition="or", filters=[  # a node's ref doc, else its doc
            MetadataCondition(key=REF_DOC_KEY, op="in", value=refs),
            ChunkFilter(filters=[MetadataCondition(key=REF_DOC_KEY, op="is_empty"),
                                 MetadataCondition(key=ENGINE_DOC_ID, op="in", value=refs)])]))
    if node_ids is not None and (nodes := _ids("node_ids", node_ids)):
        parts.append(MetadataCondition(key=ENGINE_CHUNK_ID, op="in", value=nodes))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 and isinstance(parts[0], ChunkFilter) \
        else ChunkFilter(filters=parts)


def check_options(options: dict[str, Any], engine_options: frozenset[str] = frozenset()
                  ) -> None:
    """Refuse what no retriever reads: vector-store options VizRAG cannot honour
    (``ValueError``, :func:`check_unsupported`) and unknown names (``TypeError`` naming them,
    with the closest option: a misspelt ``topk=3`` must not be dropped silently);
    ``engine_options``: names tolerated because a query/chat engine reads them."""
    check_unsupported(options)
    refuse_unknown_options(options, {*RETRIEVER_OPTIONS, *UNSUPPORTED_OPTIONS, *engine_options},
                           "VizRAG retriever", offered=RETRIEVER_OPTIONS)


class OptionTypeError(TypeError, ValueError):
    """A retriever option of the wrong type (``top_k="3"``): a ``TypeError``, as the LangChain
    wrapper raises, and a ``ValueError`` too, which this package raised before."""


def check_top_k(value: Any, name: str) -> int:
    """``value`` if an integer of at least 1: a ``TypeError`` (:class:`OptionTypeError`)
    naming the option ``name`` for anything else than an integer (a bool, float or string
    such as ``"3"``), a ``ValueError`` below 1 (as the LangChain wrapper's ``k``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionTypeError(f"{name} must be an integer, got {type(value).__name__} "
                              f"{value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value


def not_picklable(obj: object) -> NoReturn:
    """The ``TypeError`` of pickling or deep-copying an object that holds an open store."""
    name = type(obj).__name__
    raise TypeError(
        f"a {name} cannot be pickled or deep-copied: it holds an open VizRAG store (a "
        "database connection). Persist the index (index.storage_context.persist("
        "persist_dir=D)) and, in the other process, load it "
        "(load_index_from_storage(StorageContext.from_defaults(persist_dir=D))) and make "
        f"the {name} there")


def _engine_of(source: Any) -> VizRAG:
    engine = getattr(source, "engine", source)
    if not isinstance(engine, VizRAG):
        raise TypeError(f"VizRAGRetriever needs a VizRAG engine or VizRAGIndex, got "
                        f"{type(source).__name__}")
    return engine


class VizRAGRetriever(BaseRetriever):
    """Retrieve ranked chunks (and the hypergraph image) from a VizRAG engine.

    Args:
        index: a :class:`~vizrag_llamaindex.VizRAGIndex` or a ``VizRAG`` engine.
        top_k: number of chunks (``similarity_top_k`` is accepted as an alias).
        mode: ``vizrag``, ``text``, ``hyper-lite`` or ``naive`` (default: the engine's).
        hops: sub-hypergraph radius (default: the engine's).
        include_image: append one image node per view (default True).
        image_view: ``"bottom"`` (I_bot), ``"top"`` (I_top) or ``"both"``.
        filters, doc_ids, node_ids: return only the nodes that pass LlamaIndex
            ``MetadataFilters`` (every operator, nested), whose ``ref_doc_id`` is in
            ``doc_ids``, whose id is in ``node_ids`` (:func:`core_filter`: the engine's
            ``filters=``; the ranking is masked, not changed).
    """

    def __init__(
        self,
        index: Any,
        *,
        top_k: int | None = None,
        mode: str | None = None,
        hops: int | None = None,
        include_image: bool = True,
        image_view: ImageView = "bottom",
        similarity_top_k: int | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        objects: list[IndexNode] | None = None,
        filters: MetadataFilters | None = None,
        doc_ids: list[str] | None = None,
        node_ids: list[str] | None = None,
    ) -> None:
        self.engine = _engine_of(index)
        self._filter = core_filter(filters, doc_ids, node_ids)  # checked before anything
        self.filters, self.doc_ids, self.node_ids = filters, doc_ids, node_ids
        # a VizRAGIndex closes its store when collected: keep it alive while we are
        self._index = index if index is not self.engine else None
        if top_k is not None and similarity_top_k is not None and top_k != similarity_top_k:
            raise ValueError(f"top_k={top_k} and similarity_top_k={similarity_top_k} disagree: "
                             "give one (similarity_top_k is LlamaIndex's name for top_k)")
        k = top_k if top_k is not None else similarity_top_k
        if k is not None:
            check_top_k(k, "top_k")
        if hops is not None:
            check_hops(hops)
        if mode is not None:
            check_mode(mode)
        if not isinstance(include_image, bool):
            raise TypeError(f"include_image must be True or False, got {include_image!r}")
        if image_view not in get_args(ImageView):
            raise ValueError(f"image_view must be one of {get_args(ImageView)}, "
                             f"got {image_view!r}")
        self.top_k = k
        self.mode = mode
        self.hops = hops
        self.include_image = include_image
        self.image_view: ImageView = image_view
        self._hooks = "hooks" in inspect.signature(self.engine.retrieve).parameters
        self._warned_embedding = False
        super().__init__(callback_manager=callback_manager, verbose=verbose, objects=objects)

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        not_picklable(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> NoReturn:
        not_picklable(self)

    def __copy__(self) -> VizRAGRetriever:
        copied = type(self).__new__(type(self))
        copied.__dict__.update(self.__dict__)
        return copied

    @property
    def similarity_top_k(self) -> int | None:
        """Alias of ``top_k`` (the name LlamaIndex's vector retrievers use)."""
        return self.top_k

    @similarity_top_k.setter
    def similarity_top_k(self, value: int) -> None:
        self.top_k = check_top_k(value, "similarity_top_k")

    # ------------------------------------------------------------------ engine call
    def _kwargs(self) -> tuple[dict[str, Any], StageSpans]:
        spans = StageSpans()
        kwargs: dict[str, Any] = {"mode": self.mode, "top_k": self.top_k}
        if self.hops is not None:
            kwargs["hops"] = self.hops
        if self._filter is not None:
            kwargs["filters"] = self._filter
        if self.include_image:
            kwargs["render"] = True  # else the engine renders only for a model that reads it
            kwargs["render_views"] = (("top", "bottom") if self.image_view == "both"
                                      else (self.image_view,))  # no drawing nobody reads
        if self._hooks:
            kwargs["hooks"] = [spans]
        return kwargs, spans

    def _check_bundle(self, bundle: QueryBundle) -> None:
        """Warn once per retriever when ``bundle`` asks for other embedding text than its
        question (``custom_embedding_strs``: HyDE's ``TransformQueryEngine``): the engine
        embeds ``query_str`` itself, with the store's embedder (a precomputed
        ``embedding``, e.g. set by a vector retriever on a shared bundle, is not used
        either: it would come from another embedder)."""
        custom = bundle.custom_embedding_strs
        if self._warned_embedding or not custom or list(custom) == [bundle.query_str]:
            return
        self._warned_embedding = True
        warnings.warn(
            "VizRAGRetriever ignores QueryBundle.custom_embedding_strs (e.g. HyDE's "
            "hypothetical answer): VizRAG embeds and matches query_str only, with the "
            "store's embedder; put the text to retrieve with into query_str (said once per "
            "retriever)", UserWarning, stacklevel=6)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self._check_bundle(query_bundle)
        kwargs, _ = self._kwargs()
        result = self.engine.retrieve(query_bundle.query_str, **kwargs)
        fallback = None
        if self.include_image and result.chunks and self._needs_fallback(result):
            fallback = render_passages(result.passages(), store=self.engine.store,
                                       query=result.query, hooks=kwargs.get("hooks", ()),
                                       filters=kwargs.get("filters"))
        return self._nodes(result, fallback)

    @dispatcher.span
    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self._check_bundle(query_bundle)
        kwargs, _ = self._kwargs()
        result = await self.engine.aretrieve(query_bundle.query_str, **kwargs)
        fallback = None
        if self.include_image and result.chunks and self._needs_fallback(result):
            fallback = await arender_passages(result.passages(), store=self.engine.store,
                                              query=result.query,
                                              hooks=kwargs.get("hooks", ()),
                                              filters=kwargs.get("filters"))
        return self._nodes(result, fallback)

    def _nodes(self, result: RetrievalResult, fallback: VisualContext | None
               ) -> list[NodeWithScore]:
        """The chunk nodes, then the image nodes; the chunks carry the E#/H# of the first
        image sent (of I_top with ``image_view="top"`` or ``"both"``, of the passage
        rendering when it is the only one), not the listings' of a view never drawn."""
        sent = self._sent(result, fallback) if self.include_image else []
        nodes = chunk_nodes(result, sent[0][1].export if sent else None)
        if sent and nodes:
            score = low_score(nodes)
            nodes += [image_node(ctx, view=label, score=score) for label, ctx in sent]
        return nodes

    # ------------------------------------------------------------------ images
    def _views(self, result: RetrievalResult) -> list[tuple[str, Any]]:
        wanted = ("top", "bottom") if self.image_view == "both" else (self.image_view,)
        return [(v, result.top_view if v == "top" else result.bottom_view) for v in wanted]

    def _needs_fallback(self, result: RetrievalResult) -> bool:
        """A wanted view was not drawn, or shows nothing (a filter none of it passes)."""
        return any(view is None or view.is_empty for _, view in self._views(result))

    def _sent(self, result: RetrievalResult, fallback: VisualContext | None
              ) -> list[tuple[str, VisualContext]]:
        """(view, rendering) of each image node: one per wanted view (rendered views, else
        the passage rendering), not empty, each once; scored like the weakest chunk, they
        sort (and fuse) after the chunks they show."""
        out: list[tuple[str, VisualContext]] = []
        seen: set[str] = set()
        for name, view in self._views(result):
            if view is not None and not view.is_empty:
                ctx, label = VisualContext.from_view(view), name
            elif fallback is not None:
                ctx, label = fallback, "passages"
            else:
                continue
            if ctx.is_empty or ctx.sha256 in seen:
                continue
            seen.add(ctx.sha256)
            out.append((label, ctx))
        return out
