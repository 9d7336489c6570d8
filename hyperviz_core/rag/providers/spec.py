"""Model specs: the CLI's ``--llm`` / ``--embed`` values → chat models and embedders.

``"offline"`` (the heuristic defaults), ``"openai:gpt-4o-mini"``, ``"ollama:llava"``,
``"gemini:gemini-2.0-flash"``, ``"vllm:Qwen/Qwen2-VL-7B"`` or
``"openai:my-model@http://host:8000/v1"`` (explicit base URL).

Example:
    >>> parse_model_spec("ollama:llava", env={}).base_url
    'http://localhost:11434/v1'
    >>> parse_model_spec("offline").offline
    True
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_serializer

from ...extras import install_hint
from .offline import HashingEmbedder
from .openai_compat import OpenAIChatModel, OpenAIEmbedder
from .openai_wire import strip_userinfo
from .protocols import ChatModel, Embedder

__all__ = [
    "KNOWN_PROVIDERS",
    "ModelSpec",
    "chat_model_from_spec",
    "embedder_from_spec",
    "matched_embedder",
    "parse_model_spec",
    "store_embedder",
]

#: provider → (default base URL or None for the SDK default, API-key env var, fallback key)
KNOWN_PROVIDERS: dict[str, tuple[str | None, str, str | None]] = {
    "openai": (None, "OPENAI_API_KEY", None),
    "ollama": ("http://localhost:11434/v1", "OLLAMA_API_KEY", "ollama"),
    "gemini": ("https://generativelanguage.googleapis.com/v1beta/openai/", "GEMINI_API_KEY",
               None),
    "vllm": ("http://localhost:8000/v1", "VLLM_API_KEY", "EMPTY"),
    "lmstudio": ("http://localhost:1234/v1", "LMSTUDIO_API_KEY", "lm-studio"),
}


_BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "ollama": "OLLAMA_BASE_URL",
                 "vllm": "VLLM_BASE_URL", "lmstudio": "LMSTUDIO_BASE_URL",
                 "gemini": "GEMINI_BASE_URL"}


class ModelSpec(BaseModel):
    """A parsed ``--llm`` / ``--embed`` value.

    ``api_key`` and the ``user:password@`` of ``base_url`` are read as given, but never
    shown: ``repr``/``str`` leave the key out and the URL's credentials off, and
    ``model_dump``/``model_dump_json`` write the key as ``"**********"`` and the URL without
    them.

    >>> s = ModelSpec(provider="openai", model="m", base_url="http://u:pw@h/v1", api_key="sk-1")
    >>> s
    ModelSpec(provider='openai', model='m', base_url='http://h/v1')
    >>> s.model_dump()["api_key"], s.api_key
    ('**********', 'sk-1')
    """

    provider: str
    model: str = ""
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)

    @property
    def offline(self) -> bool:
        return self.provider == "offline"

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, (strip_userinfo(value) if name == "base_url" and value else value)

    @field_serializer("base_url")
    def _url_shown(self, value: str | None) -> str | None:
        return strip_userinfo(value) if value else value

    @field_serializer("api_key")
    def _key_shown(self, value: str | None) -> str | None:
        return "**********" if value else value


_SPEC = re.compile(r"^(?P<provider>[A-Za-z][\w-]*):(?P<rest>.+)$")
#: where the base URL starts: the first ``@`` followed by a scheme (``http://``, ``HTTP://``,
#: ``htp://``: any, checked after)
_URL_START = re.compile(r"@(?=[A-Za-z][A-Za-z0-9+.\-]*://)")
#: an ``@`` part written as an address without (or with a mistyped) scheme: ``host:port``, an
#: IPv4 or IPv6 address, ``localhost``, ``api.example.com/v1``, ``https:/h``, ``http//h``:
#: refused, never read as part of the model's name (``@cf/meta/...``, ``org/model@v1.0`` are)
_URL_LIKE = re.compile(
    r"^$|^(?:https?[:/]|\[[0-9a-f:.]+\]|//)"  # a scheme mistyped (https:/h, http//h), IPv6
    r"|^(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[\w-]+(?:\.[\w-]+)*:\d+)(?:[/:?]|$)"  # host:port
    r"|^[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/",  # a host name, then a path (api.example.com/v1)
    re.IGNORECASE)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")


def _masked(spec: str) -> str:
    """``spec`` without the ``user:password@`` of its URL (for error messages), cut as the
    client's URL is (:func:`~.openai_wire.strip_userinfo`)."""
    m = _SCHEME.search(spec)
    return spec if m is None else spec[: m.start()] + strip_userinfo(spec[m.start():])


def _checked_url(spec: str, url: str) -> str:
    """``url`` if it is an http(s) URL with a host and a valid port (the scheme lower-cased),
    else a ValueError naming ``spec``."""
    bad = ValueError(f"bad model spec {_masked(spec)!r}: the part after @ must be an http:// "
                     "or https:// URL (e.g. 'openai:MODEL@http://host:8000/v1')")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise bad from None
    if (parts.scheme.lower() not in ("http", "https") or not parts.hostname
            or port == 0 or re.search(r"\s", url)):
        raise bad
    return parts.scheme.lower() + url[len(parts.scheme):]


def _model_and_url(spec: str, rest: str) -> tuple[str, str | None]:
    """The model name and explicit base URL (or None) of ``rest`` (after ``provider:``).

    A model name may hold ``@`` (Vertex-style versions: ``claude-3-5-sonnet@20240620``); the
    URL starts at the first ``@`` that a scheme follows. Without one, an ``@`` part that looks
    like an address (``host:port``, ``10.0.0.5``, ``[::1]:8000``, ``localhost``,
    ``api.example.com/v1``, ``https:/host``) is refused, so a mistyped URL never sends
    requests (and the key) to the provider's default server; any other
    (``@cf/meta/llama-3.1-8b-instruct``, ``org/model@v1.0``) is part of the name.
    """
    start = _URL_START.search(rest)
    if start is not None:
        model, url = rest[: start.start()], _checked_url(spec, rest[start.end():])
    else:
        model, url = rest, None
        if "@" in rest and _URL_LIKE.search(rest.rsplit("@", 1)[1]):
            _checked_url(spec, rest.rsplit("@", 1)[1])  # raises: no scheme
    if not model.strip():
        raise ValueError(f"bad model spec {_masked(spec)!r}: no model name before the @")
    return model, url


def parse_model_spec(spec: str | None, env: dict[str, str] | None = None) -> ModelSpec:
    """Parse ``"offline"``, ``"openai:gpt-4o-mini"``, ``"ollama:llava"``,
    ``"gemini:gemini-2.0-flash"``, ``"vllm:Qwen/Qwen2-VL-7B"`` or
    ``"openai:my-model@http://host:8000/v1"`` (explicit base URL).

    The explicit URL starts at the first ``@`` that a scheme follows (matched in any case);
    it must be ``http://`` or ``https://`` with a host (and a valid port): anything else after
    an ``@`` that looks like an address (``@htp://...``, ``@host:11434/v1``) is a ValueError,
    never part of the model name. An ``@`` part that is no address stays in the name
    (``claude-3-5-sonnet@20240620``).

    Base URL: the explicit ``@url``, else ``<PROVIDER>_BASE_URL`` from the environment
    (``OPENAI_BASE_URL``, ``OLLAMA_BASE_URL``, ...), else the provider's default (Ollama
    ``http://localhost:11434/v1``). API key: ``<PROVIDER>_API_KEY`` (``OPENAI_API_KEY``,
    ``GEMINI_API_KEY``, ...) else a placeholder for local servers that need none.
    """
    env = dict(os.environ) if env is None else env
    text = (spec or "").strip()
    if text.casefold() in ("", "offline", "none", "heuristic", "hashing"):
        return ModelSpec(provider="offline")
    m = _SPEC.match(text)
    if m is None:
        raise ValueError(
            f"bad model spec {_masked(text)!r}: use 'offline' or 'provider:model[@base_url]' "
            f"with provider in {sorted(KNOWN_PROVIDERS)}"
        )
    provider = m.group("provider").casefold()
    if provider not in KNOWN_PROVIDERS:
        raise ValueError(f"unknown provider {provider!r} in {_masked(text)!r}; known: "
                         f"{sorted(KNOWN_PROVIDERS)} (any OpenAI-compatible server works as "
                         f"'openai:MODEL@http://host/v1')")
    model, url = _model_and_url(text, m.group("rest"))
    default_url, key_env, fallback_key = KNOWN_PROVIDERS[provider]
    base_url = url or env.get(_BASE_URL_ENV[provider]) or default_url
    api_key = env.get(key_env) or fallback_key
    return ModelSpec(provider=provider, model=model, base_url=base_url, api_key=api_key)


#: providers whose servers refuse ``response_format: {"type": "json_object"}`` (LM Studio
#: accepts only ``json_schema`` or ``text``): their prompts ask for JSON, the request does not
_NO_JSON_OBJECT = frozenset({"lmstudio"})


def chat_model_from_spec(spec: str | ModelSpec | None, **kwargs: Any) -> ChatModel | None:
    """An :class:`OpenAIChatModel` for a spec, or None for ``offline``.

    Images go with ``image_detail="high"`` (the 1536x768 dual view is unreadable at "low"),
    and ``lmstudio:`` models without ``response_format``; ``kwargs`` override both.
    """
    s = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if s.offline:
        return None
    kw: dict[str, Any] = {"base_url": s.base_url, "api_key": s.api_key,
                          "image_detail": "high",
                          "json_mode_supported": s.provider not in _NO_JSON_OBJECT, **kwargs}
    return OpenAIChatModel(s.model, **kw)


def embedder_from_spec(spec: str | ModelSpec | None, **kwargs: Any) -> Embedder:
    """An :class:`OpenAIEmbedder` for a spec, or the offline :class:`HashingEmbedder`."""
    s = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if s.offline:
        return HashingEmbedder(**kwargs)
    kw: dict[str, Any] = {"base_url": s.base_url, "api_key": s.api_key, **kwargs}
    return OpenAIEmbedder(s.model, **kw)


_HASHING_NAME = re.compile(r"^hashing-v([1-5])-d(\d+)-c(\d)(\d)$")


def store_embedder(recorded: tuple[str, int] | None) -> Embedder | None:
    """The offline embedder a store recorded (``store.embedder_info()``), made again: the
    hashed embedder of that size, or the local MiniLM (``vizrag[local]``); ``None`` for
    none recorded or a provider's model (pass that one yourself: it needs a key).

    >>> store_embedder(("hashing-v5-d256-c34", 256)).name
    'hashing-v5-d256-c34'
    >>> store_embedder(("hashing-v4-d256-c34", 256))  # Hebrew's cantillation marks kept
    HashingEmbedder(dim=256, char_ngrams=(3, 4), cantillation=False)
    >>> store_embedder(("hashing-v3-d256-c34", 256))  # Arabic's ي and Persian's ی apart
    HashingEmbedder(dim=256, char_ngrams=(3, 4), alike=False)
    >>> store_embedder(("hashing-v2-d256-c34", 256))  # a run of Han one word
    HashingEmbedder(dim=256, char_ngrams=(3, 4), pairs=False)
    >>> store_embedder(("hashing-v1-d256-c34", 256))  # words cut at combining marks
    HashingEmbedder(dim=256, char_ngrams=(3, 4), marks=False)
    >>> store_embedder(("openai:text-embedding-3-small", 1536)) is None
    True
    """
    if recorded is None:
        return None
    name, dim = recorded
    hashed = _HASHING_NAME.match(name)
    if hashed and int(hashed.group(2)) == dim:
        version = int(hashed.group(1))
        return HashingEmbedder(dim=dim, char_ngrams=(int(hashed.group(3)), int(hashed.group(4))),
                               marks=version > 1, pairs=version > 2, alike=version > 3,
                               cantillation=version > 4)
    if name == "local-minilm-l6-v2":
        try:
            from ..local_embed import LocalMiniLMEmbedder

            return LocalMiniLMEmbedder(show_progress=False)
        except ImportError as exc:
            hint = str(exc) if "vizrag[local]" in str(exc) else (
                f"it needs the optional extra: {install_hint('local')}; {exc}")
            raise ValueError(f"this store was indexed with {name}: {hint}") from None
    return None


def matched_embedder(given: Embedder | None, recorded: tuple[str, int] | None
                     ) -> Embedder | None:
    """The embedder a store is opened with: ``given``, but the store's own hashed embedder
    when ``given`` is the hashed one of the size and n-grams the store recorded (its
    ``embedder_info()``) in another version, whose vectors the store holds (a store
    embedded with ``hashing-v3`` is queried and extended with v3); without ``given``, the
    one the store recorded (:func:`store_embedder`). A ``given`` of the store's own name is
    kept as it is (a subclass that counts its calls, say).

    >>> matched_embedder(HashingEmbedder(), ("hashing-v1-d512-c34", 512)).name
    'hashing-v1-d512-c34'
    >>> matched_embedder(HashingEmbedder(dim=64), ("hashing-v1-d512-c34", 512)).name
    'hashing-v5-d64-c34'
    """
    if given is None:
        return store_embedder(recorded)
    if (isinstance(given, HashingEmbedder) and recorded is not None
            and recorded[0].startswith("hashing-") and recorded[0] != given.name):
        made = store_embedder(recorded)
        if isinstance(made, HashingEmbedder) and (made.dim, made.char_ngrams) == (
                given.dim, given.char_ngrams):
            return made
    return given

