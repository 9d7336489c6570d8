"""A chart on a PowerPoint slide gives its title and its data as a table (stop 58): a
question about a figure on a slide finds the slide. Before, charts gave no text. The decks
are written by python-pptx, whose charts are PowerPoint's chart parts (with an embedded
workbook); none was saved by PowerPoint itself.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from office_files import folder_top

from hyperviz_core.rag.index.loaders import load_documents

pptx = pytest.importorskip("pptx")


def _deck(path: Path) -> Path:
    from pptx.chart.data import CategoryChartData, XyChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Results"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3"]
    data.add_series("Revenue", (10, 12.5, 14))
    data.add_series("Cost", (8, None, 9))
    chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2),
                                   Inches(6), Inches(4), data).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Revenue by  quarter"
    chart.category_axis.has_title = True
    chart.category_axis.axis_title.text_frame.text = "Quarter"
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Fleet"
    pie = CategoryChartData()
    pie.categories = ["Ferries", "Trawlers"]
    pie.add_series("Ships", (7, 12))
    slide.shapes.add_chart(XL_CHART_TYPE.PIE, Inches(1), Inches(2), Inches(4), Inches(4), pie)
    xy = XyChartData()
    series = xy.add_series("Depth")
    series.add_data_point(1, 2.5)
    series.add_data_point(3, 4)
    slide.shapes.add_chart(XL_CHART_TYPE.XY_SCATTER, Inches(5), Inches(2), Inches(4),
                           Inches(4), xy)
    prs.save(str(path))
    return path


def test_a_chart_reads_as_its_title_and_data(tmp_path: Path) -> None:
    [doc] = load_documents(_deck(tmp_path / "results.pptx"))
    starts = doc.metadata["page_starts"]
    first, second = doc.text[:starts[1]].strip(), doc.text[starts[1]:]
    assert first == ("Results\n\nRevenue by quarter\nQuarter | Revenue | Cost\nQ1 | 10 | 8\n"
                     "Q2 | 12.5\nQ3 | 14 | 9")
    assert second == "Fleet\n\n | Ships\nFerries | 7\nTrawlers | 12\n\nDepth: (1, 2.5), (3, 4)"


def test_a_chart_that_cannot_be_read_leaves_the_slide_its_text(tmp_path: Path) -> None:
    path = _deck(tmp_path / "good.pptx")
    broken = tmp_path / "broken.pptx"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(broken, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if re.fullmatch(r"ppt/charts/chart\d+\.xml", info.filename) and b"Revenue" in data:
                data, count = re.subn(rb"<c:v>12\.5</c:v>", b"<c:v>twelve</c:v>", data)
                assert count == 1  # a value that is no number: python-pptx cannot read it
            out.writestr(info, data)
    text = load_documents(broken)[0].text
    assert text.startswith("Results\n\nFleet\n\n") and "Ferries | 7" in text


def test_vizrag_query_finds_a_figure_in_a_chart(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    top, line = folder_top(capsys, tmp_path, {
        "results.pptx": _deck(tmp_path / "d.pptx").read_bytes(),
        "other.md": "# Oslo\n\nOslo lies at the end of a fjord.\n"},
        "How many trawlers are in the fleet?")
    assert top["doc_id"] == "results.pptx" and "Trawlers" in line
