"""PowerPoint keeps a shape that uses a newer feature (an equation, say) in
``mc:AlternateContent``: its first choice the shape, its fallback a copy (a picture) for
older readers. python-pptx skips such shapes; they are read now from the first choice, an
equation giving its characters in place (stop 58). Before, the whole text box was lost.
The slides are python-pptx's with the markup added as PresentationML (ECMA-376 Part 3)
writes it; none was saved by PowerPoint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents

pptx = pytest.importorskip("pptx")

_NS = ('xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
       'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
       'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
       'xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main" '
       'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"')
_EQUATION = ('<mc:AlternateContent><mc:Choice Requires="a14"><a14:m><m:oMathPara><m:oMath>'
             "<m:r><m:t>E=m</m:t></m:r><m:sSup><m:e><m:r><m:t>c</m:t></m:r></m:e><m:sup>"
             "<m:r><m:t>2</m:t></m:r></m:sup></m:sSup></m:oMath></m:oMathPara></a14:m>"
             "</mc:Choice><mc:Fallback><a:r><a:t>[a picture of the equation]</a:t></a:r>"
             "</mc:Fallback></mc:AlternateContent>")


def _box(shape_id: int, paragraphs: str) -> str:
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name="Box {shape_id}"/>'
            '<p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>'
            f"{paragraphs}</p:txBody></p:sp>")


def _alternate(choice: str, fallback: str) -> str:
    return (f'<mc:AlternateContent {_NS}><mc:Choice Requires="a14">{choice}</mc:Choice>'
            f"<mc:Fallback>{fallback}</mc:Fallback></mc:AlternateContent>")


def test_shapes_in_alternate_content_are_read_from_their_first_choice(tmp_path: Path) -> None:
    from pptx.oxml import parse_xml

    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Physics"
    tree = slide.shapes._spTree
    tree.append(parse_xml(_alternate(
        _box(20, f"<a:p><a:r><a:t>Energy: </a:t></a:r>{_EQUATION}<a:r><a:t> (1905)</a:t>"
                 "</a:r></a:p>"),
        _box(21, "<a:p><a:r><a:t>A picture of the box</a:t></a:r></a:p>"))))
    group = slide.shapes.add_group_shape()
    group.shapes.add_textbox(0, 0, 10, 10).text_frame.text = "In a group"
    group.shapes._spTree.append(parse_xml(_alternate(
        _box(30, "<a:p><a:r><a:t>Grouped alternate</a:t></a:r></a:p>"), "")))
    last = _box(40, "<a:p><a:r><a:t>Last box</a:t></a:r></a:p>")
    tree.append(parse_xml(last.replace("<p:sp>", f"<p:sp {_NS}>", 1)))
    prs.save(str(tmp_path / "physics.pptx"))
    [doc] = load_documents(tmp_path / "physics.pptx")
    assert doc.text == ("Physics\n\nEnergy: E=mc2 (1905)\n\nIn a group\n\nGrouped alternate"
                        "\n\nLast box")
