"""The text of a chart in a PowerPoint deck (``.pptx``), read with python-pptx: its title and
its data as a table, so a question about a figure on a slide finds the slide.

:func:`chart_text` gives the chart's title (when it shows one), then, for each plot, a table
(:mod:`.tables`' layout): a header of the category axis's title (or nothing) and the series'
names, then a row per category with each series' value (``12.5``; a whole number without
its ``.0``; a missing value empty). An XY (scatter) or bubble chart, which has no
categories, gives a line per series: its name and its points, ``(x, y)``. A chart whose
part python-pptx cannot read gives no text (the slide keeps the rest of its text).

Example:
    >>> _number(14.0), _number(12.5), _number(None)
    ('14', '12.5', '')
"""

from __future__ import annotations

from typing import Any

from .tables import table_text

__all__ = ["chart_text"]

_C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:.15g}"


def _points(series: Any) -> str:
    """An XY or bubble series' points, ``(x, y)``, by point index."""
    def values(tag: str) -> dict[str, str]:
        found = series._element.find(f"{_C}{tag}")
        if found is None:
            return {}
        return {pt.get("idx", ""): " ".join((pt.findtext(f"{_C}v") or "").split())
                for pt in found.iter(f"{_C}pt")}

    xs, ys = values("xVal"), values("yVal")
    return ", ".join(f"({xs.get(i, '')}, {ys[i]})" for i in sorted(ys, key=_index))


def _index(idx: str) -> int:
    return int(idx) if idx.isdigit() else 0


def _plot_text(plot: Any, axis_title: str) -> str:
    series = list(plot.series)
    categories = [str(c) for c in plot.categories]  # each cell's spaces: table_text's
    if not categories:  # XY and bubble charts
        return "\n".join(f"{' '.join(str(s.name or '').split())}: {_points(s)}"
                         for s in series)
    values = [list(s.values) for s in series]
    rows = [[axis_title, *(str(s.name or "") for s in series)]]
    rows += [[name, *(_number(v[i]) if i < len(v) else "" for v in values)]
             for i, name in enumerate(categories)]
    return table_text(rows)


def chart_text(chart: Any) -> str:
    """The text of the python-pptx ``chart`` (see the module's docs)."""
    try:
        title = chart.chart_title.text_frame.text if chart.has_title else ""
        axis = ""
        try:
            category_axis = chart.category_axis
            if category_axis.has_title:
                axis = category_axis.axis_title.text_frame.text
        except (ValueError, AttributeError):  # a pie chart has no category axis
            pass
        plots = [_plot_text(plot, axis) for plot in chart.plots]
    except Exception:  # an untrusted file: a chart python-pptx cannot read gives no text
        return ""
    return "\n".join(t for t in (" ".join(title.split()), *plots) if t)
