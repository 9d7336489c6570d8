"""OpenAI-compatible chat/vision and embedding adapters (optional extra ``vizrag[openai]``).

Works with any server speaking the OpenAI Chat Completions / Embeddings API: OpenAI,
Gemini's OpenAI endpoint, Ollama (``http://localhost:11434/v1``), vLLM, LM Studio, ...
The ``openai`` SDK is imported lazily, so the core runs without it.

* Images go as ``data:image/png;base64,...`` ``image_url`` content parts.
* Images go with ``detail: "high"`` by default (``image_detail``: the 1536x768 dual view is
  unreadable at ``"low"``).
* ``json_mode=True`` sends ``response_format={"type": "json_object"}`` (unless
  ``json_mode_supported=False``); streams ask for their token counts (``stream_options:
  {"include_usage": true}``, the last chunk). A server that refuses ``response_format``,
  ``temperature`` (OpenAI's reasoning models o1, o3, o4-mini, gpt-5) or ``stream_options``
  with HTTP 400 naming it is asked again without it, and from then on.
* :meth:`OpenAIChatModel.stream` / ``astream`` stream the answer (server-sent events);
  :class:`~hyperviz_core.rag.VizRAG` ``stream()`` shows the pieces as they come; a model
  whose template opens ``<think>`` in the prompt (``think_in_prompt``) streams no reasoning.
* Errors become :class:`~hyperviz_core.rag.ProviderError`; 408/409/429/5xx,
  timeouts, connection errors, a body that is not JSON and a completion without choices
  are ``retryable`` (with the ``Retry-After`` hint); embeddings that do not fit the
  request (count, indices, dimension) are refused (:mod:`.openai_wire`).
* ``timeout`` is a total deadline per request (the SDK's own bounds each network read);
  for a stream, it bounds the wait for the stream to start, and the SDK's each read.
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

import base64
import functools
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..reasoning import reasoning_end
from ..vectors import normalize_rows
from .fingerprint import params_hash
from .openai_stream import StreamText
from .openai_wire import (
    Clients,
    await_with_deadline,
    call_with_deadline,
    chat_answer,
    embedding_rows,
    map_call_error,
    map_openai_error,
    openai_sdk,
    refused_parameter,
    server_label,
)
from .openai_wire import (
    client_kwargs as sdk_kwargs,
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


_openai = openai_sdk


def png_data_url(png: bytes, mime: str = "image/png") -> str:
    """``data:image/png;base64,...`` URL of image bytes."""
    return f"data:{mime};base64," + base64.b64encode(bytes(png)).decode("ascii")


#: the answer-changing settings whose values leave the cache-key name the plain model name
#: (the constructor's defaults)
_PLAIN_SETTINGS: dict[str, float | None] = {"temperature": 0.0, "max_tokens": None}


class OpenAIChatModel:
    """A :class:`ChatModel` over the OpenAI Chat Completions API (any ``base_url``).

    Args:
        model: model name on that server (``gpt-4o-mini``, ``llava``, ``gemini-2.0-flash``).
        base_url: server URL (default: the SDK's, i.e. ``OPENAI_BASE_URL`` or OpenAI).
        api_key: key (default: the SDK reads ``OPENAI_API_KEY``).
        temperature: sampling temperature (0 for reproducible extraction).
        max_tokens: completion cap (``None``: the server's default).
        timeout: seconds per request, in total (connecting, waiting, reading the answer).
        image_detail: ``"high"`` (default), ``"low"`` or ``"auto"`` for image parts
            (``None``: none sent, the server's default).
        json_mode_supported: set False for servers that reject ``response_format`` (also
            turned off by the first HTTP 400 that names it).
        think_in_prompt: the chat template opens ``<think>`` in the prompt (DeepSeek-R1,
            QwQ served without a reasoning parser), so replies start with reasoning and an
            unpaired ``</think>``: streams then drop it before showing anything. ``None``
            (default): set True by the first reply that shows it.
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
        image_detail: Literal["low", "high", "auto"] | None = "high",
        json_mode_supported: bool = True,
        think_in_prompt: bool | None = None,
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
        # no credentials of the URL in cache keys, usage reports or retry warnings; settings
        # that change the answers (not the defaults) in the name too: it keys the cache
        settings = {"temperature": temperature, "max_tokens": max_tokens}
        tuned = {k: v for k, v in settings.items() if v != _PLAIN_SETTINGS[k]}
        name = model if not base_url else f"{model}@{self.where}"
        self.model_name = f"{name}#{params_hash(tuned, 8)}" if tuned else name
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.image_detail = image_detail
        self.json_mode_supported = json_mode_supported
        self.think_in_prompt = think_in_prompt
        self.stream_usage = True  # streams ask for token counts, until a server refuses
        self._clients = Clients(
            sdk_kwargs(base_url, api_key, timeout, sdk_max_retries, client_kwargs or {}),
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
        text = chat_answer(resp, self.where)
        if self.think_in_prompt is None and reasoning_end(text) >= 0:
            self.think_in_prompt = True  # its streams drop that reasoning from now on
        return text

    def _drop_refused(self, exc: ProviderError, req: dict[str, Any]) -> bool:
        """True when ``exc`` is the server's HTTP 400 refusing an optional parameter of
        ``req`` (:func:`~.openai_wire.refused_parameter`), left out of this model's requests
        from now on."""
        what = refused_parameter(exc, req)
        if what == "response_format":
            self.json_mode_supported = False
        elif what == "temperature":
            self.temperature = None
        elif what == "stream_options":
            self.stream_usage = False
        else:
            return False
        log.warning("%s refuses %s (%s); asking without it from now on", self.model_name,
                    what, " ".join(str(exc).split())[:200])
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

    def _sent(self, req: dict[str, Any], stream: bool) -> dict[str, Any]:
        """``req`` as sent: a stream's with ``"stream": true`` and ``include_usage`` (unless
        refused: OpenAI sends the token counts, in the last chunk, only when asked)."""
        if not stream:
            return req
        usage = {"stream_options": {"include_usage": True}} if self.stream_usage else {}
        return {**req, "stream": True, **usage}

    def _asked(self, prompt: str, images: Sequence[bytes], system: str | None,
               json_mode: bool, stream: bool = False) -> Any:
        """The SDK's answer to the request, asked again without a parameter the server
        refuses (:meth:`_drop_refused`; at most once per parameter)."""
        _openai()
        for _ in range(4):  # each refusal turns one of 3 parameters off
            req = self._sent(self._request(prompt, images, system, json_mode), stream)
            try:
                return self._create(req)
            except ProviderError as exc:
                if not self._drop_refused(exc, req):
                    raise
        raise AssertionError("unreachable: each refusal turns one of 3 parameters off")

    async def _aasked(self, prompt: str, images: Sequence[bytes], system: str | None,
                      json_mode: bool, stream: bool = False) -> Any:
        """Async :meth:`_asked`."""
        _openai()
        for _ in range(4):
            req = self._sent(self._request(prompt, images, system, json_mode), stream)
            try:
                return await self._acreate(req)
            except ProviderError as exc:
                if not self._drop_refused(exc, req):
                    raise
        raise AssertionError("unreachable: each refusal turns one parameter off")

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        """One chat completion (blocking); asked once more without ``response_format`` or
        ``temperature`` when the server refuses it with HTTP 400."""
        return self._answer(self._asked(prompt, images, system, json_mode))

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        """One chat completion (async); as :meth:`complete`."""
        return self._answer(await self._aasked(prompt, images, system, json_mode))

    def stream(self, prompt: str, *, images: Sequence[bytes] = (),
               system: str | None = None) -> Iterator[str]:
        """The answer in pieces as the server streams them (the request of :meth:`complete`
        with ``"stream": true``; ``<think>`` blocks are left to the caller). A stream that
        ends without any text is an empty-answer :class:`ProviderError`. A model that opens
        ``<think>`` in the prompt (``think_in_prompt``) streams nothing of its reasoning."""
        events = self._asked(prompt, images, system, False, stream=True)
        text = StreamText(self.where, bool(self.think_in_prompt))
        try:
            for chunk in events:
                if piece := text.piece(chunk):
                    yield piece
        except Exception as exc:
            raise (map_call_error(exc, self.where) or exc) from exc
        finally:
            events.close()
        if tail := text.end():
            yield tail

    async def astream(self, prompt: str, *, images: Sequence[bytes] = (),
                      system: str | None = None) -> AsyncIterator[str]:
        """Async :meth:`stream`."""
        events = await self._aasked(prompt, images, system, False, stream=True)
        text = StreamText(self.where, bool(self.think_in_prompt))
        try:
            async for chunk in events:
                if piece := text.piece(chunk):
                    yield piece
        except Exception as exc:
            raise (map_call_error(exc, self.where) or exc) from exc
        finally:
            await events.close()
        if tail := text.end():
            yield tail

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
        self._clients = Clients(
            sdk_kwargs(base_url, api_key, timeout, sdk_max_retries, {}), client, async_client
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
