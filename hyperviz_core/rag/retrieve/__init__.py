"""Retrieval: the named stages from the query keywords to the ranked chunks."""

from __future__ import annotations

from .config import MAX_HOPS, MODES, RetrievalConfig, UnknownModeError, check_hops, check_mode
from .filters import ChunkFilter, MetadataCondition
from .rank import RankWeights
from .retriever import Retriever

__all__ = ["MAX_HOPS", "MODES", "ChunkFilter", "MetadataCondition", "RankWeights",
           "RetrievalConfig", "Retriever", "UnknownModeError", "check_hops", "check_mode"]
