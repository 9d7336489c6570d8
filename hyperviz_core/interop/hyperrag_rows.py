"""The compact rows a streamed ``.hgdb`` becomes (see :mod:`.hyperrag_stream`), and the
checks that turn an attribute dict into one.

Texts stay the pickle's UTF-8 bytes (smaller than ``str``); ``get`` decodes them. Error
messages show untrusted values with :func:`~.hyperrag_pickle.shown` only.

Example:
    >>> seen = Interned()
    >>> edge_row((b"A", b"B"), {b"weight": 2}, "g.hgdb", seen)
    (('A', 'B'), EdgeRow(description=b'', keywords=b'', source_id=b'', weight=2.0))
    >>> edge_row((b"A",), {b"weight": float("nan")}, "g.hgdb", seen)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperviz_core...HyperRAGFormatError: g.hgdb: hyperedge ('A',) weight nan is not a finite ...
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .hyperrag_pickle import HyperRAGFormatError, check_weight, not_str, shown, typed

__all__ = ["EdgeRow", "Interned", "VertexRow", "edge_row", "text_of", "vertex_row"]


def text_of(value: bytes | float) -> Any:
    """A pickle text (UTF-8 bytes) as ``str``; anything else unchanged."""
    return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value


class VertexRow(NamedTuple):
    """A vertex's attributes as Hyper-RAG stores them (``<SEP>``-joined), kept as the
    pickle's UTF-8 bytes (smaller than ``str`` for every text, much smaller for text
    beyond Latin-1); :meth:`get` returns them as ``str``."""

    entity_type: bytes
    description: bytes
    source_id: bytes
    additional_properties: bytes

    def get(self, key: str, default: Any = None) -> Any:
        """Like ``dict.get`` on the attribute dict this row replaces."""
        return text_of(getattr(self, key)) if key in self._fields else default


class EdgeRow(NamedTuple):
    """A hyperedge's attributes as Hyper-RAG stores them (texts as UTF-8 bytes)."""

    description: bytes
    keywords: bytes
    source_id: bytes
    weight: float

    def get(self, key: str, default: Any = None) -> Any:
        """Like ``dict.get`` on the attribute dict this row replaces."""
        return text_of(getattr(self, key)) if key in self._fields else default


class Interned:
    """One object per vertex name (hyperedge members repeat them) and per entity type."""

    def __init__(self) -> None:
        self.names: dict[bytes, bytes] = {}  # a name's bytes -> the first such object
        self.text: dict[bytes, str] = {}  # a name's bytes -> the str the tables are keyed by
        self.types: dict[bytes, bytes] = {}

    def name(self, raw: bytes) -> str:
        found = self.text.get(raw)
        return found if found is not None else raw.decode("utf-8", "surrogatepass")


def vertex_row(raw: Any, attrs: dict[Any, Any], where: str, seen: Interned
                ) -> tuple[str, VertexRow]:
    name = seen.name(raw) if isinstance(raw, bytes) else raw
    if not isinstance(name, str) or not name.strip():
        raise HyperRAGFormatError(f"{where}: vertex name {shown(name)} is not a non-empty str")
    for k, v in attrs.items():
        if not isinstance(k, bytes) or not isinstance(v, bytes):  # a streamed text is bytes
            raise HyperRAGFormatError(
                f"{where}: {not_str(f'vertex {shown(name)}', text_of(k), text_of(v))}")
    seen.names.setdefault(raw, raw)  # later copies (hyperedge members) become this one
    seen.text.setdefault(raw, name)
    typ = attrs.get(b"entity_type", b"")
    return name, VertexRow(seen.types.setdefault(typ, typ), attrs.get(b"description", b""),
                           attrs.get(b"source_id", b""),
                           attrs.get(b"additional_properties", b""))


def edge_row(raw: Any, attrs: dict[Any, Any], where: str, seen: Interned
              ) -> tuple[tuple[str, ...], EdgeRow]:
    if not isinstance(raw, tuple) or not raw or not all(isinstance(m, bytes) for m in raw):
        named = tuple(map(text_of, raw[:5])) if isinstance(raw, tuple) else raw
        raise HyperRAGFormatError(
            f"{where}: hyperedge key {shown(named)} is not a non-empty tuple of names")
    key = tuple(seen.name(m) for m in raw)
    for k in (b"description", b"keywords", b"source_id"):
        if not isinstance(attrs.get(k, b""), bytes):
            raise HyperRAGFormatError(f"{where}: hyperedge {shown(key)} field "
                                      f"{text_of(k)!r} is not str: {typed(attrs[k])}")
    w = check_weight(text_of(attrs.get(b"weight", 1.0)), key, where)  # a text as the str
    return key, EdgeRow(attrs.get(b"description", b""), attrs.get(b"keywords", b""),
                        attrs.get(b"source_id", b""), w)
