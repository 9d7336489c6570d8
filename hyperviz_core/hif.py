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
a file (allowed by HIF) are merged.

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
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .model import (
    DuplicateIdError,
    Entity,
    Hyperedge,
    Hypergraph,
    HypergraphError,
    merge_descriptions,
    normalize_key,
)

__all__ = ["HIFError", "hif_schema", "hypergraph_from_hif", "hypergraph_to_hif", "validate_hif"]

_ENTITY_FIELDS = ("type", "description", "source_ids")
_EDGE_FIELDS = ("description", "keywords", "kind", "order", "source_ids")
_RESERVED = ("hif_id", "hif_weight")


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
    is_json_text = isinstance(source, str) and source.lstrip().startswith("{")
    if isinstance(source, Path) or (isinstance(source, str) and not is_json_text):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise HIFError(f"cannot read HIF file {str(path)!r}: {exc.strerror}") from None
    elif isinstance(source, str | bytes):
        text = source.decode() if isinstance(source, bytes) else source
    else:
        raise HIFError(f"HIF source must be a path, JSON text or dict, not {type(source).__name__}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise HIFError(f"HIF is not valid JSON: {exc}") from None


def _remember(meta: dict[str, Any], raw_id: Any, name: str, weight: Any) -> None:
    if not (isinstance(raw_id, str) and raw_id == name):
        meta["hif_id"] = raw_id
    if weight is not None:
        meta["hif_weight"] = weight


def hypergraph_from_hif(source: Any) -> Hypergraph:
    """Build a :class:`Hypergraph` from HIF; raises :class:`HIFError` on bad input."""
    doc = _load(source)
    validate_hif(doc)
    entities: dict[str, Entity] = {}
    raw_of_key: dict[str, Any] = {}

    def entity_for(raw: Any, attrs: dict[str, Any] | None = None, weight: Any = None) -> str:
        name = str(raw).strip()
        try:
            key = normalize_key(name)
        except HypergraphError:
            raise HIFError(f"HIF node {raw!r} has an empty name") from None
        if key in raw_of_key and raw_of_key[key] != raw:
            raise DuplicateIdError(
                f"HIF nodes {raw_of_key[key]!r} and {raw!r} normalise to the same key {key!r}"
            )
        raw_of_key[key] = raw
        attrs = dict(attrs or {})
        fields = {f: attrs.pop(f) for f in _ENTITY_FIELDS if f in attrs}
        meta: dict[str, Any] = attrs
        _remember(meta, raw, name, weight)
        try:
            ent = Entity(name=name, metadata=meta, **fields)
        except ValueError as exc:
            raise HIFError(f"HIF node {raw!r} has bad attributes: {exc}") from None
        entities[key] = entities[key].merged(ent) if key in entities else ent
        return key

    for node in doc.get("nodes", []):
        entity_for(node["node"], node.get("attrs"), node.get("weight"))

    edges: dict[str, dict[str, Any]] = {}
    for edge in doc.get("edges", []):
        hid = str(edge["edge"])
        slot = edges.setdefault(hid, {"raw": edge["edge"], "attrs": {}, "weight": None})
        slot["attrs"].update(edge.get("attrs") or {})
        if "weight" in edge:
            slot["weight"] = edge["weight"]

    members: dict[str, dict[str, dict[str, Any]]] = {}
    for inc in doc.get("incidences", []):
        key = entity_for(inc["node"])
        hid = str(inc["edge"])
        edges.setdefault(hid, {"raw": inc["edge"], "attrs": {}, "weight": None})
        extra = {f: inc[f] for f in ("weight", "direction", "attrs") if f in inc}
        members.setdefault(hid, {}).setdefault(key, {}).update(extra)

    hg = Hypergraph()
    for key, ent in entities.items():
        hg.entities[key] = ent
    for hid, slot in edges.items():
        attrs = dict(slot["attrs"])
        fields = {f: attrs.pop(f) for f in _EDGE_FIELDS if f in attrs}
        meta: dict[str, Any] = attrs
        raw_w = slot["weight"]
        # ``weight`` is a model field; remember the raw value only where export could not
        # reproduce it (an integer, or an explicit default of 1).
        keep_raw = raw_w is not None and (isinstance(raw_w, int) or raw_w == 1.0)
        _remember(meta, slot["raw"], hid, raw_w if keep_raw else None)
        weight = raw_w if isinstance(raw_w, int | float) else 1.0
        mem = members.get(hid, {})
        try:
            hg.hyperedges[hid] = Hyperedge(
                id=hid,
                members=list(mem),
                weight=float(weight),
                member_attrs={k: v for k, v in mem.items() if v},
                metadata=meta,
                **fields,
            )
        except ValueError as exc:
            raise HIFError(f"HIF edge {slot['raw']!r} has bad attributes: {exc}") from None
    network_type = doc.get("network-type")
    hg.metadata = dict(doc.get("metadata") or {})
    if network_type not in (None, "undirected"):
        hg.metadata["hif_network_type"] = network_type
    hg._reindex()
    return hg


def _restore(raw: str, meta: dict[str, Any]) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    ident = meta.get("hif_id", raw)
    top: dict[str, Any] = {}
    if "hif_weight" in meta:
        top["weight"] = meta["hif_weight"]
    attrs = {k: v for k, v in meta.items() if k not in _RESERVED}
    return ident, top, attrs


def hypergraph_to_hif(hg: Hypergraph) -> dict[str, Any]:
    """Export as a schema-valid HIF dict (entities sorted by key, hyperedges by id)."""
    meta = dict(hg.metadata)
    network_type = meta.pop("hif_network_type", "undirected")  # HIF's default
    nodes, node_ids = [], {}
    for key in sorted(hg.entities):
        ent = hg.entities[key]
        ident, top, attrs = _restore(ent.name, ent.metadata)
        node_ids[key] = ident
        defaults = Entity(name=ent.name)
        for f in _ENTITY_FIELDS:
            if getattr(ent, f) != getattr(defaults, f):
                attrs[f] = getattr(ent, f)
        node: dict[str, Any] = {"node": ident, **top}
        if attrs:
            node["attrs"] = attrs
        nodes.append(node)
    edges, incidences = [], []
    for hid in sorted(hg.hyperedges):
        edge = hg.hyperedges[hid]
        ident, top, attrs = _restore(hid, edge.metadata)
        if "weight" in top and float(top["weight"]) != edge.weight:
            del top["weight"]  # the model's weight changed since import
        if "weight" not in top and edge.weight != 1.0:
            top["weight"] = edge.weight
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
        for m in edge.members:
            inc: dict[str, Any] = {"edge": ident, "node": node_ids[m]}
            inc.update(edge.member_attrs.get(m, {}))
            incidences.append(inc)
    doc: dict[str, Any] = {"network-type": network_type, "metadata": meta}
    doc.update({"nodes": nodes, "edges": edges, "incidences": incidences})
    return doc


def describe(hg: Hypergraph) -> str:
    """One-line summary used by the CLI."""
    s = hg.stats()
    return (
        f"{s.entities} entities, {s.hyperedges} hyperedges, {s.incidences} incidences, "
        f"{s.components} components"
    )


__all__ += ["describe", "merge_descriptions"]
