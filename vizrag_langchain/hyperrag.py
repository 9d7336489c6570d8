"""A live Hyper-RAG deployment as a LangChain retriever with visual context.

:class:`HyperRAGVisualRetriever` wraps a user's ``HyperRAG`` object (duck typed: anything with
an async ``aquery(query, param)``), asks it with ``QueryParam(mode="hyper",
return_type="json")`` and returns one ``Document`` per retrieved passage (``id`` = Hyper-RAG's
chunk id) plus, with ``include_image=True``, one image document: the HyperViz rendering of the
entities and hyperedges Hyper-RAG retrieved (duplicates removed), its caption as
``page_content`` and the PNG in ``metadata["image_base64"]`` (``metadata["type"] ==
"hyperviz_image"``, so :class:`~vizrag_langchain.HyperVizRunnable` and
:func:`~vizrag_langchain.create_vizrag_chain` pick it up). Passages carry ``rank`` (from 1) and
``score`` (``1 / rank``); the image document the rank after them and the weakest passage's
score, as :class:`~vizrag_langchain.VizRAGRetriever` gives its image. Hyper-RAG's fail
response (nothing retrieved) gives no document. Passages carry no ``doc_id``: Hyper-RAG's
result does not say which document a passage belongs to.

Example::

    from hyperrag import HyperRAG
    from vizrag_langchain.hyperrag import HyperRAGVisualRetriever

    retriever = HyperRAGVisualRetriever(rag=HyperRAG(working_dir="my_dir", ...),
                                        include_image=True)
    docs = retriever.invoke("Who founded the Vienna Walzer Orchestra?")
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from hyperviz_core.interop import LiveResult, aquery_hyperrag, run_sync

from .documents import IMAGE_DOC_TYPE
from .options import check_flag, check_k, refuse_unknown

__all__ = ["HyperRAGVisualRetriever"]

#: what ``invoke(query, ...)`` takes per call
_CALL_OPTIONS = ("k", "include_image")


def _image_document(live: LiveResult, ctx: Any, rank: int, score: float) -> Document:
    return Document(
        id=f"hyperviz-{ctx.sha256[:16]}",
        page_content=ctx.caption,
        metadata={
            "source": "hyper-rag", "type": IMAGE_DOC_TYPE, "view": "hyperrag",
            "rank": rank, "score": score,
            "query": live.query, "mime_type": ctx.mime_type, "image_base64": ctx.png_base64,
            "width": ctx.width, "height": ctx.height, "sha256": ctx.sha256,
            "export": ctx.export,
        },
    )


class HyperRAGVisualRetriever(BaseRetriever):
    """Retrieve passages (and the hypergraph image) from a live Hyper-RAG instance.

    Args:
        rag: the ``HyperRAG`` object (anything with an async ``aquery(query, param)``).
        param: the ``QueryParam`` to send (default ``QueryParam(mode="hyper",
            return_type="json")``; any param must keep ``return_type="json"``).
        k: at most this many passage documents (default: all Hyper-RAG returned).
        include_image: append the rendering as one extra document (the renderer runs only
            then; it does not count towards ``k``).
        include_response: also return Hyper-RAG's own answer as a document
            (``metadata["type"] == "hyperrag_response"``; not counted in ``k``).

    ``invoke(q, k=..., include_image=...)`` overrides per call. An unknown option, in the
    constructor or per call, is a ``TypeError`` naming the closest known one (``top_k`` →
    ``k``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    rag: Any = Field(exclude=True)
    param: Any = Field(default=None, exclude=True)
    k: int | None = Field(default=None, ge=1)
    include_image: bool = False
    include_response: bool = False
    renderer: Any = Field(default=None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _known_options(cls, data: Any) -> Any:
        """A misspelt option (``top_k=3``) is a ``TypeError`` saying the name (``k``), not
        pydantic's "Extra inputs are not permitted"."""
        if isinstance(data, dict):
            refuse_unknown(data, cls.model_fields, "HyperRAGVisualRetriever")
        return data

    @field_validator("k", "include_image", "include_response", mode="before")
    @classmethod
    def _strict(cls, value: Any, info: ValidationInfo) -> Any:
        """As strict as a call's options (no ``"3"`` → 3, ``True`` → 1, ``"yes"`` → True)."""
        name = str(info.field_name)
        if name == "k":
            return None if value is None else check_k(value)
        return check_flag(name, value)

    def model_post_init(self, context: Any, /) -> None:
        """Fail at construction when ``rag`` cannot be queried."""
        if not callable(getattr(self.rag, "aquery", None)):
            raise TypeError(f"{type(self.rag).__name__} has no async aquery(query, param) method")

    def _documents(self, live: LiveResult, n: int | None) -> list[Document]:
        passages = live.passages if n is None else live.passages[:n]
        docs = [Document(id=cid, page_content=text,
                         metadata={"source": "hyper-rag", "type": "chunk", "chunk_id": cid,
                                   "rank": rank, "score": 1.0 / rank, "query": live.query})
                for rank, (cid, text) in enumerate(passages, start=1)]
        if self.include_response and live.response:
            docs.append(Document(page_content=live.response,
                                 metadata={"source": "hyper-rag", "type": "hyperrag_response",
                                           "query": live.query}))
        return docs

    async def _collect(self, query: str, k: int | None, include_image: bool | None
                       ) -> list[Document]:
        n = self.k if k is None else check_k(k)  # checked before Hyper-RAG is asked
        image = (self.include_image if include_image is None
                 else check_flag("include_image", include_image))
        live = await aquery_hyperrag(self.rag, query, self.param)
        docs = self._documents(live, n)
        if image and live.hypergraph.entities:
            scores = [d.metadata["score"] for d in docs if d.metadata["type"] == "chunk"]
            ctx = await live.arender(self.renderer)
            docs.append(_image_document(live, ctx, len(docs) + 1, min(scores, default=0.0)))
        return docs

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None, include_image: bool | None = None, **other: Any,
    ) -> list[Document]:
        refuse_unknown(other, _CALL_OPTIONS, "HyperRAGVisualRetriever.invoke()")
        return run_sync(lambda: self._collect(query, k, include_image))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None, include_image: bool | None = None, **other: Any,
    ) -> list[Document]:
        refuse_unknown(other, _CALL_OPTIONS, "HyperRAGVisualRetriever.ainvoke()")
        return await self._collect(query, k, include_image)
