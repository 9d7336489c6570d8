"""Read a Hyper-RAG ``.hgdb`` pickle as a stream into compact rows (the import's reader).

:func:`~.hyperrag_pickle.load_hgdb` unpickles the whole file: a dict per vertex and per
hyperedge, the incidence index's sets and the unpickler's memo of every object, all alive at
once — about 3.2× the file's size in Python objects before anything else is held. An import
needs neither the incidence index nor per-record dicts, so :func:`stream_hgdb` interprets
the pickle's opcodes itself, reading the file in blocks, and keeps only:

* per vertex a :class:`VertexRow` ``(entity_type, description, source_id,
  additional_properties)`` and per hyperedge an :class:`EdgeRow` ``(description, keywords,
  source_id, weight)`` (tuples, no dict; other attributes are type-checked and dropped);
* nothing of ``v_inci``: its defaultdict discards what is put into it.

Safety is the restricted unpickler's: the only globals resolved are
``collections.defaultdict`` and ``builtins.set`` (anything else is refused with the same
error, before any call), the only call made is ``defaultdict(set)``, and nothing else in the
file is executed. The interpreter knows the opcodes Python's pickler writes for such data
(protocols 2–5); a file using anything else — or sharing one attribute dict between two
records — is read by :func:`~.hyperrag_pickle.load_hgdb` instead, so the result is always
the same (tested on both paths).

Example:
    >>> import io, pickle, collections
    >>> blob = pickle.dumps({"v_data": {"A": {"entity_type": "PERSON", "description": "a",
    ...     "source_id": "chunk-1"}}, "v_inci": collections.defaultdict(set, {"A": {("A",)}}),
    ...     "e_data": {("A",): {"description": "d", "keywords": "k", "source_id": "chunk-1",
    ...     "weight": 2.0}}}, protocol=4)
    >>> data = stream_hgdb(io.BytesIO(blob))
    >>> data.vertices["A"].get("entity_type"), data.edges[("A",)].get("weight")
    ('PERSON', 2.0)
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import IO, Any, NamedTuple

from .hyperrag_pickle import ALLOWED_GLOBALS, HgdbData, HyperRAGFormatError, load_hgdb

__all__ = ["EdgeRow", "VertexRow", "read_hgdb_rows", "stream_hgdb"]

_BLOCK = 1 << 18  # bytes read at a time
_SLACK = 512  # refill below this: every opcode but a long string's fits in it


def _text(value: bytes | float) -> Any:
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
        return _text(getattr(self, key)) if key in self._fields else default


class EdgeRow(NamedTuple):
    """A hyperedge's attributes as Hyper-RAG stores them (texts as UTF-8 bytes)."""

    description: bytes
    keywords: bytes
    source_id: bytes
    weight: float

    def get(self, key: str, default: Any = None) -> Any:
        """Like ``dict.get`` on the attribute dict this row replaces."""
        return _text(getattr(self, key)) if key in self._fields else default


class Unsupported(Exception):
    """The stream uses something this reader does not interpret (use the full unpickler)."""


class _Discard:
    """What ``collections.defaultdict`` resolves to here: the incidence index, dropped."""

    def __init__(self, factory: Any) -> None:
        if factory is not set:
            raise Unsupported("defaultdict of something other than set")

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


_GLOBALS: dict[tuple[str, str], Any] = {("collections", "defaultdict"): _Discard,
                                        ("builtins", "set"): set}
assert set(_GLOBALS) == set(ALLOWED_GLOBALS)
_TOMB = object()  # memo entry of a dict or set: never fetched again in a Hyper-RAG file
_MARK = object()
_DOUBLE = struct.Struct(">d")


class _Interned:
    """One object per vertex name (hyperedge members repeat them) and per entity type."""

    def __init__(self) -> None:
        self.names: dict[bytes, bytes] = {}  # a name's bytes -> the first such object
        self.text: dict[bytes, str] = {}  # a name's bytes -> the str the tables are keyed by
        self.types: dict[bytes, bytes] = {}

    def name(self, raw: bytes) -> str:
        found = self.text.get(raw)
        return found if found is not None else raw.decode("utf-8", "surrogatepass")


def _vertex_row(raw: Any, attrs: dict[Any, Any], where: str, seen: _Interned
                ) -> tuple[str, VertexRow]:
    name = seen.name(raw) if isinstance(raw, bytes) else raw
    if not isinstance(name, str) or not name.strip():
        raise HyperRAGFormatError(f"{where}: vertex name {name!r} is not a non-empty str")
    for k, v in attrs.items():
        if not isinstance(k, bytes) or not isinstance(v, bytes):
            raise HyperRAGFormatError(
                f"{where}: vertex {name!r} attribute {_text(k)!r} is not str -> str")
    seen.names.setdefault(raw, raw)  # later copies (hyperedge members) become this one
    seen.text.setdefault(raw, name)
    typ = attrs.get(b"entity_type", b"")
    return name, VertexRow(seen.types.setdefault(typ, typ), attrs.get(b"description", b""),
                           attrs.get(b"source_id", b""),
                           attrs.get(b"additional_properties", b""))


def _edge_row(raw: Any, attrs: dict[Any, Any], where: str, seen: _Interned
              ) -> tuple[tuple[str, ...], EdgeRow]:
    if not isinstance(raw, tuple) or not raw or not all(isinstance(m, bytes) for m in raw):
        shown = tuple(map(_text, raw)) if isinstance(raw, tuple) else raw
        raise HyperRAGFormatError(
            f"{where}: hyperedge key {shown!r:.80} is not a non-empty tuple of names")
    key = tuple(seen.name(m) for m in raw)
    for k in (b"description", b"keywords", b"source_id"):
        if not isinstance(attrs.get(k, b""), bytes):
            raise HyperRAGFormatError(
                f"{where}: hyperedge {key!r:.80} field {_text(k)!r} is not str")
    w = attrs.get(b"weight", 1.0)
    if isinstance(w, bool) or not isinstance(w, int | float):
        raise HyperRAGFormatError(f"{where}: hyperedge {key!r:.80} weight {w!r} is not a number")
    return key, EdgeRow(attrs.get(b"description", b""), attrs.get(b"keywords", b""),
                        attrs.get(b"source_id", b""), float(w))


class _Reader:
    """Block-wise byte reader: ``buf[pos:end]`` is what is left of the current block."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.buf = b""
        self.pos = 0
        self.eof = False

    def refill(self, need: int) -> None:
        if self.eof:
            return
        more = self.fh.read(max(need, _BLOCK))
        self.eof = len(more) < max(need, _BLOCK)
        self.buf = self.buf[self.pos :] + more
        self.pos = 0


def _setitems(target: Any, items: list[Any], root: Any, where: str, seen: _Interned) -> None:
    """Apply SETITEMS: attribute dicts become rows as they enter a record table."""
    if not isinstance(target, dict | _Discard):
        raise Unsupported(f"SETITEMS on {type(target).__name__}")
    if isinstance(target, _Discard):
        return
    if target is root:
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]
        return
    for i in range(0, len(items), 2):
        k, v = items[i], items[i + 1]
        if type(v) is dict:
            k, v = _edge_row(k, v, where, seen) if isinstance(k, tuple) else _vertex_row(
                k, v, where, seen)
        target[k] = v


def _parse(fh: IO[bytes], where: str) -> Any:  # one branch per opcode
    rd = _Reader(fh)
    stack: list[Any] = []
    marks: list[int] = []
    memo: list[Any] = []
    seen = _Interned()
    names = seen.names
    root: Any = None
    push, memo_put = stack.append, memo.append
    untracked = (dict, set, _Discard)
    buf, pos, end = b"", 0, 0
    while True:
        if end - pos < _SLACK and not rd.eof:
            rd.pos = pos
            rd.refill(_SLACK)
            buf, pos, end = rd.buf, rd.pos, len(rd.buf)
        if pos >= end:
            raise HyperRAGFormatError(f"{where}: truncated pickle (no STOP opcode)")
        op = buf[pos]
        pos += 1
        if op == 0x94:  # MEMOIZE
            top = stack[-1]
            if type(top) is bytes:  # a member name: one object per name, not one per edge
                top = stack[-1] = names.get(top, top)
            memo_put(_TOMB if type(top) in untracked else top)
        elif op == 0x8C:  # SHORT_BINUNICODE, nearly always followed by MEMOIZE
            n = buf[pos]
            text = buf[pos + 1 : pos + 1 + n]  # kept as UTF-8 bytes
            if not text.isascii():
                text.decode("utf-8", "surrogatepass")  # checked now, decoded when read
            pos += 1 + n
            if pos < end and buf[pos] == 0x94:
                pos += 1
                text = names.get(text, text)  # one object per name, not one per edge
                memo_put(text)
            push(text)
        elif op == 0x6A or op == 0x68:  # LONG_BINGET / BINGET
            if op == 0x6A:
                obj = memo[int.from_bytes(buf[pos : pos + 4], "little")]
                pos += 4
            else:
                obj = memo[buf[pos]]
                pos += 1
            if obj is _TOMB:
                raise Unsupported("a dict or set is referenced twice")
            push(obj)
        elif op == 0x28:  # MARK
            marks.append(len(stack))
        elif op == 0x75:  # SETITEMS
            k = marks.pop()
            items = stack[k:]
            del stack[k:]
            _setitems(stack[-1], items, root, where, seen)
        elif op == 0x7D:  # EMPTY_DICT
            d: dict[Any, Any] = {}
            if root is None:
                root = d
            push(d)
            if pos < end and buf[pos] == 0x94:  # MEMOIZE: a dict is never fetched again
                pos += 1
                memo_put(_TOMB)
        elif op == 0x47:  # BINFLOAT
            push(_DOUBLE.unpack_from(buf, pos)[0])
            pos += 8
        elif op == 0x86:  # TUPLE2
            b = stack.pop()
            stack[-1] = t = (stack[-1], b)
            if pos < end and buf[pos] == 0x94:
                pos += 1
                memo_put(t)
        elif op == 0x85:  # TUPLE1
            stack[-1] = (stack[-1],)
        elif op == 0x87:  # TUPLE3
            c, b = stack.pop(), stack.pop()
            stack[-1] = (stack[-1], b, c)
        elif op == 0x74:  # TUPLE
            k = marks.pop()
            t = tuple(stack[k:])
            del stack[k:]
            push(t)
        elif op == 0x29:  # EMPTY_TUPLE
            push(())
        elif op == 0x8F:  # EMPTY_SET
            push(set())
        elif op == 0x90:  # ADDITEMS
            k = marks.pop()
            items = stack[k:]
            del stack[k:]
            if type(stack[-1]) is not set:
                raise Unsupported("ADDITEMS on a non-set")
            stack[-1].update(items)
        elif op == 0x58 or op == 0x8D:  # BINUNICODE / BINUNICODE8
            w = 4 if op == 0x58 else 8
            n = int.from_bytes(buf[pos : pos + w], "little")
            pos += w
            if end - pos < n:
                rd.pos = pos
                rd.refill(n)
                buf, pos, end = rd.buf, rd.pos, len(rd.buf)
                if end - pos < n:
                    raise HyperRAGFormatError(f"{where}: truncated pickle (string cut off)")
            text = buf[pos : pos + n]
            if not text.isascii():
                text.decode("utf-8", "surrogatepass")
            push(text)
            pos += n
        elif op == 0x73:  # SETITEM
            v = stack.pop()
            key = stack.pop()
            _setitems(stack[-1], [key, v], root, where, seen)
        elif op == 0x4B:  # BININT1
            push(buf[pos])
            pos += 1
        elif op == 0x4D:  # BININT2
            push(int.from_bytes(buf[pos : pos + 2], "little"))
            pos += 2
        elif op == 0x4A:  # BININT
            push(int.from_bytes(buf[pos : pos + 4], "little", signed=True))
            pos += 4
        elif op == 0x95:  # FRAME: a length only; the data follows as ordinary opcodes
            pos += 8
        elif op == 0x80:  # PROTO
            if buf[pos] < 2:
                raise Unsupported(f"pickle protocol {buf[pos]}")
            pos += 1
        elif op == 0x93:  # STACK_GLOBAL
            name, module = stack.pop(), stack.pop()
            push(_resolve(_text(module), _text(name), where))
        elif op == 0x52:  # REDUCE
            args = stack.pop()
            if stack[-1] is not _Discard or not isinstance(args, tuple) or len(args) != 1:
                raise Unsupported("REDUCE other than defaultdict(set)")
            stack[-1] = _Discard(args[0])
        elif op == 0x2E:  # STOP
            if len(stack) != 1 or marks:
                raise Unsupported("STOP with more than one object on the stack")
            return stack[0]
        else:  # opcodes Python's pickler does not write for this data
            raise Unsupported(f"opcode {bytes([op])!r}")
        if pos > end:
            raise HyperRAGFormatError(f"{where}: truncated pickle (an opcode is cut off)")


def _resolve(module: Any, name: Any, where: str) -> Any:
    found = _GLOBALS.get((module, name))
    if found is None:
        allowed = ", ".join(f"{m}.{n}" for m, n in sorted(ALLOWED_GLOBALS))
        raise HyperRAGFormatError(
            f"{where}: pickle refers to {module}.{name}, which a Hyper-RAG .hgdb file never "
            f"contains (allowed: {allowed}); refusing to load it")
    return found


def stream_hgdb(fh: IO[bytes], where: str = ".hgdb") -> HgdbData:
    """Read a ``.hgdb`` stream into :class:`VertexRow` / :class:`EdgeRow` tables.

    Raises:
        Unsupported: the stream needs the full unpickler (nothing was executed).
        HyperRAGFormatError: a forbidden global, a truncated stream, a bad structure.
    """
    try:
        obj = _parse(fh, where)
    except (IndexError, ValueError, struct.error, UnicodeDecodeError) as exc:
        if isinstance(exc, HyperRAGFormatError):
            raise
        raise HyperRAGFormatError(
            f"{where}: not a readable pickle ({type(exc).__name__}: {exc}); "
            "truncated or not a Hyper-RAG .hgdb file") from None
    if isinstance(obj, dict):
        obj = {_text(k): v for k, v in obj.items()}
    if not isinstance(obj, dict) or not {"v_data", "e_data"} <= set(obj):
        got = sorted(map(str, obj))[:5] if isinstance(obj, dict) else type(obj).__name__
        raise HyperRAGFormatError(
            f"{where}: not a Hypergraph-DB pickle (expected a dict with 'v_data', 'e_data', "
            f"'v_inci'; got {got})")
    vertices, edges = obj["v_data"], obj["e_data"]
    for table, row, name in ((vertices, VertexRow, "v_data"), (edges, EdgeRow, "e_data")):
        if not isinstance(table, dict):
            raise HyperRAGFormatError(
                f"{where}: '{name}' is a {type(table).__name__}, expected dict")
        for key, value in table.items():
            if not isinstance(value, row):
                raise HyperRAGFormatError(f"{where}: {name} entry {key!r:.80} has no "
                                          "attribute dict")
    return HgdbData(vertices=vertices, edges=edges, incidence={})


def read_hgdb_rows(path: str | Path) -> HgdbData:
    """Read a ``.hgdb`` file into rows without its incidence index (what an import needs).

    Streams it with :func:`stream_hgdb`; a file that needs the full unpickler is read by
    :func:`~.hyperrag_pickle.load_hgdb` (``incidence=False``) instead, with the same
    checks and errors either way.
    """
    p = Path(path)
    try:
        with p.open("rb") as fh:
            return stream_hgdb(fh, str(p))
    except FileNotFoundError:
        raise HyperRAGFormatError(f"{p}: missing (not a Hyper-RAG working dir?)") from None
    except IsADirectoryError:
        raise HyperRAGFormatError(f"{p}: is a directory, expected a .hgdb file") from None
    except Unsupported:
        return load_hgdb(p, incidence=False)
