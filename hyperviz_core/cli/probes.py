"""``vizrag probes make|grade|run`` and ``vizrag tune``: structural probes, dual-view
selection and the congestion-control parameter search.

Example::

    vizrag probes make --from STORE --n 20 --out probes/          # PNG + JSON + probes.jsonl
    vizrag probes run probes/probes.jsonl --llm openai:gpt-4o --out answers.jsonl
    vizrag probes grade probes/probes.jsonl answers.jsonl
    vizrag tune --from STORE --llm openai:gpt-4o                   # saves beside the store

``--llm`` takes the model specs of ``vizrag eval table 5 --models``: ``provider:model[@url]``,
``python:package.module:NAME`` (a ``ChatModel`` or a factory of one), or ``fake`` /
``fake-noisy``, a FAKE vision model that answers from the export JSON, not from the pixels:
it tests the harness, it measures no model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .argtypes import positive_int
from .terminal import terminal_safe

__all__ = ["register"]

FAKE_SPECS = ("fake", "fake-noisy")  # as eval_common.FAKE_SPECS


def _fail(cmd: str, msg: str) -> int:
    print(f"vizrag {cmd}: error: {terminal_safe(msg)}", file=sys.stderr)
    return 2


def _source(spec: str, layer: str) -> tuple[Any, Path | None]:
    """(hypergraph, store file or None) from a HIF file or a store."""
    from ..model import Hypergraph

    p = Path(spec)
    if p.is_file() and p.suffix.lower() == ".json":
        hif = Hypergraph.from_hif(p)
        if not hif.entities:
            raise ValueError(f"--from {spec}: the hypergraph is empty")
        return hif, None
    from ..rag import HypergraphStore

    if not p.exists():
        raise ValueError(f"--from {spec}: no such HIF file or store")
    store = HypergraphStore(spec, read_only=True)
    try:
        hg = store.bottom() if layer == "bottom" else store.top()
        path = Path(store.path)
    finally:
        store.close()
    if not hg.entities:
        raise ValueError(f"--from {spec}: the {layer} hypergraph is empty")
    return hg, path


def _model(args: argparse.Namespace, probes: list[Any] | None = None,
           base: Path | None = None) -> Any:
    """A vision model from ``--llm`` (None when absent), parsed as ``eval table 5 --models``
    is (:func:`~hyperviz_core.cli.eval_common.load_vision`), with ``--timeout`` per request
    and in the retry middleware ``eval`` uses (429/5xx/timeouts retried ``--max-retries``
    times, ``Retry-After`` honoured); the FAKE one for ``fake*`` knows the exports of
    ``probes`` when given."""
    spec = args.llm
    if not spec:
        return None
    from .eval_common import fake_vision, load_vision

    fake = fake_vision(spec)
    if fake is not None:
        if probes is not None and base is not None:
            from ..probe import ExportOracleVisionModel

            return ExportOracleVisionModel.for_probes(probes, base, fake.perception)
        return fake
    from ..rag import build_chat_stack

    return build_chat_stack(load_vision(spec, "--llm", args.timeout),
                            max_retries=args.max_retries)


def _provider_options(p: argparse.ArgumentParser) -> None:
    """``--timeout`` and ``--max-retries`` of the ``--llm`` calls (as ``vizrag index``)."""
    from .index import add_provider_options

    add_provider_options(p)


def _make(args: argparse.Namespace) -> int:
    from ..probe import DEFAULT_TASKS, make_probes

    tasks = args.task or DEFAULT_TASKS
    counts: dict[str, int] = {}
    try:
        hg, _ = _source(args.source, args.layer)
        probes = make_probes(hg, args.n, args.out, layouts=args.layout or ["set-force", "bi-inc"],
                             seed=args.seed, progress=_progress(args), tasks=tasks,
                             counts=counts, balance=not args.no_balance)
    except (ValueError, OSError) as exc:
        return _fail("probes make", " ".join(str(exc).split())[:300])
    if not probes:
        return _fail("probes make", f"no probe of task(s) {', '.join(tasks)} could be made "
                     f"from {counts.get('samples', args.n)} sample(s) of {args.source}")
    made = sorted({p.task for p in probes})
    print(f"wrote {len(probes)} probes ({', '.join(made)}) to "
          f"{Path(args.out) / 'probes.jsonl'}", file=sys.stderr)
    if "balance" in counts:
        _balance_note(args.n, tasks, counts["balance"])
    if len(probes) < args.n:
        _shortfall_note(len(probes), counts, len(hg.entities) <= 30)
    return 0


def _balance_note(n: int, tasks: Any, skipped: int) -> None:
    """How the expected answers were balanced (``make_probes(balance=True)``)."""
    from ..probe.balance import AnswerBalance

    caps = AnswerBalance(n, tasks).cap
    per = (str(next(iter(caps.values()))) if len(set(caps.values())) == 1
           else " / ".join(f"{c} ({t})" for t, c in caps.items()))
    print(f"balanced answers: no expected answer is shared by more than {per} of a task's "
          f"probes (a quarter of the probes asked of the task, rounded up; --no-balance: "
          f"off); {skipped} sampled probe(s) skipped for balance (their answer was at that "
          "cap)")


def _shortfall_note(made: int, counts: dict[str, int], whole: bool) -> None:
    """Why fewer distinct probes than ``--n`` were made."""
    from ..probe.make import STALE_LIMIT

    drawn = "; a source of at most 30 entities is drawn whole every time" if whole else ""
    print(f"{made} distinct probes from {counts['samples']} samples: "
          f"{counts['duplicates']} repeated an earlier probe (same image, question and "
          f"answer{drawn}), {counts['no_instance']} had no instance of their task"
          + (f", {counts['balance']} were skipped for balance" if "balance" in counts else "")
          + (f"; sampling stopped after {STALE_LIMIT} samples in a row gave no new probe"
             if counts.get("stopped") else ""))


def _grade(args: argparse.Namespace) -> int:
    from ..probe import Probe, ProbeAnswer, grade, read_jsonl

    try:
        probes = _read_probes(args.probes)
        answers = read_jsonl(args.answers, ProbeAnswer)
        if answers and _parses(args.answers, Probe):  # a probe also reads as an answer
            raise ValueError(f"{args.answers}: this looks like a probes file (task, image, "
                             "export on every line), not answers; usage: vizrag probes grade "
                             "PROBES ANSWERS")
        report = grade(probes, answers)
    except ValueError as exc:
        return _fail("probes grade", str(exc))
    models = sorted({a.model for a in answers if a.model})
    if models:
        print(f"answers from: {', '.join(models)}")
    print(report.chance_note())
    print(report.table())
    return 0


def _parses(path: str, model: Any) -> bool:
    """Whether every line of ``path`` reads as ``model``."""
    from ..probe import read_jsonl

    try:
        read_jsonl(path, model)
    except ValueError:
        return False
    return True


def _read_probes(path: str) -> list[Any]:
    """The probes of ``path``; an empty file is refused (nothing to ask or grade), and an
    answers file given in its place is named as such."""
    from ..probe import Probe, ProbeAnswer, read_jsonl

    try:
        probes = read_jsonl(path, Probe)
    except ValueError as exc:
        if _parses(path, ProbeAnswer):
            raise ValueError(f"{path}: this looks like an answers file (id and answer, no "
                             "task or image), not probes; give the probes.jsonl of "
                             "`vizrag probes make`") from None
        raise exc
    if not probes:
        raise ValueError(f"{path}: no probe (needs at least one probe; make them with "
                         "`vizrag probes make`)")
    return probes


def _answers_path(args: argparse.Namespace) -> Path:
    """``--out`` (default ``answers.jsonl`` beside the probes), checked before any model is
    asked: not a folder, and no file where its folder goes."""
    out = Path(args.out) if args.out else Path(args.probes).parent / "answers.jsonl"
    if out.resolve() == Path(args.probes).resolve():
        raise ValueError(f"--out {out}: is the probes file itself (the answers would replace "
                         "the probes); give another path, e.g. answers.jsonl")
    if out.is_dir():
        raise ValueError(f"--out {out}: is a folder; give the answers file's path")
    above = next((d for d in out.parents if d.exists()), None)
    if above is not None and not above.is_dir():
        raise ValueError(f"--out {out}: {above} is a file, where a folder goes")
    return out


def _progress(args: argparse.Namespace) -> bool:
    """Progress bars only on a terminal (as ``vizrag eval``), never with --no-progress."""
    return not args.no_progress and sys.stderr.isatty()


def _run(args: argparse.Namespace) -> int:
    from ..probe import ask_probes, grade, write_jsonl

    try:
        probes = _read_probes(args.probes)
        base = Path(args.probes).parent
        out = _answers_path(args)
        model = _model(args, probes, base)
        missing = next((base / p.image for p in probes if not (base / p.image).is_file()), None)
        if missing is not None:
            raise ValueError(f"{missing} is missing (probe images are read relative to the "
                             "folder of probes.jsonl)")
        answers = ask_probes(probes, base, model, progress=_progress(args))
        write_jsonl(out, answers)
    except OSError as exc:
        return _fail("probes run", f"{exc.filename or args.probes}: {exc.strerror or exc}")
    except ValueError as exc:
        return _fail("probes run", " ".join(str(exc).split())[:300])
    if args.llm.strip().lower() in FAKE_SPECS:
        print(f"model: {model.model_name}; the scores test the harness only")
    else:
        print(f"model: {getattr(model, 'model_name', args.llm)}")
    print(f"wrote {out}", file=sys.stderr)
    report = grade(probes, answers)
    print(report.chance_note())
    print(report.table())
    failed = report.overall.errors
    if probes and failed == len(probes):
        return _fail("probes run", f"every model call failed ({failed}), nothing was graded; "
                     f"first: {report.first_error}")
    if failed:
        print(f"vizrag probes run: warning: {failed} of {len(probes)} model calls failed "
              f"(not graded; first: {report.first_error})", file=sys.stderr)
    return 0


def _save_target(spec: str) -> tuple[Path, bool]:
    """(path, is_json) for ``--save``: a ``.json`` file, or a store's SQLite file (a store
    folder or ``.sqlite`` file, resolved as the store opener does)."""
    from ..rag.store.sqlite.schema import resolve_path

    p = Path(spec)
    if p.suffix.lower() == ".json":
        return p, True
    store_file = resolve_path(p)
    if not store_file.is_file() or not _is_sqlite(store_file):  # any file is no store
        raise ValueError(f"--save {spec}: neither a VizRAG store (a folder holding "
                         "vizrag.sqlite, or a .sqlite file) nor a .json file path")
    return store_file, False


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(16) == b"SQLite format 3\x00"


def _tune_errors(choice: Any, result: Any) -> str:
    """A one-line reason not to save when vision-model calls failed, else ``""``."""
    failed = choice.errors + (result.errors if result is not None else 0)
    if not failed:
        return ""
    calls = sum(r.probes for r in choice.table)
    calls += sum(r.probes for r in result.table) if result is not None else 0
    return (f"{failed} of {calls} vision-model calls failed (not graded; first: "
            f"{choice.error or result.error}); nothing saved")


def _tune(args: argparse.Namespace) -> int:
    from ..probe import ViewSettings, parse_grid, select_dual_view, tune

    try:
        grid = parse_grid(args.grid or [])
        target = _save_target(args.save) if args.save else None
        hg, store_file = _source(args.source, args.layer)
        model = _model(args)
        choice = select_dual_view(hg, model, k=args.k, seed=args.seed,
                                  progress=_progress(args))
        if choice.errors and choice.errors == sum(r.probes for r in choice.table):
            return _fail("tune", f"the vision model failed on every call of the dual-view "
                         f"selection ({choice.errors}; first: {choice.error}); nothing saved")
        result = tune(hg, model, grid=grid, layouts=choice.pair, k=args.k, seed=args.seed,
                      progress=_progress(args))
    except (ValueError, OSError) as exc:
        return _fail("tune", " ".join(str(exc).split())[:300])
    label = (f"vision model {choice.model}" if model is not None
             else "no vision model: scored by readability metrics")
    print(f"dual-view selection ({label}; {args.k} probes, seed {args.seed}):")
    print(choice.table_text())
    _few_probes(args.k, max(r.probes for r in choice.table))
    print(f"\nparameter search on {choice.pair[0]} + {choice.pair[1]} (best first, "
          f"score = {'exact accuracy' if model is not None else 'readability'} x coverage):")
    print(result.table_text(limit=args.show))
    errors = _tune_errors(choice, result)
    if errors:
        return _fail("tune", errors)
    where = target or ((store_file, False) if store_file else None)
    if result.tie:
        budget = _kept_budget(where)
        print(f"\nthe grid did not separate the settings (all {len(result.table)} points "
              "scored the same on these probes): the budget is not tuned, "
              f"{'the saved one is kept' if budget else 'the defaults stay'}, with the "
              f"selected layouts {choice.pair[0]} + {choice.pair[1]}")
    else:
        budget = dict(result.best)
        print(f"\nbest: {', '.join(f'{k}={v:g}' for k, v in result.best.items())}")
    settings = ViewSettings(layouts=choice.pair, budget=budget,
                            selection=choice.model_dump(mode="json"),
                            tuning=result.model_dump(mode="json", exclude={"table"}))
    return _save_settings(settings, where)


def _kept_budget(target: tuple[Path, bool] | None) -> dict[str, float]:
    """The budget already saved at ``target`` (a store's settings or an earlier
    ``--save FILE.json``; ``{}``: none or unreadable, the defaults): what a tie keeps."""
    from ..probe import ViewSettings, load_view_settings

    if target is None:
        return {}
    path, is_json = target
    try:
        if not is_json:
            previous = load_view_settings(path)
            return dict(previous.budget) if previous is not None else {}
        return dict(ViewSettings.model_validate_json(path.read_bytes()).budget)
    except (OSError, ValueError):
        return {}


def _few_probes(k: int, made: int) -> None:
    """Say so when the source gave fewer distinct probes than ``--k``."""
    from ..probe.make import STALE_LIMIT

    if made < k:
        print(f"only {made} distinct probes per candidate from --k {k} (a sample that repeats "
              f"an earlier probe or has no instance is left out; sampling stops after "
              f"{STALE_LIMIT} such samples in a row)")


def _save_settings(settings: Any, target: tuple[Path, bool] | None) -> int:
    from ..probe import load_view_settings, save_view_settings
    from ..probe.textio import atomic_write_text

    if target is None:
        print("not saved (a HIF source: pass --save STORE or --save FILE.json to keep it)")
        return 0
    path, is_json = target
    if is_json:
        atomic_write_text(path, settings.model_dump_json(indent=1))
        print(f"saved {path}")
        return 0
    previous = load_view_settings(path)
    saved = save_view_settings(path, settings)
    print(f"saved {saved}{' (replaced the previous settings)' if previous else ''}; "
          "the engine uses these layouts and budget by default for this store")
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--from", dest="source", required=True, metavar="STORE|HIF",
                   help="a VizRAG store (directory or .sqlite) or a HIF JSON file")
    p.add_argument("--layer", choices=("bottom", "top"), default="bottom",
                   help="store layer to sample (default: bottom, G_bot)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def register(sub: Any) -> None:
    """Add the ``probes`` (make/grade/run) and ``tune`` subcommands."""
    p = sub.add_parser("probes", help="structural probes: make, run a vision model, grade",
                       description="Structural probes (overlap-core, bridge-hyperedge, "
                       "disambiguation) with exact ground truth.")
    ps = p.add_subparsers(dest="probes_command", metavar="ACTION", required=True)
    mk = ps.add_parser("make", help="write probe images, exports and probes.jsonl")
    _common(mk)
    mk.add_argument("--n", type=positive_int, default=20, help="number of probes (default 20)")
    mk.add_argument("--out", required=True, help="output folder")
    mk.add_argument("--layout", action="append", metavar="NAME",
                    help="layout (repeatable; default: set-force + bi-inc)")
    mk.add_argument("--task", action="append", metavar="TASK",
                    help="task (repeatable, taken in turn): overlap-core, bridge-hyperedge, "
                    "disambiguation (Table 3); default: overlap-core + bridge-hyperedge")
    mk.add_argument("--no-balance", action="store_true",
                    help="do not balance the expected answers (default: at most a quarter of "
                    "a task's probes, rounded up, share one answer; sampling goes on past --n "
                    "samples, up to 10 n); --no-balance makes the probes of before, from --n "
                    "samples")
    mk.set_defaults(func=_make)
    gr = ps.add_parser("grade", help="accuracy per task and overall")
    gr.add_argument("probes", help="probes.jsonl")
    gr.add_argument("answers", help="answers.jsonl ({\"id\", \"answer\"} per line)")
    gr.set_defaults(func=_grade)
    rn = ps.add_parser("run", help="ask a vision model every probe, write answers, grade")
    rn.add_argument("probes", help="probes.jsonl")
    rn.add_argument("--llm", required=True, metavar="SPEC",
                    help="vision model (provider:model[@base_url] or python:module:NAME); "
                    "'fake' / 'fake-noisy' = FAKE model answering from the export JSON, not "
                    "the pixels")
    rn.add_argument("--out", default=None, help="answers.jsonl (default: beside probes)")
    _provider_options(rn)
    rn.add_argument("--no-progress", action="store_true", help="no progress bar")
    rn.set_defaults(func=_run)
    t = sub.add_parser("tune", help="select the dual view and search γ, w_v, w_e, α, β",
                       description="Probe-driven dual-view selection over the 9 set x induced "
                       "pairs, then a grid search of the congestion budget. Without --llm, "
                       "both are scored by readability metrics.")
    _common(t)
    t.add_argument("--llm", default=None, metavar="SPEC",
                   help="vision model (provider:model[@base_url] or python:module:NAME); "
                   "'fake'/'fake-noisy' = FAKE (answers from the export)")
    _provider_options(t)
    t.add_argument("--k", type=positive_int, default=15, help="probes per candidate (default 15)")
    t.add_argument("--grid", action="append", metavar="NAME=V1,V2",
                   help="grid values of w_v, w_e, gamma, alpha or beta (repeatable)")
    t.add_argument("--show", type=positive_int, default=10, help="table rows to print")
    t.add_argument("--save", default=None, metavar="STORE|FILE.json",
                   help="where to save: a store (folder or .sqlite; default: the --from "
                   "store) or a .json file path (e.g. for a HIF source)")
    t.set_defaults(func=_tune)
