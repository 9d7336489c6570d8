"""Tolerant parsing of model output (JSON, delimited records, lists) into extractions.

:func:`parse_extraction` turns one model answer into a :class:`ChunkExtraction`;
:func:`parse_json_list`, :func:`parse_json_object` and :func:`parse_id_list` read the
answers of the keyword and selection prompts.
"""

from __future__ import annotations

from .extraction import parse_extraction
from .lists import parse_id_list, parse_json_list, parse_json_object

__all__ = ["parse_extraction", "parse_id_list", "parse_json_list", "parse_json_object"]
