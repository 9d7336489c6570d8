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
``fake`` / ``fake-noisy``: the FAKE export-oracle model of :mod:`hyperviz_core.probe`, which
answers from the export JSON, not the pixels — it tests the harness and measures no model.
The specs are those of ``vizrag probes run --llm`` and ``vizrag tune --llm``.

``--limit N`` keeps the first N probes (of ``--probes``, of those made from ``--from``, or
of each layout in Fig. 2c). Outputs (``--out``) and the probes' images are checked before
any model is asked; when every model call failed (every model, every condition), nothing
was measured: one error line, exit code 2.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Sequence
from functools import partial
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
                   "python:module:NAME, or 'fake' / 'fake-noisy' = FAKE export oracle)")
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


def _model_names(args: argparse.Namespace, taken: Iterable[str] = ()) -> dict[str, str]:
    """``{spec: model name}`` of ``--models`` (a FAKE model is named by its ``model_name``),
    checked before any model is made: a model given twice, or named as an answers file,
    is one error line."""
    from .eval_common import fake_vision

    if not args.models:
        raise ValueError(f"table {args.number} needs --models SPEC [...]"
                         + (" or --answers FILE [...]" if args.number == "5" else ""))
    names: dict[str, str] = {}
    slugs: dict[str, str] = {}
    files = set(taken)
    for spec in args.models:
        fake = fake_vision(spec)
        name = fake.model_name if fake is not None else spec
        if name in names.values() or _slug(name) in slugs:
            raise ValueError(f"--models {spec!r} names the same model as "
                             f"{slugs.get(_slug(name), spec)!r}: give each model once")
        if name in files:
            raise ValueError(f"--models {spec!r} and an answers file are both named {name!r}: "
                             "rename the file")
        names[spec] = name
        slugs[_slug(name)] = spec
    return names


def _factories(args: argparse.Namespace, names: dict[str, str]
               ) -> tuple[dict[str, Any], _Opened]:
    """``{name: factory(probes, folder) -> model}`` for ``--models``, and what to close."""
    from ..eval import SqliteCache
    from ..probe import ExportOracleVisionModel
    from ..rag import UsageTracker, build_chat_stack
    from .eval_common import default_cache as _default_cache
    from .eval_common import fake_vision, load_vision

    out: dict[str, Any] = {}
    opened = _Opened()
    for spec, name in names.items():
        fake = fake_vision(spec)
        if fake is not None:
            out[name] = partial(ExportOracleVisionModel.for_probes, perception=fake.perception)
            continue
        chat = load_vision(spec, "--models", getattr(args, "timeout", None))
        cache = None if args.no_cache else SqliteCache(args.cache or _default_cache())
        if cache is not None:
            opened.caches.append(cache)
        tracker = UsageTracker()
        opened.trackers.append((spec, tracker))
        stack = build_chat_stack(chat, cache=cache, tracker=tracker,
                                 max_retries=args.max_retries)
        out[name] = lambda probes, folder, stack=stack: stack
    return out, opened


def _file_models(paths: Sequence[str] | None, condition: str = "") -> dict[str, list[Any]]:
    """``{model: answers}`` of answers files, named by file stem (less ``condition``); two
    files of one name are an error, as for the judge's systems."""
    from ..probe import ProbeAnswer, read_jsonl

    out: dict[str, list[Any]] = {}
    for path in paths or []:
        name = _model_of(path, condition) if condition else Path(path).stem
        if name in out:
            raise ValueError(f"two answers files named {name!r}: models are named by the "
                             "file stem, rename one")
        out[name] = read_jsonl(path, ProbeAnswer)
    return out


def _check_inputs(probes: Sequence[Any], base: Path, exports: bool) -> None:
    """Every probe's image (and export) exists before any model is asked."""
    for p in probes:
        for rel in (p.image, p.export) if exports else (p.image,):
            if not (base / rel).is_file():
                raise ValueError(f"probe {p.id!r}: {base / rel} is missing (paths are "
                                 "relative to the folder of probes.jsonl)")


def _write(path: Path, items: Sequence[Any]) -> None:
    """``write_jsonl`` with a one-line error naming the path."""
    from ..probe import write_jsonl

    try:
        write_jsonl(path, items)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from None


def _read_probes(args: argparse.Namespace) -> list[Any]:
    """``--probes`` (the first ``--limit``); an empty file is refused."""
    from ..probe import Probe, read_jsonl

    probes = read_jsonl(args.probes, Probe)
    if not probes:
        raise ValueError(f"{args.probes}: no probe (table {args.number} needs at least one "
                         "probe; make them with `vizrag probes make`)")
    return probes[: args.limit] if args.limit else probes


def _failed_calls(counts: Sequence[tuple[int, int, str]]) -> None:
    """``ValueError`` when every model call failed, ``counts`` = (calls, failed, first
    error) per model (and condition): nothing was measured."""
    calls = sum(n for n, _, _ in counts)
    if calls and all(failed == n for n, failed, _ in counts):
        first = next((e for _, _, e in counts if e), "")
        raise ValueError(f"every model call failed ({calls}), nothing was graded"
                         + (f"; first: {first[:200]}" if first else ""))


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
    from ..probe import ask_probes
    from .eval_common import check_out
    from .eval_common import progress as _progress

    if not args.probes:
        raise ValueError("table 5 needs --probes probes.jsonl")
    probes = _read_probes(args)
    base = Path(args.probes).parent
    answers = _file_models(args.answers)
    if not answers and not args.models:
        raise ValueError("table 5 needs --answers FILE [...] or --models SPEC [...]")
    if args.models:
        names = _model_names(args, answers)
        if args.out:
            check_out(args.out, [f"{_slug(n)}.jsonl" for n in names.values()])
        _check_inputs(probes, base, exports=bool(_fakes(names)))
        factories, opened = _factories(args, names)
        try:
            for name, factory in factories.items():
                got = ask_probes(probes, base, factory(probes, base), progress=_progress(args))
                if args.out:
                    _write(Path(args.out) / f"{_slug(name)}.jsonl", got)
                answers[name] = got
        finally:
            opened.close()
    table = table5(probes, answers)
    _failed_calls([(d["overall"]["n"], d["overall"]["errors"], d["first_error"])
                   for d in table.data.values()])
    return table


def _fig2c(args: argparse.Namespace) -> Any:
    from .. import available_layouts
    from ..eval import layout_bias
    from .eval_common import check_out
    from .eval_common import progress as _progress

    if not args.source or not args.out:
        raise ValueError("table 2c needs --from STORE|HIF and --out DIR")
    layouts = [x.strip() for x in args.layouts.split(",") if x.strip()] if args.layouts else None
    names = _model_names(args)
    check_out(args.out, [f"{lay}/{f}" for lay in layouts or available_layouts()
                         for f in ("probes.jsonl", *(f"answers-{i}.jsonl"
                                                    for i in range(len(names))))])
    hg = _source(args.source, args.layer)
    factories, opened = _factories(args, names)
    try:
        table = layout_bias(hg, factories, args.out, n=args.n, layouts=layouts,
                            seed=args.seed, progress=_progress(args), limit=args.limit)
    except OSError as exc:
        raise ValueError(f"--out {args.out}: cannot write "
                         f"{exc.filename or ''}: {exc.strerror or exc}") from None
    finally:
        opened.close()
    _failed_calls([(d["overall"]["n"], d["overall"]["errors"], d["first_error"])
                   for d in table.data.values()])
    return table


def _table3_probes(args: argparse.Namespace) -> tuple[list[Any], Path]:
    """Disambiguation probes from ``--probes`` or made now from ``--from`` into ``--out``."""
    from ..eval import make_disambiguation_probes
    from .eval_common import check_out
    from .eval_common import progress as _progress

    if args.probes:
        probes = [p for p in _read_probes(args) if p.task == "disambiguation"]
        if not probes:
            raise ValueError(f"{args.probes}: no disambiguation probe (make them with "
                             "`vizrag probes make --task disambiguation`)")
        return probes, Path(args.probes).parent
    if not args.source or not args.out:
        raise ValueError("table 3 needs --probes probes.jsonl, or --from STORE|HIF and "
                         "--out DIR")
    layouts = [x.strip() for x in args.layouts.split(",") if x.strip()] if args.layouts else None
    base = Path(args.out) / "probes"
    check_out(args.out, ["probes/probes.jsonl"])
    try:
        probes = make_disambiguation_probes(_source(args.source, args.layer), args.n, base,
                                            layouts=layouts, seed=args.seed,
                                            progress=_progress(args))
    except OSError as exc:
        raise ValueError(f"--out {args.out}: cannot write "
                         f"{exc.filename or ''}: {exc.strerror or exc}") from None
    return (probes[: args.limit] if args.limit else probes), base


def _model_of(path: str, condition: str) -> str:
    """The model an answers file of table 3 holds: its file stem, less the ``.image`` /
    ``.text`` that ``--models ... --out`` names its files with (``m.image.jsonl`` and
    ``m.text.jsonl`` pair as model ``m``)."""
    stem = Path(path).stem
    return stem[: -len(condition)] if stem.endswith(condition) and stem != condition else stem


def _fakes(names: dict[str, str]) -> set[str]:
    """The names of the FAKE models among ``--models`` (``{spec: name}``)."""
    from .eval_common import FAKE_SPECS

    return {n for spec, n in names.items() if spec.strip().lower() in FAKE_SPECS}


def _ask_table3(args: argparse.Namespace, names: dict[str, str], probes: list[Any],
                base: Path, image: dict[str, list[Any]], text: dict[str, list[Any]]) -> None:
    """Ask every ``--models`` model with the image and with the caption only."""
    from ..eval import CaptionReaderTextModel, ask_text_probes
    from ..probe import ask_probes
    from .eval_common import progress as _progress

    fakes = _fakes(names)
    _check_inputs(probes, base, exports=True)
    factories, opened = _factories(args, names)
    try:
        for name, factory in factories.items():
            vision = factory(probes, base)
            reader = CaptionReaderTextModel() if name in fakes else vision
            image[name] = ask_probes(probes, base, vision, progress=_progress(args))
            text[name] = ask_text_probes(probes, base, reader, progress=_progress(args))
            if args.out:
                _write(Path(args.out) / f"{_slug(name)}.image.jsonl", image[name])
                _write(Path(args.out) / f"{_slug(name)}.text.jsonl", text[name])
    finally:
        opened.close()


def _table3(args: argparse.Namespace) -> Any:
    from ..eval import table3
    from .eval_common import check_out

    # a probes file is read first (and a missing source is said first); probes made from
    # --from are made once the rest is checked
    made = _table3_probes(args) if args.probes or not (args.source and args.out) else None
    image = _file_models(args.answers, ".image")
    text = _file_models(args.text_answers, ".text")
    if not image and not text and not args.models:
        raise ValueError("table 3 needs --models SPEC [...] or --answers / --text-answers "
                         "FILE [...]")
    names = _model_names(args, {*image, *text}) if args.models else {}
    if names and args.out:
        check_out(args.out, [f"{_slug(n)}.{c}.jsonl" for n in names.values()
                             for c in ("image", "text")])
    probes, base = made or _table3_probes(args)
    if names:
        _ask_table3(args, names, probes, base, image, text)
    table = table3(probes, image, text)
    if _fakes(names):
        table.notes.append("fake: image condition = FAKE export oracle (reads the export "
                           "JSON, not the pixels), text condition = FAKE caption reader "
                           "(a rule, no model); they test the harness, not a model")
    _failed_calls([(c["n"], c["errors"], c.get("first_error", ""))
                   for conds in table.data.values() for c in conds.values() if c])
    return table


def run_probe_table(args: argparse.Namespace) -> Any:
    """Table 3, Table 5 or Fig. 2c as a :class:`~hyperviz_core.eval.PaperTable`."""
    if args.number == "3":
        return _table3(args)
    return _table5(args) if args.number == "5" else _fig2c(args)
