"""``vizrag render``: draw a HIF hypergraph as a PNG (or SVG) plus its JSON export.

Example::

    vizrag render graph.hif.json --layout set-force --layout bi-inc --query "radium" \
        --max-entities 30 --style style.json --out view.png      # writes view.png + view.json
    vizrag render graph.hif.json --out view.svg                  # the same drawing as SVG
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..surrogates import not_unicode
from ..wording import counted
from .argtypes import blocking_file, positive_int, unwritable
from .terminal import terminal_safe

__all__ = ["register"]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


#: above this many entities (or twice as many hyperedges) ``--no-prune`` needs ``--force``:
#: an unpruned drawing grows much faster than linearly (100 entities took 13.6 s on a loaded 2-core
#: machine, 200 entities 142 s)
NO_PRUNE_LIMIT = 150


def _fail(msg: str) -> int:
    print(f"vizrag render: error: {terminal_safe(msg)}", file=sys.stderr)
    return 2


def _output_problem(args: argparse.Namespace) -> str | None:
    """Why the outputs cannot be written (checked before the slow rendering), or None."""
    out = Path(args.out)
    targets = [("--out", out), ("--out (its JSON export)", out.with_suffix(".json"))]
    if args.html:
        targets.append(("--html", Path(args.html)))
    for flag, path in targets:
        if path.is_dir():
            return f"{flag} {path} is a folder; give a file path"
        blocked = blocking_file(path.parent)
        if blocked is not None:
            return f"{flag} {path}: {blocked} is not a folder"
        if (why := unwritable(path.parent)) is not None:
            return f"{flag} {path}: cannot write in {why}"
    if out.suffix.lower() not in (".png", ".svg"):
        return (f"--out {out} must end in .png or .svg (the rendering as a PNG or an SVG; "
                "--html writes the interactive viewer)")
    source = Path(args.input).resolve()
    for flag, path in targets:
        if path.resolve() == source:
            why = " (the JSON export goes beside the image, same stem)" if "--out" in flag else ""
            return (f"{flag} {path} would overwrite the input {args.input}; choose another "
                    f"{flag.split()[0]} name{why}")
    if args.html and Path(args.html).resolve() in (out.resolve(), out.with_suffix(".json")
                                                   .resolve()):
        return f"--html {args.html} would overwrite the image or its JSON export"
    return None


def _load_hif(path: str) -> Any:
    """The hypergraph; a HIF alias merge is a warning of VizRAG's own, printed by the CLI as
    one line each (``vizrag render: warning: ...``, :func:`~hyperviz_core.cli.own_warnings`)."""
    from ..model import Hypergraph

    return Hypergraph.from_hif(Path(path))


def _load_style(path: str | None) -> Any:
    """The style, or the one-line reason it cannot be read."""
    from pydantic import ValidationError

    from ..style import Style

    try:
        return Style.from_json_file(path) if path else Style()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "style"
        return f"invalid style {path}: {where}: {first.get('msg', '')}"
    except (ValueError, OSError) as exc:
        return _one_line(exc)
    except RecursionError:
        return f"style {path}: nested too deeply to read"


def _run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from ..layouts import INDUCED_LAYOUTS, SET_LAYOUTS, available_layouts
    from ..prune import Budget
    from ..render import HyperViz

    fail = _fail
    # a collage without --layout: the six built-in ones, as render_collage() draws them
    six = [*SET_LAYOUTS, *INDUCED_LAYOUTS]
    layouts = args.layout or (six if args.collage else ["set-force", "bi-inc"])
    unknown = [name for name in layouts if name not in available_layouts()]
    if unknown:
        return fail(f"unknown layout {unknown[0]!r}; choose from {', '.join(available_layouts())}")
    problem = _output_problem(args)
    if problem:
        return fail(problem)
    if args.cols is not None and not args.collage:  # it would be ignored
        return fail("--cols sets the columns of a --collage: add --collage, or leave it out")
    if args.query is not None and (why := not_unicode(
            args.query, "--query", "; undecodable bytes on the command line?")):
        return fail(why)
    try:
        hg = _load_hif(args.input)
    except (ValueError, OSError) as exc:
        text = _one_line(exc)  # name the file, as the JSON errors of index and query do
        return fail(text if str(args.input) in text else f"{args.input}: {text}")
    except RecursionError:
        return fail(f"{args.input}: nested too deeply to read")
    style = _load_style(args.style)
    if isinstance(style, str):
        return fail(style)
    # the caps apply with --no-prune too: they bound what is drawn
    n_ents = min(len(hg.entities), args.max_entities or len(hg.entities))
    n_edges = min(len(hg.hyperedges), args.max_hyperedges or len(hg.hyperedges))
    too_big = max(n_ents, n_edges // 2)
    if args.no_prune and too_big > NO_PRUNE_LIMIT and not args.force:
        caps = ([f"--max-entities {NO_PRUNE_LIMIT}"] if n_ents > NO_PRUNE_LIMIT else []) + (
            [f"--max-hyperedges {2 * NO_PRUNE_LIMIT}"] if n_edges // 2 > NO_PRUNE_LIMIT else [])
        return fail(f"{len(hg.entities)} entities and {len(hg.hyperedges)} hyperedges without "
                    f"pruning can take many minutes (unpruned: at most {NO_PRUNE_LIMIT} "
                    f"entities and {2 * NO_PRUNE_LIMIT} hyperedges); drop --no-prune, cap with "
                    f"{' '.join(caps)}, or pass --force")
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
    viz = HyperViz(style=style, budget=budget,
                   show_progress=not args.no_progress and sys.stderr.isatty())
    if args.collage:
        rendering = viz.render_collage(hg, layouts, cols=args.cols or 3, query=args.query)
    else:
        rendering = viz.render(hg, layouts=layouts, query=args.query)
    omitted = omitted_line(rendering.pruning, len(hg.entities), len(hg.hyperedges))
    if omitted:
        print(f"vizrag render: warning: {omitted}", file=sys.stderr)
    out = rendering.save(args.out)
    print(f"wrote {out} ({rendering.width}x{rendering.height}) and {out.with_suffix('.json')}",
          file=sys.stderr)  # stdout: the caption only (--caption), e.g. --html /dev/stdout
    if args.html:
        html = rendering.save_html(args.html)
        print(f"wrote {html}", file=sys.stderr)
    if args.caption:
        print(terminal_safe(rendering.caption))
    return 0


def omitted_line(report: Any, entities: int, hyperedges: int) -> str:
    """What pruning left out of the drawing, said in one line (empty when nothing was):
    ``congestion control omitted 178 of 200 entities and 106 of 150 hyperedges …``.
    ``report``: the rendering's :class:`~hyperviz_core.prune.PruneReport`; ``entities``,
    ``hyperedges``: how many the input has."""
    n_ents, n_edges = len(report.entities), len(report.hyperedges)
    if not n_ents and not n_edges:
        return ""
    why = {"budget": "congestion control", "cap": "the --max-entities/--max-hyperedges caps"}
    by = " and ".join(why[r] for r in sorted(set(report.reasons.values())) if r in why)
    parts = [f"{n} of {counted(total, noun)}" for n, total, noun in
             ((n_ents, entities, "entity"), (n_edges, hyperedges, "hyperedge")) if n]
    return (f"{by or 'congestion control'} omitted {' and '.join(parts)} (not drawn; listed "
            "in the caption and in the JSON export's \"pruned\")")


def register(sub: Any) -> None:
    """Add the ``render`` subcommand."""
    p = sub.add_parser("render", help="render a HIF hypergraph to PNG (or SVG) + JSON export",
                       description="Render a HIF hypergraph (dual view by default).")
    p.add_argument("input", help="hypergraph in HIF JSON")
    p.add_argument("--layout", action="append", metavar="NAME",
                   help="layout (repeatable; default: set-force + bi-inc, with --collage all "
                   "six)")
    p.add_argument("--query", default=None, help="query text for query-aware pruning")
    p.add_argument("--max-entities", type=positive_int, default=None,
                   help="cap on drawn entities (after the budget; also with --no-prune)")
    p.add_argument("--max-hyperedges", type=positive_int, default=None,
                   help="cap on drawn hyperedges (after the budget; also with --no-prune)")
    p.add_argument("--no-prune", action="store_true",
                   help="disable congestion control (the caps still apply)")
    p.add_argument("--force", action="store_true",
                   help=f"allow --no-prune above {NO_PRUNE_LIMIT} entities or "
                   f"{2 * NO_PRUNE_LIMIT} hyperedges (slow)")
    p.add_argument("--style", default=None, help="style JSON file (fields of Style)")
    p.add_argument("--collage", action="store_true", help="grid of panels, one per layout")
    p.add_argument("--cols", type=positive_int, default=None,
                   help="collage columns (1-4; default 3; with --collage only)")
    p.add_argument("--html", default=None, help="also write the HTML viewer here")
    p.add_argument("--caption", action="store_true", help="print the caption")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (shown on a terminal: the drawings laid out)")
    p.add_argument("--out", required=True,
                   help="output image: .png or .svg (JSON export written beside it)")
    p.set_defaults(func=_run)
