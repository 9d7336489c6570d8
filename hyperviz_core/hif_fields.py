"""Attributes read from other tools (HIF, HyperNetX) that fill model fields.

A HIF node's ``type``, ``description`` and ``source_ids`` attributes fill those fields of
:class:`~hyperviz_core.items.Entity`, and an edge's ``description``, ``keywords``, ``kind``,
``order`` and ``source_ids`` those of :class:`~hyperviz_core.items.Hyperedge`. Other tools
write values there that the fields do not take (HyperNetX writes ``"type": null`` for a
node without the property; an edge's ``kind`` may be ``"reaction"``): such a value is kept
in ``metadata`` under its own name, as any other attribute is, so export writes it back
unchanged, and the reader warns once (:class:`AttributeKeptWarning`) naming them.

Example:
    >>> from functools import partial
    >>> from hyperviz_core.items import Entity
    >>> fit = FieldFitter("HIF")
    >>> meta = {}
    >>> ent = fit.build(partial(Entity, name="carol", metadata=meta),
    ...                 {"type": None, "description": "a chemist"}, meta, "node 'carol'")
    >>> ent.type, ent.description, meta
    ('entity', 'a chemist', {'type': None})
    >>> fit.kept
    ["node 'carol' type=None"]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError

__all__ = ["EDGE_FIELDS", "ENTITY_FIELDS", "AttributeKeptWarning", "FieldFitter"]

T = TypeVar("T")

#: the attributes that fill :class:`~hyperviz_core.items.Entity` fields
ENTITY_FIELDS = ("type", "description", "source_ids")
#: the attributes that fill :class:`~hyperviz_core.items.Hyperedge` fields
EDGE_FIELDS = ("description", "keywords", "kind", "order", "source_ids")
#: how many kept attributes a warning names before it counts the rest
_NAMED = 5


class AttributeKeptWarning(UserWarning):
    """Attributes of another tool's hypergraph did not fit the model's fields (a ``type``
    that is not text, a ``kind`` other than ``relation``/``theme`` ...): they were kept in
    ``metadata`` and are written back unchanged."""


class FieldFitter:
    """Builds model objects from attributes, moving values a field refuses into metadata
    (:attr:`kept` names them); :meth:`warn` says so once per document."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.kept: list[str] = []

    def build(self, make: Callable[..., T], fields: dict[str, Any],
              meta: dict[str, Any], what: str) -> T:
        """``make(**fields)``; where pydantic refuses some of ``fields``, those move into
        ``meta`` (the dict ``make`` passes as metadata) and ``make`` runs again. Errors of
        anything else (the name, the metadata) propagate as they were."""
        try:
            return make(**fields)
        except ValidationError as exc:
            bad = sorted({str(e["loc"][0]) for e in exc.errors()
                          if e["loc"] and str(e["loc"][0]) in fields})
            if not bad:
                raise
        for f in bad:
            meta[f] = fields.pop(f)
            self.kept.append(f"{what} {f}={_short(meta[f])}")
        return make(**fields)

    def warn(self, stacklevel: int = 2) -> None:
        """One :class:`AttributeKeptWarning` naming the kept attributes, if any."""
        if not self.kept:
            return
        named = "; ".join(self.kept[:_NAMED])
        more = len(self.kept) - _NAMED
        rest = f" (and {more} more)" if more > 0 else ""
        warnings.warn(
            f"{self.source} attributes that do not fit the model's fields were kept in "
            f"metadata and are written back unchanged: {named}{rest}",
            AttributeKeptWarning, stacklevel=stacklevel + 1)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
