"""What comes back from an OpenAI-compatible server, checked: errors, answers, embeddings.

Used by :mod:`.openai_compat`. Everything a server may get wrong becomes a
:class:`~hyperviz_core.rag.ProviderError` with a one-line message naming the server (its URL
without user name or password):

* SDK exceptions (:func:`map_openai_error`); 408/409/429/5xx, timeouts and connection errors
  are ``retryable``, with the ``Retry-After`` hint in seconds (a number or an HTTP date);
* a body that is not JSON (retryable, for chat and embeddings) or not the expected object;
* an unusable base URL (a bad port, no http(s) scheme): non-retryable;
* what a server said (an error body) is quoted by :func:`server_text` (one line, cut,
  credentials masked);
* a chat completion without choices (retryable) or with an empty answer;
* embeddings whose count, indices or dimension do not fit the request (never stored).

Calls get a total deadline (:func:`call_with_deadline`, :func:`await_with_deadline`): the
SDK's ``timeout`` bounds each network read, so a server that trickles its answer would
otherwise hold a call for as long as it keeps sending.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import json
import logging
import os
import re
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import numpy as np
import numpy.typing as npt

from ...extras import install_hint
from ...textsafe import ERROR_TEXT_LIMIT, server_text
from .protocols import CutOffReply, ProviderError
from .retry import parse_retry_after  # (public here too)
from .secrets import is_secret_name, request_secrets  # (public here too)

__all__ = [
    "ERROR_TEXT_LIMIT",
    "Clients",
    "await_with_deadline",
    "call_with_deadline",
    "chat_answer",
    "client_kwargs",
    "embedding_rows",
    "is_secret_name",
    "map_openai_error",
    "openai_sdk",
    "parse_retry_after",
    "refused_parameter",
    "request_secrets",
    "server_label",
    "server_text",
    "strip_userinfo",
]

log = logging.getLogger(__name__)

T = TypeVar("T")
_RETRYABLE_STATUS = {408, 409, 429}
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)[^/?#]*@")  # to the last @, as urlsplit


def strip_userinfo(url: str) -> str:
    """``url`` without the ``user:password@`` part (safe to log, print or use as a key).

    >>> strip_userinfo("http://bob:s3cret@host:8000/v1")
    'http://host:8000/v1'
    >>> strip_userinfo("http://token@host/v1")
    'http://host/v1'
    >>> strip_userinfo("http://bob:p@ss@host/v1")  # an unescaped @ in the password
    'http://host/v1'
    """
    return _USERINFO.sub(r"\1", url.strip())



def server_label(base_url: str | None) -> str:
    """The server a client talks to, for messages: its base URL without credentials."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    return strip_userinfo(url)


def _retry_after(exc: Any) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms), 0.0) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    return None if value is None else parse_retry_after(str(value))


def _openai() -> Any:
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            f"the OpenAI-compatible adapter needs the 'openai' package: {install_hint('openai')}"
        ) from exc
    return openai


openai_sdk = _openai


class Clients:
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


def client_kwargs(base_url: str | None, api_key: str | None, timeout: float,
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


def map_openai_error(exc: BaseException, where: str | None = None) -> ProviderError:
    """Translate an ``openai`` SDK exception into a :class:`ProviderError` (``where``: the
    server, named in timeout and connection errors)."""
    openai = _openai()
    at = f" ({where})" if where else ""
    said = server_text(getattr(exc, "message", exc), request_secrets(exc))
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(f"timeout{at}: {said}", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError(f"connection error{at}: {said}", retryable=True)
    if isinstance(exc, openai.APIStatusError):
        status = int(exc.status_code)
        retryable = status in _RETRYABLE_STATUS or status >= 500
        return ProviderError(f"HTTP {status}{at}: {said}", retryable=retryable, status=status,
                             retry_after=_retry_after(exc) if retryable else None)
    return ProviderError(f"{type(exc).__name__}: {said}", retryable=False)


def _bad_url(exc: BaseException, where: str) -> ProviderError | None:
    """A non-retryable ProviderError when ``exc`` (or its cause) says the base URL cannot be
    used (``httpx.InvalidURL``: a bad port or character; ``UnsupportedProtocol``: no
    http(s) scheme): retrying the same URL cannot help."""
    import httpx

    for err in (exc, exc.__cause__):
        if isinstance(err, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
            return ProviderError(f"unusable base URL {where}: {server_text(err)}",
                                 retryable=False)
    return None


def map_call_error(exc: BaseException, where: str) -> ProviderError | None:
    """The :class:`ProviderError` of an exception raised by an SDK call, or None when it is
    not the provider's fault (a bug must surface as itself). An unusable base URL is a
    non-retryable ProviderError (a provider failure, as a refused connection is)."""
    if isinstance(exc, ProviderError):
        return exc
    bad_url = _bad_url(exc, where)
    if bad_url is not None:
        return bad_url
    if isinstance(exc, json.JSONDecodeError):
        return ProviderError(f"invalid JSON response from {where}", retryable=True)
    if isinstance(exc, _openai().OpenAIError):
        return map_openai_error(exc, where)
    if isinstance(exc, ValueError):  # the SDK's own checks of a parsed body
        return ProviderError(f"invalid response from {where}: {server_text(exc)}",
                             retryable=False)
    import httpx

    if isinstance(exc, httpx.TransportError):  # raised reading a stream: the peer went away
        return ProviderError(f"connection error ({where}): {server_text(exc)}", retryable=True)
    return None


def _timeout_error(where: str, seconds: float) -> ProviderError:
    return ProviderError(f"timeout: no complete response from {where} within {seconds:g} s",
                         retryable=True)


def call_with_deadline(call: Callable[[], T], seconds: float, where: str) -> T:
    """``call()`` (a blocking SDK request) bounded by a total deadline of ``seconds``.

    The request runs in a daemon thread; past the deadline a retryable ``ProviderError``
    is raised and the thread is abandoned (it ends when the server stops sending or a
    network read times out, and never keeps the process alive).
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    ctx = contextvars.copy_context()
    worker = threading.Thread(target=ctx.run, args=(run,), daemon=True,
                              name="vizrag-provider-call")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise _timeout_error(where, seconds)
    if "error" in box:
        if isinstance(box["error"], _openai().APITimeoutError):  # the SDK's own read timeout
            # (set to the same seconds) may end the call just before the deadline does: the
            # same error either way
            raise _timeout_error(where, seconds) from box["error"]
        raise box["error"]
    value: T = box["value"]
    return value


async def await_with_deadline(call: Awaitable[T], seconds: float, where: str) -> T:
    """``await call`` (an async SDK request), cancelled after ``seconds`` in total."""
    try:
        return await asyncio.wait_for(call, seconds)
    except TimeoutError:
        raise _timeout_error(where, seconds) from None
    except _openai().APITimeoutError as exc:  # the SDK's own timeout: the same error
        raise _timeout_error(where, seconds) from exc


def chat_answer(resp: Any, where: str) -> str:
    """The text of a chat completion; no choices or an empty answer is a ProviderError
    (retryable unless the model stopped for length or a content filter); one cut off at the
    token limit is a :class:`~.protocols.CutOffReply` (used, never cached), with a warning."""
    if isinstance(resp, (str, bytes)) or not hasattr(resp, "choices"):
        raise ProviderError(f"invalid response from {where}: not a chat completion",
                            retryable=True)
    choices = resp.choices or []
    if not choices:
        raise ProviderError(f"no answer from {where}: the response has no choices",
                            retryable=True)
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    reason = getattr(choices[0], "finish_reason", None)
    if isinstance(content, str) and content.strip():
        if reason != "length":
            return content
        log.warning("the answer from %s was cut off at the token limit (finish_reason "
                    "length): used, not cached; raise max_tokens", where)
        return CutOffReply(content)
    said = server_text(reason, limit=40)
    raise ProviderError(f"empty answer from {where} (finish_reason {said})",
                        retryable=reason in (None, "stop"))


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _ordered(data: list[Any], n: int, where: str) -> list[Any]:
    """The embeddings of ``data`` in input order: indices must be exactly ``0..n-1`` (or
    all absent, taken in the order sent)."""
    if len(data) != n:
        raise ProviderError(f"got {len(data)} embeddings for {n} inputs from {where}")
    index = [_field(d, "index") for d in data]
    if all(i is None for i in index):
        return [_field(d, "embedding") for d in data]
    if sorted(i for i in index if isinstance(i, int)) != list(range(n)):
        raise ProviderError(f"embedding indices from {where} are not 0..{n - 1} "
                            f"(got {server_text(sorted(index, key=str)[:5], limit=80)}...)")
    by_index = {i: _field(d, "embedding") for i, d in zip(index, data, strict=True)}
    return [by_index[i] for i in range(n)]


def embedding_rows(resp: Any, n: int, where: str) -> npt.NDArray[np.float32]:
    """The ``(n, width)`` float32 matrix of an embeddings response to ``n`` inputs.

    The response must hold exactly ``n`` embeddings (indices ``0..n-1``), all of one
    width, of finite numbers; anything else is a non-retryable ProviderError, but for a body
    that is not JSON (the SDK hands back its text: a proxy's HTML error page) or holds no
    ``data`` list, which is retryable, as for a chat completion.
    """
    if isinstance(resp, (str, bytes)):
        raise ProviderError(f"invalid embeddings response from {where}: not JSON",
                            retryable=True)
    data = _field(resp, "data")
    if not isinstance(data, list):
        raise ProviderError(f"invalid embeddings response from {where}: no data list",
                            retryable=True)
    rows = _ordered(data, n, where)
    widths = {len(r) if isinstance(r, list) else -1 for r in rows}
    if len(widths) != 1 or min(widths) < 1:
        raise ProviderError(f"embeddings from {where} are not lists of one length "
                            f"(lengths {sorted(widths)})")
    try:
        with np.errstate(over="ignore"):  # out of float32's range: refused just below
            m = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError):
        raise ProviderError(f"embeddings from {where} hold non-numbers") from None
    if not np.isfinite(m).all():
        raise ProviderError(f"embeddings from {where} hold NaN or infinite values")
    return m


#: the optional request parameters a server may refuse with HTTP 400, with the words of its
#: message that name each (LM Studio: "'response_format.type' must be 'json_schema' or
#: 'text'"; OpenAI's reasoning models: "Unsupported value: 'temperature' ..."; servers that
#: predate ``stream_options``)
_REFUSABLE = (("response_format", ("response_format", "json_object")),
              ("temperature", ("temperature",)), ("stream_options",
                                                  ("stream_options", "include_usage")))


def refused_parameter(exc: ProviderError, req: dict[str, Any]) -> str | None:
    """The optional parameter of ``req`` that ``exc``, a server's HTTP 400, refuses
    (``response_format``, ``temperature`` or ``stream_options``), else None.

    >>> err = ProviderError("HTTP 400: Unsupported value: 'temperature'", status=400)
    >>> refused_parameter(err, {"temperature": 0.0}), refused_parameter(err, {})
    ('temperature', None)
    """
    if exc.status != 400:
        return None
    low = " ".join(str(exc).split()).lower()
    for name, words in _REFUSABLE:
        if name in req and any(w in low for w in words):
            return name
    return None
