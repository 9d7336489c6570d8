"""Readers for a Hyper-RAG working directory (JSON key-value stores, nano-vectordb, pickle).

Every reader validates what it returns and raises :class:`HyperRAGFormatError` with one line
naming the file and the problem (missing, malformed JSON with line/column, wrong shape).
:func:`read_workdir` reads and cross-checks a whole directory *before* anything is written
anywhere, so an importer can refuse a broken directory without side effects. Unknown files
(``HyperRAG.log``, ``corpus.txt`` ...) are ignored.

Files (as written by iMoonLab/Hyper-RAG with Hypergraph-DB 0.4 and nano-vectordb 0.0.4.3):

* ``kv_store_full_docs.json``: ``{"doc-<md5>": {"content": str}}``
* ``kv_store_text_chunks.json``: ``{"chunk-<md5>": {"tokens", "content", "full_doc_id",
  "chunk_order_index"}}``
* ``vdb_entities.json`` / ``vdb_relationships.json`` / ``vdb_chunks.json``: ``{"embedding_dim",
  "data": [{"__id__", ...}], "matrix": base64 of little-endian float32 (rows, dim)}``
* ``hypergraph_chunk_entity_relation.hgdb``: see :mod:`.hyperrag_pickle`
* ``kv_store_llm_response_cache.json`` (optional): ``{md5: {"return", "model"}}``

Example:
    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "kv_store_full_docs.json").write_text(json.dumps({"doc-1": {"content": "Hi"}}))
    >>> read_full_docs(d / "kv_store_full_docs.json")
    {'doc-1': 'Hi'}
    >>> _ = (d / "bad.json").write_text('{"doc-1": ')
    >>> try:
    ...     read_full_docs(d / "bad.json")
    ... except HyperRAGFormatError as exc:
    ...     print(str(exc).split(": ", 1)[1])
    malformed JSON (line 1, column 11: Expecting value)
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .hyperrag_pickle import HgdbData, HyperRAGFormatError, load_hgdb

if TYPE_CHECKING:
    from .hyperrag_vdb import LazyMatrix

__all__ = [
    "CHUNKS_FILE",
    "DOCS_FILE",
    "HGDB_FILE",
    "LLM_CACHE_FILE",
    "VDB_FILES",
    "ChunkRow",
    "HyperRAGWorkdir",
    "VdbFile",
    "decode_matrix",
    "read_full_docs",
    "read_json",
    "read_llm_cache",
    "read_text_chunks",
    "read_vdb",
    "read_workdir",
]

DOCS_FILE = "kv_store_full_docs.json"
CHUNKS_FILE = "kv_store_text_chunks.json"
LLM_CACHE_FILE = "kv_store_llm_response_cache.json"
HGDB_FILE = "hypergraph_chunk_entity_relation.hgdb"
#: vector space of our store → nano-vectordb file of Hyper-RAG
VDB_FILES = {"entity": "vdb_entities.json", "hyperedge": "vdb_relationships.json",
             "chunk": "vdb_chunks.json"}


#: the last member of a nano-vectordb file: its base64 matrix, then the closing brace
_MATRIX_TAIL = re.compile(rb'"matrix"\s*:\s*"([A-Za-z0-9+/=]*)"\s*}\s*\Z')


def split_matrix(raw: bytes) -> tuple[bytes, bytes | None, int]:
    """``(rest of the object, base64 matrix, its offset in raw)`` when the file ends with
    its ``"matrix"`` member as nano-vectordb writes it, else ``(raw, None, -1)``: the
    matrix (most of the file) is then never decoded into a Python string."""
    i = raw.rfind(b'"matrix"')
    m = _MATRIX_TAIL.match(raw, i) if i > 0 else None
    head = raw[:i].rstrip() if m else b""
    if m is None or not head.endswith(b","):
        return raw, None, -1
    return head[:-1] + b"}", m.group(1), m.start(1)


@contextlib.contextmanager
def json_errors(p: Path) -> Iterator[None]:
    """Turn the errors of reading and parsing JSON file ``p`` into one-line
    :class:`HyperRAGFormatError` messages."""
    try:
        yield
    except FileNotFoundError:
        raise HyperRAGFormatError(f"{p}: missing (not a Hyper-RAG working dir?)") from None
    except IsADirectoryError:
        raise HyperRAGFormatError(f"{p}: is a directory, expected a JSON file") from None
    except json.JSONDecodeError as exc:
        raise HyperRAGFormatError(
            f"{p}: malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except UnicodeDecodeError as exc:
        raise HyperRAGFormatError(f"{p}: not UTF-8 JSON ({exc.reason})") from None


def parse_json(data: bytes, hook: Callable[[list[tuple[str, Any]]], Any] | None = None
               ) -> Any:
    """JSON bytes (any UTF encoding) → objects; ``hook`` as ``object_pairs_hook``."""
    text = data.decode(json.detect_encoding(data), "surrogatepass")
    del data  # the text alone while parsing (the caller's reference aside)
    return json.loads(text, object_pairs_hook=hook)


def read_json(path: str | Path, *, keep: frozenset[str] | None = None,
              matrix: bool = False) -> Any:
    """Parse a JSON file; one-line :class:`HyperRAGFormatError` when missing or malformed.

    ``keep``: build objects with only these keys (the others are parsed, checked and
    dropped at once, so a large file's unused fields never pile up in memory).
    ``matrix``: a nano-vectordb file; its trailing base64 ``"matrix"`` is returned as
    ``bytes`` without a JSON parse of it.
    """
    p = Path(path)
    hook = None if keep is None else (
        lambda pairs: {k: v for k, v in pairs if k in keep})
    with json_errors(p):
        with p.open("rb") as fh:
            raw = fh.read()
        head, b64, _ = split_matrix(raw) if matrix else (raw, None, -1)
        del raw
        out = parse_json(head, hook)
        if b64 is not None and isinstance(out, dict):
            out["matrix"] = b64
        return out


def _object_of_objects(path: Path, raw: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(raw, dict):
        raise HyperRAGFormatError(f"{path}: expected a JSON object, got {type(raw).__name__}")
    for key, value in raw.items():
        if not isinstance(value, dict):
            raise HyperRAGFormatError(f"{path}: entry {key!r} is not an object")
    return raw


def read_full_docs(path: str | Path) -> dict[str, str]:
    """``kv_store_full_docs.json`` → ``{doc id: content}``."""
    p = Path(path)
    raw = _object_of_objects(p, read_json(p))
    out: dict[str, str] = {}
    for key, value in raw.items():
        content = value.get("content")
        if not isinstance(content, str):
            raise HyperRAGFormatError(f"{p}: document {key!r} has no string 'content'")
        out[key] = content
    return out


@dataclass(frozen=True)
class ChunkRow:
    """One entry of ``kv_store_text_chunks.json``."""

    id: str
    content: str
    doc_id: str
    order: int
    tokens: int


def read_text_chunks(path: str | Path) -> dict[str, ChunkRow]:
    """``kv_store_text_chunks.json`` → ``{chunk id: ChunkRow}``."""
    p = Path(path)
    raw = _object_of_objects(p, read_json(p))
    out: dict[str, ChunkRow] = {}
    for key, v in raw.items():
        content, doc_id = v.get("content"), v.get("full_doc_id")
        order, tokens = v.get("chunk_order_index", 0), v.get("tokens", 0)
        if not isinstance(content, str) or not isinstance(doc_id, str):
            raise HyperRAGFormatError(
                f"{p}: chunk {key!r} needs string 'content' and 'full_doc_id'")
        if isinstance(order, bool) or not isinstance(order, int) or \
                isinstance(tokens, bool) or not isinstance(tokens, int):
            raise HyperRAGFormatError(
                f"{p}: chunk {key!r}: 'chunk_order_index' and 'tokens' must be integers")
        out[key] = ChunkRow(key, content, doc_id, order, tokens)
    return out


def decode_matrix(b64: str | bytes, rows: int, dim: int, what: str = "matrix"
                  ) -> npt.NDArray[np.float32]:
    """Decode nano-vectordb's base64 little-endian float32 matrix of shape ``(rows, dim)``."""
    try:
        buf = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise HyperRAGFormatError(f"{what}: 'matrix' is not valid base64 ({exc})") from None
    if len(buf) != rows * dim * 4:
        raise HyperRAGFormatError(
            f"{what}: 'matrix' holds {len(buf)} bytes, expected {rows} rows x {dim} float32 "
            f"= {rows * dim * 4}")
    return np.frombuffer(buf, dtype="<f4").reshape(rows, dim).astype(np.float32)


@dataclass
class VdbFile:
    """A nano-vectordb file: ids, per-row metadata and (optionally decoded) vectors."""

    dim: int
    ids: list[str]
    meta: list[dict[str, Any]]
    matrix: npt.NDArray[np.float32] | None = None
    #: one field per row and rows read on demand (see :mod:`.hyperrag_vdb`)
    keys: list[Any] = field(default_factory=list)
    lazy: LazyMatrix | None = None


_VDB_KEYS_BARE = frozenset({"embedding_dim", "data", "matrix", "__id__"})
#: what an import reads of a nano-vectordb file (ids, names, member sets, the matrix)
_VDB_KEYS = _VDB_KEYS_BARE | {"entity_name", "id_set"}


def read_vdb(path: str | Path, *, vectors: bool = True) -> VdbFile:
    """Read a ``vdb_*.json`` file; ``vectors=False`` checks the ids and the matrix length
    only (and keeps neither the ids nor the per-row metadata)."""
    p = Path(path)
    raw = read_json(p, keep=_VDB_KEYS if vectors else _VDB_KEYS_BARE, matrix=True)
    if not isinstance(raw, dict) or not {"embedding_dim", "data", "matrix"} <= set(raw):
        raise HyperRAGFormatError(
            f"{p}: not a nano-vectordb file (needs 'embedding_dim', 'data', 'matrix')")
    dim, data, matrix = raw["embedding_dim"], raw["data"], raw["matrix"]
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise HyperRAGFormatError(f"{p}: 'embedding_dim' {dim!r} is not a positive integer")
    if not isinstance(data, list) or not isinstance(matrix, str | bytes):
        raise HyperRAGFormatError(f"{p}: 'data' must be a list and 'matrix' a string")
    ids: list[str] = []
    for n, row in enumerate(data):
        if not isinstance(row, dict) or not isinstance(row.get("__id__"), str):
            raise HyperRAGFormatError(f"{p}: data[{n}] has no string '__id__'")
        ids.append(row["__id__"])
    if not data and not matrix:
        return VdbFile(dim, [], [], np.zeros((0, dim), np.float32) if vectors else None)
    if vectors:
        mat: npt.NDArray[np.float32] | None = decode_matrix(matrix, len(data), dim, str(p))
    else:
        mat = None
        expected = len(data) * dim * 4
        tail = matrix[-2:]
        pad = tail.count(b"=") if isinstance(tail, bytes) else tail.count("=")
        size = (len(matrix) // 4) * 3 - pad
        if len(matrix) % 4 or size != expected:
            raise HyperRAGFormatError(
                f"{p}: 'matrix' holds {size} bytes, expected {len(data)} rows x {dim} float32 "
                f"= {expected}")
    # without vectors the rows' ids and metadata are not needed either: do not keep them
    return VdbFile(dim, ids, data, mat) if vectors else VdbFile(dim, [], [], None)


def read_llm_cache(path: str | Path) -> dict[str, dict[str, Any]]:
    """``kv_store_llm_response_cache.json`` → ``{key: {"return": str, "model": str}}``."""
    p = Path(path)
    raw = _object_of_objects(p, read_json(p))
    for key, v in raw.items():
        if not isinstance(v.get("return"), str):
            raise HyperRAGFormatError(f"{p}: cache entry {key!r} has no string 'return'")
    return raw


@dataclass
class HyperRAGWorkdir:
    """Everything read from a working dir, cross-checked (see :func:`read_workdir`)."""

    path: Path
    docs: dict[str, str]
    chunks: dict[str, ChunkRow]
    graph: HgdbData
    vdb: dict[str, VdbFile] = field(default_factory=dict)
    llm_cache_entries: int | None = None
    warnings: list[str] = field(default_factory=list)

    def doc_chunks(self) -> dict[str, list[ChunkRow]]:
        """Document id → its chunks in order (documents sorted by id)."""
        out: dict[str, list[ChunkRow]] = {d: [] for d in sorted(self.docs)}
        for row in self.chunks.values():
            out[row.doc_id].append(row)
        for rows in out.values():
            rows.sort(key=lambda r: (r.order, r.id))
        return out


def _cross_check(wd: HyperRAGWorkdir) -> None:
    orphans = sorted(c.id for c in wd.chunks.values() if c.doc_id not in wd.docs)
    if orphans:
        raise HyperRAGFormatError(
            f"{wd.path / CHUNKS_FILE}: chunk {orphans[0]!r} names document "
            f"{wd.chunks[orphans[0]].doc_id!r}, which {DOCS_FILE} lacks "
            f"({len(orphans)} such chunks)")
    for space, vdb in wd.vdb.items():
        if wd.vdb and vdb.dim != next(iter(wd.vdb.values())).dim:
            raise HyperRAGFormatError(
                f"{wd.path / VDB_FILES[space]}: embedding_dim {vdb.dim} differs from the "
                "other vdb files")
    missing = [m for key in wd.graph.edges for m in key if m not in wd.graph.vertices]
    if missing:
        wd.warnings.append(
            f"{len(set(missing))} hyperedge members have no vertex record (kept as bare "
            f"entities), e.g. {sorted(set(missing))[0]!r}")


def read_workdir(path: str | Path, *, vectors: bool = True, llm_cache: bool = True,
                 incidence: bool = True, lazy_vectors: bool = False) -> HyperRAGWorkdir:
    """Read and validate a Hyper-RAG working directory; nothing is written anywhere.

    Args:
        path: the directory given to ``HyperRAG(working_dir=...)``.
        vectors: decode the nano-vectordb matrices (else only their sizes are checked).
        llm_cache: validate the optional LLM cache file when present.
        incidence: keep the pickle's incidence index (``graph.incidence``) and one
            attribute dict per record. An import needs neither and reads with
            ``incidence=False``: the pickle is streamed into compact rows
            (:func:`~.hyperrag_stream.read_hgdb_rows`, about 40 % less memory).
        lazy_vectors: with ``vectors``, keep the entity and chunk vectors in their files
            (``VdbFile.keys`` + ``VdbFile.lazy``, see :mod:`.hyperrag_vdb`) and only
            check the relationship file: what an import with reused vectors reads.

    Raises:
        HyperRAGFormatError: a required file is missing, malformed or inconsistent.
    """
    p = Path(path)
    if not p.is_dir():
        raise HyperRAGFormatError(f"{p}: not a directory (expected a Hyper-RAG working dir)")
    # the large JSON files first: their parse is transient, so the peak stays lower than
    # parsing them on top of the (retained) unpickled hypergraph
    if vectors and lazy_vectors:
        from .hyperrag_vdb import read_vdb_lazy

        fields = {"entity": "entity_name", "chunk": "__id__"}
        vdb = {space: read_vdb_lazy(p / name, fields[space]) if space in fields else
               read_vdb(p / name, vectors=False) for space, name in VDB_FILES.items()}
    else:
        vdb = {space: read_vdb(p / name, vectors=vectors) for space, name in VDB_FILES.items()}
    cache_n: int | None = None
    if llm_cache and (p / LLM_CACHE_FILE).exists():
        cache_n = len(read_llm_cache(p / LLM_CACHE_FILE))
    docs = read_full_docs(p / DOCS_FILE)
    chunks = read_text_chunks(p / CHUNKS_FILE)
    if incidence:
        graph = load_hgdb(p / HGDB_FILE)
    else:  # streamed into compact rows: a third less memory at the peak (no index, no dicts)
        from .hyperrag_stream import read_hgdb_rows

        graph = read_hgdb_rows(p / HGDB_FILE)
    wd = HyperRAGWorkdir(path=p, docs=docs, chunks=chunks, graph=graph, vdb=vdb,
                         llm_cache_entries=cache_n)
    _cross_check(wd)
    return wd
