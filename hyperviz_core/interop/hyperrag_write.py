"""Write a working dir in Hyper-RAG's on-disk format (for tests, benchmarks, round trips).

:func:`write_workdir` writes :class:`~.hyperrag_read.HyperRAGWorkdir` content the way
Hyper-RAG does: the ``.hgdb`` pickle (protocol 4, a dict of ``v_data``, ``v_inci`` as
``defaultdict(set)``, ``e_data``), the JSON key-value stores and the nano-vectordb files
(base64 little-endian float32). :func:`scale_workdir` makes an ``n``-times larger synthetic
copy (names, chunk and document ids suffixed per copy) for the import benchmark.

Example:
    >>> import tempfile
    >>> from hyperviz_core.interop.hyperrag_read import read_workdir
    >>> d = tempfile.mkdtemp()
    >>> wd = build_workdir(docs={"doc-1": "Vienna is in Austria."},
    ...     vertices={"VIENNA": {"entity_type": "GEO", "description": "A city.",
    ...                          "source_id": "chunk-1", "additional_properties": ""}},
    ...     edges={("VIENNA",): {"description": "d", "keywords": "k", "source_id": "chunk-1",
    ...                          "weight": 1.0}}, dim=8)
    >>> write_workdir(wd, d)
    >>> back = read_workdir(d)
    >>> len(back.graph.vertices), list(back.graph.edges), back.vdb["entity"].dim
    (1, [('VIENNA',)], 8)
"""

from __future__ import annotations

import base64
import collections
import hashlib
import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .hyperrag_pickle import HgdbData
from .hyperrag_read import (
    CHUNKS_FILE,
    DOCS_FILE,
    HGDB_FILE,
    VDB_FILES,
    ChunkRow,
    HyperRAGWorkdir,
    VdbFile,
)

__all__ = ["build_workdir", "scale_workdir", "write_workdir"]


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def _unit_rows(texts: list[str], dim: int) -> npt.NDArray[np.float32]:
    """Deterministic L2-normalised pseudo-embeddings (seeded by each text's md5)."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for i, t in enumerate(texts):
        rng = np.random.default_rng(int(_md5(t)[:8], 16))
        v = rng.standard_normal(dim).astype(np.float32)
        out[i] = v / np.linalg.norm(v)
    return out


def build_workdir(
    docs: dict[str, str],
    vertices: dict[str, dict[str, str]],
    edges: dict[tuple[str, ...], dict[str, Any]],
    *,
    chunks: dict[str, ChunkRow] | None = None,
    dim: int = 64,
) -> HyperRAGWorkdir:
    """A working dir in memory; one chunk ``chunk-<n>`` per document unless ``chunks`` given.

    Vectors are deterministic pseudo-embeddings (tests and benchmarks only).
    """
    if chunks is None:
        chunks = {f"chunk-{n + 1}": ChunkRow(f"chunk-{n + 1}", text, doc, 0, len(text.split()))
                  for n, (doc, text) in enumerate(sorted(docs.items()))}
    inci: dict[str, set[tuple[str, ...]]] = collections.defaultdict(set)
    for key in edges:
        for m in key:
            inci[m].add(key)
    declared = sorted(n for n, a in vertices.items() if a.get("entity_type") != "UNKNOWN")
    ent = VdbFile(dim, [f"ent-{_md5(n)}" for n in declared],
                  [{"__id__": f"ent-{_md5(n)}", "entity_name": n} for n in declared],
                  _unit_rows(declared, dim))
    keys = sorted(edges)
    rel = VdbFile(dim, [f"rel-{_md5(str(list(k)))}" for k in keys],
                  [{"__id__": f"rel-{_md5(str(list(k)))}", "id_set": list(k)} for k in keys],
                  _unit_rows([str(k) for k in keys], dim))
    cids = sorted(chunks)
    chk = VdbFile(dim, cids, [{"__id__": c} for c in cids], _unit_rows(cids, dim))
    graph = HgdbData(vertices=vertices, edges=edges, incidence=inci)
    return HyperRAGWorkdir(path=Path("."), docs=docs, chunks=chunks, graph=graph,
                           vdb={"entity": ent, "hyperedge": rel, "chunk": chk})


def _write_json(path: Path, obj: Any, indent: int | None = 2) -> None:
    """Hyper-RAG's KV stores are indented by 2; nano-vectordb writes compact JSON."""
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=indent), "utf-8")


def _vdb_json(v: VdbFile) -> dict[str, Any]:
    mat = v.matrix if v.matrix is not None else np.zeros((len(v.ids), v.dim), np.float32)
    data = np.ascontiguousarray(mat, dtype="<f4").tobytes()
    return {"embedding_dim": v.dim, "data": v.meta, "matrix": base64.b64encode(data).decode()}


def write_workdir(wd: HyperRAGWorkdir, path: str | Path) -> None:
    """Write ``wd`` into directory ``path`` in Hyper-RAG's file formats."""
    p = Path(path)
    p.mkdir(parents=True, exist_ok=True)
    _write_json(p / DOCS_FILE, {d: {"content": t} for d, t in wd.docs.items()})
    _write_json(p / CHUNKS_FILE, {
        c.id: {"tokens": c.tokens, "content": c.content, "chunk_order_index": c.order,
               "full_doc_id": c.doc_id} for c in wd.chunks.values()})
    inci = collections.defaultdict(set, {k: set(v) for k, v in wd.graph.incidence.items()})
    blob = {"v_data": wd.graph.vertices, "v_inci": inci, "e_data": wd.graph.edges}
    with (p / HGDB_FILE).open("wb") as fh:
        pickle.dump(blob, fh, protocol=4)
    for space, name in VDB_FILES.items():
        _write_json(p / name, _vdb_json(wd.vdb[space]), indent=None)


def _fresh(attrs: dict[str, Any]) -> dict[str, Any]:
    """Copies of the string values as new objects, so pickle writes them again (like the
    separate copies a real, larger Hyper-RAG run holds) instead of memoising one object."""
    return {k: (v + "\x00")[:-1] if isinstance(v, str) else v for k, v in attrs.items()}


def scale_workdir(wd: HyperRAGWorkdir, factor: int) -> HyperRAGWorkdir:
    """``factor`` disjoint copies of ``wd`` (copy ``i`` renames every id/name with ``~i``)."""
    docs: dict[str, str] = {}
    chunks: dict[str, ChunkRow] = {}
    vertices: dict[str, dict[str, str]] = {}
    edges: dict[tuple[str, ...], dict[str, Any]] = {}
    inci: dict[str, set[tuple[str, ...]]] = collections.defaultdict(set)
    vdb: dict[str, tuple[list[str], list[dict[str, Any]], list[Any]]] = {
        s: ([], [], []) for s in VDB_FILES}
    for i in range(factor):
        sfx = f"~{i}" if i else ""
        cmap = {c: c + sfx for c in wd.chunks}

        def src(value: str, cmap: dict[str, str] = cmap) -> str:
            return "<SEP>".join(cmap.get(s, s) for s in value.split("<SEP>"))

        docs.update({d + sfx: t + sfx for d, t in wd.docs.items()})
        chunks.update({c + sfx: ChunkRow(c + sfx, r.content + sfx, r.doc_id + sfx, r.order,
                                         r.tokens) for c, r in wd.chunks.items()})
        for name, attrs in wd.graph.vertices.items():
            vertices[name + sfx] = {**_fresh(attrs), "source_id": src(attrs.get("source_id", ""))}
        for key, attrs in wd.graph.edges.items():
            nk = tuple(sorted(m + sfx for m in key))
            edges[nk] = {**_fresh(attrs), "source_id": src(str(attrs.get("source_id", "")))}
            for m in nk:
                inci[m].add(nk)
        for space, v in wd.vdb.items():
            ids, meta, rows = vdb[space]
            ids.extend(x + sfx for x in v.ids)
            for entry in v.meta:
                row = {**entry, "__id__": entry["__id__"] + sfx}
                if "entity_name" in row:
                    row["entity_name"] = row["entity_name"] + sfx
                if "id_set" in row:
                    row["id_set"] = [n + sfx for n in row["id_set"]]
                meta.append(row)
            rows.append(v.matrix)
    out_vdb = {s: VdbFile(wd.vdb[s].dim, ids, meta,
                          np.concatenate(rows) if all(r is not None for r in rows) else None)
               for s, (ids, meta, rows) in vdb.items()}
    return HyperRAGWorkdir(path=wd.path, docs=docs, chunks=chunks,
                           graph=HgdbData(vertices, edges, inci), vdb=out_vdb)
