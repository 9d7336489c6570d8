"""Readers for a Hyper-RAG working directory (JSON key-value stores, nano-vectordb, pickle).

Every reader validates what it returns and raises :class:`HyperRAGFormatError` with one line
naming the file and the problem (missing, malformed JSON with line/column, wrong shape; not a
regular file once symlinks are followed, such as a FIFO or ``/dev/zero``, or larger than
:data:`~.hyperrag_files.MAX_JSON_BYTES`, see :mod:`.hyperrag_files`).
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
* ``kv_store_llm_response_cache.json`` (optional): ``{md5: {"return", "model"}}`` (an
  empty file is skipped with a warning)

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

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..surrogates import surrogate_at
from .hyperrag_files import read_json_bytes
from .hyperrag_json import json_errors, parse_json, read_json
from .hyperrag_pickle import HgdbData, HyperRAGFormatError, load_hgdb, shown
from .hyperrag_stream import read_hgdb_rows
from .hyperrag_vdb import VdbFile, decode_matrix, read_vdb, read_vdb_lazy

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


def _json_object(path: Path, raw: Any) -> dict[str, Any]:
    """``raw`` if it is a JSON object, else a :class:`HyperRAGFormatError` naming ``path``."""
    if not isinstance(raw, dict):
        raise HyperRAGFormatError(f"{path}: expected a JSON object, got {type(raw).__name__}")
    return raw


def _object_of_objects(path: Path, raw: Any) -> dict[str, dict[str, Any]]:
    raw = _json_object(path, raw)
    for key, value in raw.items():
        if not isinstance(value, dict):
            raise HyperRAGFormatError(f"{path}: entry {shown(key)} is not an object")
    return raw


def read_full_docs(path: str | Path) -> dict[str, str]:
    """``kv_store_full_docs.json`` → ``{doc id: content}``."""
    p = Path(path)
    raw = _object_of_objects(p, read_json(p))
    out: dict[str, str] = {}
    for key, value in raw.items():
        content = value.get("content")
        if not isinstance(content, str):
            raise HyperRAGFormatError(f"{p}: document {shown(key)} has no string 'content'")
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
                f"{p}: chunk {shown(key)} needs string 'content' and 'full_doc_id'")
        if not all(isinstance(n, int) and not isinstance(n, bool) and -2**63 <= n < 2**63
                   for n in (order, tokens)):  # (a store keeps 64-bit integers)
            raise HyperRAGFormatError(
                f"{p}: chunk {shown(key)}: 'chunk_order_index' and 'tokens' must be integers "
                "(of 64 bits at most)")
        out[key] = ChunkRow(key, content, doc_id, order, tokens)
    return out


def _cache_entries(raw: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """``(entries with a string "return", keys of the others)`` of a parsed cache: Hyper-RAG's
    flat ``{hash: entry}`` or LightRAG's newer cache nested by mode (``{mode: {hash:
    entry}}``, whose entries are keyed ``mode/hash`` here)."""
    good: dict[str, dict[str, Any]] = {}
    bad: list[str] = []
    for key, v in raw.items():
        if isinstance(v, dict) and v and "return" not in v and \
                all(isinstance(e, dict) for e in v.values()):  # a mode of nested entries
            items = [(f"{key}/{k}", e) for k, e in v.items()]
        else:
            items = [(key, v)]
        for k, e in items:
            if isinstance(e, dict) and isinstance(e.get("return"), str):
                good[k] = e
            else:
                bad.append(k)
    return good, bad


def read_llm_cache(path: str | Path) -> dict[str, dict[str, Any]]:
    """``kv_store_llm_response_cache.json`` → ``{key: {"return": str, "model": str ...}}``:
    its entries with a string ``"return"`` (see :func:`_cache_entries` for the layouts; the
    others, such as a ``null`` reply, are left out). A file that is not a JSON object is a
    :class:`HyperRAGFormatError`.

    Example:
        >>> import json, tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "cache.json"
        >>> _ = p.write_text(json.dumps({"a": {"return": "x"}, "b": {"return": None},
        ...                              "default": {"c": {"return": "y"}}}))
        >>> sorted(read_llm_cache(p))
        ['a', 'default/c']
    """
    p = Path(path)
    return _cache_entries(_json_object(p, read_json(p)))[0]


def _llm_cache_entries(path: Path) -> tuple[int | None, str]:
    """The usable entries of the optional LLM cache (None: no such file, or none read) and a
    warning. Nothing of the cache is imported (its entries are only counted), so an empty or
    malformed file is skipped and irregular entries are left out, each with one warning; a
    file that is not a regular file, or too large, is refused like any other."""
    if not path.exists():
        return None, ""
    data = read_json_bytes(path)  # a regular file of bounded size, or a one-line error
    skipped = "skipped: the LLM cache is never imported"
    if not data.strip():
        return None, f"{path.name} is empty (not valid JSON); {skipped}"
    try:
        with json_errors(path):
            raw = _json_object(path, parse_json(data))
    except HyperRAGFormatError as exc:
        why = str(exc).removeprefix(f"{path}: ")
        return None, f"{path.name} is unreadable ({why}); {skipped}"
    good, bad = _cache_entries(raw)
    if not bad:
        return len(good), ""
    return len(good), (f"{path.name}: {len(bad)} of {len(good) + len(bad)} entries have no "
                       f"string 'return' (e.g. {shown(bad[0])}) and were {skipped}")


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
            f"{wd.path / CHUNKS_FILE}: chunk {shown(orphans[0])} names document "
            f"{shown(wd.chunks[orphans[0]].doc_id)}, which {DOCS_FILE} lacks "
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
            f"entities), e.g. {shown(sorted(set(missing))[0])}")


#: a UTF-16 surrogate in (surrogatepass-)UTF-8 bytes: 0xED leads, A0-BF follows
_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")


def _surrogate_at(value: str | bytes) -> int | None:
    """The character position of the first lone surrogate in ``value``, or None."""
    if value.isascii():
        return None
    if isinstance(value, bytes):
        found = _SURROGATE.search(value)
        return None if found is None else len(value[: found.start()].decode(
            "utf-8", "surrogatepass"))
    return surrogate_at(value)


def _dirty(values: Iterable[Any]) -> bool:
    """Whether any text among ``values`` holds a lone surrogate (the fast scan)."""
    for v in values:
        if isinstance(v, str | bytes) and not v.isascii() and _surrogate_at(v) is not None:
            return True
    return False


def _refuse(path: Path, kind: str, key: Any, fields: Iterable[tuple[str, Any]]) -> None:
    """The error naming the file, the item and its first field with a lone surrogate."""
    for label, value in fields:
        at = _surrogate_at(value) if isinstance(value, str | bytes) else None
        if at is not None:
            raise HyperRAGFormatError(
                f"{path}: {kind} {shown(key)} field {label!r} holds a lone surrogate at "
                f"character {at + 1} (not valid Unicode; fix the file's encoding)")


def _fields(attrs: Any) -> Iterable[tuple[str, Any]]:
    """``(field, value)`` of an attribute dict or a streamed row."""
    return attrs.items() if isinstance(attrs, dict) else zip(attrs._fields, attrs, strict=True)


def _check_unicode(wd: HyperRAGWorkdir) -> None:
    """Refuse a lone surrogate (a JSON ``"\\ud800"``, a pickle's surrogatepass text) in
    anything an import stores: no store can keep it."""
    for key, text in wd.docs.items():
        _refuse(wd.path / DOCS_FILE, "document", key, (("id", key), ("content", text)))
    for c in wd.chunks.values():
        _refuse(wd.path / CHUNKS_FILE, "chunk", c.id, (("id", c.id), ("content", c.content),
                                                       ("full_doc_id", c.doc_id)))
    for name, attrs in wd.graph.vertices.items():
        if _dirty((name, *(attrs.values() if isinstance(attrs, dict) else attrs))):
            _refuse(wd.path / HGDB_FILE, "vertex", name, (("name", name), *_fields(attrs)))
    for members, attrs in wd.graph.edges.items():
        if _dirty((*members, *(attrs.values() if isinstance(attrs, dict) else attrs))):
            _refuse(wd.path / HGDB_FILE, "hyperedge", members, (
                *((f"member {n}", m) for n, m in enumerate(members)), *_fields(attrs)))


def _check_present(p: Path, vectors: bool) -> list[str]:
    """Refuse a working dir that lacks required files, naming all of them (the vdb files
    are required only with ``vectors``); notes for the vdb files missing without."""
    vdb_files = list(VDB_FILES.values())
    required = [DOCS_FILE, CHUNKS_FILE, HGDB_FILE, *(vdb_files if vectors else [])]
    missing = [name for name in required if not (p / name).exists()]
    why = "needed to reuse Hyper-RAG's vectors" if set(missing) <= set(vdb_files) else \
        "not a Hyper-RAG working dir?"
    if len(missing) == 1:
        raise HyperRAGFormatError(f"{p / missing[0]}: missing ({why})")
    if missing:
        raise HyperRAGFormatError(f"{p}: missing {len(missing)} required files: "
                                  f"{', '.join(missing)} ({why})")
    absent = [name for name in vdb_files if not (p / name).exists()]
    return [f"{', '.join(absent)} missing: not needed (Hyper-RAG's vectors are read only to "
            "reuse them: reuse_embeddings / --reuse-embeddings)"] if absent else []


def read_workdir(path: str | Path, *, vectors: bool = True, llm_cache: bool = True,
                 incidence: bool = True, lazy_vectors: bool = False) -> HyperRAGWorkdir:
    """Read and validate a Hyper-RAG working directory; nothing is written anywhere.

    Args:
        path: the directory given to ``HyperRAG(working_dir=...)``.
        vectors: decode the nano-vectordb matrices (else only their sizes are checked,
            and a missing vdb file is noted in ``warnings``, not refused: ``vdb`` lacks
            its space).
        llm_cache: validate the optional LLM cache file when present.
        incidence: keep the pickle's incidence index (``graph.incidence``) and one
            attribute dict per record. An import needs neither and reads with
            ``incidence=False``: the pickle is streamed into compact rows
            (:func:`~.hyperrag_stream.read_hgdb_rows`, about 40 % less memory).
        lazy_vectors: with ``vectors``, keep the entity and chunk vectors in their files
            (``VdbFile.keys`` + ``VdbFile.lazy``, see :mod:`.hyperrag_vdb`) and only
            check the relationship file: what an import with reused vectors reads.

    Raises:
        HyperRAGFormatError: a required file is missing, malformed or inconsistent, or a
            text holds a lone surrogate (no store can keep it).
    """
    p = Path(path)
    if not p.is_dir():
        what = "not a directory" if p.exists() else "no such file or directory"
        raise HyperRAGFormatError(f"{p}: {what} (expected a Hyper-RAG working dir)")
    notes = _check_present(p, vectors)
    # the large JSON files first: their parse is transient, so the peak stays lower than
    # parsing them on top of the (retained) unpickled hypergraph
    if vectors and lazy_vectors:
        fields = {"entity": "entity_name", "chunk": "__id__"}
        vdb = {space: read_vdb_lazy(p / name, fields[space]) if space in fields else
               read_vdb(p / name, vectors=False) for space, name in VDB_FILES.items()}
    else:  # without vectors, the vdb files present are only checked
        vdb = {space: read_vdb(p / name, vectors=vectors) for space, name in VDB_FILES.items()
               if vectors or (p / name).exists()}
    cache_n, cache_note = _llm_cache_entries(p / LLM_CACHE_FILE) if llm_cache else (None, "")
    docs = read_full_docs(p / DOCS_FILE)
    chunks = read_text_chunks(p / CHUNKS_FILE)
    # without the index: streamed into compact rows (a third less memory, no dicts)
    graph = load_hgdb(p / HGDB_FILE) if incidence else read_hgdb_rows(p / HGDB_FILE)
    wd = HyperRAGWorkdir(path=p, docs=docs, chunks=chunks, graph=graph, vdb=vdb,
                         llm_cache_entries=cache_n)
    wd.warnings.extend(notes + [cache_note] * bool(cache_note))
    _check_unicode(wd)
    _cross_check(wd)
    return wd
