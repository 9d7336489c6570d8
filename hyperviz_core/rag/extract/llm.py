"""The language-model extractors (protocols in :mod:`.base`, offline ones in :mod:`.heuristic`).

* :class:`LLMExtractor` — chunk → entities + relation hyperedges (``Extractor``);
* :class:`LLMThemeExtractor` — chunk (+ its rendered image) → theme (``ThemeExtractor``);
* :class:`LLMKeywordExtractor` — query → keywords (``KeywordExtractor``);
* :class:`LLMDescriptionSummarizer` — shortens over-long merged descriptions.

LLM implementations never crash on bad model output (the parsers are tolerant) but do let
:class:`~hyperviz_core.rag.ProviderError` propagate: wrap the model in
:class:`~hyperviz_core.rag.RetryingChatModel` for retries, and let the indexer
decide what a failed chunk means.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Generator, Iterable, Sequence
from typing import Any, Literal, TypeVar

from ...model import Entity, normalize_key
from ..prompts import Prompts, fence
from ..providers.protocols import ChatModel
from ..types import Chunk, ChunkExtraction, ChunkTheme
from .base import Extractor, ThemeExtractor, merge_extractions
from .heuristic import HeuristicThemeExtractor, heuristic_keywords
from .parse.extraction import parse_extraction, parse_json_list, parse_json_object
from .parse.fields import answer_text, clean

__all__ = ["LLMDescriptionSummarizer", "LLMExtractor", "LLMKeywordExtractor",
           "LLMThemeExtractor", "entity_listing", "resolve_entity_names"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: a model dialogue free of I/O: yields (prompt, images), is sent each answer, and returns
#: its result; :func:`ask` and :func:`aask` hold it with a chat model, so the sync and async
#: methods share one logic
Dialogue = Generator[tuple[str, Sequence[bytes]], str, T]


def _advance(dialogue: Dialogue[T], answer: str | None) -> tuple[bool, Any]:
    """(False, the next (prompt, images)) or (True, the result) of ``dialogue`` sent
    ``answer`` (None: started). Only the dialogue's own end is caught: a ``StopIteration``
    raised by a chat model propagates as before."""
    try:
        return False, next(dialogue) if answer is None else dialogue.send(answer)
    except StopIteration as stop:
        return True, stop.value


def ask(chat: ChatModel, dialogue: Dialogue[T], system: str | None, json_mode: bool) -> T:
    """The result of ``dialogue``, each prompt answered by ``chat.complete``."""
    done, step = _advance(dialogue, None)
    while not done:
        prompt, images = step
        answer = chat.complete(prompt, images=images, system=system, json_mode=json_mode)
        done, step = _advance(dialogue, answer)
    result: T = step
    return result


async def aask(chat: ChatModel, dialogue: Dialogue[T], system: str | None,
               json_mode: bool) -> T:
    """:func:`ask` with ``chat.acomplete``."""
    done, step = _advance(dialogue, None)
    while not done:
        prompt, images = step
        answer = await chat.acomplete(prompt, images=images, system=system,
                                      json_mode=json_mode)
        done, step = _advance(dialogue, answer)
    result: T = step
    return result


# ---------------------------------------------------------------------------- helpers


def entity_listing(entities: Sequence[Entity], *, limit: int = 60, desc_chars: int = 160) -> str:
    """``- name (type): description`` lines for prompts (at most ``limit``)."""
    lines = []
    for e in entities[:limit]:
        desc = " ".join(e.description.split())
        desc = desc if len(desc) <= desc_chars else desc[: desc_chars - 1] + "…"
        lines.append(f"- {e.name} ({e.type})" + (f": {desc}" if desc else ""))
    if len(entities) > limit:
        lines.append(f"- … and {len(entities) - limit} more")
    return "\n".join(lines) or "(none)"


def resolve_entity_names(names: Iterable[str], entities: Sequence[Entity]) -> list[str]:
    """Map model-written names to entity keys: exact key first, then unique containment.

    Unknown names are dropped (and logged); the result has no duplicates.
    """
    keys = [e.key for e in entities]
    known = set(keys)
    out: list[str] = []
    for name in names:
        try:
            key = normalize_key(name)
        except ValueError:
            continue
        if key not in known:
            cands = [k for k in keys if key in k or k in key]
            if len(cands) != 1:
                log.info("model named unknown entity %r (ignored)", name)
                continue
            key = cands[0]
        if key not in out:
            out.append(key)
    return out


def _extraction_json(ext: ChunkExtraction) -> str:
    return json.dumps(
        {
            "entities": [{"name": e.name, "type": e.type} for e in ext.entities],
            "hyperedges": [{"members": h.members, "description": h.description}
                           for h in ext.hyperedges],
        },
        ensure_ascii=False,
    )


# ---------------------------------------------------------------------------- extractors
class LLMExtractor:
    """Entity + n-ary relation extraction with a chat model.

    Args:
        chat: the model (wrap it in retry/cache middleware as needed).
        prompts: prompt overrides (:class:`Prompts`); default prompts ask for JSON.
        gleaning: extra "you missed some" rounds (Hyper-RAG uses 1); each costs one call.
        mode: ``"combined"`` (one call: entities and hyperedges) or ``"two_step"``
            (entities first, then relations over the listed entities; two calls).
        json_mode: ask the provider for JSON output (``response_format``) when supported.
        fallback: extractor used when the model's answer yields no entity at all (e.g.
            a small local model that ignored the format); ``None`` keeps the empty result.
    """

    metadata_keys = ()  # its prompts read the chunk text (its fallback: its own keys)

    def __init__(
        self,
        chat: ChatModel,
        prompts: Prompts | None = None,
        gleaning: int = 0,
        *,
        mode: Literal["combined", "two_step"] = "combined",
        json_mode: bool = True,
        fallback: Extractor | None = None,
    ) -> None:
        if gleaning < 0:
            raise ValueError("gleaning must be >= 0")
        if mode not in ("combined", "two_step"):
            raise ValueError(f"unknown mode {mode!r}")
        self.chat = chat
        self.prompts = prompts or Prompts()
        self.gleaning = gleaning
        self.mode = mode
        self.json_mode = json_mode
        self.fallback = fallback

    @property
    def name(self) -> str:
        return f"llm:{self.chat.model_name}:{self.mode}:g{self.gleaning}"

    def _first_prompt(self, chunk: Chunk) -> str:
        field = "extract" if self.mode == "combined" else "extract_entities"
        return self.prompts.format(field, text=fence("TEXT", chunk.text))

    def _relations_prompt(self, chunk: Chunk, ext: ChunkExtraction) -> str:
        return self.prompts.format("extract_relations", text=fence("TEXT", chunk.text),
                                   entities=entity_listing(ext.entities))

    def _glean_prompt(self, chunk: Chunk, ext: ChunkExtraction) -> str:
        return self.prompts.format("gleaning", text=fence("TEXT", chunk.text),
                                   previous=_extraction_json(ext))

    def _finish(self, chunk: Chunk, ext: ChunkExtraction) -> ChunkExtraction | None:
        if ext.entities or self.fallback is None:
            return ext
        log.warning("model extracted nothing from chunk %s; using the fallback", chunk.id)
        return None

    def _dialogue(self, chunk: Chunk) -> Dialogue[ChunkExtraction | None]:
        ext = parse_extraction((yield self._first_prompt(chunk), ()), chunk.id)
        if self.mode == "two_step":
            rel = yield self._relations_prompt(chunk, ext), ()
            ext = merge_extractions(
                chunk.id, [ext, parse_extraction(rel, chunk.id, known_entities=ext.entities)]
            )
        for _ in range(self.gleaning):
            more = yield self._glean_prompt(chunk, ext), ()
            extra = parse_extraction(more, chunk.id, known_entities=ext.entities)
            if not extra.entities and not extra.hyperedges:
                break
            ext = merge_extractions(chunk.id, [ext, extra])
        return self._finish(chunk, ext)

    def extract(self, chunk: Chunk) -> ChunkExtraction:
        """Extract one chunk (1 call, +1 in two_step mode, +1 per gleaning round)."""
        done = ask(self.chat, self._dialogue(chunk), self.prompts.system_prompt(),
                   self.json_mode)
        if done is None:
            assert self.fallback is not None
            return self.fallback.extract(chunk)
        return done

    async def aextract(self, chunk: Chunk) -> ChunkExtraction:
        """Async twin of :meth:`extract`."""
        done = await aask(self.chat, self._dialogue(chunk), self.prompts.system_prompt(),
                          self.json_mode)
        if done is None:
            assert self.fallback is not None
            return await self.fallback.aextract(chunk)
        return done


class LLMThemeExtractor:
    """Theme + key entities from a (vision) chat model, given chunk text AND chunk image.

    One call with :attr:`Prompts.theme` (image attached when given); if its key entities
    do not resolve to entities of the chunk, one follow-up call with
    :attr:`Prompts.key_entities`; if still none (or the theme is empty), the missing parts
    come from ``fallback`` (default :class:`HeuristicThemeExtractor`). Key entities are
    always keys of ``extraction.entities``.
    """

    #: the indexer renders the chunk image only for theme extractors that want it
    wants_image = True
    metadata_keys = ()  # its prompts read the chunk text (its fallback: its own keys)

    def __init__(
        self,
        chat: ChatModel,
        prompts: Prompts | None = None,
        *,
        json_mode: bool = True,
        max_key_entities: int = 6,
        fallback: ThemeExtractor | None = None,
    ) -> None:
        self.chat = chat
        self.prompts = prompts or Prompts()
        self.json_mode = json_mode
        self.max_key_entities = max_key_entities
        self.fallback: ThemeExtractor = fallback or HeuristicThemeExtractor()

    def _theme_prompt(self, chunk: Chunk, ext: ChunkExtraction, image: bytes | None) -> str:
        return self.prompts.format(
            "theme", image=image is not None, text=fence("TEXT", chunk.text),
            entities=entity_listing(ext.entities),
        )

    def _key_prompt(
        self, chunk: Chunk, ext: ChunkExtraction, theme: str, image: bytes | None
    ) -> str:
        return self.prompts.format(
            "key_entities", image=image is not None, text=fence("TEXT", chunk.text), theme=theme,
            entities=entity_listing(ext.entities),
        )

    def _read(self, answer: str, ext: ChunkExtraction) -> tuple[str, list[str], list[str]]:
        obj = parse_json_object(answer)
        theme = obj.get("theme")
        # one clean line: no lone surrogate (a cut "\ud83d" escape) nor control character
        theme = clean(theme, 500) if isinstance(theme, (str, int, float)) else ""
        kws = parse_json_list([obj.get("keywords")] if isinstance(obj.get("keywords"), str)
                              else obj.get("keywords") or [])
        names = parse_json_list(obj.get("key_entities") or obj.get("entities") or [])
        keys = resolve_entity_names(names, ext.entities)[: self.max_key_entities]
        return theme, kws[:12], keys

    @staticmethod
    def _complete(
        chunk: Chunk, theme: str, kws: list[str], keys: list[str]
    ) -> ChunkTheme | None:
        if theme and keys:
            return ChunkTheme(chunk_id=chunk.id, theme=theme, key_entities=keys, keywords=kws)
        return None

    def _fill(
        self, fb: ChunkTheme, chunk: Chunk, theme: str, kws: list[str], keys: list[str]
    ) -> ChunkTheme:
        return ChunkTheme(
            chunk_id=chunk.id, theme=theme or fb.theme, key_entities=keys or fb.key_entities,
            keywords=kws or fb.keywords,
        )

    def _dialogue(self, chunk: Chunk, extraction: ChunkExtraction, image: bytes | None
                  ) -> Dialogue[tuple[str, list[str], list[str]]]:
        images = [image] if image is not None else []
        answer = yield self._theme_prompt(chunk, extraction, image), images
        theme, kws, keys = self._read(answer, extraction)
        if not keys and extraction.entities:
            more = yield self._key_prompt(chunk, extraction, theme, image), images
            keys = resolve_entity_names(parse_json_list(more), extraction.entities)
            keys = keys[: self.max_key_entities]
        return theme, kws, keys

    def theme(
        self, chunk: Chunk, extraction: ChunkExtraction, image: bytes | None = None
    ) -> ChunkTheme:
        """Theme of one chunk (1 call, 2 when the key entities need a follow-up)."""
        theme, kws, keys = ask(self.chat, self._dialogue(chunk, extraction, image),
                               self.prompts.system_prompt(), self.json_mode)
        done = self._complete(chunk, theme, kws, keys)
        if done is not None:
            return done
        return self._fill(self.fallback.theme(chunk, extraction, None), chunk, theme, kws, keys)

    async def atheme(
        self, chunk: Chunk, extraction: ChunkExtraction, image: bytes | None = None
    ) -> ChunkTheme:
        """Async twin of :meth:`theme`."""
        theme, kws, keys = await aask(self.chat, self._dialogue(chunk, extraction, image),
                                      self.prompts.system_prompt(), self.json_mode)
        done = self._complete(chunk, theme, kws, keys)
        if done is not None:
            return done
        fb = await self.fallback.atheme(chunk, extraction, None)
        return self._fill(fb, chunk, theme, kws, keys)


# ---------------------------------------------------------------------------- keywords


class LLMKeywordExtractor:
    """Query keywords from a chat model (a JSON list); heuristic keywords on garbage/empty."""

    def __init__(
        self, chat: ChatModel, prompts: Prompts | None = None, *, max_keywords: int = 10
    ) -> None:
        self.chat = chat
        self.prompts = prompts or Prompts()
        self.max_keywords = max_keywords

    def _prompt(self, query: str) -> str:
        return self.prompts.format("keyword", query=query, max_keywords=self.max_keywords)

    def _finish(self, query: str, answer: str) -> list[str]:
        kws = parse_json_list(answer)[: self.max_keywords]
        if not kws:
            log.warning("keyword answer unusable; falling back to heuristic keywords")
            return heuristic_keywords(query)
        return kws

    def keywords(self, query: str) -> list[str]:
        """Keywords of ``query`` (never empty for a non-empty query)."""
        if not str(query).strip():
            return []
        answer = self.chat.complete(
            self._prompt(query), system=self.prompts.system_prompt(), json_mode=False
        )
        return self._finish(query, answer)

    async def akeywords(self, query: str) -> list[str]:
        """Async twin of :meth:`keywords`."""
        if not str(query).strip():
            return []
        answer = await self.chat.acomplete(
            self._prompt(query), system=self.prompts.system_prompt(), json_mode=False
        )
        return self._finish(query, answer)


class LLMDescriptionSummarizer:
    """Merge long entity descriptions with :attr:`Prompts.summarize_description`."""

    def __init__(
        self, chat: ChatModel, prompts: Prompts | None = None, *, max_words: int = 120
    ) -> None:
        self.chat = chat
        self.prompts = prompts or Prompts()
        self.max_words = max_words

    def _prompt(self, name: str, descriptions: Sequence[str]) -> str:
        return self.prompts.format("summarize_description", name=name, max_words=self.max_words,
                                   descriptions=fence("DESCRIPTIONS", "\n".join(descriptions)))

    def summarize(self, name: str, descriptions: Sequence[str]) -> str:
        """One description; the joined input if the model returns nothing (``None``, an
        empty answer, or only a ``<think>`` block, which is never kept)."""
        out = self.chat.complete(
            self._prompt(name, descriptions), system=self.prompts.system_prompt()
        )
        return " ".join(answer_text(out).split()) or "\n".join(descriptions)

    async def asummarize(self, name: str, descriptions: Sequence[str]) -> str:
        """Async twin of :meth:`summarize`."""
        out = await self.chat.acomplete(
            self._prompt(name, descriptions), system=self.prompts.system_prompt()
        )
        return " ".join(answer_text(out).split()) or "\n".join(descriptions)
