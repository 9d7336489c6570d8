"""OpenAI-compatible chat/vision and embedding adapters (optional extra ``vizrag[openai]``).

Works with any server speaking the OpenAI Chat Completions / Embeddings API: OpenAI,
Gemini's OpenAI endpoint, Ollama (``http://localhost:11434/v1``), vLLM, LM Studio, ...
The ``openai`` SDK is imported lazily, so the core runs without it.

* Images go as ``data:image/png;base64,...`` ``image_url`` content parts.
* ``json_mode=True`` sends ``response_format={"type": "json_object"}``.
* Errors become :class:`~hyperviz_core.rag.ProviderError`; 408/409/429/5xx,
  timeouts and connection errors are ``retryable`` (with the ``Retry-After`` hint).
  The SDK's own retries are off by default (``sdk_max_retries=0``): wrap the model in
  :class:`~hyperviz_core.rag.RetryingChatModel` (or use
  :func:`~hyperviz_core.rag.build_chat_stack`) for one retry policy.
* Token counts from the response go to :func:`~hyperviz_core.rag.report_usage`.

:func:`~.spec.parse_model_spec` reads the CLI's ``--llm`` / ``--embed`` values.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import weakref
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..vectors import normalize_rows
from .protocols import ProviderError, report_usage

__all__ = [
    "OpenAIChatModel",
    "OpenAIEmbedder",
    "map_openai_error",
    "png_data_url",
]

log = logging.getLogger(__name__)

_KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072,
               "text-embedding-ada-002": 1536, "nomic-embed-text": 768,
               "mxbai-embed-large": 1024, "all-minilm": 384}
_RETRYABLE_STATUS = {408, 409, 429}


def _openai() -> Any:
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "the OpenAI-compatible adapter needs the 'openai' package: "
            "pip install 'vizrag[openai]'"
        ) from exc
    return openai


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value)
        except ValueError:
            continue
        return seconds / 1000.0 if name.endswith("ms") else seconds
    return None


def map_openai_error(exc: BaseException) -> ProviderError:
    """Translate an ``openai`` SDK exception into a :class:`ProviderError`."""
    openai = _openai()
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(f"timeout: {exc}", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError(f"connection error: {exc}", retryable=True)
    if isinstance(exc, openai.APIStatusError):
        status = int(exc.status_code)
        retryable = status in _RETRYABLE_STATUS or status >= 500
        return ProviderError(f"HTTP {status}: {exc.message}", retryable=retryable, status=status,
                             retry_after=_retry_after(exc) if retryable else None)
    return ProviderError(f"{type(exc).__name__}: {exc}", retryable=False)


def png_data_url(png: bytes, mime: str = "image/png") -> str:
    """``data:image/png;base64,...`` URL of image bytes."""
    return f"data:{mime};base64," + base64.b64encode(bytes(png)).decode("ascii")


class _Clients:
    """Lazily created sync client and one async client per event loop."""

    def __init__(self, kwargs: dict[str, Any], client: Any, async_client: Any) -> None:
        self.kwargs = kwargs
        self._sync = client
        self._fixed_async = async_client
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )

    def sync(self) -> Any:
        if self._sync is None:
            self._sync = _openai().OpenAI(**self.kwargs)
        return self._sync

    def aio(self) -> Any:
        if self._fixed_async is not None:
            return self._fixed_async
        loop = asyncio.get_running_loop()
        client = self._async.get(loop)
        if client is None:
            client = self._async[loop] = _openai().AsyncOpenAI(**self.kwargs)
        return client


def _client_kwargs(base_url: str | None, api_key: str | None, timeout: float,
                   sdk_max_retries: int, extra: dict[str, Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"timeout": timeout, "max_retries": sdk_max_retries, **extra}
    if base_url:
        kwargs["base_url"] = base_url
    if api_key is not None:
        kwargs["api_key"] = api_key
    return kwargs


class OpenAIChatModel:
    """A :class:`ChatModel` over the OpenAI Chat Completions API (any ``base_url``).

    Args:
        model: model name on that server (``gpt-4o-mini``, ``llava``, ``gemini-2.0-flash``).
        base_url: server URL (default: the SDK's, i.e. ``OPENAI_BASE_URL`` or OpenAI).
        api_key: key (default: the SDK reads ``OPENAI_API_KEY``).
        temperature: sampling temperature (0 for reproducible extraction).
        max_tokens: completion cap (``None``: the server's default).
        timeout: seconds per request.
        image_detail: optional ``"low"``/``"high"``/``"auto"`` for image parts.
        json_mode_supported: set False for servers that reject ``response_format``.
        sdk_max_retries: the SDK's own retries (keep 0 and use the middleware).
        client / async_client: pre-built SDK clients (tests, custom HTTP settings).
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        timeout: float = 120.0,
        image_detail: Literal["low", "high", "auto"] | None = None,
        json_mode_supported: bool = True,
        sdk_max_retries: int = 0,
        client: Any = None,
        async_client: Any = None,
        client_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if client is None or async_client is None:
            _openai()  # fail early with a clear message when the extra is missing
        self.model = model
        self.model_name = model if not base_url else f"{model}@{base_url}"
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.image_detail = image_detail
        self.json_mode_supported = json_mode_supported
        self._clients = _Clients(
            _client_kwargs(base_url, api_key, timeout, sdk_max_retries, client_kwargs or {}),
            client, async_client,
        )

    def _request(self, prompt: str, images: Sequence[bytes], system: str | None,
                 json_mode: bool) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        if images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
            for img in images:
                url: dict[str, Any] = {"url": png_data_url(img)}
                if self.image_detail:
                    url["detail"] = self.image_detail
                parts.append({"type": "image_url", "image_url": url})
            messages.append({"role": "user", "content": parts})
        else:
            messages.append({"role": "user", "content": prompt})
        req: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            req["temperature"] = self.temperature
        if self.max_tokens is not None:
            req["max_tokens"] = self.max_tokens
        if json_mode and self.json_mode_supported:
            req["response_format"] = {"type": "json_object"}
        return req

    @staticmethod
    def _answer(resp: Any) -> str:
        usage = getattr(resp, "usage", None)
        if usage is not None:
            report_usage(getattr(usage, "prompt_tokens", 0) or 0,
                         getattr(usage, "completion_tokens", 0) or 0)
        choices = getattr(resp, "choices", None) or []
        if not choices:
            log.warning("provider returned no choices; treating as an empty answer")
            return ""
        message = getattr(choices[0], "message", None)
        return str(getattr(message, "content", None) or "")

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        """One chat completion (blocking)."""
        openai = _openai()
        try:
            resp = self._clients.sync().chat.completions.create(
                **self._request(prompt, images, system, json_mode))
        except openai.OpenAIError as exc:
            raise map_openai_error(exc) from exc
        return self._answer(resp)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        """One chat completion (async)."""
        openai = _openai()
        try:
            resp = await self._clients.aio().chat.completions.create(
                **self._request(prompt, images, system, json_mode))
        except openai.OpenAIError as exc:
            raise map_openai_error(exc) from exc
        return self._answer(resp)

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model_name!r})"


class OpenAIEmbedder:
    """An :class:`Embedder` over the OpenAI Embeddings API (any ``base_url``).

    Rows are re-normalised to unit length (some servers do not normalise). Empty strings
    are sent as a single space (the API rejects empty input). ``dim`` is known for common
    models or given as ``dimensions``; otherwise the first access probes the server once.
    """

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        dimensions: int | None = None,
        batch_size: int = 256,
        timeout: float = 120.0,
        sdk_max_retries: int = 0,
        client: Any = None,
        async_client: Any = None,
    ) -> None:
        if client is None or async_client is None:
            _openai()
        self.model = model
        self.dimensions = dimensions
        self.batch_size = max(1, batch_size)
        self._dim = dimensions or _KNOWN_DIMS.get(model.split(":")[0])
        self.name = f"openai:{model}" + (f":d{dimensions}" if dimensions else "")
        self._clients = _Clients(
            _client_kwargs(base_url, api_key, timeout, sdk_max_retries, {}), client, async_client
        )

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def _kwargs(self, batch: list[str]) -> dict[str, Any]:
        inputs = [t if t.strip() else " " for t in batch]
        kw: dict[str, Any] = {"model": self.model, "input": inputs, "encoding_format": "float"}
        if self.dimensions:
            kw["dimensions"] = self.dimensions
        return kw

    def _matrix(self, rows: list[list[float]], n: int) -> npt.NDArray[np.float32]:
        if not rows:
            return np.zeros((n, self._dim or 0), dtype=np.float32)
        m = normalize_rows(np.asarray(rows, dtype=np.float32))
        if self._dim is None:
            self._dim = int(m.shape[1])
        return m

    @staticmethod
    def _rows(resp: Any) -> list[list[float]]:
        data = sorted(resp.data, key=lambda d: d.index)
        return [list(d.embedding) for d in data]

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts in batches of ``batch_size`` (blocking)."""
        openai = _openai()
        rows: list[list[float]] = []
        items = [str(t) for t in texts]
        for i in range(0, len(items), self.batch_size):
            try:
                resp = self._clients.sync().embeddings.create(
                    **self._kwargs(items[i : i + self.batch_size]))
            except openai.OpenAIError as exc:
                raise map_openai_error(exc) from exc
            rows.extend(self._rows(resp))
        return self._matrix(rows, len(items))

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts in batches (async)."""
        openai = _openai()
        rows: list[list[float]] = []
        items = [str(t) for t in texts]
        for i in range(0, len(items), self.batch_size):
            try:
                resp = await self._clients.aio().embeddings.create(
                    **self._kwargs(items[i : i + self.batch_size]))
            except openai.OpenAIError as exc:
                raise map_openai_error(exc) from exc
            rows.extend(self._rows(resp))
        return self._matrix(rows, len(items))


