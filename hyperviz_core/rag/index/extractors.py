"""The indexer's extractors: the defaults, whether chunks are rendered for them, and which
chunk metadata they read.

Without a chat model the extractors are the offline heuristic ones; with one, the LLM
ones. A chunk is rendered (its picture I_Di) only for a theme extractor that wants the
image (``wants_image``; :class:`~..extract.LLMThemeExtractor` does) while
``index_visualization`` is on, unless ``render_images`` forces or forbids it.

**What an extractor reads.** An extractor may say which keys of ``chunk.metadata`` it
reads (a ``metadata_keys`` attribute; the built-in ones read ``title`` at most; an LLM
extractor's ``fallback`` reads its own keys). When both
extractors say so, a document indexed again whose text is unchanged and whose chunks keep
those keys (a moved folder changes only ``source``) is updated in place
(:func:`~.reuse.update_in_place`): nothing is extracted or embedded again. An extractor
that does not say may read any key, so such a document is extracted again.

Example:
    >>> from hyperviz_core.rag.extract import HeuristicExtractor, HeuristicThemeExtractor
    >>> metadata_keys(HeuristicExtractor(), HeuristicThemeExtractor())
    ('title',)
    >>> class Tagged:  # a custom extractor reading the document's tags
    ...     metadata_keys = ("tags",)
    >>> metadata_keys(Tagged(), HeuristicThemeExtractor())
    ('tags', 'title')
    >>> metadata_keys(object(), HeuristicThemeExtractor()) is None  # it does not say
    True
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..providers.protocols import with_async

__all__ = ["Extractors", "choose_extractors", "metadata_keys"]


class Extractors(NamedTuple):
    """What :func:`choose_extractors` settles for an indexer."""

    extractor: Any
    theme_extractor: Any
    render_images: bool
    metadata_keys: tuple[str, ...] | None
    """:func:`metadata_keys` of the two; None: a document is never updated in place."""


def choose_extractors(chat: Any, extractor: Any, theme_extractor: Any, *,
                      index_visualization: bool, render_images: bool | None,
                      prompts: Any = None) -> Extractors:
    """The extractors (the LLM ones with ``chat``, else the heuristic ones, where not
    given; both with an async side), whether chunks are rendered for the theme extractor,
    and the chunk metadata the two read."""
    from ..extract import (
        HeuristicExtractor,
        HeuristicThemeExtractor,
        LLMExtractor,
        LLMThemeExtractor,
    )

    if extractor is None:
        extractor = LLMExtractor(chat, prompts=prompts) if chat else HeuristicExtractor()
    if theme_extractor is None:
        theme_extractor = (LLMThemeExtractor(chat, prompts=prompts) if chat
                           else HeuristicThemeExtractor())
    wants = getattr(theme_extractor, "wants_image", None)
    if wants is None:
        wants = isinstance(theme_extractor, LLMThemeExtractor)
    render = (bool(wants) and index_visualization) if render_images is None else render_images
    return Extractors(with_async(extractor), with_async(theme_extractor), render,
                      metadata_keys(extractor, theme_extractor))


def metadata_keys(*extractors: Any) -> tuple[str, ...] | None:
    """The chunk metadata keys ``extractors`` read, sorted: ``title`` (a chunk is embedded
    and drawn with its title), each one's ``metadata_keys`` and those of its ``fallback``;
    None when one of them does not say (it may read any)."""
    keys = {"title"}
    for ex in extractors:
        declared = getattr(ex, "metadata_keys", None)
        fallback = getattr(ex, "fallback", None)
        more = () if fallback is None else metadata_keys(fallback)
        if declared is None or more is None:
            return None
        keys.update([declared] if isinstance(declared, str) else map(str, declared))
        keys.update(more)
    return tuple(sorted(keys))
