"""Map a validated Hyper-RAG working dir onto VizRAG documents, chunks and extractions.

Pure functions, no store access. The rules (Hyper-RAG quirks included):

* **Vertices → entities.** Hyper-RAG upper-cases names (``"J. STRAUSS II"``); the entity key
  is our normal case-folded key, and the display name gets its casing back from the first
  source chunk that contains it case-insensitively (``"J. Strauss II"``), else the upper-case
  name stays. The original name is kept in ``metadata["hyperrag_name"]``. Types are
  lower-cased. ``<SEP>``-joined descriptions become one line each; ``<SEP>``-joined
  ``additional_properties`` go to ``metadata["additional_properties"]``. ``UNKNOWN`` vertices
  (members Hyper-RAG created for undeclared names) get type ``"unknown"`` and no description.
* **Hyperedges → relation hyperedges** over the members' keys (one member is allowed: Hyper-RAG
  collapses a pair of names that differ only by case into a 1-member hyperedge), with the
  ``<SEP>``/comma-split keywords, the description lines and Hyper-RAG's summed weight.
* **Documents and chunks.** A document is titled as it states it (:func:`document_title`:
  a Markdown heading, or a first line that reads as one), and its chunks carry its metadata
  and title as indexed chunks do (``source``, ``title``; plus Hyper-RAG's ``tokens``), so
  metadata filters and title evidence work on imported passages too.
* **Sources.** Each vertex/hyperedge is a *mention* in every chunk its ``source_id`` lists
  (``<SEP>``-split; an unknown id beside known ones is ignored with a warning); a vertex
  whose sources are all unknown falls back to the chunks of its hyperedges (with a
  warning); anything left without a chunk, or a hyperedge without a member, is dropped
  with a warning saying which.

Example:
    >>> split_sep("a<SEP> b <SEP>a<SEP>UNKNOWN")
    ['a', 'b']
    >>> split_keywords("x, y<SEP>y, z")
    ['x', 'y', 'z']
    >>> restore_case("J. STRAUSS II", ["music by j. Strauss II and others"])
    'j. Strauss II'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import EmptyNameError, Entity, Hyperedge, hyperedge_id, normalize_key
from ..rag import Chunk, ChunkExtraction, Document
from ..rag.index.chunking import chunk_metadata
from ..rag.index.titles import heading_title
from .casing import CaseIndex, restore_case
from .hyperrag_pickle import shown
from .hyperrag_read import ChunkRow, HyperRAGWorkdir

__all__ = [
    "HYPERRAG_SOURCE",
    "SEP",
    "CaseIndex",
    "DocPlan",
    "ImportPlan",
    "build_plan",
    "chunk_extraction",
    "doc_plans",
    "document_title",
    "iter_documents",
    "plan_document",
    "restore_case",
    "rewritten",
    "split_keywords",
    "split_sep",
]

SEP = "<SEP>"
#: ``metadata["source"]`` of every document an import writes (how a later import tells its
#: own documents from those another command stored under the same id)
HYPERRAG_SOURCE = "hyper-rag"
_UNKNOWN = "UNKNOWN"
_KEYWORD_SEP = re.compile(r"[,，、；｜]")


def split_sep(value: str) -> list[str]:
    """``<SEP>``-joined field → distinct non-empty parts (Hyper-RAG's ``UNKNOWN`` dropped)."""
    value = str(value)
    if SEP not in value:  # the common case: one value
        value = value.strip()
        return [value] if value and value != _UNKNOWN else []
    parts = (p.strip() for p in value.split(SEP))
    return list(dict.fromkeys(p for p in parts if p and p != _UNKNOWN))


def split_keywords(value: str) -> list[str]:
    """Keywords field → distinct keywords (separated by ``<SEP>`` and commas: ``,``, the
    full-width ``，``, the ideographic ``、``; or a full-width ``；``/``｜``)."""
    out = (k.strip() for part in split_sep(value) for k in _KEYWORD_SEP.split(part))
    return list(dict.fromkeys(k for k in out if k))


@dataclass
class ImportPlan:
    """Small indexes over the working dir; entities and hyperedges are built per document.

    Only names, keys and chunk lists are kept for the whole directory, so the import's
    memory stays close to that of the unpickled ``.hgdb`` itself.
    """

    keys: dict[str, str]  # Hyper-RAG name -> entity key
    dropped_edges: set[tuple[str, ...]] = field(default_factory=set)  # no member or chunk
    chunk_vertices: dict[str, list[str]] = field(default_factory=dict)  # chunk -> names
    chunk_edges: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    fallback_chunks: dict[str, list[str]] = field(default_factory=dict)  # name -> chunks
    display: dict[str, str] = field(default_factory=dict)  # name -> restored spelling
    #: key -> the Hyper-RAG names merged into it (only keys several names share)
    merged_names: dict[str, list[str]] = field(default_factory=dict)
    #: the current document's case indexes, by source chunks (most names have one chunk)
    cases: dict[tuple[str, ...], CaseIndex] = field(default_factory=dict)

    def members(self, raw_key: tuple[str, ...]) -> list[str]:
        """The entity keys of a Hyper-RAG hyperedge's members, in order, distinct."""
        return list(dict.fromkeys(self.keys[m] for m in raw_key if m in self.keys))

    def edge_id(self, raw_key: tuple[str, ...]) -> str | None:
        """Our id of an imported Hyper-RAG hyperedge (``None``: it was dropped or is
        unknown); computed on demand rather than held for every hyperedge."""
        if raw_key in self.dropped_edges:
            return None
        members = self.members(raw_key)
        return hyperedge_id(members, "relation") if members else None
    unknown_vertices: int = 0
    singleton_hyperedges: int = 0
    dropped_vertices: int = 0
    dropped_hyperedges: int = 0
    warnings: list[str] = field(default_factory=list)
    #: what the warnings name: dropped for want of a known chunk, or of a member; vertices
    #: moved to their hyperedges' chunks; the first unknown id of partly known source lists
    unsourced_vertices: list[str] = field(default_factory=list)
    unsourced_hyperedges: list[tuple[str, ...]] = field(default_factory=list)
    memberless_hyperedges: list[tuple[str, ...]] = field(default_factory=list)
    rehomed_vertices: list[str] = field(default_factory=list)
    bogus_sources: list[str] = field(default_factory=list)


def _key_map(wd: HyperRAGWorkdir, plan_warnings: list[str],
             merged: dict[str, list[str]]) -> dict[str, str]:
    """Name → entity key; ``merged`` gets the names of each key several names share."""
    names = set(wd.graph.vertices)
    names.update(m for key in wd.graph.edges for m in key)
    keys: dict[str, str] = {}
    by_key: dict[str, list[str]] = {}
    empty: list[str] = []
    for name in sorted(names):
        try:
            key = normalize_key(name)
        except EmptyNameError:
            empty.append(name)
            continue
        keys[name] = key
        by_key.setdefault(key, []).append(name)
    if empty:
        plan_warnings.append(f"{len(empty)} vertex names are empty once normalised (only "
                             "invisible or control characters) and were dropped, with their "
                             f"places in hyperedges, e.g. {empty[0]!r}")
    merged.update((k, v) for k, v in by_key.items() if len(v) > 1)
    clashes = sorted(merged.values())
    if clashes:
        plan_warnings.append(f"{len(clashes)} groups of vertex names share one key and were "
                             f"merged, e.g. {clashes[0]}")
    return keys


def _sources(value: Any, known: dict[str, ChunkRow],
             bogus: list[str] | None = None) -> list[str]:
    """The known chunk ids of a ``source_id``; ``bogus`` gets its first unknown id when it
    also names known ones (the item is kept, that id is ignored)."""
    ids = split_sep(str(value or ""))
    found = [c for c in ids if c in known]
    if bogus is not None and found and len(found) < len(ids):
        bogus.append(next(c for c in ids if c not in known))
    return found


def _map_edges(wd: HyperRAGWorkdir, plan: ImportPlan) -> None:
    singletons: set[str] = set()
    for raw_key in sorted(wd.graph.edges):
        members = plan.members(raw_key)
        chunks = _sources(wd.graph.edges[raw_key].get("source_id"), wd.chunks,
                          plan.bogus_sources)
        if not members or not chunks:
            plan.dropped_hyperedges += 1
            plan.dropped_edges.add(raw_key)
            (plan.unsourced_hyperedges if members else plan.memberless_hyperedges).append(
                raw_key)
            continue
        for c in chunks:
            plan.chunk_edges.setdefault(c, []).append(raw_key)
        if len(members) == 1:
            singletons.add(members[0])
    plan.singleton_hyperedges = len(singletons)


def _map_vertices(wd: HyperRAGWorkdir, plan: ImportPlan) -> None:
    orphans: dict[str, set[str]] = {}
    for name in sorted(plan.keys):
        attrs = wd.graph.vertices.get(name, {})
        plan.unknown_vertices += attrs.get("entity_type") == _UNKNOWN  # kept or dropped
        chunks = _sources(attrs.get("source_id"), wd.chunks, plan.bogus_sources)
        if not chunks:
            orphans[name] = set()
            continue
        for c in chunks:
            plan.chunk_vertices.setdefault(c, []).append(name)
    if orphans:  # no known source chunk: fall back to the chunks of its hyperedges
        for c in sorted(plan.chunk_edges):
            for raw_key in plan.chunk_edges[c]:
                for m in raw_key:
                    if m in orphans:
                        orphans[m].add(c)
    for name, found in sorted(orphans.items()):
        if not found:
            plan.dropped_vertices += 1
            plan.unsourced_vertices.append(name)
            continue
        if str(wd.graph.vertices.get(name, {}).get("source_id") or "").strip():
            plan.rehomed_vertices.append(name)  # it named chunks, none known
        plan.fallback_chunks[name] = sorted(found)
        for c in plan.fallback_chunks[name]:
            plan.chunk_vertices.setdefault(c, []).append(name)


def _plan_warnings(plan: ImportPlan) -> list[str]:
    """One warning per kind of item the working dir's sources or names made us drop, move
    or trim, with the count and an example."""
    out: list[str] = []
    cases: list[tuple[Sequence[Any], str]] = [
        (plan.unsourced_vertices, "vertices whose source_id names no known chunk (nor do "
         "their hyperedges') were dropped"),
        (plan.unsourced_hyperedges, "hyperedges whose source_id names no known chunk were "
         "dropped"),
        (plan.memberless_hyperedges, "hyperedges had no member left once the empty vertex "
         "names were dropped, and were dropped"),
        (plan.rehomed_vertices, "vertices whose source_id names no known chunk were placed "
         "in the chunks of their hyperedges instead"),
        (plan.bogus_sources, "vertices and hyperedges list an unknown chunk id in source_id "
         "beside known ones; the unknown ids were ignored"),
    ]
    for items, what in cases:
        if items:
            out.append(f"{len(items)} {what}, e.g. {shown(items[0])}")
    return out


def _bare_chunks(wd: HyperRAGWorkdir, plan: ImportPlan) -> list[str]:
    """A warning when chunks have no vertex and no hyperedge: Hyper-RAG extracted nothing
    from them, or an insert stopped between saving its chunks and its graph (it saves the
    key-value stores first), which running that insert again completes."""
    bare = sorted(c for c in wd.chunks if c not in plan.chunk_vertices
                  and c not in plan.chunk_edges)
    if not bare:
        return []
    return [f"{len(bare)} chunks have no vertex and no hyperedge (Hyper-RAG extracted "
            "nothing from them, or an insert stopped before its graph was saved: run it "
            f"again, then import again), e.g. {shown(bare[0])}"]


def build_plan(wd: HyperRAGWorkdir) -> ImportPlan:
    """Keys, hyperedge ids and per-chunk name lists for the whole working dir."""
    warnings = list(wd.warnings)
    merged: dict[str, list[str]] = {}
    plan = ImportPlan(keys=_key_map(wd, warnings, merged), warnings=warnings,
                      merged_names=merged)
    _map_edges(wd, plan)
    _map_vertices(wd, plan)
    plan.warnings.extend(_plan_warnings(plan) + _bare_chunks(wd, plan))
    return plan


# ---------------------------------------------------------------------------- per document
def _display(wd: HyperRAGWorkdir, plan: ImportPlan, name: str) -> str:
    """The restored spelling of ``name``, from its own source chunks in document order."""
    found = plan.display.get(name)
    if found is None:
        chunks = plan.fallback_chunks.get(name) or _sources(
            wd.graph.vertices.get(name, {}).get("source_id"), wd.chunks)
        rows = sorted((wd.chunks[c] for c in chunks), key=lambda r: (r.doc_id, r.order, r.id))
        key = tuple(r.id for r in rows)
        index = plan.cases.get(key)
        if index is None:
            index = plan.cases[key] = CaseIndex(r.content for r in rows)
        found = plan.display[name] = index.restore(name)
    return found


def _entity(wd: HyperRAGWorkdir, plan: ImportPlan, name: str) -> Entity:
    attrs = wd.graph.vertices.get(name, {})
    typ = (attrs.get("entity_type") or _UNKNOWN).strip().strip('"').lower() or "unknown"
    meta: dict[str, Any] = {"hyperrag_name": name}
    names = plan.merged_names.get(plan.keys[name])
    if names:  # several Hyper-RAG vertices became this entity: all their names are kept
        meta["hyperrag_names"] = names
    props = split_sep(attrs.get("additional_properties", ""))
    if props:
        meta["additional_properties"] = props
    # the name was checked by normalize_key already: skip pydantic re-validation
    return Entity.model_construct(
        name=_display(wd, plan, name).strip(), type=typ, source_ids=[], metadata=meta,
        description="\n".join(split_sep(attrs.get("description", ""))))


def _hyperedge(wd: HyperRAGWorkdir, plan: ImportPlan, raw_key: tuple[str, ...]) -> Hyperedge:
    attrs = wd.graph.edges[raw_key]
    members = plan.members(raw_key)
    return Hyperedge.model_construct(  # members are keys already: no re-validation
        id=hyperedge_id(members, "relation"), members=members,
        keywords=split_keywords(attrs.get("keywords", "")),
        description="\n".join(split_sep(attrs.get("description", ""))),
        weight=float(attrs.get("weight", 1.0)), kind="relation", source_ids=[],
        order="low" if len(members) <= 2 else "high", member_attrs={}, metadata={})


def chunk_extraction(wd: HyperRAGWorkdir, plan: ImportPlan, chunk_id: str) -> ChunkExtraction:
    """The mapped entities and hyperedges Hyper-RAG sourced in one chunk."""
    ents: dict[str, Entity] = {}
    for name in plan.chunk_vertices.get(chunk_id, []):
        ent, key = _entity(wd, plan, name), plan.keys[name]
        first = ents.get(key)
        ents[key] = first.merged(ent.model_copy(update={"name": first.name})) if first else ent
    edges: dict[str, Hyperedge] = {}
    for raw_key in plan.chunk_edges.get(chunk_id, []):
        edge = _hyperedge(wd, plan, raw_key)
        edges[edge.id] = edges[edge.id].merged(edge) if edge.id in edges else edge
    return ChunkExtraction(chunk_id=chunk_id, entities=list(ents.values()),
                           hyperedges=list(edges.values()))


@dataclass
class DocPlan:
    """One document ready for :meth:`HypergraphStore.add_document` (themes still to do)."""

    document: Document
    chunks: list[Chunk]
    extractions: list[ChunkExtraction]


#: a first line longer than this (characters, words) is text, not a title
TITLE_LINE_CHARS, TITLE_LINE_WORDS = 100, 12


def document_title(text: str) -> str:
    """The title an imported document states: its Markdown heading, else its first line when
    that reads as a heading (more text follows; at most :data:`TITLE_LINE_CHARS` characters
    and :data:`TITLE_LINE_WORDS` words, a letter, no closing ``.``, ``,``, ``;`` or ``:``);
    else ``""`` (untitled).

    >>> document_title("Vienna Walzer Orchestra\\nThe Vienna Walzer Orchestra is a ...")
    'Vienna Walzer Orchestra'
    >>> document_title("It rained all day.\\nThen it snowed."), document_title("One line only")
    ('', '')
    """
    heading = heading_title(text)
    if heading:
        return heading
    first, _, rest = text.lstrip().partition("\n")
    line = " ".join(first.split())
    if (not rest.strip() or len(line) > TITLE_LINE_CHARS
            or len(line.split()) > TITLE_LINE_WORDS or not any(c.isalpha() for c in line)
            or line.endswith((".", ",", ";", ":"))):
        return ""
    return line


def _chunks(doc: Document, rows: Sequence[ChunkRow]) -> list[Chunk]:
    meta = chunk_metadata(doc)  # as indexed chunks carry it
    out: list[Chunk] = []
    pos = 0
    for row in rows:
        start = doc.text.find(row.content, pos)
        if start < 0:
            start = doc.text.find(row.content)
        end = start + len(row.content) if start >= 0 else 0
        out.append(Chunk(id=row.id, doc_id=doc.id, text=row.content, index=row.order,
                         start=max(start, 0), end=end, metadata={**meta, "tokens": row.tokens}))
        pos = max(start, pos)
    return out


def iter_documents(wd: HyperRAGWorkdir) -> Iterator[tuple[Document, list[ChunkRow]]]:
    """Documents in id order with their chunk rows (cheap: no extraction built)."""
    for doc_id, rows in wd.doc_chunks().items():
        text = wd.docs[doc_id]
        yield Document(id=doc_id, title=document_title(text), text=text,
                       metadata={"source": HYPERRAG_SOURCE}), rows


def plan_document(wd: HyperRAGWorkdir, plan: ImportPlan, doc: Document,
                  rows: Sequence[ChunkRow]) -> DocPlan:
    """A document's chunks and per-chunk extractions."""
    chunks = _chunks(doc, rows)
    plan.cases.clear()  # the previous document's texts
    out = DocPlan(doc, chunks, [chunk_extraction(wd, plan, c.id) for c in chunks])
    plan.cases.clear()
    return out


def _signature(item: Entity | Hyperedge) -> tuple[Any, ...]:
    """What a mention holds that the working dir decides (description lines as a set)."""
    lines = frozenset(item.description.split("\n"))
    if isinstance(item, Entity):
        return item.name, item.type, lines, item.metadata
    return (tuple(item.members), tuple(item.keywords), item.weight, lines, item.metadata)


def rewritten(stored: Sequence[ChunkExtraction], planned: Sequence[ChunkExtraction]) -> bool:
    r"""Whether an unchanged document's stored extraction differs from what the working dir
    now gives its chunks, so the document must be written again for a re-import to equal a
    fresh one. Hyper-RAG keeps one record per vertex and hyperedge, and a new document changes
    the record every older chunk mentioning it shares: it appends description lines,
    properties and keywords, adds to the weight, and past a length rewrites the description as
    a summary. A fresh import gives every mention the whole record, so must a re-import.

    >>> from hyperviz_core.model import Entity
    >>> def chunk(text: str) -> list[ChunkExtraction]:
    ...     return [ChunkExtraction(chunk_id="c", entities=[Entity(name="A", description=text)])]
    >>> old, grown, summary = chunk("x\ny"), chunk("x\ny\nz"), chunk("s")
    >>> rewritten(old, old), rewritten(old, grown), rewritten(old, summary)
    (False, True, True)
    """
    now: dict[tuple[str, str, str], tuple[Any, ...]] = {}
    for ex in planned:
        now.update(((ex.chunk_id, "e", e.key), _signature(e)) for e in ex.entities)
        now.update(((ex.chunk_id, "h", h.id), _signature(h)) for h in ex.hyperedges)
    seen = 0
    for ex in stored:
        items: list[tuple[str, str, Entity | Hyperedge]] = [("e", e.key, e) for e in ex.entities]
        items += [("h", h.id, h) for h in ex.hyperedges]
        for kind, key, item in items:
            want = now.get((ex.chunk_id, kind, key))
            if want is None:  # not planned: fine for a member the store gave a bare mention
                if item.description:
                    return True
                continue
            seen += 1
            if _signature(item) != want:
                return True
    return seen != len(now)  # the working dir names something new in an old chunk


def doc_plans(wd: HyperRAGWorkdir, plan: ImportPlan) -> Iterator[DocPlan]:
    """Every document's :class:`DocPlan`, built lazily in id order."""
    for doc, rows in iter_documents(wd):
        yield plan_document(wd, plan, doc, rows)
