"""The viewer inside a notebook: the page in an ``<iframe srcdoc>``.

The viewer is a whole page (its own ``<head>``, Content-Security-Policy, styles for
``html``/``body`` and keyboard shortcuts). Pasted into a notebook's output as it is, it would
restyle the notebook and a second viewer on the page would not work; in an iframe each
viewer has its own document. The iframe is sandboxed (``allow-scripts`` only: the viewer
reaches nothing outside it).

Example:
    >>> frame = InlineViewer("<!DOCTYPE html><p>a & b</p>", height=300)
    >>> print(frame)  # doctest: +ELLIPSIS
    <iframe srcdoc="&lt;!DOCTYPE html&gt;&lt;p&gt;a &amp; b&lt;/p&gt;" sandbox=...
    >>> frame._repr_html_() == str(frame)
    True
"""

from __future__ import annotations

import html

__all__ = ["InlineViewer"]


class InlineViewer:
    """A viewer page shown inline: a notebook displays it (``_repr_html_``); ``str()`` is
    the ``<iframe>`` markup, for any other HTML page."""

    def __init__(self, page: str, height: int = 640) -> None:
        if not isinstance(height, int) or isinstance(height, bool) or height < 100:
            raise ValueError(f"height must be a whole number of pixels ≥ 100, got {height!r}")
        self.page = page
        self.height = height

    def __str__(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.page, quote=True)}" '
                f'sandbox="allow-scripts" title="HyperViz viewer" '
                f'style="width:100%;height:{self.height}px;border:0"></iframe>')

    def _repr_html_(self) -> str:  # Jupyter
        return str(self)

    def __repr__(self) -> str:
        return f"InlineViewer({len(self.page)} characters, height={self.height})"
