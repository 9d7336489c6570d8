"""Retrieval: the named stages from the query keywords to the ranked chunks."""

from __future__ import annotations

from .config import MODES, RetrievalConfig, UnknownModeError
from .rank import RankWeights
from .retriever import Retriever

__all__ = ["MODES", "RankWeights", "RetrievalConfig", "Retriever", "UnknownModeError"]
