"""LlamaIndex → VizRAG model adapters: use any LlamaIndex LLM / embedding model in VizRAG.

    from llama_index.llms.openai import OpenAI          # or Ollama, Gemini, Anthropic, ...
    from vizrag_llamaindex import LlamaIndexChatModel
    chat = LlamaIndexChatModel(OpenAI(model="gpt-4o-mini"))

Images travel as ``ImageBlock(image=<png bytes>, image_mimetype="image/png")`` in the user
``ChatMessage`` next to a ``TextBlock``; the LLM must be multimodal for the vision steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.base.llms.types import ChatResponse
from llama_index.core.llms import LLM, ChatMessage, ImageBlock, MessageRole, TextBlock

from hyperviz_core.rag.providers.dim_probe import probe_dim
from hyperviz_core.rag.providers.fingerprint import params_hash
from hyperviz_core.rag.providers.protocols import as_provider_error, report_usage
from hyperviz_core.rag.vectors import normalize_rows

__all__ = ["LlamaIndexChatModel", "LlamaIndexEmbedder", "llm_fingerprint",
           "to_llamaindex_messages"]

def _parameters(llm: Any) -> Any:
    """The LLM's identifying parameters (``to_dict()``, else its pydantic fields)."""
    for read in ("to_dict", "model_dump"):
        try:
            found = getattr(llm, read)()
        except Exception:  # a model that cannot describe itself this way
            continue
        if isinstance(found, Mapping):
            return found
    return {}


def llm_fingerprint(llm: Any, extra: Mapping[str, Any] | None = None) -> str:
    """A short hash (12 hex digits) of what makes ``llm`` answer as it does: its class,
    ``metadata`` and parameters (``to_dict()``: model, temperature, ``additional_kwargs``,
    the API base ...) and ``extra`` (the JSON-mode arguments), without secrets (API keys,
    tokens, headers, an URL's password) and without retry/timeout settings; the same in
    every process for the same parameters.

    >>> from llama_index.core.llms import MockLLM
    >>> llm_fingerprint(MockLLM(max_tokens=5)) == llm_fingerprint(MockLLM(max_tokens=5))
    True
    >>> llm_fingerprint(MockLLM(max_tokens=5)) == llm_fingerprint(MockLLM(max_tokens=6))
    False
    """
    meta: Any = getattr(llm, "metadata", None)
    described = meta.model_dump() if callable(getattr(meta, "model_dump", None)) else {}
    data = {"class": f"{type(llm).__module__}.{type(llm).__qualname__}",
            "metadata": described, "parameters": _parameters(llm), "extra": dict(extra or {})}
    return params_hash(data)


def to_llamaindex_messages(
    prompt: str, images: Sequence[bytes] = (), system: str | None = None
) -> list[ChatMessage]:
    """The ``ChatMessage`` list VizRAG sends: optional system, then text + PNG image blocks."""
    messages: list[ChatMessage] = []
    if system:
        messages.append(ChatMessage(role=MessageRole.SYSTEM, content=system))
    blocks: list[Any] = [TextBlock(text=prompt)]
    blocks += [ImageBlock(image=bytes(png), image_mimetype="image/png") for png in images]
    messages.append(ChatMessage(role=MessageRole.USER, blocks=blocks))
    return messages


def _usage(resp: ChatResponse) -> None:
    raw = resp.raw
    usage: Any = None
    if isinstance(raw, Mapping):
        usage = raw.get("usage")
    elif raw is not None:
        usage = getattr(raw, "usage", None)
    extra = resp.additional_kwargs or {}
    if usage is None and "prompt_tokens" in extra:
        usage = extra
    if usage is None:
        return
    get = usage.get if isinstance(usage, Mapping) else lambda k, d=None: getattr(usage, k, d)
    p, c = get("prompt_tokens", None), get("completion_tokens", None)
    if p is None:
        p, c = get("input_tokens", None), get("output_tokens", None)
    if isinstance(p, int) and isinstance(c, int):
        report_usage(p, c)


class LlamaIndexChatModel:
    """A VizRAG :class:`~hyperviz_core.rag.ChatModel` over a LlamaIndex ``LLM``.

    Args:
        llm: any LlamaIndex LLM (``chat``/``achat`` are used).
        model_name: name for cache keys / usage (default: ``llamaindex:<llm.metadata.
            model_name>#<fingerprint>``, the fingerprint a hash of the LLM's parameters and
            ``json_kwargs``, :func:`llm_fingerprint`, so that another temperature, model
            argument, API base or JSON mode never reads the answers cached for this one;
            a name given here is used as it is).
        json_kwargs: extra keyword arguments passed to ``chat`` when VizRAG asks for JSON
            (LlamaIndex has no provider-neutral JSON switch; e.g. ``{"response_format":
            {"type": "json_object"}}`` for OpenAI). Without it JSON mode only relies on
            the prompt, which the tolerant parsers handle.

    Provider errors carrying an HTTP status (429/5xx) or named like rate-limit/timeout
    errors become ``ProviderError(retryable=True)`` for the retry middleware.
    """

    def __init__(
        self, llm: LLM, *, model_name: str | None = None,
        json_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        self.llm = llm
        self.json_kwargs = dict(json_kwargs or {})
        meta_name = getattr(getattr(llm, "metadata", None), "model_name", None)
        self.model_name = model_name or (f"llamaindex:{meta_name or type(llm).__name__}"
                                         f"#{llm_fingerprint(llm, self.json_kwargs)}")

    def _kwargs(self, json_mode: bool) -> dict[str, Any]:
        return dict(self.json_kwargs) if json_mode else {}

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        try:
            resp = self.llm.chat(to_llamaindex_messages(prompt, images, system),
                                 **self._kwargs(json_mode))
        except Exception as exc:
            mapped = as_provider_error(exc)
            if mapped is None:
                raise
            raise mapped from exc
        _usage(resp)
        return str(resp.message.content or "")

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        try:
            resp = await self.llm.achat(to_llamaindex_messages(prompt, images, system),
                                        **self._kwargs(json_mode))
        except Exception as exc:
            mapped = as_provider_error(exc)
            if mapped is None:
                raise
            raise mapped from exc
        _usage(resp)
        return str(resp.message.content or "")

    def __repr__(self) -> str:
        return f"LlamaIndexChatModel({self.model_name!r})"


def _normalise(rows: Sequence[Sequence[float]], dim: int | None) -> npt.NDArray[np.float32]:
    if not rows:
        return np.zeros((0, dim or 0), dtype=np.float32)
    return normalize_rows(np.asarray(rows, dtype=np.float32))


class LlamaIndexEmbedder:
    """A VizRAG :class:`~hyperviz_core.rag.Embedder` over a LlamaIndex embed model.

    Passages, keywords and entity names go through ``get_text_embedding_batch`` /
    ``aget_text_embedding_batch``, the question of a retrieval through
    ``get_query_embedding`` (models with query instructions rank as they should); vectors are
    L2-normalised. ``dim`` is probed with one call on first access unless given.
    """

    def __init__(
        self, embed_model: BaseEmbedding, *, dim: int | None = None, name: str | None = None
    ) -> None:
        self.embed_model = embed_model
        self._dim = dim
        label = getattr(embed_model, "model_name", None)
        if not label or label == "unknown":  # BaseEmbedding's default names no model
            label = type(embed_model).__name__
        self.name = name or f"llamaindex:{label}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = probe_dim(self.name, lambda: self.embed(["dimension probe"]))
        return self._dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = self.embed_model.get_text_embedding_batch([str(t) for t in texts])
        m = _normalise(rows, self._dim)
        if self._dim is None and m.size:
            self._dim = int(m.shape[1])
        return m

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = await self.embed_model.aget_text_embedding_batch([str(t) for t in texts])
        m = _normalise(rows, self._dim)
        if self._dim is None and m.size:
            self._dim = int(m.shape[1])
        return m

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """The search-query vector of ``text`` (``get_query_embedding``)."""
        return _normalise([self.embed_model.get_query_embedding(str(text))], self._dim)[0]
