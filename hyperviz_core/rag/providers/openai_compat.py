"""OpenAI-compatible chat/vision and embedding adapters (optional extra ``vizrag[openai]``).

Works with any server speaking the OpenAI Chat Completions / Embeddings API: OpenAI,
Gemini's OpenAI endpoint, Ollama (``http://localhost:11434/v1``), vLLM, LM Studio, ...
The ``openai`` SDK is imported lazily, so the core runs without it.

* Images go as ``data:image/png;base64,...`` ``image_url`` content parts.
* ``json_mode=True`` sends ``response_format={"type": "json_object"}`` (unless
  ``json_mode_supported=False``); a server that refuses it with HTTP 400 naming
  ``response_format`` is asked again without it, and JSON mode stays off for the model.
* Errors become :class:`~hyperviz_core.rag.ProviderError`; 408/409/429/5xx,
  timeouts, connection errors, a body that is not JSON and a completion without choices
  are ``retryable`` (with the ``Retry-After`` hint); embeddings that do not fit the
  request (count, indices, dimension) are refused (:mod:`.openai_wire`).
* ``timeout`` is a total deadline per request (the SDK's own bounds each network read).
* The base URL's ``user:password@`` never reaches ``model_name``, logs or cache keys: the
  SDK gets the URL without it, the API key goes as ``Authorization: Bearer`` and the
  credentials as ``Proxy-Authorization: Basic``.
  The SDK's own retries are off by default (``sdk_max_retries=0``): wrap the model in
  :class:`~hyperviz_core.rag.RetryingChatModel` (or use
  :func:`~hyperviz_core.rag.build_chat_stack`) for one retry policy.
* Token counts from the response go to :func:`~hyperviz_core.rag.report_usage`.

:func:`~.spec.parse_model_spec` reads the CLI's ``--llm`` / ``--embed`` values.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import logging
import os
import weakref
from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

import numpy as np
import numpy.typing as npt

from ..vectors import normalize_rows
from .openai_wire import (
    await_with_deadline,
    call_with_deadline,
    chat_answer,
    embedding_rows,
    map_call_error,
    map_openai_error,
    server_label,
    strip_userinfo,
)
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


def _openai() -> Any:
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "the OpenAI-compatible adapter needs the 'openai' package: "
            "pip install 'vizrag[openai]'"
        ) from exc
    return openai


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


def _proxy_authorization(base_url: str) -> str | None:
    """``Basic ...`` of the base URL's ``user:password@`` (percent-decoded), or None."""
    parts = urlsplit(base_url.strip())
    if parts.username is None and parts.password is None:
        return None
    pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


def _client_kwargs(base_url: str | None, api_key: str | None, timeout: float,
                   sdk_max_retries: int, extra: dict[str, Any]) -> dict[str, Any]:
    """The SDK client's arguments. The SDK gets the base URL without its ``user:password@``
    (httpx would log it with every request and send it as ``Authorization: Basic``, in place
    of the API key's ``Bearer``); the credentials go as ``Proxy-Authorization: Basic`` (for an
    authenticating gateway in front of the server), a header nothing logs. ``default_headers``
    in ``extra`` win (e.g. an ``Authorization`` of your own for a reverse proxy)."""
    kwargs: dict[str, Any] = {"timeout": timeout, "max_retries": sdk_max_retries, **extra}
    base_url = base_url or os.environ.get("OPENAI_BASE_URL")  # the SDK would read it raw
    if base_url:
        kwargs["base_url"] = strip_userinfo(base_url)
        basic = _proxy_authorization(base_url)
        if basic is not None:
            kwargs["default_headers"] = {"Proxy-Authorization": basic,
                                         **(extra.get("default_headers") or {})}
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
        timeout: seconds per request, in total (connecting, waiting, reading the answer).
        image_detail: optional ``"low"``/``"high"``/``"auto"`` for image parts.
        json_mode_supported: set False for servers that reject ``response_format`` (also
            turned off by the first HTTP 400 that names it).
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
        self.timeout = float(timeout)
        self.where = server_label(base_url)
        # no credentials of the URL in cache keys, usage reports or retry warnings
        self.model_name = model if not base_url else f"{model}@{self.where}"
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

    def _answer(self, resp: Any) -> str:
        usage = getattr(resp, "usage", None)
        if usage is not None:
            report_usage(getattr(usage, "prompt_tokens", 0) or 0,
                         getattr(usage, "completion_tokens", 0) or 0)
        return chat_answer(resp, self.where)

    def _refuses_json_mode(self, exc: ProviderError, req: dict[str, Any]) -> bool:
        """True when ``exc`` is the server's HTTP 400 refusing the ``response_format`` that
        ``req`` sent (LM Studio: "'response_format.type' must be 'json_schema' or 'text'"):
        JSON mode is then off for this model (the prompts still ask for JSON)."""
        said = str(exc).lower()
        if ("response_format" not in req or exc.status != 400
                or ("response_format" not in said and "json_object" not in said)):
            return False
        if self.json_mode_supported:
            self.json_mode_supported = False
            log.warning("%s refuses response_format json_object (%s); asking without it "
                        "from now on", self.model_name, " ".join(said.split())[:200])
        return True

    def _create(self, req: dict[str, Any]) -> Any:
        try:
            create = functools.partial(self._clients.sync().chat.completions.create, **req)
            return call_with_deadline(create, self.timeout, self.where)
        except Exception as exc:
            raise (map_call_error(exc, self.where) or exc) from exc

    async def _acreate(self, req: dict[str, Any]) -> Any:
        try:
            return await await_with_deadline(self._clients.aio().chat.completions.create(**req),
                                             self.timeout, self.where)
        except Exception as exc:
            raise (map_call_error(exc, self.where) or exc) from exc

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        """One chat completion (blocking); asked once more without ``response_format`` when
        the server refuses it with HTTP 400."""
        _openai()
        req = self._request(prompt, images, system, json_mode)
        try:
            resp = self._create(req)
        except ProviderError as exc:
            if not self._refuses_json_mode(exc, req):
                raise
            resp = self._create(self._request(prompt, images, system, False))
        return self._answer(resp)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        """One chat completion (async); as :meth:`complete`."""
        _openai()
        req = self._request(prompt, images, system, json_mode)
        try:
            resp = await self._acreate(req)
        except ProviderError as exc:
            if not self._refuses_json_mode(exc, req):
                raise
            resp = await self._acreate(self._request(prompt, images, system, False))
        return self._answer(resp)

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model_name!r})"


class OpenAIEmbedder:
    """An :class:`Embedder` over the OpenAI Embeddings API (any ``base_url``).

    Rows are re-normalised to unit length (some servers do not normalise). Empty strings
    are sent as a single space (the API rejects empty input). ``dim`` is known for common
    models or given as ``dimensions``; otherwise the first access probes the server once.
    A response that does not hold exactly one embedding per input, all of ``dim`` numbers,
    is a :class:`ProviderError` (nothing of it is returned). ``timeout``: seconds per
    request, in total.
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
        self.timeout = float(timeout)
        self.where = server_label(base_url)
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

    def _checked(self, resp: Any, n: int) -> npt.NDArray[np.float32]:
        """The rows of one batch's response, refused unless they fit (count, dimension)."""
        m = embedding_rows(resp, n, self.where)
        width, expected = int(m.shape[1]), self._dim
        if expected is not None and width != expected:
            raise ProviderError(f"{self.name} at {self.where} returned embeddings of "
                                f"dimension {width}, expected {expected}")
        if expected is None:
            self._dim = width
        return m

    def _matrix(self, parts: list[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
        if not parts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        return normalize_rows(np.concatenate(parts) if len(parts) > 1 else parts[0])

    def _batches(self, texts: Sequence[str]) -> list[list[str]]:
        items = [str(t) for t in texts]
        return [items[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)]

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts in batches of ``batch_size`` (blocking)."""
        _openai()
        parts: list[npt.NDArray[np.float32]] = []
        for batch in self._batches(texts):
            try:
                create = functools.partial(self._clients.sync().embeddings.create,
                                           **self._kwargs(batch))
                resp = call_with_deadline(create, self.timeout, self.where)
            except Exception as exc:
                raise (map_call_error(exc, self.where) or exc) from exc
            parts.append(self._checked(resp, len(batch)))
        return self._matrix(parts)

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts in batches (async)."""
        _openai()
        parts: list[npt.NDArray[np.float32]] = []
        for batch in self._batches(texts):
            try:
                resp = await await_with_deadline(self._clients.aio().embeddings.create(
                    **self._kwargs(batch)), self.timeout, self.where)
            except Exception as exc:
                raise (map_call_error(exc, self.where) or exc) from exc
            parts.append(self._checked(resp, len(batch)))
        return self._matrix(parts)
