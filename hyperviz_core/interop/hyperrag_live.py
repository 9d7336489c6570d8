"""Render what a live Hyper-RAG instance retrieves: its JSON query result → sub-hypergraph.

``HyperRAG.query(q, QueryParam(mode="hyper", return_type="json"))`` returns ``{"entities",
"hyperedges", "text_units", "response"}``. :func:`from_hyperrag_result` turns that into a
:class:`LiveResult`: a :class:`~hyperviz_core.model.Hypergraph` (entities with their casing
restored from the retrieved passages, hyperedges keyed by member set so the duplicates
Hyper-RAG emits — it de-duplicates tuples and lists separately — collapse into one), the
passages as ``(chunk id, text)`` (chunk id = Hyper-RAG's ``"chunk-" + md5(content)``, the id an
imported store uses as well) and the answer. :meth:`LiveResult.render` draws it with HyperViz
(dual view, caption, JSON export) as a :class:`~hyperviz_core.rag.VisualContext`.

No dependency on Hyper-RAG: :func:`aquery_hyperrag` accepts any object with an async
``aquery(query, param)``; the ``param`` defaults to Hyper-RAG's own ``QueryParam`` when the
``hyperrag`` package is importable, else to :class:`QueryParamLike` with the same fields.

Example:
    >>> res = {"entities": [{"id": 0, "entity_name": "VIENNA", "entity_type": "GEO",
    ...                      "description": "Capital.", "rank": 3}],
    ...        "hyperedges": [{"entity_set": ["VIENNA", "AUSTRIA"], "description": "in",
    ...                        "keywords": "capital", "weight": 2.0}] * 2,
    ...        "text_units": [{"id": 0, "content": "Vienna is the capital of Austria."}],
    ...        "response": "Vienna."}
    >>> live = from_hyperrag_result(res, query="capital of Austria?")
    >>> sorted(e.name for e in live.hypergraph.entities.values()), live.duplicate_hyperedges
    (['Austria', 'Vienna'], 1)
    >>> live.passages[0][0][:6], live.response
    ('chunk-', 'Vienna.')
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import logging
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ..model import EmptyNameError, Entity, Hyperedge, Hypergraph, hyperedge_id, normalize_key
from ..surrogates import first_surrogate
from .hyperrag_map import CaseIndex, split_keywords, split_sep
from .hyperrag_pickle import HyperRAGFormatError

__all__ = [
    "FAIL_RESPONSE",
    "HyperRAGResult",
    "LiveResult",
    "QueryParamLike",
    "aquery_hyperrag",
    "default_query_param",
    "from_hyperrag_result",
    "hyperrag_chunk_id",
    "run_sync",
]

_T = TypeVar("_T")
_log = logging.getLogger(__name__)

#: Hyper-RAG's ``PROMPTS["fail_response"]``: what ``aquery`` returns, as plain text even with
#: ``return_type="json"``, when the query gave it no keywords or no context (nothing found)
FAIL_RESPONSE = "Sorry, I'm not able to provide an answer to that question."
_LOOSE = ConfigDict(extra="ignore", coerce_numbers_to_str=True)


class _Entity(BaseModel):
    model_config = _LOOSE
    entity_name: str
    entity_type: str = "UNKNOWN"
    description: str = ""
    additional_properties: str = ""
    rank: float = Field(default=0.0, allow_inf_nan=False)


class _Edge(BaseModel):
    model_config = _LOOSE
    entity_set: list[str]
    description: str = ""
    keywords: str = ""
    weight: float = Field(default=1.0, allow_inf_nan=False)  # NaN: no valid JSON export (the
    rank: float = Field(default=0.0, allow_inf_nan=False)  # importer refuses it too)


class _TextUnit(BaseModel):
    model_config = _LOOSE
    content: str


class HyperRAGResult(BaseModel):
    """Hyper-RAG's ``return_type="json"`` query result (unknown fields ignored)."""

    model_config = _LOOSE
    entities: list[_Entity] = Field(default_factory=list)
    hyperedges: list[_Edge] = Field(default_factory=list)
    text_units: list[_TextUnit] = Field(default_factory=list)
    response: str = ""


def hyperrag_chunk_id(content: str) -> str:
    """Hyper-RAG's chunk id of a passage: ``"chunk-" + md5(content)``."""
    return "chunk-" + hashlib.md5(content.encode("utf-8")).hexdigest()


def _parse(result: Any) -> HyperRAGResult:
    if isinstance(result, HyperRAGResult):
        return result
    if isinstance(result, str | bytes):
        text = result.decode("utf-8", "replace") if isinstance(result, bytes) else result
        if text.strip() == FAIL_RESPONSE:  # nothing retrieved: an empty result, not an error
            _log.info("Hyper-RAG found nothing for the query (its fail response %r): "
                      "empty result", FAIL_RESPONSE)
            return HyperRAGResult()
        try:
            result = json.loads(result)
        except json.JSONDecodeError:
            raise HyperRAGFormatError(
                f"Hyper-RAG returned plain text, not its JSON result: {text.strip()[:80]!r} "
                "(query it with QueryParam(mode='hyper', return_type='json'))") from None
    if not isinstance(result, Mapping):
        raise HyperRAGFormatError(
            f"expected Hyper-RAG's JSON result (a dict), got {type(result).__name__}")
    bad = first_surrogate(dict(result))
    if bad is not None:  # no UTF-8 id, store or drawing can hold it
        raise HyperRAGFormatError(f"Hyper-RAG result: the text at {bad[0]} holds a lone "
                                  f"surrogate (character {bad[1] + 1}), which is not valid "
                                  "Unicode text")
    try:
        return HyperRAGResult.model_validate(dict(result))
    except ValueError as exc:
        first = str(exc).splitlines()
        raise HyperRAGFormatError(f"malformed Hyper-RAG result: {' '.join(first[:3])}") from None


def _entity(e: _Entity, name: str) -> Entity:
    meta: dict[str, Any] = {"hyperrag_name": e.entity_name, "rank": e.rank}
    props = split_sep(e.additional_properties)
    if props:
        meta["additional_properties"] = props
    typ = e.entity_type.strip().strip('"').lower() or "unknown"
    # fields are already clean (name checked by normalize_key): skip re-validation
    return Entity.model_construct(name=name, type=typ, source_ids=[], metadata=meta,
                                  description="\n".join(split_sep(e.description)))


@dataclass
class _Builder:
    cases: CaseIndex
    entities: dict[str, Entity] = field(default_factory=dict)
    edges: dict[str, Hyperedge] = field(default_factory=dict)
    keys: dict[str, str | None] = field(default_factory=dict)
    seen: set[tuple[str, ...]] = field(default_factory=set)
    duplicates: int = 0

    def key(self, name: str) -> str | None:
        if name not in self.keys:
            try:
                self.keys[name] = normalize_key(name)
            except EmptyNameError:
                self.keys[name] = None
        return self.keys[name]

    def add_entity(self, e: _Entity) -> None:
        key = self.key(e.entity_name)
        if key is None:
            return
        ent = _entity(e, self.cases.restore(e.entity_name.strip()))
        old = self.entities.get(key)
        self.entities[key] = old.merged(ent) if old else ent

    def member(self, name: str) -> str | None:
        key = self.key(name)
        if key is not None and key not in self.entities:
            self.entities[key] = Entity.model_construct(
                name=self.cases.restore(name.strip()), type="entity", description="",
                source_ids=[], metadata={"hyperrag_name": name})
        return key

    def add_edge(self, h: _Edge) -> None:
        raw = tuple(sorted(set(h.entity_set)))
        if raw in self.seen:  # Hyper-RAG lists the same hyperedge twice
            self.duplicates += 1
            return
        self.seen.add(raw)
        keys = [k for k in (self.member(m) for m in h.entity_set) if k is not None]
        members = list(dict.fromkeys(keys))
        if not members:
            return
        hid = hyperedge_id(members, "relation")
        if hid in self.edges:  # Hyper-RAG lists the same hyperedge twice
            self.duplicates += 1
            return
        self.edges[hid] = Hyperedge.model_construct(
            id=hid, members=members, description="\n".join(split_sep(h.description)),
            keywords=split_keywords(h.keywords), weight=h.weight, kind="relation",
            order="low" if len(members) <= 2 else "high", source_ids=[], member_attrs={},
            metadata={"rank": h.rank})


class LiveResult(BaseModel):
    """A Hyper-RAG retrieval: passages, answer and (built on first use) its sub-hypergraph.

    ``passages`` are ``(chunk id, text)`` in Hyper-RAG's order. :attr:`hypergraph` is built
    lazily, so a text-only retriever never pays for it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    query: str = ""
    response: str = ""
    passages: list[tuple[str, str]] = Field(default_factory=list)
    result: HyperRAGResult = Field(default_factory=HyperRAGResult, repr=False)
    _hg: Hypergraph | None = PrivateAttr(default=None)
    _duplicates: int = PrivateAttr(default=0)

    def _build(self) -> Hypergraph:
        if self._hg is None:
            cases = CaseIndex([t for _, t in self.passages]  # then what else it returned
                              + [e.description for e in self.result.entities]
                              + [h.description for h in self.result.hyperedges])
            b = _Builder(cases)
            for e in self.result.entities:
                b.add_entity(e)
            for h in self.result.hyperedges:
                b.add_edge(h)
            self._hg = Hypergraph(entities=b.entities, hyperedges=b.edges,
                                  metadata={"source": "hyper-rag", "query": self.query})
            self._duplicates = b.duplicates
        return self._hg

    @property
    def hypergraph(self) -> Hypergraph:
        """The retrieved entities and de-duplicated hyperedges (do not mutate; copy first)."""
        return self._build()

    @property
    def duplicate_hyperedges(self) -> int:
        """How many repeated hyperedges of Hyper-RAG's result were dropped."""
        self._build()
        return self._duplicates

    def render(self, renderer: Any = None) -> Any:
        """Render with HyperViz (dual view, caption, export) → ``VisualContext``."""
        from ..rag import render_hypergraph

        return render_hypergraph(self.hypergraph, renderer=renderer, query=self.query or None,
                                 chunk_texts=dict(self.passages) or None)

    async def arender(self, renderer: Any = None) -> Any:
        """:meth:`render` in a worker thread."""
        return await asyncio.to_thread(self.render, renderer)


def from_hyperrag_result(result: Any, query: str = "") -> LiveResult:
    """Hyper-RAG's JSON query result (dict, JSON text or parsed) → :class:`LiveResult`.

    Hyper-RAG's plain-text fail response (:data:`FAIL_RESPONSE`: nothing retrieved) gives an
    empty result, as an empty JSON result does (no passages, no hypergraph, no answer).

    Raises:
        HyperRAGFormatError: not a Hyper-RAG JSON result (other plain text included).
    """
    parsed = _parse(result)
    passages = {hyperrag_chunk_id(t.content): t.content for t in parsed.text_units}
    return LiveResult(query=query, response=parsed.response, passages=list(passages.items()),
                      result=parsed)


@dataclass
class QueryParamLike:
    """Hyper-RAG's ``QueryParam`` fields, used when the ``hyperrag`` package is not importable."""

    mode: str = "hyper"
    only_need_context: bool = False
    response_type: str = "Multiple Paragraphs"
    top_k: int = 60
    max_token_for_text_unit: int = 1600
    max_token_for_entity_context: int = 300
    max_token_for_relation_context: int = 1600
    return_type: str = "json"


def default_query_param(mode: str = "hyper") -> Any:
    """``hyperrag.QueryParam(mode=mode, return_type="json")``, or :class:`QueryParamLike`."""
    try:
        from hyperrag import QueryParam  # type: ignore[import-not-found]
    except ImportError:
        return QueryParamLike(mode=mode)
    return QueryParam(mode=mode, return_type="json")


async def aquery_hyperrag(rag: Any, query: str, param: Any = None) -> LiveResult:
    """Ask a Hyper-RAG object (anything with async ``aquery(query, param)``) and convert."""
    aquery = getattr(rag, "aquery", None)
    if aquery is None or not callable(aquery):
        raise TypeError(f"{type(rag).__name__} has no async aquery(query, param) method")
    raw = await aquery(query, param if param is not None else default_query_param())
    return from_hyperrag_result(raw, query=query)


def run_sync(factory: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """Run a coroutine from sync code, also inside a running event loop (worker thread)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(factory())).result()
