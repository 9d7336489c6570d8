"""What identifies a framework model's answers, for cache keys: its parameters as canonical
JSON data, credentials left out, and a short stable hash of them.

The framework adapters (``vizrag_llamaindex``, ``vizrag_langchain``) name a wrapped model
``<framework>:<model name>#<hash>`` so that another temperature, response format, base URL
or bound argument is another entry of the persistent model-call cache, while a rotated API
key is the same model. The hash is the same in every process for the same parameters.

Example:
    >>> canonical({"model": "m", "api_key": "sk-1", "base_url": "http://u:pw@h/v1?token=t"})
    {'base_url': 'http://h/v1', 'model': 'm'}
    >>> params_hash({"model": "m"}) == params_hash({"model": "m"}), len(params_hash({}))
    (True, 12)
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .openai_wire import strip_userinfo
from .secrets import is_secret_name

__all__ = ["OPERATIONAL", "canonical", "is_secret_name", "params_hash"]

#: settings that do not change what a model answers (left out too)
OPERATIONAL = frozenset({"callback_manager", "callbacks", "max_retries", "timeout",
                         "request_timeout", "reuse_client", "http_client",
                         "async_http_client", "num_workers", "output_parser",
                         "query_wrapper_prompt", "messages_to_prompt", "completion_to_prompt"})


def _without_credentials(text: str) -> str:
    """A URL without its ``user:password@`` and secret-looking query parameters; other text
    as it is."""
    if "://" not in text:
        return text
    try:
        parts = urlsplit(strip_userinfo(text))
        query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                           if not is_secret_name(k)])
        return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
    except ValueError:
        return text


#: JSON-schema keys whose mapping's keys are field names, not parameters
_FIELD_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def _schema_fields(value: Any) -> Any:
    """The field map of a JSON schema: every field name kept, each field's schema
    :func:`canonical` (where secret-named keys go again)."""
    if not isinstance(value, Mapping):
        return canonical(value)
    return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda i: str(i[0]))}


def canonical(value: Any) -> Any:
    """``value`` as plain JSON data, the same in every process: mappings sorted, keys that
    may hold credentials (:func:`is_secret_name`) and :data:`OPERATIONAL` settings left out,
    a URL's credentials dropped (the field names of a JSON schema's ``properties`` are
    kept: a ``token`` field is a field, not a credential), a
    secret value (``SecretStr``, anything with
    ``get_secret_value``) left out, and an object that is not data named by its type (never
    its ``repr``, which may hold a memory address)."""
    if isinstance(value, enum.Enum):
        return canonical(value.value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return _without_credentials(value)
    if isinstance(value, Mapping):  # a secret-named key goes whole (a key, a token,
        # headers, cookies, an auth pair) — but under a JSON schema's ``properties`` the keys
        # are field names (a ``token`` field), kept
        return {str(k): _schema_fields(v) if str(k) in _FIELD_MAPS else canonical(v)
                for k, v in sorted(value.items(), key=lambda i: str(i[0]))
                if str(k) not in OPERATIONAL and not hasattr(v, "get_secret_value")
                and not is_secret_name(str(k))}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value if not hasattr(v, "get_secret_value")]
    if isinstance(value, type):  # a class given as data (a pydantic schema of an answer)
        named = f"<{value.__module__}.{value.__qualname__}>"
        try:
            schema: Any = value.model_json_schema()  # type: ignore[attr-defined]
            return {"class": named, "schema": canonical(schema)}
        except Exception:  # no schema (not pydantic, or one that cannot make it)
            return named
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def params_hash(data: Any, length: int = 12) -> str:
    """The first ``length`` hex digits of the SHA-256 of :func:`canonical` ``data``."""
    text = json.dumps(canonical(data), sort_keys=True, ensure_ascii=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:length]
