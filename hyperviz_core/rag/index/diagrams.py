"""The text of SmartArt diagrams in PowerPoint decks (``.pptx``) and Word documents
(``.docx``), which python-pptx and python-docx do not read.

A SmartArt graphic is a frame (``a:graphicData`` of the diagram kind) naming its data part
(``dgm:relIds r:dm``); that part lists the diagram's points (``dgm:pt``), each node's text
in DrawingML paragraphs, and the connections that make them a tree (``dgm:cxn``: parent,
child, and the child's place among its siblings). :func:`diagram_texts` gives, for each
diagram in an element, its nodes' text a line each, in the tree's order (a parent before
its children, siblings in their order); nodes no connection reaches follow in the data's
order, and the connectors' and layout's own points give none. A data part that cannot be
read gives no text. Parts are parsed by python-pptx's or python-docx's own XML parser (lxml:
no entities resolved, nothing fetched).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["diagram_texts"]

_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
#: the points that are a diagram's content (the others are connectors and layout)
_NODES = (None, "node", "asst")


def _node_text(pt: Any) -> str:
    """A point's paragraphs, joined by spaces."""
    body = pt.find(f"{_DGM}t")
    if body is None:
        return ""
    paragraphs = ("".join(t.text or "" for t in p.iter(f"{_A}t")) for p in body.iter(f"{_A}p"))
    return " ".join(" ".join(paragraphs).split())


def _lines(root: Any) -> list[str]:
    """The nodes' texts of a diagram's data model ``root`` in the tree's order."""
    points = list(root.iter(f"{_DGM}pt"))
    texts = {pt.get("modelId", ""): _node_text(pt) for pt in points
             if pt.get("type") in _NODES}
    children: dict[str, list[tuple[int, str]]] = {}
    for cxn in root.iter(f"{_DGM}cxn"):
        if cxn.get("type") in (None, "parOf"):
            order = cxn.get("srcOrd", "0")
            children.setdefault(cxn.get("srcId", ""), []).append(
                (int(order) if order.isdigit() else 0, cxn.get("destId", "")))
    roots = [pt.get("modelId", "") for pt in points if pt.get("type") == "doc"]
    out: list[str] = []
    seen: set[str] = set()
    stack = list(reversed(roots))
    while stack:  # depth first, without recursion (a deep or looping tree ends)
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if texts.get(node):
            out.append(texts[node])
        stack += [child for _, child in sorted(children.get(node, []), reverse=True)]
    out += [text for node, text in texts.items() if node not in seen and text]
    return out


def diagram_texts(element: Any, related: Callable[[str], Any],
                  parse: Callable[[bytes], Any]) -> Iterator[str]:
    """The text of each SmartArt diagram under ``element``, its nodes a line each;
    ``related(rId)`` is the part a relationship of the element's part names, ``parse`` the
    XML parser of its library."""
    for ids in element.iter(f"{_DGM}relIds"):
        try:
            root = parse(related(ids.get(f"{_R}dm", "")).blob)
            lines = _lines(root)
        except Exception:  # an untrusted file: a diagram that cannot be read gives no text
            continue
        if lines:
            yield "\n".join(lines)
