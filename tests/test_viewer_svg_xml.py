"""The viewer's SVG is well-formed XML whatever control characters the names hold."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from viewer_fixtures import XSS_PAYLOADS, make_export

from hyperviz_core.model import Entity, Hyperedge, Hypergraph
from hyperviz_core.viewer.svg import build_svg

CONTROLS = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r")


def test_svg_with_control_characters_parses_as_xml() -> None:
    hg = Hypergraph()
    a = hg.add_entity(Entity(name=f"Ada{CONTROLS}Lovelace", type=f"t{CONTROLS}",
                             description=f"d{CONTROLS}{XSS_PAYLOADS[0]}")).key
    b = hg.add_entity(Entity(name="Babbage", description=XSS_PAYLOADS[4])).key
    hg.add_hyperedge(Hyperedge(id="h1", members=[a, b], description=f"met{CONTROLS}"))
    svg = build_svg(make_export(hg, title=f"title{CONTROLS}"))
    root = ET.fromstring(svg)  # raised "not well-formed (invalid token)" before
    labels = [v for el in root.iter() for v in el.attrib.values()]
    assert any("AdaLovelace" in v for v in labels)  # the name is kept, its controls dropped
    assert not any(ch in svg for ch in CONTROLS)
