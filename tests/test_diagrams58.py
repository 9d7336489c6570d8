"""SmartArt graphics in PowerPoint decks and Word documents give their nodes' text (stop
58), a line each in the diagram's tree order. Before, they gave no text. The diagrams are
written here as ECMA-376 lays SmartArt out (a graphic frame naming a diagram data part of
points and connections), added to python-pptx's and python-docx's files; none was made by
PowerPoint or Word.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents

_DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_CT = "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml"
_RT = f"{_R}/diagramData"


def _pt(model: str, text: str | None, kind: str = "") -> str:
    body = ("<dgm:t><a:bodyPr/><a:p>" + (f"<a:r><a:t>{text}</a:t></a:r>" if text else "")
            + "</a:p></dgm:t>") if text is not None else ""
    return f'<dgm:pt modelId="{model}"{f" type={kind!r}" if kind else ""}>{body}</dgm:pt>'


#: a process "Load, then Unload (with Inspect under it)", its points out of the tree's order,
#: a presentation point and a connector that hold text, and a node no connection reaches
DATA = (f'<dgm:dataModel xmlns:dgm="{_DGM}" xmlns:a="{_A}"><dgm:ptLst>'
        + _pt("0", "", "doc") + _pt("2", "Unload") + _pt("3", "Inspect  the hold")
        + _pt("1", "Load") + _pt("9", "not shown", "pres") + _pt("8", "arrow", "sibTrans")
        + _pt("7", "Loose note") + '</dgm:ptLst><dgm:cxnLst>'
        '<dgm:cxn modelId="c2" srcId="0" destId="2" srcOrd="1" destOrd="0"/>'
        '<dgm:cxn modelId="c1" srcId="0" destId="1" srcOrd="0" destOrd="0"/>'
        '<dgm:cxn modelId="c3" type="parOf" srcId="2" destId="3" srcOrd="0" destOrd="0"/>'
        '<dgm:cxn modelId="c4" type="presOf" srcId="1" destId="9" srcOrd="0" destOrd="0"/>'
        '<dgm:cxn modelId="c5" srcId="3" destId="0" srcOrd="0" destOrd="0"/>'  # a loop
        "</dgm:cxnLst></dgm:dataModel>").encode()
LINES = "Load\nUnload\nInspect the hold\nLoose note"


def _graphic(rid: str) -> str:
    return (f'<a:graphic xmlns:a="{_A}"><a:graphicData uri="{_DGM}">'
            f'<dgm:relIds xmlns:dgm="{_DGM}" xmlns:r="{_R}" r:dm="{rid}" r:lo="rIdLo" '
            'r:qs="rIdQs" r:cs="rIdCs"/></a:graphicData></a:graphic>')


def test_a_smartart_graphic_on_a_slide_gives_its_nodes(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI
    from pptx.oxml import parse_xml

    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Harbour steps"
    part = Part(PackURI("/ppt/diagrams/data1.xml"), _CT, slide.part.package, DATA)
    rid = slide.part.relate_to(part, _RT)
    frame = parse_xml(
        f'<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/'
        f'main" xmlns:a="{_A}"><p:nvGraphicFramePr><p:cNvPr id="10" name="Diagram 1"/>'
        '<p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="0"/>'
        f'<a:ext cx="100" cy="100"/></p:xfrm>{_graphic(rid)}</p:graphicFrame>')
    slide.shapes._spTree.append(frame)
    broken = Part(PackURI("/ppt/diagrams/data2.xml"), _CT, slide.part.package, b"<not xml")
    slide.shapes._spTree.append(parse_xml(
        frame.xml.replace(rid, slide.part.relate_to(broken, _RT)).replace('id="10"',
                                                                          'id="11"')))
    prs.save(str(tmp_path / "steps.pptx"))
    [doc] = load_documents(tmp_path / "steps.pptx")
    assert doc.text == "Harbour steps\n\n" + LINES  # the unreadable diagram gives nothing


def test_a_smartart_graphic_in_a_word_document_follows_its_paragraph(tmp_path: Path) -> None:
    docx = pytest.importorskip("docx")
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml.parser import parse_xml

    d = docx.Document()
    d.add_paragraph("The steps:")
    part = Part(PackURI("/word/diagrams/data1.xml"), _CT, DATA, d.part.package)
    rid = d.part.relate_to(part, _RT)
    run = d.add_paragraph("Figure 1").add_run()
    run._r.append(parse_xml(
        '<w:drawing xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">'
        '<wp:inline><wp:extent cx="100" cy="100"/><wp:docPr id="1" name="Diagram 1"/>'
        f"{_graphic(rid)}</wp:inline></w:drawing>"))
    d.add_paragraph("The end.")
    d.save(str(tmp_path / "steps.docx"))
    [doc] = load_documents(tmp_path / "steps.docx")
    assert doc.text.split("\n\n") == ["The steps:", "Figure 1", LINES, "The end."]
