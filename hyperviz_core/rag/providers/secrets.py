"""Which parameter and header names may hold a credential, and the credentials a failed
request sent: one rule for what a model's fingerprint leaves out
(:mod:`.fingerprint`) and what an error message masks (:func:`request_secrets`).

Example:
    >>> is_secret_name("openai_api_key"), is_secret_name("max_tokens")
    (True, False)
"""

from __future__ import annotations

import re

from ...textsafe import b64_text

__all__ = ["is_secret_header", "is_secret_name", "request_secrets"]

#: name parts that say a parameter or a header may hold a credential (the headers that may
#: carry them too)
_SECRET_PARTS = frozenset({"key", "keys", "apikey", "apikeys", "secret", "secrets", "token",
                           "tokens", "password", "passwords", "passwd", "authorization",
                           "authentication", "auth", "credential", "credentials", "cookie",
                           "cookies", "header", "headers"})
_TOKEN_PARTS = frozenset({"token", "tokens"})
#: name parts that make ``token(s)`` a count of tokens (``max_tokens``, ``num_tokens``),
#: a model setting, not a credential
_COUNT_PARTS = frozenset({"max", "min", "num", "n", "total", "count"})


def is_secret_name(name: str) -> bool:
    """Whether a parameter or header named ``name`` may hold a credential (``api_key``,
    ``x-api-key``, ``Authorization``, ``accessToken``, ``default_headers``; not
    ``keywords``, nor a count of tokens such as ``max_tokens``): one rule for what a
    fingerprint leaves out and what an error masks.

    >>> [is_secret_name(n) for n in ("openai_api_key", "default_headers", "stop_keywords",
    ...                              "accessToken", "X-Amz-Security-Token", "Keep-Alive",
    ...                              "max_tokens", "maxNewTokens")]
    [True, True, False, True, True, False, False, False]
    """
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()  # camelCase parts too
    parts = re.split(r"[^a-z0-9]+", words)
    counted = any(part in _COUNT_PARTS for part in parts)  # max_tokens is a setting
    return any(part in _SECRET_PARTS and not (counted and part in _TOKEN_PARTS)
               for part in parts)


#: what a request header's name holds anywhere when its value may be a credential
_SECRET_IN_HEADER = re.compile(r"auth|key|token|secret|cookie", re.IGNORECASE)


def is_secret_header(name: str) -> bool:
    """Whether a request header named ``name`` may carry a credential, for masking: the
    names :func:`is_secret_name` reads, and any name holding ``auth``, ``key``, ``token``,
    ``secret`` or ``cookie`` (``X-Accesskey``: masking one value too many costs nothing,
    unlike a fingerprint that leaves a setting out).

    >>> [is_secret_header(n) for n in ("X-Accesskey", "Authentication", "Keep-Alive")]
    [True, True, False]
    """
    return is_secret_name(name) or _SECRET_IN_HEADER.search(name) is not None


def request_secrets(exc: BaseException) -> set[str]:
    """The credentials the failed request of ``exc`` (an SDK or httpx error) sent, for
    :func:`server_text` to mask: its credential headers' (``Authorization``,
    ``Proxy-Authorization``, ``api-key``...) tokens, and a ``Basic`` pair's parts."""
    try:
        items = exc.request.headers.items()  # type: ignore[attr-defined]
        headers = [(str(k), str(v)) for k, v in items]
    except Exception:  # no request (httpx raises RuntimeError), or not an httpx one
        return set()
    out: set[str] = set()
    for value in (v for k, v in headers if is_secret_header(k)):
        parts = value.split()
        tokens = parts[1:] if len(parts) > 1 and parts[0].isalpha() else parts  # no scheme
        for token in tokens:
            out.update((token, *b64_text(token).split(":", 1)))
    return out
