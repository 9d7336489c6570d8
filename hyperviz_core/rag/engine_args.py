"""What :class:`~hyperviz_core.rag.engine.VizRAG` is given, checked before anything opens.

A model name where a model object goes (``chat="openai:gpt-4o"``), a dict where a
:class:`~.retrieve.RetrievalConfig` goes, or another kind of store is a ``TypeError`` that
says what to pass; before, such a value was accepted and failed later, deep inside a query
("'str' object has no attribute 'complete'"). The retrieval and chunking options are checked
before the store opens too (:func:`check_settings`): ``top_k=0`` creates no store.

Example:
    >>> check_models(None, None, None)
    >>> try:
    ...     check_models("openai:gpt-4o", None, None)
    ... except TypeError as exc:
    ...     print(str(exc)[:60])
    chat must be a ChatModel (an object with complete() returnin
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..unitext import plain_text
from .retrieve import RetrievalConfig
from .retrieve.config import check_mode
from .store import StoreProtocol, open_store
from .store.protocol import not_a_store

__all__ = ["check_models", "check_settings", "composed", "given_settings",
           "refuse_unknown_options", "store_of"]


#: the engine's other model arguments: (name, the methods one of which it must have, what)
_PARTS = (("extractor", ("extract", "aextract"), "an Extractor (extract(chunk))"),
          ("theme_extractor", ("theme", "atheme"), "a ThemeExtractor (theme(chunk, ...))"),
          ("keyword_extractor", ("keywords", "akeywords"), "a KeywordExtractor (keywords(q))"),
          ("renderer", ("render",), "a HyperViz (render(hypergraph, ...))"))


def check_models(chat: Any, embedder: Any, config: Any, parts: tuple[Any, ...] = ()) -> None:
    """A ``TypeError`` naming the argument that is not what it must be; ``parts``: the
    extractor, theme extractor, keyword extractor and renderer (None: the default).

    >>> try:
    ...     check_models(None, None, None, ("llm", None, None, None))
    ... except TypeError as exc:
    ...     print(exc)
    extractor must be an Extractor (extract(chunk)), not the string 'llm'
    """
    for (name, methods, what), part in zip(_PARTS, parts, strict=False):
        if part is not None and not any(callable(getattr(part, m, None)) for m in methods):
            raise TypeError(f"{name} must be {what}, not {_shown(part)}")
    framework = _framework(chat)
    if chat is not None and (framework or not callable(getattr(chat, "complete", None))):
        spec = f"({chat!r})" if isinstance(chat, str) else "('provider:model')"
        how = (f"wrap it: {framework}(model)" if framework else
               f"make one with hyperviz_core.rag.providers.spec.chat_model_from_spec{spec}, "
               "or wrap a framework model (vizrag_llamaindex.LlamaIndexChatModel, "
               "vizrag_langchain.LangChainChatModel)")
        raise TypeError(f"chat must be a ChatModel (an object with complete() returning "
                        f"text), not {_shown(chat)}: {how}")
    if embedder is not None and not callable(getattr(embedder, "embed", None)):
        raise TypeError(f"embedder must be an Embedder (an object with embed()), not "
                        f"{_shown(embedder)}: make one with hyperviz_core.rag.providers.spec"
                        ".embedder_from_spec(...), or use HashingEmbedder()")
    if config is not None and not isinstance(config, RetrievalConfig):
        raise TypeError(f"config must be a RetrievalConfig, not {type(config).__name__} "
                        "(RetrievalConfig(**your_dict) makes one; or pass mode=, top_k=, "
                        "hops= directly)")


def given_settings(mode: str | None, top_k: int | None, hops: int | None) -> dict[str, Any]:
    """The engine's ``mode``/``top_k``/``hops`` that were given (None: the config's, else
    its defaults ``vizrag``/5/1), as :class:`RetrievalConfig` fields.

    >>> given_settings(None, 8, None)
    {'top_k': 8}
    """
    return {k: v for k, v in (("mode", mode), ("top_k", top_k), ("hops", hops)) if v is not None}


def check_settings(config: RetrievalConfig | None, *, mode: str | None, top_k: int | None,
                   hops: int | None, chunk_size: int, chunk_overlap: int,
                   concurrency: int) -> None:
    """A ``ValueError`` naming the option (``top_k``, ``hops``, ``chunk_size`` ...) the
    engine could not run with, raised before any store is opened or created: the
    retrieval options as :class:`RetrievalConfig` validates them, the chunk window as the
    indexer needs it (``chunk_size`` a positive integer, ``chunk_overlap`` from 0 to below
    it) and ``concurrency`` at least 1 (a ``TypeError`` for a value that is no integer).

    >>> try:
    ...     check_settings(None, mode="vizrag", top_k=0, hops=1, chunk_size=1200,
    ...                    chunk_overlap=100, concurrency=8)
    ... except ValueError as exc:
    ...     print(exc)
    VizRAG top_k: Input should be greater than or equal to 1 (got 0)
    """
    if mode is not None:
        check_mode(mode)
    base = (config or RetrievalConfig()).model_dump()
    try:
        RetrievalConfig.model_validate({**base, **given_settings(mode, top_k, hops)})
    except ValidationError as exc:
        err = exc.errors()[0]
        name = ".".join(str(part) for part in err["loc"]) or "config"
        raise ValueError(f"VizRAG {name}: {err['msg']} (got {err.get('input')!r})") from None
    for name, value, low in (("chunk_size", chunk_size, 1), ("chunk_overlap", chunk_overlap, 0),
                             ("concurrency", concurrency, 1)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"VizRAG {name} must be an integer, got "
                            f"{type(value).__name__} {value!r}")
        if value < low:
            raise ValueError(f"VizRAG {name} must be at least {low}, got {value}")
    if chunk_overlap >= chunk_size:
        raise ValueError(f"VizRAG chunk_overlap must be smaller than chunk_size ({chunk_size}), "
                         f"got {chunk_overlap}")


def _framework(model: Any) -> str | None:
    """The adapter a LlamaIndex LLM or a LangChain chat model given as it is needs (its
    ``complete`` returns a framework object, not text), else None."""
    module = type(model).__module__
    if module.startswith("llama_index"):
        return "vizrag_llamaindex.LlamaIndexChatModel"
    if module.startswith("langchain"):
        return "vizrag_langchain.LangChainChatModel"
    return None


def _shown(value: Any) -> str:
    return f"the string {value!r}" if isinstance(value, str) else type(value).__name__


def store_of(store_dir: str | Path | StoreProtocol, must_exist: bool) -> StoreProtocol:
    """The store of ``store_dir``: a path or URL opened, or an open store as it is."""
    if isinstance(store_dir, (str, Path)):
        return open_store(store_dir, must_exist=must_exist)
    if isinstance(store_dir, StoreProtocol):
        return store_dir
    raise TypeError(f"store_dir must be a path or a store implementing StoreProtocol: "
                    f"{not_a_store(store_dir)}")


def composed(query: str) -> str:
    """The query as stored text is (:func:`~hyperviz_core.unitext.plain_text`: NFC, no soft
    hyphens, ligatures spelt out); a non-string as it is (the retriever names it)."""
    return plain_text(query) if isinstance(query, str) else query


def refuse_unknown_options(given: Iterable[str], known: Iterable[str], where: str, *,
                           offered: Iterable[str] | None = None,
                           aliases: Mapping[str, str] | None = None) -> None:
    """A ``TypeError`` naming the options of ``given`` that are not ``known``, each with the
    closest of ``offered`` (default: ``known``; ``aliases`` maps a name another framework
    uses to the one asked about, ``top_k`` → ``k``): a misspelt option is never dropped.

    >>> try:
    ...     refuse_unknown_options(["topk"], ["top_k", "mode"], "retriever")
    ... except TypeError as exc:
    ...     print(exc)
    retriever got an unknown option 'topk' (did you mean 'top_k'?); its options: top_k, mode
    """
    names = list(offered if offered is not None else known)
    unknown = sorted(set(given) - set(known))
    if not unknown:
        return
    hints = []
    for name in unknown:
        close = difflib.get_close_matches((aliases or {}).get(name, name), names, n=1)
        hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise TypeError(f"{where} got an unknown option {', '.join(hints)}; its options: "
                    f"{', '.join(names)}")
