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
the same (tested on both paths). As there, a tuple may not hold a tuple (the C hash of a
nested or memo-shared one crashes or never ends) and memo references may cost at most
:data:`~.hyperrag_scan.SHARE_PER_BYTE` hashed elements per byte read. Texts fetched from the
memo cost nothing here (one object, many references), but every later step would decode and
store them once per use: :func:`~.hyperrag_pickle.check_expansion` bounds their total (each
use counted) before the rows are returned. The file must be a regular file of at most
:data:`~.hyperrag_files.MAX_HGDB_BYTES` (:func:`~.hyperrag_files.open_hgdb`).

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
from typing import IO, Any

from .hyperrag_files import open_hgdb
from .hyperrag_pickle import (
    ALLOWED_GLOBALS,
    HgdbData,
    HyperRAGFormatError,
    canonical_global,
    check_expansion,
    key_sample,
    load_hgdb,
    shown,
)
from .hyperrag_rows import EdgeRow, Interned, VertexRow, edge_row, text_of, vertex_row
from .hyperrag_scan import SHARE_BASE, SHARE_PER_BYTE

__all__ = ["EdgeRow", "VertexRow", "read_hgdb_rows", "stream_hgdb"]

_BLOCK = 1 << 18  # bytes read at a time
_SLACK = 512  # refill below this: every opcode but a long string's fits in it


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
_SCALARS = frozenset({bytes, int, float})  # what a tuple of a Hyper-RAG pickle holds


class _Reader:
    """Block-wise byte reader: ``buf[pos:end]`` is what is left of the current block."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.buf = b""
        self.pos = 0
        self.eof = False
        self.allowance = SHARE_BASE  # elements memo references may add to hashing

    def refill(self, need: int) -> None:
        if self.eof:
            return
        more = self.fh.read(max(need, _BLOCK))
        self.allowance += SHARE_PER_BYTE * len(more)
        self.eof = len(more) < max(need, _BLOCK)
        self.buf = self.buf[self.pos :] + more
        self.pos = 0


def _setitems(target: Any, items: list[Any], root: Any, where: str, seen: Interned) -> None:
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
            k, v = edge_row(k, v, where, seen) if isinstance(k, tuple) else vertex_row(
                k, v, where, seen)
        target[k] = v


def _flat(t: tuple[Any, ...], where: str) -> tuple[Any, ...]:
    """``t`` when it holds no tuple (names, numbers, ``set``); else an error, or
    :class:`Unsupported` for anything else (the unpickler decides)."""
    for x in t:
        if type(x) not in _SCALARS and x is not set:
            if type(x) is tuple:
                raise HyperRAGFormatError(f"{where}: a tuple holds a tuple (Hyper-RAG keys are "
                                          "flat tuples of names); not a Hyper-RAG .hgdb file")
            raise Unsupported(f"a tuple holding a {type(x).__name__}")
    return t


def _parse(fh: IO[bytes], where: str) -> Any:  # one branch per opcode
    rd = _Reader(fh)
    stack: list[Any] = []
    marks: list[int] = []
    memo: list[Any] = []
    seen = Interned()
    names = seen.names
    root: Any = None
    push, memo_put = stack.append, memo.append
    untracked = (dict, set, _Discard)
    buf, pos, end = b"", 0, 0
    shared = 0  # elements of tuples fetched from the memo (each fetch may be hashed)
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
            if type(obj) is tuple:
                shared += len(obj) + 1
                if shared > rd.allowance:
                    raise HyperRAGFormatError(f"{where}: the memo shares tuples so often that "
                                              "hashing them would take too long")
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
            stack[-1] = t = _flat((stack[-1], b), where)
            if pos < end and buf[pos] == 0x94:
                pos += 1
                memo_put(t)
        elif op == 0x85:  # TUPLE1
            stack[-1] = _flat((stack[-1],), where)
        elif op == 0x87:  # TUPLE3
            c, b = stack.pop(), stack.pop()
            stack[-1] = _flat((stack[-1], b, c), where)
        elif op == 0x74:  # TUPLE
            k = marks.pop()
            t = _flat(tuple(stack[k:]), where)
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
            push(_resolve(text_of(module), text_of(name), where))
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
    found = (_GLOBALS.get(canonical_global(module, name))
             if isinstance(module, str) and isinstance(name, str) else None)
    if found is None:
        allowed = ", ".join(f"{m}.{n}" for m, n in sorted(ALLOWED_GLOBALS))
        raise HyperRAGFormatError(
            f"{where}: pickle refers to {str(module)[:80]}.{str(name)[:80]}, which a Hyper-RAG "
            f".hgdb file never contains (allowed: {allowed}); refusing to load it")
    return found


def stream_hgdb(fh: IO[bytes], where: str = ".hgdb") -> HgdbData:
    """Read a ``.hgdb`` stream into :class:`VertexRow` / :class:`EdgeRow` tables.

    Raises:
        Unsupported: the stream needs the full unpickler (nothing was executed).
        HyperRAGFormatError: a forbidden global, a truncated stream, a bad structure.
    """
    try:
        obj = _parse(fh, where)
    except (IndexError, KeyError, ValueError, TypeError, AttributeError, OverflowError,
            RecursionError, struct.error) as exc:  # ValueError: UnicodeDecodeError too
        if isinstance(exc, HyperRAGFormatError):
            raise
        raise HyperRAGFormatError(
            f"{where}: not a readable pickle ({type(exc).__name__}: {str(exc)[:200]}); "
            "truncated or not a Hyper-RAG .hgdb file") from None
    if isinstance(obj, dict):
        obj = {text_of(k): v for k, v in obj.items()}
    if not isinstance(obj, dict) or not {"v_data", "e_data"} <= set(obj):
        got = key_sample(obj) if isinstance(obj, dict) else type(obj).__name__
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
                raise HyperRAGFormatError(f"{where}: {name} entry {shown(key)} has no "
                                          "attribute dict")
    return HgdbData(vertices=vertices, edges=edges, incidence={})


def read_hgdb_rows(path: str | Path) -> HgdbData:
    """Read a ``.hgdb`` file into rows without its incidence index (what an import needs).

    Streams it with :func:`stream_hgdb`; a file that needs the full unpickler is read by
    :func:`~.hyperrag_pickle.load_hgdb` (``incidence=False``) instead, with the same
    checks and errors either way.
    """
    p = Path(path)
    fh, size = open_hgdb(p)  # a regular file of bounded size, or a one-line error
    try:
        with fh:
            data = stream_hgdb(fh, str(p))
    except Unsupported:
        return load_hgdb(p, incidence=False)
    check_expansion(data, size, str(p))  # before anything decodes a shared text again
    return data
