"""``vizrag eval table 3``, ``5`` and ``2c``: the probe-based results.

- ``vizrag eval table 3 (--probes DIR/probes.jsonl | --from STORE|HIF --out DIR [--n N]
  [--layouts a,b] [--seed S]) (--models SPEC ... | --answers IMG.jsonl ... --text-answers
  TXT.jsonl ...)``: structural disambiguation (positive vs lexically similar distractor),
  each model asked with the image and with the caption only.

- ``vizrag eval table 5 --probes DIR/probes.jsonl (--answers A.jsonl ... | --models SPEC ...)
  [--out DIR]``: structural probe accuracy per model (answers files as written by ``vizrag
  probes run --out``, named by file stem; or ask each ``--models`` vision model now).
- ``vizrag eval table 2c --from STORE|HIF --models SPEC ... --n N --out DIR [--layouts
  a,b,...] [--layer bottom|top] [--seed S]``: accuracy per single layout (layout bias).

A model spec is ``provider:model[@url]`` / ``python:module:NAME`` (see ``vizrag eval``) or
``fake``: the FAKE export-oracle model of :mod:`hyperviz_core.probe`, which answers from the
export JSON, not the pixels — it tests the harness and measures no model.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from .argtypes import positive_int

__all__ = ["add_probe_options", "run_probe_table"]


def add_probe_options(p: argparse.ArgumentParser) -> None:
    """The options of tables 5 and 2c."""
    p.add_argument("--probes", default=None, metavar="FILE",
                   help="tables 5, 3: probes.jsonl of `vizrag probes make`")
    p.add_argument("--answers", nargs="+", default=None, metavar="FILE",
                   help="tables 5, 3 (image condition): probe answers files (one per model, "
                   "named by file stem)")
    p.add_argument("--text-answers", nargs="+", default=None, metavar="FILE",
                   help="table 3: answers of the text-only condition (named by file stem; "
                   "M.image.jsonl and M.text.jsonl, as --out writes them, pair as M)")
    p.add_argument("--models", nargs="+", default=None, metavar="SPEC",
                   help="tables 5, 3, 2c: vision models to ask (provider:model, "
                   "python:module:NAME, or 'fake' = FAKE export oracle)")
    p.add_argument("--from", dest="source", default=None, metavar="STORE|HIF",
                   help="tables 2c, 3: hypergraph to sample probes from")
    p.add_argument("--layer", choices=("bottom", "top"), default="bottom",
                   help="tables 2c, 3: store layer")
    p.add_argument("--n", type=positive_int, default=20, metavar="N",
                   help="table 2c: probes per layout; table 3: probes to make")
    p.add_argument("--layouts", default=None, metavar="L1,L2",
                   help="table 2c: layouts (default: all six); table 3: the rendering's "
                   "layouts")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="tables 2c, 3: sampling seed")


class _Opened:
    """Caches to close and usage trackers to report once the models are done."""

    def __init__(self) -> None:
        self.caches: list[Any] = []
        self.trackers: list[tuple[str, Any]] = []

    def close(self) -> None:
        from .eval_common import usage_line as _usage_line

        for c in self.caches:
            c.close()
        for spec, tracker in self.trackers:
            _usage_line(spec, tracker)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:80] or "model"


def _factories(args: argparse.Namespace) -> tuple[dict[str, Any], _Opened]:
    """``{name: factory(probes, folder) -> model}`` for ``--models``, and what to close."""
    from ..eval import SqliteCache
    from ..probe import ExportOracleVisionModel
    from ..rag import UsageTracker, build_chat_stack
    from .eval_common import default_cache as _default_cache
    from .eval_common import load_chat

    if not args.models:
        raise ValueError(f"table {args.number} needs --models SPEC [...]"
                         + (" or --answers FILE [...]" if args.number == "5" else ""))
    out: dict[str, Any] = {}
    opened = _Opened()
    for spec in args.models:
        if spec.strip().lower() == "fake":
            out[ExportOracleVisionModel({}).model_name] = ExportOracleVisionModel.for_probes
            continue
        chat = load_chat(spec, "--models")
        if chat is None:
            raise ValueError(f"--models {spec!r} names no vision model")
        cache = None if args.no_cache else SqliteCache(args.cache or _default_cache())
        if cache is not None:
            opened.caches.append(cache)
        tracker = UsageTracker()
        opened.trackers.append((spec, tracker))
        stack = build_chat_stack(chat, cache=cache, tracker=tracker,
                                 max_retries=args.max_retries)
        out[spec] = lambda probes, folder, stack=stack: stack
    return out, opened


def _source(spec: str, layer: str) -> Any:
    from ..model import Hypergraph
    from ..rag import HypergraphStore
    from ..rag.store import sqlite_store_exists

    p = Path(spec)
    if p.is_file() and p.suffix.lower() == ".json":
        return Hypergraph.from_hif(p)
    if not sqlite_store_exists(p):
        raise ValueError(f"--from {spec}: no such HIF file or VizRAG store")
    store = HypergraphStore(spec, read_only=True)
    try:
        hg = store.bottom() if layer == "bottom" else store.top()
    finally:
        store.close()
    if not hg.entities:
        raise ValueError(f"--from {spec}: the {layer} hypergraph is empty")
    return hg


def _table5(args: argparse.Namespace) -> Any:
    from ..eval import table5
    from ..probe import Probe, ProbeAnswer, ask_probes, read_jsonl, write_jsonl
    from .eval_common import progress as _progress

    if not args.probes:
        raise ValueError("table 5 needs --probes probes.jsonl")
    probes = read_jsonl(args.probes, Probe)
    base = Path(args.probes).parent
    answers: dict[str, list[Any]] = {}
    for path in args.answers or []:
        answers[Path(path).stem] = read_jsonl(path, ProbeAnswer)
    if args.models:
        factories, opened = _factories(args)
        try:
            for name, factory in factories.items():
                got = ask_probes(probes, base, factory(probes, base), progress=_progress(args))
                if args.out:
                    write_jsonl(Path(args.out) / f"{_slug(name)}.jsonl", got)
                answers[name] = got
        finally:
            opened.close()
    if not answers:
        raise ValueError("table 5 needs --answers FILE [...] or --models SPEC [...]")
    return table5(probes, answers)


def _fig2c(args: argparse.Namespace) -> Any:
    from ..eval import layout_bias
    from .eval_common import progress as _progress

    if not args.source or not args.out:
        raise ValueError("table 2c needs --from STORE|HIF and --out DIR")
    layouts = [x.strip() for x in args.layouts.split(",") if x.strip()] if args.layouts else None
    factories, opened = _factories(args)
    try:
        return layout_bias(_source(args.source, args.layer), factories, args.out, n=args.n,
                           layouts=layouts, seed=args.seed, progress=_progress(args))
    finally:
        opened.close()


def _table3_probes(args: argparse.Namespace) -> tuple[list[Any], Path]:
    """Disambiguation probes from ``--probes`` or made now from ``--from`` into ``--out``."""
    from ..eval import make_disambiguation_probes
    from ..probe import Probe, read_jsonl
    from .eval_common import progress as _progress

    if args.probes:
        probes = [p for p in read_jsonl(args.probes, Probe) if p.task == "disambiguation"]
        if not probes:
            raise ValueError(f"{args.probes}: no disambiguation probe (make them with "
                             "`vizrag probes make --task disambiguation`)")
        return probes, Path(args.probes).parent
    if not args.source or not args.out:
        raise ValueError("table 3 needs --probes probes.jsonl, or --from STORE|HIF and "
                         "--out DIR")
    layouts = [x.strip() for x in args.layouts.split(",") if x.strip()] if args.layouts else None
    base = Path(args.out) / "probes"
    probes = make_disambiguation_probes(_source(args.source, args.layer), args.n, base,
                                        layouts=layouts, seed=args.seed,
                                        progress=_progress(args))
    return probes, base


def _model_of(path: str, condition: str) -> str:
    """The model an answers file of table 3 holds: its file stem, less the ``.image`` /
    ``.text`` that ``--models ... --out`` names its files with (``m.image.jsonl`` and
    ``m.text.jsonl`` pair as model ``m``)."""
    stem = Path(path).stem
    return stem[: -len(condition)] if stem.endswith(condition) and stem != condition else stem


def _table3(args: argparse.Namespace) -> Any:
    from ..eval import CaptionReaderTextModel, ask_text_probes, table3
    from ..probe import ExportOracleVisionModel, ProbeAnswer, ask_probes, read_jsonl, write_jsonl
    from .eval_common import progress as _progress

    probes, base = _table3_probes(args)
    image: dict[str, list[Any]] = {_model_of(f, ".image"): read_jsonl(f, ProbeAnswer)
                                   for f in args.answers or []}
    text: dict[str, list[Any]] = {_model_of(f, ".text"): read_jsonl(f, ProbeAnswer)
                                  for f in args.text_answers or []}
    if args.models:
        fake_name = ExportOracleVisionModel({}).model_name
        factories, opened = _factories(args)
        try:
            for name, factory in factories.items():
                vision = factory(probes, base)
                reader = CaptionReaderTextModel() if name == fake_name else vision
                image[name] = ask_probes(probes, base, vision, progress=_progress(args))
                text[name] = ask_text_probes(probes, base, reader, progress=_progress(args))
                if args.out:
                    write_jsonl(Path(args.out) / f"{_slug(name)}.image.jsonl", image[name])
                    write_jsonl(Path(args.out) / f"{_slug(name)}.text.jsonl", text[name])
        finally:
            opened.close()
    if not image and not text:
        raise ValueError("table 3 needs --models SPEC [...] or --answers / --text-answers "
                         "FILE [...]")
    table = table3(probes, image, text)
    if args.models and any(s.strip().lower() == "fake" for s in args.models):
        table.notes.append("fake: image condition = FAKE export oracle (reads the export "
                           "JSON, not the pixels), text condition = FAKE caption reader "
                           "(a rule, no model); they test the harness, not a model")
    return table


def run_probe_table(args: argparse.Namespace) -> Any:
    """Table 3, Table 5 or Fig. 2c as a :class:`~hyperviz_core.eval.PaperTable`."""
    if args.number == "3":
        return _table3(args)
    return _table5(args) if args.number == "5" else _fig2c(args)
