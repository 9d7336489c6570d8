"""What a model's answer cites, checked against what its prompt gave it.

The answer prompt numbers the retrieved passages ``[1]`` … ``[n]`` and names the drawn
entities and relation hyperedges ``E#``/``H#``, and asks the model to cite them, e.g.
``(H2, [1])``. :func:`read_citations` reads those citations back from the answer: the
passages and IDs it cites that the prompt carried, and the ones it carried not (a model that
cites ``[7]`` of five passages, or an ``H9`` nothing drew, made the citation up).
:meth:`Citations.warning` says the latter as one line; the engine records it on the result.

>>> from hyperviz_core.rag.result import RankedChunk, RetrievalResult
>>> res = RetrievalResult(query="q", mode="naive", chunks=[
...     RankedChunk(chunk_id=f"c{i}", doc_id=f"d{i}", score=1.0, rank=i, text="t")
...     for i in (1, 2)])
>>> c = read_citations("Paris [2], see also [1-2] and [7].", res, carried=2, ids=False)
>>> c.passages, c.unknown
([2, 1], ['[7]'])
>>> c.warning()
'the answer cites [7], which its prompt did not give (passages [1]-[2])'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..unitext import truncate
from .extract.parse.lists import scan_ids
from .result import Citations, RetrievalResult, RetrievedEntity, RetrievedHyperedge

__all__ = ["Citations", "LabelledItem", "answer_citations", "cited_legend", "export_legend",
           "labelled_items", "read_citations", "visual_citations"]

#: a bracket of passage numbers: ``[1]``, ``[1, 3]``, ``[2-4]``, ``[1; 2 and 5]``, ``[1、3]``,
#: ``[1至3]``, also with visual IDs among them (``[1, H2]``; lenticular and tortoise-shell
#: brackets read as square ones)
_ITEM = r"(?:\d{1,18}|[EH]\d{1,6})"
_BRACKET = re.compile(rf"\[\s*({_ITEM}(?:\s*(?:[,;、]|[-–—~〜至]|and|&)\s*{_ITEM})*)\s*\]")
_RANGE = re.compile(r"(\d{1,18})\s*[-–—~〜至]\s*(\d{1,18})")
#: the CJK brackets models write citations in (``【1】``, ``〔2〕``), as square ones
_SQUARE = str.maketrans("【〔〖〘】〕〗〙", "[[[[]]]]")
#: the widest range read as its numbers (a wider one is read as its two ends)
_MAX_RANGE = 50


def _numbers(group: str) -> list[int]:
    """The passage numbers of one bracket's inside (ranges expanded up to 50 wide; a wider
    one read as its two ends, so ``[1-99999]`` of five passages cites an unknown one)."""
    out: list[int] = []
    for part in re.split(r"[,;&、]|\band\b", group):
        if "E" in part or "H" in part:  # visual IDs are read apart; keep the bare numbers
            out += [int(n) for n in re.findall(r"(?<![EH\d])\d+", part)]
            continue
        span = _RANGE.fullmatch(part.strip())
        if span and 0 <= int(span[2]) - int(span[1]) <= _MAX_RANGE:
            out += range(int(span[1]), int(span[2]) + 1)
        else:
            out += [int(n) for n in re.findall(r"\d+", part)]
    return out


def _drawn(result: RetrievalResult) -> dict[str, RetrievedEntity | RetrievedHyperedge]:
    """The items the answer prompt names by visual ID: the drawn bottom-layer entities and
    relation hyperedges (:func:`~.answer.knowledge_listings`), by ``E#``/``H#``."""
    out: dict[str, RetrievedEntity | RetrievedHyperedge] = {
        e.visual_id: e for e in result.entities if e.layer == "bottom" and e.visual_id}
    out.update((h.visual_id, h) for h in result.hyperedges
               if h.kind == "relation" and h.visual_id)
    return out


def read_citations(answer: str, result: RetrievalResult, *, carried: int,
                   ids: bool = True) -> Citations:
    """The :class:`Citations` of ``answer``, a reply to a prompt that carried the first
    ``carried`` passages of ``result`` and (``ids``) named the drawn bottom-layer entities
    and relation hyperedges by their visual IDs (:func:`answer_citations`)."""
    return answer_citations(answer, carried=carried, ids=set(_drawn(result)) if ids else None)


def answer_citations(answer: str, *, carried: int,
                     ids: Collection[str] | None = None) -> Citations:
    """The :class:`Citations` of ``answer``, a reply to a prompt that numbered ``carried``
    passages ``[1]`` … ``[carried]`` and (unless ``ids`` is None) named the visual IDs
    ``ids`` (``E#``/``H#``; None: IDs are not read). Needs no :class:`RetrievalResult`: the
    LangChain chain and the LlamaIndex query engine read their answers with it. Full-width
    forms (``［１］``, ``Ｈ２``) read as their ASCII ones, ``【1】`` and ``〔1〕`` as ``[1]``,
    ``、`` as a comma and ``至`` as a range's dash.

    >>> c = answer_citations("Ada [2] (H1, H4); [1-3].", carried=2, ids={"E1", "H1"})
    >>> c.passages, c.ids, c.unknown
    ([2, 1], ['H1'], ['[3]', 'H4'])
    """
    text = unicodedata.normalize("NFKC", answer).translate(_SQUARE)
    cited = list(dict.fromkeys(n for m in _BRACKET.finditer(text) for n in _numbers(m[1])))
    found = [n for n in cited if 1 <= n <= carried]
    unknown = [f"[{n}]" for n in cited if not 1 <= n <= carried]
    named: list[str] = []
    if ids is not None:
        given = set(ids)
        written = scan_ids(_BRACKET.sub(lambda m: f" {m[1]} ", text), given, ends=True,
                           strict=True)
        named = [v for v in written if v in given]
        unknown += [v for v in written if v not in given]
    return Citations(passages=found, ids=named, unknown=unknown, carried=carried)


class LabelledItem(BaseModel):
    """An item a rendering labels: its visual ``id`` (``E#``/``H#``), ``kind``, ``key``
    (the entity key or the hyperedge id), the ``view`` that draws it (two renderings number
    their items apart: ``E1`` of ``"top"`` is not ``E1`` of ``"bottom"``), ``text`` (what it
    is, :func:`export_legend`: stored data, untrusted) and ``image`` (the id of the image
    node that draws it, when there is one)."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: Literal["entity", "hyperedge"]
    key: str
    view: str
    text: str = ""
    image: str = ""


def export_legend(export: Mapping[str, Any], width: int = 200) -> dict[str, str]:
    """``E#``/``H#`` → what it labels, from a rendering's export: an entity's name (and
    type), a hyperedge's members by name and its description (as :func:`cited_legend`
    says them), each cut to ``width`` characters.

    >>> export_legend({"entities": [{"id": "E1", "name": "Ada", "type": "person"},
    ...                             {"id": "E2", "name": "Babbage"}],
    ...                "hyperedges": [{"id": "H1", "members": ["E1", "E2"],
    ...                                "description": "Ada wrote to Babbage."}]})
    {'E1': 'Ada (person)', 'E2': 'Babbage', 'H1': '[Ada, Babbage]: Ada wrote to Babbage.'}
    """
    out: dict[str, str] = {}
    names: dict[str, str] = {}
    for e in export.get("entities", []):
        if isinstance(e, Mapping) and e.get("id"):
            name = " ".join(str(e.get("name") or e.get("key") or "").split())
            names[str(e["id"])] = name
            out[str(e["id"])] = truncate(_entity_text(name, str(e.get("type") or "")), width)
    for h in export.get("hyperedges", []):
        if isinstance(h, Mapping) and h.get("id"):
            members = [names.get(str(m), str(m)) for m in h.get("members") or ()]
            desc = " ".join(str(h.get("description") or "").split())
            out[str(h["id"])] = truncate(_edge_text(members, desc), width)
    return out


def _entity_text(name: str, typ: str) -> str:
    """How a legend says an entity: ``Ada Lovelace (person)``."""
    return f"{name} ({typ})" if typ else name


def _edge_text(members: Sequence[str], description: str) -> str:
    """How a legend says a hyperedge: ``[Ada, Babbage]: description``."""
    return f"[{', '.join(members)}]" + (f": {description}" if description else "")


def labelled_items(view: str, entity_ids: Mapping[str, str], hyperedge_ids: Mapping[str, str],
                   *, legend: Mapping[str, str] | None = None, image: str = ""
                   ) -> list[LabelledItem]:
    """The items of one rendering, from its key → ``E#`` and id → ``H#`` maps (what
    :func:`~.result.visual_ids` reads from its export, and what the wrappers' image nodes and
    documents carry as ``entity_ids``/``hyperedge_ids``), in key order, with their
    ``legend`` text (:func:`export_legend`) and the ``image`` they are drawn in.

    >>> [(i.id, i.key) for i in labelled_items("top", {"ada": "E1"}, {"h-1": "H1"})]
    [('E1', 'ada'), ('H1', 'h-1')]
    """
    text = legend or {}
    return ([LabelledItem(id=str(v), kind="entity", key=str(k), view=view,
                          text=text.get(str(v), ""), image=image)
             for k, v in sorted(entity_ids.items())]
            + [LabelledItem(id=str(v), kind="hyperedge", key=str(k), view=view,
                            text=text.get(str(v), ""), image=image)
               for k, v in sorted(hyperedge_ids.items())])


def visual_citations(answer: str, *, carried: int, drawn: Sequence[LabelledItem]
                     ) -> tuple[Citations, list[LabelledItem]]:
    """The :class:`Citations` of ``answer`` (:func:`answer_citations`), a reply to a prompt
    that numbered ``carried`` passages and showed the renderings whose items are ``drawn``
    (none: ``E#``/``H#`` are not read, as no prompt named them), and the drawn items it
    cites, in order of first mention (an ID two renderings both label gives both items;
    the same item drawn twice, once).

    >>> drawn = labelled_items("top", {"ada": "E1", "babbage": "E2"}, {"h-1": "H1"})
    >>> c, items = visual_citations("Ada [1, E1] (H1); see H7.", carried=1, drawn=drawn)
    >>> c.passages, [(i.id, i.key) for i in items], c.unknown
    ([1], [('E1', 'ada'), ('H1', 'h-1')], ['H7'])
    """
    citations = answer_citations(answer, carried=carried,
                                 ids={d.id for d in drawn} if drawn else None)
    return citations, list(dict.fromkeys(d for vid in citations.ids for d in drawn
                                         if d.id == vid))


def cited_legend(result: RetrievalResult, width: int = 160) -> list[str]:
    """One line per ``E#``/``H#`` the answer of ``result`` cites, saying what it is (an
    entity's name and type; a hyperedge's members by name and its description, cut to
    ``width`` characters): the key to IDs that only the drawing shows otherwise. The texts
    are stored data (untrusted): a terminal caller still makes them safe to print."""
    if result.citations is None:
        return []
    names = {e.key: e.name for e in result.entities}
    drawn = _drawn(result)
    lines: list[str] = []
    for vid in result.citations.ids:
        item = drawn.get(vid)
        if isinstance(item, RetrievedEntity):
            text = _entity_text(item.name, item.type)
        elif isinstance(item, RetrievedHyperedge):
            text = _edge_text([names.get(m, m) for m in item.members], item.description)
        else:
            continue
        lines.append(truncate(f"{vid} = {' '.join(text.split())}", width))
    return lines
