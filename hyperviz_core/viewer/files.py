"""A retrieval's views written as files: ``top``/``bottom`` PNG, export JSON and HTML viewer.

Each file goes through a temporary file and a rename (:mod:`hyperviz_core.atomic`), so a
reader sees the old file or the new one; the folder is created only when there is a view to
write (``text`` and ``naive`` modes draw none).

Example:
    >>> import pathlib, tempfile
    >>> from types import SimpleNamespace
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "views"
    >>> write_views(SimpleNamespace(query="q", top_view=None, bottom_view=None), folder)
    {}
    >>> folder.exists()
    False
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..atomic import atomic_write_bytes
from .html import render_html

__all__ = ["write_views"]

_LABELS = {"top": "I_top", "bottom": "I_bot"}


def write_views(result: Any, folder: str | Path) -> dict[str, str]:
    """Write ``result``'s drawn views (a :class:`~hyperviz_core.rag.RetrievalResult` or
    anything with ``query``, ``top_view`` and ``bottom_view``) into ``folder`` as
    ``{top,bottom}.png``, ``.json`` (the rendering's export) and ``.html`` (the viewer).
    Returns ``{"top_png": path, "top_html": path, ...}`` for the views written."""
    folder = Path(folder)
    written: dict[str, str] = {}
    for name in ("top", "bottom"):
        view = getattr(result, f"{name}_view", None)
        if view is None:
            continue
        png_title = view.export.get("title") if isinstance(view.export, dict) else None
        # the PNG's heading (layouts, counts, query) after the view's name: the page and the
        # image say the same
        title = f"VizRAG {_LABELS[name]} · {png_title}" if isinstance(png_title, str) and \
            png_title else f"VizRAG {_LABELS[name]}: {result.query}"
        export = json.dumps(view.export, ensure_ascii=False, indent=1, sort_keys=True)
        atomic_write_bytes(folder / f"{name}.png", view.png)
        atomic_write_bytes(folder / f"{name}.json", export.encode("utf-8"))
        html = render_html(view.export, png=view.png, title=title)
        atomic_write_bytes(folder / f"{name}.html", html.encode("utf-8"))
        written[f"{name}_png"] = str(folder / f"{name}.png")
        written[f"{name}_html"] = str(folder / f"{name}.html")
    return written
