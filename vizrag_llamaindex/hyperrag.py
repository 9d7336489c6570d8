"""A live Hyper-RAG deployment as a LlamaIndex retriever with visual context.

:class:`HyperRAGVisualRetriever` wraps a user's ``HyperRAG`` object (duck typed: anything with
an async ``aquery(query, param)``), asks it with ``QueryParam(mode="hyper",
return_type="json")`` and returns one ``VizRAGTextNode`` per retrieved passage (id = Hyper-RAG's
chunk id, ``metadata["rank"]`` from 1, score ``1 / rank``) plus one image node: the HyperViz
rendering of the entities and hyperedges Hyper-RAG retrieved (duplicates removed), captioned
with the textual hyperedge list and scored like the weakest passage, as
:class:`~vizrag_llamaindex.VizRAGRetriever` scores its image (a ``SimilarityPostprocessor``
that keeps the passages keeps it). Hyper-RAG's fail response (nothing retrieved) gives no
node. The passages carry no ``doc_id``: Hyper-RAG's result does not say which document a
passage belongs to.

Example::

    from hyperrag import HyperRAG
    from vizrag_llamaindex.hyperrag import HyperRAGVisualRetriever

    retriever = HyperRAGVisualRetriever(HyperRAG(working_dir="my_hyperrag_dir", ...))
    nodes = retriever.retrieve("Who founded the Vienna Walzer Orchestra?")
    # TextNodes (passages) + a VizRAGImageNode (PNG base64 + caption)
    engine = RetrieverQueryEngine.from_args(retriever, llm=vision_llm, multimodal=True)
"""

from __future__ import annotations

import hashlib
from typing import Any

from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from hyperviz_core.interop import LiveResult, aquery_hyperrag, run_sync
from hyperviz_core.rag.engine_args import refuse_unknown_options

from .nodes import VizRAGTextNode, image_node, low_score
from .retriever import check_top_k

__all__ = ["HyperRAGVisualRetriever"]

_META_HIDDEN = ["source", "chunk_id", "rank", "type"]
_OPTIONS = ("param", "top_k", "include_image", "include_response", "renderer",
            "callback_manager", "verbose")
#: other retrievers' names of ``top_k``
_TOP_K_ALIASES = {"similarity_top_k": "top_k", "k": "top_k"}


class HyperRAGVisualRetriever(BaseRetriever):
    """Retrieve passages and the hypergraph image from a live Hyper-RAG instance.

    Args:
        rag: the ``HyperRAG`` object (anything with an async ``aquery(query, param)``).
        param: the ``QueryParam`` to send (default ``QueryParam(mode="hyper",
            return_type="json")``; any param must keep ``return_type="json"``).
        top_k: keep at most this many passages (default: all Hyper-RAG returned).
        include_image: append the rendering as an image node (default True); the renderer
            runs only then.
        include_response: also return Hyper-RAG's own answer as a text node.
        renderer: a :class:`~hyperviz_core.render.HyperViz` (default: dual view,
            congestion control on).

    An unknown option is a ``TypeError`` naming the closest known one
    (``similarity_top_k`` → ``top_k``).
    """

    def __init__(
        self,
        rag: Any,
        *,
        param: Any = None,
        top_k: int | None = None,
        include_image: bool = True,
        include_response: bool = False,
        renderer: Any = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        **other: Any,
    ) -> None:
        refuse_unknown_options(other, _OPTIONS, "HyperRAGVisualRetriever",
                               aliases=_TOP_K_ALIASES)
        if not callable(getattr(rag, "aquery", None)):
            raise TypeError(f"{type(rag).__name__} has no async aquery(query, param) method")
        if top_k is not None:
            check_top_k(top_k, "top_k")
        for name, flag in (("include_image", include_image),
                           ("include_response", include_response)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} must be True or False, got {flag!r}")
        self.rag = rag
        self.param = param
        self.top_k = top_k
        self.include_image = include_image
        self.include_response = include_response
        self.renderer = renderer
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def _text_nodes(self, live: LiveResult) -> list[NodeWithScore]:
        passages = live.passages if self.top_k is None else live.passages[: self.top_k]
        out = []
        for rank, (cid, text) in enumerate(passages, start=1):
            node = VizRAGTextNode(id_=cid, text=text,
                                  metadata={"source": "hyper-rag", "chunk_id": cid, "rank": rank},
                                  excluded_llm_metadata_keys=_META_HIDDEN,
                                  excluded_embed_metadata_keys=_META_HIDDEN,
                                  query_metadata_keys=["rank"])
            out.append(NodeWithScore(node=node, score=1.0 / rank))
        return out

    def _response_node(self, live: LiveResult, score: float | None) -> NodeWithScore:
        rid = "hyperrag-response-" + hashlib.sha256(live.response.encode()).hexdigest()[:16]
        node = VizRAGTextNode(id_=rid, text=live.response,
                              metadata={"source": "hyper-rag", "type": "hyperrag_response"},
                              excluded_llm_metadata_keys=_META_HIDDEN,
                              excluded_embed_metadata_keys=_META_HIDDEN)
        return NodeWithScore(node=node, score=score)

    async def _collect(self, query: str) -> list[NodeWithScore]:
        """The passages, Hyper-RAG's answer, then the image: the last two scored like the
        weakest passage (:func:`~vizrag_llamaindex.nodes.low_score`, as VizRAG's retriever
        scores its image), so a score cut-off that keeps the passages keeps them."""
        live = await aquery_hyperrag(self.rag, query, self.param)
        nodes = self._text_nodes(live)
        score = low_score(nodes)
        if self.include_response and live.response:
            nodes.append(self._response_node(live, score))
        if self.include_image and live.hypergraph.entities:
            ctx = await live.arender(self.renderer)
            nodes.append(image_node(ctx, view="hyperrag", score=score))
        return nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return run_sync(lambda: self._collect(query_bundle.query_str))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await self._collect(query_bundle.query_str)
