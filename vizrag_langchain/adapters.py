"""LangChain → VizRAG model adapters: use any LangChain chat model / embeddings in VizRAG.

    from langchain_openai import ChatOpenAI              # or ChatOllama, ChatGoogleGenAI, ...
    from vizrag_langchain import LangChainChatModel
    chat = LangChainChatModel(ChatOpenAI(model="gpt-4o-mini"))

Images travel as OpenAI-style ``image_url`` content parts with ``data:image/png;base64``
URLs in a ``HumanMessage``, which LangChain normalises for every multimodal provider.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from langchain_core.callbacks import BaseCallbackManager
from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.base import RunnableBindingBase, RunnableSequence
from langchain_core.runnables.config import ensure_config, merge_configs
from langchain_core.runnables.configurable import DynamicRunnable
from langchain_core.runnables.fallbacks import RunnableWithFallbacks

from hyperviz_core.rag.providers.dim_probe import probe_dim
from hyperviz_core.rag.providers.fingerprint import canonical, params_hash
from hyperviz_core.rag.providers.protocols import as_provider_error, report_usage
from hyperviz_core.rag.vectors import normalize_rows

__all__ = [
    "ENGINE_RUN_NAME",
    "ENGINE_TAG",
    "LangChainChatModel",
    "LangChainEmbedder",
    "chat_model_of",
    "message_text",
    "model_fingerprint",
    "model_label",
    "to_langchain_messages",
    "unwrapped",
]

_T = TypeVar("_T")

ENGINE_RUN_NAME = "vizrag_engine"
"""The run name of the engine's own chat-model calls (keywords, locate, extraction ...)
unless the adapter's ``config`` names them."""
ENGINE_TAG = "vizrag"
"""The tag of every engine chat-model call: ``astream_events(..., exclude_tags=["vizrag"])``
leaves only the answer model's events."""


def to_langchain_messages(
    prompt: str, images: Sequence[bytes] = (), system: str | None = None
) -> list[BaseMessage]:
    """The messages VizRAG sends: optional system, then a human text + image_url parts."""
    messages: list[BaseMessage] = []
    if system:
        messages.append(SystemMessage(content=system))
    if images:
        parts: list[str | dict[str, Any]] = [{"type": "text", "text": prompt}]
        for png in images:
            url = "data:image/png;base64," + base64.b64encode(bytes(png)).decode("ascii")
            parts.append({"type": "image_url", "image_url": {"url": url}})
        messages.append(HumanMessage(content=parts))
    else:
        messages.append(HumanMessage(content=prompt))
    return messages


def message_text(message: Any) -> str:
    """Plain text of a LangChain message (string content, or the text parts of a list)."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and part.get("type") == "text":
                texts.append(str(part.get("text", "")))
        return "".join(texts)
    return "" if content is None else str(content)


def unwrapped(runnable: Any, kind: type[_T]) -> _T | None:
    """The ``kind`` runnable ``runnable`` is or wraps: behind bindings (``.bind(stop=...)``,
    ``with_retry``, ``with_config``, ``with_listeners``), ``with_fallbacks`` (its first
    runnable) and ``configurable_fields`` wrappers; None when it is none of these."""
    return next((r for r in _layers(runnable) if isinstance(r, kind)), None)


def _layers(runnable: Any, config: RunnableConfig | None = None, *,
            sequences: bool = False) -> Iterator[Any]:
    """``runnable``, then what it wraps, layer by layer: a binding's ``bound``, a
    configurable's ``default`` (with a run's ``config``: the runnable it makes for that run,
    the bindings' configs merged in as they would be), a fallback's first runnable, with
    ``sequences`` a ``RunnableSequence``'s last step (what answers: ``prep | chat``); up to
    the first that is none of these."""
    while True:
        yield runnable
        if isinstance(runnable, RunnableBindingBase):
            if config is not None:
                config = merge_configs(runnable.config, config)
            runnable = runnable.bound
        elif isinstance(runnable, DynamicRunnable):
            if config is None:
                runnable = runnable.default
            else:
                runnable, config = runnable.prepare(config)
        elif isinstance(runnable, RunnableWithFallbacks):
            runnable = runnable.runnable
        elif sequences and isinstance(runnable, RunnableSequence):
            runnable = runnable.last
        else:
            return


def chat_model_of(model: Any) -> BaseChatModel | None:
    """The LangChain chat model ``model`` is or wraps (:func:`unwrapped`), or that a
    ``RunnableSequence`` ends in (``trim_messages(...) | chat``, ``RunnableLambda(f) | chat``:
    the messages reach it), else None.

    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> from langchain_core.runnables import RunnableLambda
    >>> chat = FakeListChatModel(responses=["ok"])
    >>> chat_model_of(chat.bind(stop=["x"]).with_retry()) is chat
    True
    >>> chat_model_of(RunnableLambda(lambda m: m) | chat.with_retry()) is chat
    True
    """
    return next((r for r in _layers(model, sequences=True) if isinstance(r, BaseChatModel)),
                None)


#: LangSmith parameters that only restate the class
_LS_CLASS_PARAMS = frozenset({"ls_provider", "ls_model_type"})


def model_fingerprint(model: Any, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What identifies the answers of LangChain chat model ``model`` (a runnable wrapping
    one too), as canonical JSON data: its own fields (not LangChain's common ones such as
    ``callbacks`` or ``tags``), ``_identifying_params``, ``_get_ls_params()``, the arguments
    bound by each ``bind(...)`` around it, and ``extra``; credentials (API keys, tokens,
    ``SecretStr`` values, headers, a URL's password) and values without stable text (clients,
    iterators) left out.

    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> model_fingerprint(FakeListChatModel(responses=["ok"]).bind(format="json"))["bound"]
    {'format': 'json'}
    """
    bound: dict[str, Any] = {}
    for layer in _layers(model, sequences=True):  # the path chat_model_of() takes
        if isinstance(layer, BaseChatModel):
            break
        if isinstance(layer, RunnableBindingBase):
            bound = {**dict(layer.kwargs), **bound}  # an outer binding's value wins
    inner = chat_model_of(model)
    parts: dict[str, Any] = {"bound": bound, "extra": dict(extra or {})}
    if inner is not None:
        base = set(BaseChatModel.model_fields)
        own = {name: getattr(inner, name, None) for name in type(inner).model_fields
               if name not in base}
        try:
            ls = {k: v for k, v in inner._get_ls_params().items()
                  if k not in _LS_CLASS_PARAMS}
        except Exception:  # a provider's ls params needing more than the defaults
            ls = {}
        parts.update(fields=own, identifying=dict(inner._identifying_params), ls=ls)
    plain = canonical(parts)
    return {k: v for k, v in plain.items() if v}


def model_label(model: Any, extra: Mapping[str, Any] | None = None) -> str:
    """A readable, stable name of LangChain chat model ``model`` for cache keys and usage:
    ``langchain:<name>`` (its ``model_name`` / ``model``, else its ``_llm_type``), plus
    ``#<hash>`` of :func:`model_fingerprint` when that holds anything, so another
    temperature, response format, base URL or bound argument is another cache entry. The
    same parameters give the same label in every process.

    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> model_label(FakeListChatModel(responses=["ok"]))
    'langchain:fake-list-chat-model#6594f4d3c9'
    """
    inner = chat_model_of(model) or model  # the model's name, not a wrapper's
    name = (getattr(inner, "model_name", None) or getattr(inner, "model", None)
            or getattr(inner, "_llm_type", None) or type(inner).__name__)
    fingerprint = model_fingerprint(model, extra)
    if not fingerprint:
        return f"langchain:{name}"
    return f"langchain:{name}#{params_hash(fingerprint, 10)}"


def _merged_callbacks(inherited: Any, own: Any) -> Any:
    """The callbacks of a call: those it inherits (the parent run's manager or handler
    list) plus ``own`` (the adapter's ``config["callbacks"]``), so the engine's model calls
    stay child runs of a retrieval while the adapter's handlers see them too."""
    if not inherited:
        return own
    if not own:
        return inherited
    handlers = own.handlers if isinstance(own, BaseCallbackManager) else list(own)
    if isinstance(inherited, BaseCallbackManager):
        manager = inherited.copy()
        for handler in handlers:
            manager.add_handler(handler, inherit=True)
        return manager
    return [*inherited, *(h for h in handlers if h not in inherited)]


class LangChainChatModel:
    """A VizRAG :class:`~hyperviz_core.rag.ChatModel` over a LangChain chat model.

    Args:
        chat_model: any ``BaseChatModel``, or a runnable wrapping one (``with_retry()``,
            ``bind(stop=...)``, ``with_fallbacks([...])``: :func:`chat_model_of`), called as
            it is (``invoke``/``ainvoke``), so its retries, bound arguments and fallbacks
            apply.
        model_name: name for cache keys / usage (default: :func:`model_label`: the model's
            ``model_name`` / ``model`` attribute, else its ``_llm_type``, plus ``#`` and a
            short hash of its identifying parameters, bound arguments and ``json_kwargs``,
            credentials left out; e.g. ``langchain:gpt-4o-mini#1a2b3c4d5e``).
        json_kwargs: bound with ``chat_model.bind(**json_kwargs)`` when VizRAG asks for JSON
            (e.g. ``{"response_format": {"type": "json_object"}}`` for ChatOpenAI,
            ``{"format": "json"}`` for ChatOllama); without it JSON relies on the prompt.
        config: a ``RunnableConfig`` (callbacks, tags, run name) passed to every call (its
            callbacks are added to those the call inherits: the engine's model calls stay
            child runs of a retrieval's trace), with the run name :data:`ENGINE_RUN_NAME`
            (``vizrag_engine``) unless it has one and the tag :data:`ENGINE_TAG`
            (``vizrag``) added to its tags (or to those the call inherits), so traces and
            ``astream_events`` tell the engine's own model calls from an answer model's.

    Token counts come from ``AIMessage.usage_metadata`` when the provider fills it.
    """

    def __init__(
        self,
        chat_model: BaseChatModel | Runnable[Any, Any],
        *,
        model_name: str | None = None,
        json_kwargs: Mapping[str, Any] | None = None,
        config: RunnableConfig | None = None,
    ) -> None:
        self.chat_model = chat_model
        self.json_kwargs = dict(json_kwargs or {})
        self.model_name = model_name or model_label(
            chat_model, {"json_kwargs": self.json_kwargs} if self.json_kwargs else None)
        self.config = config

    def _config(self) -> RunnableConfig:
        """``config`` with the engine's run name and tag (nothing else of it changed)."""
        config = RunnableConfig(**(self.config or {}))
        inherited = ensure_config()
        tags = config.get("tags")
        tags = list(inherited.get("tags", []) if tags is None else tags)
        if config.get("callbacks") is not None:  # added to the parent run's, not instead
            config["callbacks"] = _merged_callbacks(inherited.get("callbacks"),
                                                    config["callbacks"])
        config["tags"] = tags if ENGINE_TAG in tags else [*tags, ENGINE_TAG]
        config["run_name"] = config.get("run_name") or ENGINE_RUN_NAME
        return config

    def _runnable(self, json_mode: bool) -> Any:
        if json_mode and self.json_kwargs:
            return self.chat_model.bind(**self.json_kwargs)
        return self.chat_model

    @staticmethod
    def _finish(message: Any) -> str:
        usage = getattr(message, "usage_metadata", None)
        if isinstance(usage, Mapping):
            p, c = usage.get("input_tokens"), usage.get("output_tokens")
            if isinstance(p, int) and isinstance(c, int):
                report_usage(p, c)
        return message_text(message)

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        try:
            msg = self._runnable(json_mode).invoke(
                to_langchain_messages(prompt, images, system), config=self._config())
        except Exception as exc:
            mapped = as_provider_error(exc)
            if mapped is None:
                raise
            raise mapped from exc
        return self._finish(msg)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        try:
            msg = await self._runnable(json_mode).ainvoke(
                to_langchain_messages(prompt, images, system), config=self._config())
        except Exception as exc:
            mapped = as_provider_error(exc)
            if mapped is None:
                raise
            raise mapped from exc
        return self._finish(msg)

    def __repr__(self) -> str:
        return f"LangChainChatModel({self.model_name!r})"


class LangChainEmbedder:
    """A VizRAG :class:`~hyperviz_core.rag.Embedder` over LangChain ``Embeddings``.

    Passages, keywords and entity names go through ``embed_documents`` /
    ``aembed_documents``, the question of a retrieval through ``embed_query`` (models that
    embed queries differently — query prefixes, a query task type — rank as they should);
    vectors are L2-normalised. ``dim`` is probed with one call on first access unless given.
    """

    def __init__(
        self, embeddings: Embeddings, *, dim: int | None = None, name: str | None = None
    ) -> None:
        self.embeddings = embeddings
        self._dim = dim
        label = (getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
                 or type(embeddings).__name__)
        self.name = name or f"langchain:{label}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = probe_dim(self.name, lambda: self.embed(["dimension probe"]))
        return self._dim

    def _matrix(self, rows: Sequence[Sequence[float]]) -> npt.NDArray[np.float32]:
        if not rows:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        m = normalize_rows(np.asarray(rows, dtype=np.float32))
        if self._dim is None:
            self._dim = int(m.shape[1])
        return m

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._matrix(self.embeddings.embed_documents([str(t) for t in texts]))

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._matrix(await self.embeddings.aembed_documents([str(t) for t in texts]))

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """The search-query vector of ``text`` (``Embeddings.embed_query``)."""
        return self._matrix([self.embeddings.embed_query(str(text))])[0]
