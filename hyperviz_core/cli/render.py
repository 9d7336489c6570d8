"""``vizrag render``: draw a HIF hypergraph as a PNG plus its JSON export.

Example::

    vizrag render graph.hif.json --layout set-force --layout bi-inc --query "radium" \
        --max-entities 30 --style style.json --out view.png      # writes view.png + view.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["register"]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from ..layouts import available_layouts
    from ..model import Hypergraph
    from ..prune import Budget
    from ..render import HyperViz
    from ..style import Style

    def fail(msg: str) -> int:
        print(f"vizrag render: error: {msg}", file=sys.stderr)
        return 2

    layouts = args.layout or ["set-force", "bi-inc"]
    unknown = [name for name in layouts if name not in available_layouts()]
    if unknown:
        return fail(f"unknown layout {unknown[0]!r}; choose from {', '.join(available_layouts())}")
    try:
        hg = Hypergraph.from_hif(Path(args.input))
    except (ValueError, OSError) as exc:
        return fail(_one_line(exc))
    try:
        style = Style.from_json_file(args.style) if args.style else Style()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "style"
        return fail(f"invalid style {args.style}: {where}: {first.get('msg', '')}")
    except (ValueError, OSError) as exc:
        return fail(_one_line(exc))
    budget_kw: dict[str, Any] = {}
    if args.max_entities is not None:
        budget_kw["max_entities"] = args.max_entities
    if args.max_hyperedges is not None:
        budget_kw["max_hyperedges"] = args.max_hyperedges
    if args.no_prune:
        budget_kw["enabled"] = False
    try:
        budget = Budget(**budget_kw)
    except ValidationError as exc:
        return fail(f"invalid budget: {exc.errors()[0].get('msg', 'bad value')}")
    viz = HyperViz(style=style, budget=budget)
    if args.collage:
        rendering = viz.render_collage(hg, layouts, cols=args.cols, query=args.query)
    else:
        rendering = viz.render(hg, layouts=layouts, query=args.query)
    out = rendering.save(args.out)
    print(f"wrote {out} ({rendering.width}x{rendering.height}) and {out.with_suffix('.json')}")
    if args.html:
        html = rendering.save_html(args.html)
        print(f"wrote {html}")
    if args.caption:
        print(rendering.caption)
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def register(sub: Any) -> None:
    """Add the ``render`` subcommand."""
    p = sub.add_parser("render", help="render a HIF hypergraph to PNG + JSON export",
                       description="Render a HIF hypergraph (dual view by default).")
    p.add_argument("input", help="hypergraph in HIF JSON")
    p.add_argument("--layout", action="append", metavar="NAME",
                   help="layout (repeatable; default: set-force + bi-inc)")
    p.add_argument("--query", default=None, help="query text for query-aware pruning")
    p.add_argument("--max-entities", type=_positive, default=None)
    p.add_argument("--max-hyperedges", type=_positive, default=None)
    p.add_argument("--no-prune", action="store_true", help="disable congestion control")
    p.add_argument("--style", default=None, help="style JSON file (fields of Style)")
    p.add_argument("--collage", action="store_true", help="grid of panels, one per layout")
    p.add_argument("--cols", type=_positive, default=3, help="collage columns (1-4)")
    p.add_argument("--html", default=None, help="also write the HTML viewer here")
    p.add_argument("--caption", action="store_true", help="print the caption")
    p.add_argument("--out", required=True, help="output PNG path (JSON written beside it)")
    p.set_defaults(func=_run)
