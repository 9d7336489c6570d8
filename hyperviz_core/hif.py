"""HIF (Hypergraph Interchange Format) import and export.

HIF is a JSON document with ``network-type``, ``metadata``, ``nodes``, ``edges`` and
``incidences`` (https://github.com/pszufe/HIF-standard). Input is validated against the HIF
JSON schema shipped with this package (no download). Mapping:

* node → :class:`Entity` (name = node id); ``attrs`` keys ``type``, ``description``,
  ``source_ids`` fill those fields, every other attribute is kept in ``Entity.metadata``;
* edge → :class:`Hyperedge` (id = edge id); ``description``, ``keywords``, ``kind``,
  ``order``, ``source_ids`` fill fields, other attributes go to ``Hyperedge.metadata``;
* incidence → membership; its ``weight``/``direction``/``attrs`` go to ``member_attrs``.

Integer ids and weights are remembered (``metadata["hif_id"]``, ``metadata["hif_weight"]``)
so that HIF → model → HIF returns the same document. Duplicate nodes, edges or incidences in
a file (allowed by HIF) are merged. Node ids that differ only in case, spacing or Unicode
form become one entity with the other ids kept as aliases (see :func:`read_hif`); export
writes every node and every incidence back.

Example:
    >>> from hyperviz_core import Hypergraph
    >>> hg = Hypergraph.from_hif({"incidences": [{"edge": "e1", "node": "a"},
    ...                                          {"edge": "e1", "node": "b"}]})
    >>> hg.members("e1")
    ['a', 'b']
    >>> hg.to_hif()["incidences"]
    [{'edge': 'e1', 'node': 'a'}, {'edge': 'e1', 'node': 'b'}]
"""

from __future__ import annotations

import json
import math
import warnings
from functools import lru_cache, partial
from importlib import resources
from pathlib import Path
from typing import Any

from .hif_fields import EDGE_FIELDS, ENTITY_FIELDS, FieldFitter
from .items import (
    Entity,
    Hyperedge,
    HypergraphError,
    HypergraphView,
    merge_descriptions,
    normalize_key,
)
from .surrogates import first_surrogate

__all__ = [
    "HIFAliasWarning",
    "HIFError",
    "HIFParts",
    "NodeAliasWarning",
    "NodeAliases",
    "hif_schema",
    "hypergraph_to_hif",
    "read_hif",
    "validate_hif",
]

#: what :func:`read_hif` returns: entities by key, hyperedges by id, graph metadata
HIFParts = tuple[dict[str, Entity], dict[str, Hyperedge], dict[str, Any]]

_INCIDENCE_FIELDS = ("weight", "direction", "attrs")
_RESERVED = ("hif_id", "hif_weight", "hif_aliases", "hif_incidences")
#: the smallest integer ``float()`` overflows on (it rounds up to 2 ** 1024)
_FLOAT_OVERFLOW = 2**1024 - 2**970


class HIFError(HypergraphError):
    """A HIF document is malformed or violates the HIF schema."""


@lru_cache(maxsize=1)
def hif_schema() -> dict[str, Any]:
    """The HIF JSON schema bundled with the package."""
    text = resources.files("hyperviz_core").joinpath("schemas/hif_schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate_hif(doc: Any) -> None:
    """Raise :class:`HIFError` naming the first schema violation of ``doc``."""
    import jsonschema

    # The HIF schema uses ``unevaluatedProperties`` (2019-09+), so validate with 2020-12.
    validator = jsonschema.Draft202012Validator(hif_schema())
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        where = "/".join(str(p) for p in err.absolute_path) or "<root>"
        raise HIFError(f"invalid HIF at {where}: {err.message}")


def _load(source: Any) -> Any:
    if isinstance(source, dict):
        return source
    is_json_text = isinstance(source, str) and source.lstrip().startswith(("{", "["))
    if isinstance(source, Path) or (isinstance(source, str) and not is_json_text):
        if not str(source).strip():
            raise HIFError("HIF source is an empty string: give a file path, JSON text or dict")
        path = Path(source)
        try:
            text = _text(path.read_bytes(), f"HIF file {str(path)!r}")
        except OSError as exc:
            raise HIFError(f"cannot read HIF file {str(path)!r}: {exc.strerror}") from None
    elif isinstance(source, str | bytes):
        text = _text(source, "HIF bytes") if isinstance(source, bytes) else source
    else:
        raise HIFError(f"HIF source must be a path, JSON text or dict, not {type(source).__name__}")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise HIFError(f"HIF is not valid JSON: {exc}") from None
    except RecursionError:
        raise HIFError("HIF is JSON nested too deeply to read") from None


def _text(data: bytes, what: str) -> str:
    """``data`` as UTF-8 text, a byte-order mark (Windows tools write one) skipped; a
    :class:`HIFError` naming ``what`` when it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HIFError(f"{what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                       f"{exc.start}; save it as UTF-8)") from None


def _no_constant(name: str) -> Any:
    """``json.loads`` hook: ``NaN``/``Infinity`` are not JSON (and no weight HIF allows)."""
    raise HIFError(f"HIF is not valid JSON: {name} is not a JSON number")


def keep_raw_id(meta: dict[str, Any], raw_id: Any, name: str, weight: Any = None) -> None:
    """Keep in ``meta`` what an id and weight read from elsewhere (HIF, HyperNetX) need to be
    written back as they were: ``hif_id`` when ``raw_id`` is not the string ``name`` (an
    integer id, an id with spaces around it), ``hif_weight`` when a weight was given.

    >>> meta = {}; keep_raw_id(meta, 7, "7", 2.5); meta
    {'hif_id': 7, 'hif_weight': 2.5}
    """
    if not (isinstance(raw_id, str) and raw_id == name):
        meta["hif_id"] = raw_id
    if weight is not None:
        meta["hif_weight"] = weight


class NodeAliasWarning(UserWarning):
    """Node ids (of a HIF document or a HyperNetX object) that differ only in case, spacing
    or Unicode form were merged into one entity; the other ids are kept as aliases."""


class HIFAliasWarning(NodeAliasWarning):
    """HIF node ids that differ only in case, spacing or Unicode form were merged."""


class NodeAliases:
    """The node ids seen for each entity key: the first is the entity's own, the others are
    aliases, kept verbatim (attributes and weight too) in the entity's
    ``metadata["hif_aliases"]`` so that export (HIF or HyperNetX) writes them back.
    Shared by the HIF and the HyperNetX import."""

    def __init__(self, source: str = "HIF") -> None:
        self.source = source
        self.canonical: dict[str, Any] = {}  # key -> the first node id seen for it
        self.aliases: dict[str, list[dict[str, Any]]] = {}  # key -> alias node records

    def seen(self, key: str, raw: Any, attrs: dict[str, Any] | None = None,
             weight: Any = None) -> bool:
        """Note node id ``raw`` of ``key``: true if it is an alias (another id came first)."""
        if key in self.canonical and self.canonical[key] != raw:
            records = self.aliases.setdefault(key, [])
            rec = next((r for r in records if r["node"] == raw), None)
            if rec is None:
                rec = {"node": raw}
                records.append(rec)
            if attrs:
                rec.setdefault("attrs", {}).update(attrs)
            if weight is not None:
                rec["weight"] = weight
            return True
        self.canonical[key] = raw
        return False

    def finish(self, entities: dict[str, Entity], warning: type[Warning],
               stacklevel: int) -> None:
        """Store the aliases in their entities' metadata, with one ``warning`` each."""
        for key in sorted(self.aliases):
            ent = entities[key]
            ent.metadata["hif_aliases"] = self.aliases[key]
            others = ", ".join(repr(r["node"]) for r in self.aliases[key])
            warnings.warn(
                f"{self.source} nodes {self.canonical[key]!r} and {others} differ only in "
                f"case, spacing or Unicode form: merged into one entity {ent.name!r} (every "
                "incidence kept; export writes both ids back)", warning,
                stacklevel=stacklevel)


class _Reader:
    """Builds entities and hyperedges from a validated HIF document."""

    def __init__(self) -> None:
        self.entities: dict[str, Entity] = {}
        self.names = NodeAliases()
        self.edges: dict[str, dict[str, Any]] = {}
        self.members: dict[str, dict[str, dict[str, Any]]] = {}
        self.incidences: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self.fit = FieldFitter("HIF")
        self.seen: set[tuple[str, str, str]] = set()  # incidences read: (edge, node, record)

    def entity_for(self, raw: Any, attrs: dict[str, Any] | None = None,
                   weight: Any = None) -> str:
        name = str(raw).strip()
        try:
            key = normalize_key(name)
        except HypergraphError:
            raise HIFError(f"HIF node {raw!r} has an empty name") from None
        if self.names.seen(key, raw, attrs, weight):
            return key
        attrs = dict(attrs or {})
        fields = {f: attrs.pop(f) for f in ENTITY_FIELDS if f in attrs}
        meta: dict[str, Any] = attrs
        keep_raw_id(meta, raw, name, weight)
        try:
            ent = self.fit.build(partial(Entity, name=name, metadata=meta), fields, meta,
                                 f"node {raw!r}")
        except ValueError as exc:
            raise HIFError(f"HIF node {raw!r} has bad attributes: {exc}") from None
        self.entities[key] = self.entities[key].merged(ent) if key in self.entities else ent
        return key

    def _edge_id(self, raw: Any) -> str:
        """The hyperedge id of HIF edge ``raw``; two edges whose ids differ only in type
        (``1`` and ``"1"``) are refused rather than merged."""
        hid = str(raw)
        if not hid:  # the model would derive an id, and the edge lose its own
            raise HIFError("HIF edge id '' is empty: give each edge a non-empty id")
        slot = self.edges.get(hid)
        if slot is not None and type(slot["raw"]) is not type(raw):
            raise HIFError(f"HIF edges {slot['raw']!r} and {raw!r} have the same id as text; "
                           "give them distinct ids")
        return hid

    def read(self, doc: dict[str, Any]) -> HIFParts:
        for node in doc.get("nodes", []):
            self.entity_for(node["node"], node.get("attrs"), node.get("weight"))
        for edge in doc.get("edges", []):
            hid = self._edge_id(edge["edge"])
            slot = self.edges.setdefault(hid, {"raw": edge["edge"], "attrs": {}, "weight": None})
            slot["attrs"].update(edge.get("attrs") or {})
            if "weight" in edge:
                slot["weight"] = edge["weight"]
        for inc in doc.get("incidences", []):
            key = self.entity_for(inc["node"])
            hid = self._edge_id(inc["edge"])
            self.edges.setdefault(hid, {"raw": inc["edge"], "attrs": {}, "weight": None})
            extra = {f: inc[f] for f in _INCIDENCE_FIELDS if f in inc}
            self.members.setdefault(hid, {}).setdefault(key, {}).update(_membership(extra))
            recs = self.incidences.setdefault(hid, {}).setdefault(key, [])
            rec = {"node": inc["node"], **extra}
            same = (hid, key, json.dumps(rec, sort_keys=True, default=repr))
            if same not in self.seen:  # an exact duplicate is merged (a set: 32,000 repeats
                self.seen.add(same)  # took 15 s in a list); head and tail are both kept
                recs.append(rec)
        self.names.finish(self.entities, HIFAliasWarning, stacklevel=4)
        network_type = doc.get("network-type")
        metadata = dict(doc.get("metadata") or {})
        if network_type not in (None, "undirected"):
            metadata["hif_network_type"] = network_type
        hyperedges: dict[str, Hyperedge] = {}
        for hid, slot in self.edges.items():
            edge = self._hyperedge(hid, slot)  # (its attributes checked either way)
            if edge.members:
                hyperedges[hid] = edge
            else:  # no incidence: no hyperedge (it joins nothing); kept for export
                metadata.setdefault("hif_empty_edges", []).append(_edge_record(slot))
        self.fit.warn(stacklevel=4)
        return self.entities, hyperedges, metadata

    def _hyperedge(self, hid: str, slot: dict[str, Any]) -> Hyperedge:
        attrs = dict(slot["attrs"])
        fields = {f: attrs.pop(f) for f in EDGE_FIELDS if f in attrs}
        meta: dict[str, Any] = attrs
        raw_w = slot["weight"]
        # ``weight`` is a model field; remember the raw value only where export could not
        # reproduce it (an integer, or an explicit default of 1).
        keep_raw = raw_w is not None and (isinstance(raw_w, int) or raw_w == 1.0)
        keep_raw_id(meta, slot["raw"], hid, raw_w if keep_raw else None)
        weight = raw_w if isinstance(raw_w, int | float) else 1.0
        mem = self.members.get(hid, {})
        # incidences that are not simply "the canonical node once" are kept verbatim
        special = {k: recs for k, recs in self.incidences.get(hid, {}).items()
                   if [r["node"] for r in recs] != [self.names.canonical[k]]}
        if special:
            meta["hif_incidences"] = special
        try:
            return self.fit.build(partial(
                Hyperedge, id=hid, members=list(mem), weight=float(weight),
                member_attrs={k: v for k, v in mem.items() if v}, metadata=meta,
            ), fields, meta, f"edge {slot['raw']!r}")
        except ValueError as exc:
            raise HIFError(f"HIF edge {slot['raw']!r} has bad attributes: {exc}") from None


def read_hif(source: Any) -> HIFParts:
    """The entities, hyperedges and metadata of a HIF document (what
    :meth:`Hypergraph.from_hif <hyperviz_core.model.Hypergraph.from_hif>` builds from);
    raises :class:`HIFError` on bad input. ``source``: a dict, JSON text (a string starting
    with ``{`` or ``[``) or a path (any other string: parse text from users yourself and pass
    the dict, so that it cannot name a file).

    Node ids that differ only in case, spacing or Unicode form (``"Wenjie Zhang"`` and
    ``"wenjie zhang"``) normalise to one entity key: they are merged into one entity (named
    after the first id seen) with a :class:`HIFAliasWarning`; the other ids and their
    attributes are kept in ``metadata["hif_aliases"]`` and every incidence through them in
    the hyperedge's ``metadata["hif_incidences"]``, so export writes every node and every
    incidence back.

    >>> import warnings
    >>> doc = {"nodes": [{"node": "Wenjie Zhang"}, {"node": "wenjie zhang"}],
    ...        "incidences": [{"edge": "e1", "node": "Wenjie Zhang"},
    ...                       {"edge": "e1", "node": "wenjie zhang"}]}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ents, edges, _ = read_hif(doc)
    >>> sorted(ents), edges["e1"].members, len(caught)
    (['wenjie zhang'], ['wenjie zhang'], 1)
    >>> [r["node"] for r in edges["e1"].metadata["hif_incidences"]["wenjie zhang"]]
    ['Wenjie Zhang', 'wenjie zhang']
    """
    doc = _load(source)
    try:
        validate_hif(doc)
    except RecursionError:
        raise HIFError("HIF document nested too deeply to validate") from None
    _refuse_surrogates(doc)
    _refuse_nonfinite(doc, "HIF")
    _refuse_huge_weights(doc)
    return _Reader().read(doc)


def _membership(inc: dict[str, Any]) -> dict[str, Any]:
    """A membership's attributes from a HIF incidence's ``weight``/``direction``/``attrs``:
    the ``attrs`` are unpacked (export packs the attributes HIF has no top-level key for
    into them), but one named like a top-level key stays in ``attrs``."""
    out = {k: v for k, v in inc.items() if k != "attrs"}
    attrs = inc.get("attrs")
    if not isinstance(attrs, dict):
        return dict(inc)
    kept = {k: v for k, v in attrs.items() if k in _INCIDENCE_FIELDS}
    out.update({k: v for k, v in attrs.items() if k not in _INCIDENCE_FIELDS})
    if kept:
        out["attrs"] = kept
    return out


def _edge_record(slot: dict[str, Any]) -> dict[str, Any]:
    rec: dict[str, Any] = {"edge": slot["raw"]}
    if slot["weight"] is not None:
        rec["weight"] = slot["weight"]
    if slot["attrs"]:
        rec["attrs"] = dict(slot["attrs"])
    return rec


def _first_nonfinite(value: Any, where: str = "") -> str | None:
    """Where ``value`` holds a NaN or infinite float (``None`` if nowhere)."""
    if isinstance(value, float):
        return None if math.isfinite(value) else where or "<root>"
    items: Any = ()
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    for k, v in items:
        found = _first_nonfinite(v, f"{where}/{k}" if where else str(k))
        if found is not None:
            return found
    return None


def _refuse_nonfinite(doc: Any, what: str) -> None:
    """:class:`HIFError` naming where ``doc`` holds NaN or infinity (JSON has neither)."""
    try:
        json.dumps(doc, allow_nan=False, default=str)  # the fast check
        return
    except (ValueError, TypeError):
        pass
    found = _first_nonfinite(doc)
    if found is not None:
        raise HIFError(f"{what} number at {found} is not finite (NaN or infinity): JSON and "
                       "HIF have no such number")


def _refuse_huge_weights(doc: dict[str, Any]) -> None:
    """:class:`HIFError` naming a node, edge or incidence ``weight`` that is an integer too
    large for a float (JSON has no limit; ``float()`` of it overflowed, uncaught)."""
    for section in ("nodes", "edges", "incidences"):
        for i, rec in enumerate(doc.get(section) or []):
            w = rec.get("weight") if isinstance(rec, dict) else None
            if isinstance(w, int) and abs(w) >= _FLOAT_OVERFLOW:
                raise HIFError(f"HIF number at {section}/{i}/weight is too large (an integer "
                               f"of {len(str(abs(w)))} digits): a weight must fit a float "
                               "(at most about 1.8e308)")


def _refuse_surrogates(doc: Any) -> None:
    """:class:`HIFError` naming where ``doc`` holds a lone surrogate (a ``"\\ud800"``
    escape: text no UTF-8 file, PNG caption or store can hold), before anything is drawn.

    >>> try:
    ...     _refuse_surrogates({"nodes": [{"node": "ok"}, {"node": "x" + chr(0xD800)}]})
    ... except HIFError as exc:
    ...     print(exc)
    HIF text at nodes/1/node holds a lone surrogate (character 2), which is not valid Unicode text
    """
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")  # the fast check
        return
    except UnicodeEncodeError:
        pass
    found = first_surrogate(doc)
    if found is not None:
        raise HIFError(f"HIF text at {found[0]} holds a lone surrogate (character "
                       f"{found[1] + 1}), which is not valid Unicode text")


def _restore(raw: str, meta: dict[str, Any]) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    ident = meta.get("hif_id", raw)
    top: dict[str, Any] = {}
    if "hif_weight" in meta:
        top["weight"] = meta["hif_weight"]
    attrs = {k: v for k, v in meta.items() if k not in _RESERVED}
    return ident, top, attrs


def hypergraph_to_hif(hg: HypergraphView) -> dict[str, Any]:
    """Export as a schema-valid HIF dict (entities sorted by key, hyperedges by id).

    Aliases merged at import (``metadata["hif_aliases"]``) are written back as their own
    nodes, right after their entity's node, and their incidences as they were read; edges
    that had no incidence (``metadata["hif_empty_edges"]``) are written back too. A NaN or
    infinite number anywhere (a membership weight, metadata) raises :class:`HIFError`:
    JSON has no such number.
    """
    meta = dict(hg.metadata)
    network_type = meta.pop("hif_network_type", "undirected")  # HIF's default
    nodes, node_ids = _node_records(hg)
    edges: list[dict[str, Any]] = []
    incidences: list[dict[str, Any]] = []
    for hid in sorted(hg.hyperedges):
        edge = hg.hyperedges[hid]
        ident, top, attrs = _restore(hid, edge.metadata)
        if "weight" in top and float(top["weight"]) != edge.weight:
            del top["weight"]  # the model's weight changed since import
        if "weight" not in top and edge.weight != 1.0 and math.isfinite(edge.weight):
            top["weight"] = edge.weight  # (JSON has no NaN/inf: such a weight is left out)
        for f in ("description", "keywords", "source_ids"):
            if getattr(edge, f):
                attrs[f] = getattr(edge, f)
        if edge.kind != "relation":
            attrs["kind"] = edge.kind
        if edge.order != ("low" if len(edge.members) <= 2 else "high"):
            attrs["order"] = edge.order
        out: dict[str, Any] = {"edge": ident, **top}
        if attrs:
            out["attrs"] = attrs
        edges.append(out)
        kept = edge.metadata.get("hif_incidences") or {}
        for m in edge.members:
            if isinstance(kept.get(m), list) and kept[m]:
                incidences.extend({"edge": ident, **rec} for rec in kept[m])
                continue
            incidences.append(_incidence(ident, node_ids[m], edge.member_attrs.get(m, {})))
    empty = meta.pop("hif_empty_edges", None)
    if isinstance(empty, list) and empty:  # edges without incidences, as they were read
        edges.extend(dict(r) for r in empty if isinstance(r, dict) and "edge" in r)
        edges.sort(key=lambda r: str(r["edge"]))
    doc: dict[str, Any] = {"network-type": network_type, "metadata": meta}
    doc.update({"nodes": nodes, "edges": edges, "incidences": incidences})
    _refuse_nonfinite(doc, "cannot export HIF:")
    return doc


def _incidence(edge: Any, node: Any, member: dict[str, Any]) -> dict[str, Any]:
    """One HIF incidence: ``weight``/``direction``/``attrs`` of the membership at the top
    level, any other membership attribute (e.g. the extractor's ``role``) inside ``attrs``
    (the schema allows no other top-level key)."""
    inc: dict[str, Any] = {"edge": edge, "node": node}
    extra = {k: v for k, v in member.items() if k not in _INCIDENCE_FIELDS}
    inc.update({k: v for k, v in member.items() if k in _INCIDENCE_FIELDS})
    if extra:
        inc["attrs"] = {**dict(inc.get("attrs") or {}), **extra}
    return inc


def _node_records(hg: HypergraphView) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    nodes: list[dict[str, Any]] = []
    node_ids: dict[str, Any] = {}
    for key in sorted(hg.entities):
        ent = hg.entities[key]
        ident, top, attrs = _restore(ent.name, ent.metadata)
        node_ids[key] = ident
        defaults = Entity(name=ent.name)
        for f in ENTITY_FIELDS:
            if getattr(ent, f) != getattr(defaults, f):
                attrs[f] = getattr(ent, f)
        node: dict[str, Any] = {"node": ident, **top}
        if attrs:
            node["attrs"] = attrs
        nodes.append(node)
        for alias in ent.metadata.get("hif_aliases") or []:
            if isinstance(alias, dict) and "node" in alias:
                nodes.append(dict(alias))
    return nodes, node_ids


__all__ += ["merge_descriptions"]
