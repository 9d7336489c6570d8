"""Extraction: chunk text → entities, relation hyperedges, themes and query keywords.

* :mod:`.heuristic` — the offline extractors (no model);
* :mod:`.llm` — the language-model extractors and the extractor protocols;
* :mod:`.parse` — the tolerant parser of model output.
"""

from __future__ import annotations

from .base import Extractor, KeywordExtractor, ThemeExtractor, merge_extractions
from .heuristic import (
    HeuristicExtractor,
    HeuristicKeywordExtractor,
    HeuristicThemeExtractor,
    heuristic_keywords,
)
from .llm import (
    LLMDescriptionSummarizer,
    LLMExtractor,
    LLMKeywordExtractor,
    LLMThemeExtractor,
    entity_listing,
    resolve_entity_names,
)

__all__ = [
    "Extractor",
    "HeuristicExtractor",
    "HeuristicKeywordExtractor",
    "HeuristicThemeExtractor",
    "KeywordExtractor",
    "LLMDescriptionSummarizer",
    "LLMExtractor",
    "LLMKeywordExtractor",
    "LLMThemeExtractor",
    "ThemeExtractor",
    "entity_listing",
    "heuristic_keywords",
    "merge_extractions",
    "resolve_entity_names",
]
