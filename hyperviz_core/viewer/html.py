"""One self-contained, offline HTML page for a rendering's export (paper App. B.1).

The page holds the SVG drawn from the export geometry, the export itself as a JSON data block,
the viewer script and stylesheet (package assets, inlined), a legend, the pruning report, the
caption and the metrics. A Content-Security-Policy meta tag allows exactly the inlined script
and stylesheet (by sha256 hash) and ``data:`` images, nothing else: no network, no other code.

Clicking an entity highlights its hyperedges and neighbours (1 hop); each further click on the
same entity adds one hop, up to the "max hops" control (1 .. :func:`hop_depth`, or "all", the
default: N(v, G), everything reachable from it); a click at the maximum, or Escape, resets.
The toolbar shows the depth ("E3: 2 hops (of 4)"); "+1 hop" expands like a click.

Keyboard and screen readers: a "Skip to details" button first, the search box a combobox
over a listbox of results (a status line says "No entity matches" / "+N more"), named zoom
buttons; the arrow keys and + - 0 pan and zoom only while the drawing (or nothing) has the
focus. Below 600 px of width the page is one scrolling column (see ``viewer.css``).

Untrusted text (entity names, descriptions, chunk texts) is escaped for its context: HTML text
and attributes with :func:`html.escape`, the JSON block with ``<``, ``>``, ``&``, U+2028 and
U+2029 as ``\\uXXXX`` escapes so that ``</script>`` cannot end it. The script builds DOM only
with ``textContent``/``setAttribute``. User text set next to the page's own words (a legend
description before "· 3 members", a pruned entity's name before its reason, the PNG title)
is wrapped in ``<bdi>``, so right-to-left text keeps its place and cannot reorder the words
and numbers around it.

Example:
    >>> from hyperviz_core.viewer import render_html
    >>> page = render_html({"width": 100, "height": 80, "panels": [], "entities": [],
    ...                     "hyperedges": [], "title": "<b>demo</b>"})
    >>> page.startswith("<!DOCTYPE html>"), "&lt;b&gt;demo&lt;/b&gt;" in page
    (True, True)
"""

from __future__ import annotations

import base64
import hashlib
import json
import numbers
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from ..unitext import cluster_cut
from ..wording import TITLE_QUERY
from .svg import as_float, bidi_free, build_svg, esc, fmt, safe_color

__all__ = ["content_security_policy", "hop_depth", "json_for_script", "render_html"]

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_MAX_HOPS = 20
_HOP_SEARCH_WORK = 4_000_000  # entity × incidence steps for hop_depth
_LEGEND_DESC = 140


@cache
def _asset(name: str) -> str:
    text = resources.files("hyperviz_core.viewer").joinpath("assets", name).read_text("utf-8")
    if "</script" in text.lower() or "</style" in text.lower():  # pragma: no cover - our own file
        raise RuntimeError(f"viewer asset {name} must not contain a closing tag")
    return text


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def content_security_policy(script: str, style: str) -> str:
    """The CSP that allows only ``script`` and ``style`` (inline, by hash) and data: images."""
    return (
        f"default-src 'none'; script-src '{_sha256(script)}'; style-src '{_sha256(style)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def _jsonable(value: object) -> Any:
    """A JSON-safe copy: str keys, lists for tuples, ``None`` for NaN/inf, str for the rest;
    strings without bidi controls (what the viewer shows never reorders)."""
    if isinstance(value, str):
        return bidi_free(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, Mapping):
        return {bidi_free(str(k)): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return as_float(float(value))
    if isinstance(value, set | frozenset):
        return sorted((_jsonable(v) for v in value), key=str)
    return str(value)


def json_for_script(data: object) -> str:
    """JSON text that is safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` become ``\\u003c``/``\\u003e``/``\\u0026`` (so no ``</script>`` or
    ``<!--`` can appear) and the JavaScript line terminators U+2028/U+2029 are escaped too.
    Keys are sorted so that equal exports give identical bytes.
    """
    text = json.dumps(
        _jsonable(data), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _item_name(item: object) -> tuple[str, str, str]:
    """(lookup key, visual ID or ``""``, name) of a pruned entity/hyperedge given as str or
    mapping."""
    if isinstance(item, Mapping):
        key = str(item.get("key", item.get("id", item.get("name", ""))))
        shown = str(item.get("name", key))
        vid = str(item.get("id")) if item.get("id") and str(item.get("id")) != shown else ""
        return key, vid, shown
    return str(item), "", str(item)


def _bdi(text: str) -> str:
    """``text`` escaped and isolated from the text around it (its own direction)."""
    return f"<bdi>{esc(text)}</bdi>"


def _titled(text: str, query: object) -> str:
    """``text`` escaped, the query the renderer's title ends with (after ``TITLE_QUERY``,
    when the export has a query) isolated, as the PNG draws it: a right-to-left question
    keeps its ``?`` at its own end.

    >>> _titled("HyperViz: bi-inc · query: מי?", "מי?")
    'HyperViz: bi-inc · query: <bdi>מי?</bdi>'
    """
    at = text.rfind(TITLE_QUERY) if isinstance(query, str) and query.strip() else -1
    if at < 0:
        return esc(text)
    cut = at + len(TITLE_QUERY)
    return esc(text[:cut]) + _bdi(text[cut:])


def _kv_table(rows: Mapping[str, Any], css: str = "hv-kv") -> str:
    out = [f'<table class="{css}">']
    for key in sorted(rows, key=str):
        value = rows[key]
        if isinstance(value, float):
            shown = fmt(value) if abs(value) >= 0.01 or value == 0 else f"{value:.3g}"
        elif isinstance(value, str | int):
            shown = str(value)
        else:
            shown = json_for_script(value).replace("\\u003c", "<").replace("\\u003e", ">")
            shown = shown.replace("\\u0026", "&")
        out.append(f"<tr><td>{esc(key)}</td><td>{esc(shown)}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _pruning_html(pruned: object) -> str:
    """The pruning report: omitted entities, omitted hyperedges by description
    (``pruned.descriptions``; the id, often a hash, in the item's tooltip), the reasons and
    the scalar fields of ``pruned`` (cost, C_max, layouts run ...) as a table."""
    if not isinstance(pruned, Mapping):
        return '<p class="hv-muted">No pruning report.</p>'
    reasons = pruned.get("reasons")
    reasons = reasons if isinstance(reasons, Mapping) else {}
    descriptions = pruned.get("descriptions")
    descriptions = descriptions if isinstance(descriptions, Mapping) else {}
    names = pruned.get("names")  # entity key → name (an export without them: the keys)
    names = names if isinstance(names, Mapping) else {}
    used: set[str] = set()
    out: list[str] = []
    total = 0
    for field, label in (("entities", "Omitted entities"), ("hyperedges", "Omitted hyperedges")):
        items = pruned.get(field)
        if not isinstance(items, list | tuple) or not items:
            continue
        total += len(items)
        out.append(f'<h3>{label} ({len(items)})</h3><ul class="hv-pruned-{field}">')
        for item in items:
            key, vid, shown = _item_name(item)
            if field == "entities" and isinstance(names.get(key), str) and shown == key:
                shown = names[key]
            tip = ""
            desc = descriptions.get(key) if field == "hyperedges" else None
            if isinstance(desc, str) and desc:
                vid, shown, tip = "", desc, f' title="{esc(key)}"'
            reason = reasons.get(key)
            why = ""
            if isinstance(reason, str | int | float):
                used.add(key)
                why = f" \u2014 {esc(reason)}"
            head = f"{esc(vid)} " if vid else ""
            out.append(f"<li{tip}>{head}{_bdi(shown)}{why}</li>")
        out.append("</ul>")
    if total == 0:
        out.insert(0, '<p class="hv-pruned-none">Nothing was omitted.</p>')
    rest = {str(k): v for k, v in reasons.items() if str(k) not in used}
    if rest:
        out.append("<h3>Reasons</h3>" + _kv_table(rest))
    other = {  # the scalars (cost, c_max, layouts_run ...): names, removals and steps repeat
        str(k): v  # the lists above, in raw JSON (tens of thousands of characters)
        for k, v in pruned.items()
        if k not in ("entities", "hyperedges", "reasons", "descriptions")
        and isinstance(v, str | int | float | bool) and v not in (None, "")
    }
    if other:
        out.append(_kv_table(other))
    return "".join(out)


def _legend_desc(h: Mapping[str, Any]) -> str:
    """A hyperedge's legend text: its description, else its keywords, else ``id`` and its key
    (the HIF edge id), so undescribed hyperedges stay apart; ``""`` without any."""
    desc = " ".join(str(h.get("description") or "").split())
    keywords = h.get("keywords")
    if not desc and isinstance(keywords, list | tuple):
        desc = ", ".join(str(k) for k in keywords if str(k).strip())
    key = h.get("key")
    if not desc and isinstance(key, str) and key:
        desc = f"id {key}"
    return desc


def _legend_html(hyperedges: list[Mapping[str, Any]]) -> str:
    out = ['<ul id="hv-legend">']
    for i, h in enumerate(hyperedges):
        hid = str(h.get("id", ""))
        color = safe_color(h.get("color"), i)
        desc = _legend_desc(h)
        if len(desc) > _LEGEND_DESC:
            desc = desc[: cluster_cut(desc, _LEGEND_DESC - 1)] + "\u2026"
        kind = str(h.get("kind") or "")
        members = h.get("members")
        count = len(members) if isinstance(members, list | tuple) else 0
        gone = h.get("omitted_members")
        lost = f" (+{len(gone)} omitted)" if isinstance(gone, list | tuple) and gone else ""
        out.append(
            f'<li><button type="button" class="hv-legend-item" data-goto="{esc(hid)}">'
            f'<svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" '
            f'rx="2" fill="{color}" stroke="#495057" stroke-width="0.5"/></svg>'
            f'<span class="hv-lid">{esc(hid)}</span>'
            f'<span class="hv-ldesc">{_bdi(desc) if desc else "(no description)"}'
            f'<span class="hv-muted"> \u00b7 {count} member{"" if count == 1 else "s"}{lost}'
            f"{' · ' + _bdi(kind) if kind and kind != 'relation' else ''}</span></span>"
            "</button></li>"
        )
    if not hyperedges:
        out.append('<li class="hv-muted">No hyperedges.</li>')
    out.append("</ul>")
    return "".join(out)


def hop_depth(entities: list[Mapping[str, Any]], hyperedges: list[Mapping[str, Any]]) -> int:
    """The most hops a click sequence can expand: max over entities v of the depth of N(v, G).

    The depth of v is the number of hops (entity → hyperedge → entity) after which the
    neighbourhood of v stops growing, hyperedges included; at least 1. The result is capped at
    ``_MAX_HOPS`` (the control also offers "all"), and when the drawing is too large to search
    cheaply it is that cap. Deterministic: depends only on the member lists.

    >>> hop_depth([{"id": "E1"}, {"id": "E2"}, {"id": "E3"}],
    ...           [{"id": "H1", "members": ["E1", "E2"]}, {"id": "H2", "members": ["E2", "E3"]}])
    2
    """
    members: list[list[str]] = []
    incident: dict[str, list[int]] = {}
    for h in hyperedges:
        ms = [m for m in h.get("members") or [] if isinstance(m, str)]
        members.append(ms)
        for m in ms:
            incident.setdefault(m, []).append(len(members) - 1)
    starts = [str(e.get("id", "")) for e in entities]
    if len(starts) * sum(len(ms) for ms in members) > _HOP_SEARCH_WORK:
        return _MAX_HOPS
    best = 1
    for start in starts:
        seen: set[str] = {start}
        used: set[int] = set()
        frontier, depth = [start], 0
        while frontier and best < _MAX_HOPS:
            depth += 1
            nxt: list[str] = []
            for v in frontier:
                for k in incident.get(v, ()):
                    if k in used:
                        continue
                    used.add(k)
                    best = max(best, depth)
                    for m in members[k]:
                        if m not in seen:
                            seen.add(m)
                            nxt.append(m)
            frontier = nxt
    return min(best, _MAX_HOPS)


def _hops_html(depth: int) -> str:
    options = "".join(f'<option value="{n}">{n}</option>' for n in range(1, depth + 1))
    return (
        '<div class="hv-group"><label for="hv-hops">max hops</label>'
        '<select id="hv-hops" title="How far repeated clicks on an entity expand">'
        f'{options}<option value="all" selected>all</option></select>'
        '<button type="button" id="hv-expand" title="Expand the selected entity one more hop" '
        "disabled>+1 hop</button>"
        '<span id="hv-hop-status" class="hv-muted" aria-live="polite">no entity selected</span>'
        "</div>"
    )


_KEY_HTML = (
    '<p class="hv-muted">'
    '<svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="5.5" fill="#fff" '
    'stroke="#1c7ed6" stroke-width="1.6"/></svg> entity E# &#160; '
    '<svg width="14" height="14" aria-hidden="true"><rect x="2" y="2" width="10" height="10" '
    'fill="#ffd8a8" stroke="#e8590c" stroke-width="1.6"/></svg> hyperedge node H# &#160; '
    '<svg width="18" height="14" aria-hidden="true"><rect x="1" y="2" width="16" height="10" '
    'rx="5" fill="#74c0fc" fill-opacity="0.3" stroke="#339af0"/></svg> hyperedge region</p>'
)


# a combobox: the results are a listbox of buttons with role "option" (the arrow keys move
# between them); what the list says besides the options goes to the status line, read aloud
_SEARCH_HTML = (
    '<div class="hv-group" id="hv-search-wrap"><input type="search" id="hv-search" '
    'placeholder="Find entity (name or E#)" aria-label="Find entity by name or ID" '
    'autocomplete="off" role="combobox" aria-autocomplete="list" aria-expanded="false" '
    'aria-controls="hv-search-results"><ul id="hv-search-results" role="listbox" '
    'aria-label="Matching entities" hidden></ul>'
    '<span id="hv-search-status" class="hv-sr-only" role="status"></span></div>'
)
_ZOOM_HTML = (
    '<div class="hv-group" id="hv-zoom" role="group" aria-label="Zoom">'
    '<button type="button" id="hv-zoom-in" title="Zoom in" aria-label="Zoom in">+</button>'
    '<button type="button" id="hv-zoom-out" title="Zoom out" aria-label="Zoom out">\u2212'
    '</button><button type="button" id="hv-zoom-reset" title="Reset view" '
    'aria-label="Reset zoom">Reset</button></div>'
)


def _png_title_html(png_title: object, page_title: str, query: object) -> str:
    """The PNG's own heading under the page's when the page has another title (a retrieval
    view's "VizRAG I_bot: ..."), so both name the same drawing; ``""`` otherwise."""
    if not isinstance(png_title, str) or not png_title or png_title in page_title:
        return ""
    return (f'<p id="hv-png-title" class="hv-muted">PNG title: '
            f'<bdi>{_titled(png_title, query)}</bdi></p>')


def render_html(
    export: Mapping[str, Any], *, png: bytes | None = None, title: str | None = None
) -> str:
    """A self-contained offline HTML viewer of ``export`` (the renderer's export schema).

    ``png`` (the rendering's PNG bytes) is embedded as a ``data:`` image that can be overlaid on
    the SVG for comparison; ``title`` overrides ``export["title"]``. Output is deterministic:
    the same export gives byte-identical HTML.
    """
    if not isinstance(export, Mapping):
        raise TypeError(f"export must be a mapping, not {type(export).__name__}")
    png_uri = None
    if png is not None:
        if not isinstance(png, bytes | bytearray | memoryview):
            raise TypeError("png must be bytes")
        raw = bytes(png)
        if not raw.startswith(_PNG_SIGNATURE):
            raise ValueError("png is not a PNG image")
        png_uri = "data:image/png;base64," + base64.b64encode(raw).decode("ascii")

    data = _jsonable(export)
    script, style = _asset("viewer.js"), _asset("viewer.css")
    page_title = title if title is not None else str(data.get("title") or "HyperViz view")
    entities = [e for e in data.get("entities") or [] if isinstance(e, Mapping)]
    hyperedges = [h for h in data.get("hyperedges") or [] if isinstance(h, Mapping)]
    layouts = [str(p.get("layout", "")) for p in data.get("panels") or [] if isinstance(p, Mapping)]

    metrics = data.get("metrics")
    versions = data.get("versions")
    caption = data.get("caption")
    png_toggle = (
        '<div class="hv-group"><label><input type="checkbox" id="hv-show-png"> PNG overlay'
        "</label></div>"
        if png_uri
        else ""
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" '
        f'content="{esc(content_security_policy(script, style))}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{esc(page_title)}</title>",
        f"<style>{style}</style>",
        "</head><body>",
        '<button type="button" class="hv-skip" id="hv-skip">Skip to details</button>',
        '<header id="hv-header">',
        f'<h1 id="hv-title" dir="auto">{_titled(page_title, data.get("query"))}</h1>',
        _png_title_html(data.get("title"), page_title, data.get("query")),
        _SEARCH_HTML,
        _hops_html(hop_depth(entities, hyperedges)),
        _ZOOM_HTML,
        png_toggle,
        f'<div class="hv-group hv-muted" id="hv-panels">'
        f"{esc(' | '.join(f'{i + 1}: {name}' for i, name in enumerate(layouts)))}</div>",
        "</header>",
        '<div id="hv-main"><div id="hv-stage">',
        build_svg(data, png_data_uri=png_uri,
                  described_by="hv-caption-text" if isinstance(caption, str) and caption
                  else None),
        '</div><aside id="hv-sidebar" tabindex="-1" aria-label="Details">',
        '<section id="hv-details" aria-live="polite"><h2>Selection</h2><noscript><p>'
        "JavaScript is off: the drawing and the lists below are static.</p></noscript>"
        "</section>",
        "<h2>Legend</h2>",
        _KEY_HTML,
        _legend_html(hyperedges),
        '<h2>Pruning report</h2><section id="hv-pruning">',
        _pruning_html(data.get("pruned")),
        "</section>",
    ]
    if isinstance(caption, str) and caption:
        parts.append(
            '<details id="hv-caption"><summary>Caption (text listing)</summary>'
            f'<pre class="hv-caption" id="hv-caption-text">{esc(caption)}</pre></details>'
        )
    if isinstance(metrics, Mapping) and metrics:
        parts.append(
            '<details id="hv-metrics"><summary>Readability metrics</summary>'
            f"{_kv_table(metrics)}</details>"
        )
    if isinstance(versions, Mapping) and versions:
        parts.append(
            f'<details id="hv-versions"><summary>Versions</summary>{_kv_table(versions)}</details>'
        )
    parts += [
        "</aside></div>",
        '<div id="hv-tooltip" role="tooltip" hidden></div>',
        f'<script type="application/json" id="hv-data">{json_for_script(data)}</script>',
        f"<script>{script}</script>",
        "</body></html>",
        "",
    ]
    return "\n".join(p for p in parts if p)
