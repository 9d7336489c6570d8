"""Load Hyper-RAG's ``.hgdb`` pickle safely: a restricted unpickler plus a shape check.

Hyper-RAG stores its hypergraph with ``hyperdb.HypergraphDB.save``: a protocol-4 pickle of a
plain ``dict`` with ``v_data`` (vertex name → attribute dict), ``e_data`` (sorted member tuple
→ attribute dict) and ``v_inci`` (a ``collections.defaultdict(set)``). The only globals such a
file names are ``collections.defaultdict`` and ``builtins.set``, so :class:`RestrictedUnpickler`
resolves exactly those two and refuses every other global *before* anything is called: a
crafted file naming ``os.system`` (or ``builtins.eval``, ``subprocess.Popen`` ...) raises
:class:`HyperRAGFormatError` without executing it. Persistent ids and extension codes are
refused as well. Before it runs, :func:`~.hyperrag_scan.scan_pickle` walks the opcodes and
refuses nested tuples and excessive memo sharing (a tuple's hash recurses in C: a deeply
nested one crashes the interpreter, a shared one takes forever). After loading,
:func:`load_hgdb` checks the structure field by field (hyperedge weights must be finite
numbers). Error messages show untrusted values with :func:`shown` (short, never a full
``repr``).

Example:
    >>> import io, pickle, collections
    >>> data = {"v_data": {"A": {"entity_type": "PERSON"}}, "e_data": {},
    ...         "v_inci": collections.defaultdict(set)}
    >>> restricted_loads(pickle.dumps(data, protocol=4))["v_data"]
    {'A': {'entity_type': 'PERSON'}}
    >>> try:
    ...     restricted_loads(pickle.dumps(print))
    ... except HyperRAGFormatError as exc:
    ...     print(str(exc)[:55])
    pickle: pickle refers to builtins.print, which a Hyper-
"""

from __future__ import annotations

import collections
import io
import itertools
import math
import pickle
import reprlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .hyperrag_files import HyperRAGFormatError, read_hgdb_bytes
from .hyperrag_scan import PickleShapeError, scan_pickle

__all__ = [
    "ALLOWED_GLOBALS",
    "EXPAND_BASE",
    "EXPAND_PER_BYTE",
    "HgdbData",
    "HyperRAGFormatError",
    "RestrictedUnpickler",
    "canonical_global",
    "check_expansion",
    "check_weight",
    "key_sample",
    "load_hgdb",
    "not_str",
    "parse_hgdb",
    "restricted_loads",
    "shown",
    "typed",
]

#: The only globals a Hyper-RAG ``.hgdb`` pickle uses.
ALLOWED_GLOBALS: dict[tuple[str, str], Any] = {
    ("collections", "defaultdict"): collections.defaultdict,
    ("builtins", "set"): set,
}

#: Python 2's module names that pickle protocols 0-2 write for Python 3's (``pickle.dumps(...,
#: protocol=2)`` writes ``__builtin__.set``); only modules of :data:`ALLOWED_GLOBALS`
_COMPAT_MODULES = {"__builtin__": "builtins"}


def canonical_global(module: str, name: str) -> tuple[str, str]:
    """A global's ``(module, name)`` with a Python 2 module spelling (what protocols 0-2
    write) mapped to Python 3's, as ``pickle``'s ``fix_imports`` does: look it up in
    :data:`ALLOWED_GLOBALS` (nothing else is ever resolved).

    >>> canonical_global("__builtin__", "set"), canonical_global("os", "system")
    (('builtins', 'set'), ('os', 'system'))
    """
    return _COMPAT_MODULES.get(module, module), name


#: the text a ``.hgdb`` may hold once each string is counted at every use (the memo lets
#: a file store a string once and reference it from every record): this many characters
#: plus :data:`EXPAND_PER_BYTE` per byte of the file. The fixture holds 0.93 per byte
#: (names and ``source_id`` fetched from the memo included); a 2 MB description shared by
#: 10,000 records would expand 2.3 MB into 20 GB of text.
EXPAND_BASE = 1 << 24
EXPAND_PER_BYTE = 16


class _ShortRepr(reprlib.Repr):
    """``reprlib`` with no path to a full ``repr`` (its default for unknown types)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother, self.maxlong = 2, 60, 60, 40
        self.maxtuple = self.maxlist = self.maxdict = self.maxset = self.maxfrozenset = 4

    def repr_int(self, x: int, level: int) -> str:
        return super().repr_int(x, level) if x.bit_length() < 128 else \
            f"<int of {x.bit_length()} bits>"

    def repr_instance(self, x: Any, level: int) -> str:
        if isinstance(x, bytes | bytearray):
            return repr(bytes(x[: self.maxstring])) + ("..." if len(x) > self.maxstring else "")
        if x is None or isinstance(x, float | bool | complex):
            return repr(x)
        return f"<{type(x).__name__}>"


_SHORT = _ShortRepr()


def shown(value: Any) -> str:
    """A short ``repr`` of an untrusted value for an error message (about 80 characters at
    most, two levels deep): never the full ``repr`` of a huge, deep or self-sharing object.

    >>> shown("x" * 1000)[:12], shown((((("deep",),),),)), shown(10 ** 5000)
    ("'xxxxxxxxxxx", '((...),)', '<int of 16610 bits>')
    """
    try:
        return _SHORT.repr(value)
    except (ValueError, RecursionError, TypeError):
        return f"<{type(value).__name__}>"


def typed(value: Any) -> str:
    """An untrusted value shown briefly with its type, for an error message.

    >>> typed("5.0"), typed(None)
    ("'5.0' (str)", 'None (NoneType)')
    """
    return f"{shown(value)} ({type(value).__name__})"


def not_str(owner: str, key: Any, value: Any) -> str:
    """Why attribute ``key`` = ``value`` of ``owner`` (a vertex) is not ``str -> str``.

    >>> not_str("vertex 'A'", "description", None)
    "vertex 'A' attribute 'description' is not str -> str: its value is None (NoneType)"
    """
    if not isinstance(key, str):
        return f"{owner} attribute {typed(key)} is not str -> str: its name is not a str"
    return f"{owner} attribute {key!r} is not str -> str: its value is {typed(value)}"


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that resolves only :data:`ALLOWED_GLOBALS` and nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        found = ALLOWED_GLOBALS.get(canonical_global(module, name))
        if found is None:
            allowed = ", ".join(f"{m}.{n}" for m, n in sorted(ALLOWED_GLOBALS))
            raise HyperRAGFormatError(
                f"pickle refers to {module[:80]}.{name[:80]}, which a Hyper-RAG .hgdb file never "
                f"contains (allowed: {allowed}); refusing to load it"
            )
        return found

    def persistent_load(self, pid: Any) -> Any:
        raise HyperRAGFormatError("pickle uses persistent ids; not a Hyper-RAG .hgdb file")


def _unpickle(stream: IO[bytes], what: str) -> Any:
    try:
        data = stream.read()
        scan_pickle(data)  # no nested tuple, no runaway sharing: what C would hash forever
        return RestrictedUnpickler(io.BytesIO(data)).load()
    except HyperRAGFormatError as exc:
        raise HyperRAGFormatError(f"{what}: {exc}") from None
    except PickleShapeError as exc:
        raise HyperRAGFormatError(f"{what}: {exc}; not a Hyper-RAG .hgdb file") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, KeyError,
            AttributeError, IndexError, MemoryError, OverflowError, RecursionError) as exc:
        raise HyperRAGFormatError(
            f"{what}: not a readable pickle ({type(exc).__name__}: {str(exc)[:200]}); "
            "truncated or not a Hyper-RAG .hgdb file"
        ) from None


def restricted_loads(data: bytes, what: str = "pickle") -> Any:
    """Unpickle ``data`` with :class:`RestrictedUnpickler` after the opcode scan (no
    structure check)."""
    return _unpickle(io.BytesIO(data), what)


@dataclass
class HgdbData:
    """The validated content of a ``.hgdb`` file.

    ``vertices``: name → attributes (all ``str``); ``edges``: sorted member tuple →
    attributes (``description``/``keywords``/``source_id`` ``str``, ``weight`` ``float``).
    """

    vertices: dict[str, dict[str, str]]
    edges: dict[tuple[str, ...], dict[str, Any]]
    incidence: dict[str, set[tuple[str, ...]]] = field(default_factory=dict)


_EDGE_STR = ("description", "keywords", "source_id")


def _check_vertices(raw: Any, what: str) -> dict[str, dict[str, str]]:
    if not isinstance(raw, dict):
        raise HyperRAGFormatError(f"{what}: 'v_data' is a {type(raw).__name__}, expected dict")
    for name, attrs in raw.items():
        if not isinstance(name, str) or not name.strip():
            raise HyperRAGFormatError(
                f"{what}: vertex name {shown(name)} is not a non-empty str")
        if not isinstance(attrs, dict):
            raise HyperRAGFormatError(f"{what}: vertex {shown(name)} has no attribute dict")
        for k, v in attrs.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise HyperRAGFormatError(f"{what}: {not_str(f'vertex {shown(name)}', k, v)}")
    return raw


def _check_edges(raw: Any, what: str) -> dict[tuple[str, ...], dict[str, Any]]:
    if not isinstance(raw, dict):
        raise HyperRAGFormatError(f"{what}: 'e_data' is a {type(raw).__name__}, expected dict")
    for key, attrs in raw.items():
        if not isinstance(key, tuple) or not key or not all(isinstance(m, str) for m in key):
            raise HyperRAGFormatError(
                f"{what}: hyperedge key {shown(key)} is not a non-empty tuple of names")
        if not isinstance(attrs, dict):
            raise HyperRAGFormatError(f"{what}: hyperedge {shown(key)} has no attribute dict")
        for k in _EDGE_STR:
            if not isinstance(attrs.get(k, ""), str):
                raise HyperRAGFormatError(
                    f"{what}: hyperedge {shown(key)} field {k!r} is not str: {typed(attrs[k])}")
        check_weight(attrs.get("weight", 1.0), key, what)
    return raw


def check_weight(w: Any, key: Any, what: str) -> float:
    """A hyperedge weight as ``float``; :class:`HyperRAGFormatError` unless it is a finite
    number (Hyper-RAG parses weights with ``^[-+]?[0-9]*\\.?[0-9]+$``, so NaN and infinities
    never come from it: refused, not mapped)."""
    if isinstance(w, bool) or not isinstance(w, int | float):
        raise HyperRAGFormatError(
            f"{what}: hyperedge {shown(key)} weight {shown(w)} is not a number: it is a "
            f"{type(w).__name__}")
    try:
        value = float(w)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise HyperRAGFormatError(f"{what}: hyperedge {shown(key)} weight {shown(w)} is not a "
                                  "finite number (NaN or infinite)")
    return value


def _text_len(attrs: Any) -> int:
    """Characters (UTF-8 bytes for a streamed row) of the text an attribute dict or row
    materialises once imported: its texts, and every text but ``source_id`` again for each
    further chunk that ``source_id`` lists (the store keeps a copy of a record's description,
    properties and keywords per chunk mention)."""
    if isinstance(attrs, dict):
        values, src = attrs.values(), attrs.get("source_id")
    else:  # a VertexRow / EdgeRow
        values, src = attrs, attrs.source_id
    total = sum(len(v) for v in values if isinstance(v, str | bytes))
    if isinstance(src, str):
        total += src.count("<SEP>") * (total - len(src))
    elif isinstance(src, bytes):
        total += src.count(b"<SEP>") * (total - len(src))
    return total


def expanded_text(data: HgdbData, stop: int) -> int:
    """The text of all names and attributes, each string counted at every use and each
    record's texts once per source chunk (counting ends past ``stop``): what mapping and
    storing the records materialises."""
    total = 0
    for name, attrs in data.vertices.items():
        total += len(name) + _text_len(attrs)
        if total > stop:
            return total
    for key, attrs in data.edges.items():
        total += sum(map(len, key)) + _text_len(attrs)
        if total > stop:
            return total
    return total


def check_expansion(data: HgdbData, size: int, what: str) -> None:
    """Refuse a ``.hgdb`` of ``size`` bytes whose texts expand beyond :data:`EXPAND_BASE` +
    :data:`EXPAND_PER_BYTE` × ``size`` characters once imported (:func:`expanded_text`:
    shared strings at every use, a record's texts once per source chunk)."""
    limit = EXPAND_BASE + EXPAND_PER_BYTE * size
    if expanded_text(data, limit) > limit:
        raise HyperRAGFormatError(
            f"{what}: its texts, each shared string counted at every use and a record's "
            f"texts once per chunk of its source_id, exceed the {limit:,} characters allowed "
            f"for a {size:,}-byte file (EXPAND_BASE + EXPAND_PER_BYTE per byte); Hyper-RAG "
            "never shares long texts nor sources a long one in that many chunks")


def key_sample(obj: dict[Any, Any]) -> list[str]:
    """A few of an untrusted dict's keys, shown briefly and sorted (for an error)."""
    return sorted(shown(k) for k in itertools.islice(obj, 50))[:5]


def parse_hgdb(obj: Any, what: str = ".hgdb") -> HgdbData:
    """Check the structure of an unpickled ``.hgdb`` object and wrap it."""
    if not isinstance(obj, dict) or not {"v_data", "e_data"} <= set(obj):
        got = key_sample(obj) if isinstance(obj, dict) else type(obj).__name__
        raise HyperRAGFormatError(
            f"{what}: not a Hypergraph-DB pickle (expected a dict with 'v_data', 'e_data', "
            f"'v_inci'; got {got})"
        )
    vertices = _check_vertices(obj["v_data"], what)
    edges = _check_edges(obj["e_data"], what)
    inci = obj.get("v_inci", {})
    if not isinstance(inci, dict):
        raise HyperRAGFormatError(f"{what}: 'v_inci' is a {type(inci).__name__}, expected dict")
    return HgdbData(vertices=vertices, edges=edges, incidence=dict(inci))


def load_hgdb(path: str | Path, *, incidence: bool = True) -> HgdbData:
    """Read a Hyper-RAG ``hypergraph_chunk_entity_relation.hgdb`` file safely.

    ``incidence=False`` drops the incidence index and the vertices' ``entity_name``
    attribute (a copy of their key) right after loading: an import needs neither, and the
    index alone is about half the file size in Python objects.

    Raises:
        HyperRAGFormatError: missing file (or not a regular one, or too large), a global
            other than ``collections.defaultdict`` or ``builtins.set``, a truncated pickle,
            an unexpected structure, or shared texts expanding beyond
            :func:`check_expansion`'s bound.
    """
    p = Path(path)
    blob = read_hgdb_bytes(p)  # a regular file of bounded size, or a one-line error
    obj = restricted_loads(blob, str(p))
    data = parse_hgdb(obj, str(p))
    del obj
    check_expansion(data, len(blob), str(p))
    if not incidence:
        data.incidence = {}
        for attrs in data.vertices.values():
            attrs.pop("entity_name", None)
    return data
