"""``vizrag eval``: answers per mode, LLM-as-judge and the paper's tables.

- ``vizrag eval generate --store STORE --questions Q.jsonl --modes vizrag,text,hyper-lite,naive
  [--llm PROVIDER:MODEL] --out DIR`` writes ``DIR/<mode>.jsonl`` (lines ``{"id", "question",
  "answer"}``).
- ``vizrag eval judge --questions Q.jsonl --systems A.jsonl B.jsonl --judge PROVIDER:MODEL
  [--protocol winrate|score] [--json]`` prints the judge table (systems = file stems).
- ``vizrag eval table 1|2|3|4|5|2c ...`` regenerates a table of the paper (see ``--help``).

A model spec is ``provider:model[@base_url]`` (OpenAI-compatible, as for ``vizrag index``) or
``python:package.module:NAME``, where NAME is a :class:`~hyperviz_core.rag.ChatModel` or a
zero-argument factory returning one (e.g. a LlamaIndex LLM or LangChain chat model wrapped in
``vizrag_llamaindex.LlamaIndexChatModel`` / ``vizrag_langchain.LangChainChatModel``).
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from .argtypes import non_negative_int, positive_int
from .eval_common import check_out, load_chat
from .eval_common import default_cache as _default_cache
from .eval_common import progress as _progress
from .eval_common import usage_line as _usage_line
from .eval_probes import add_probe_options
from .index import make_embedder, seconds

__all__ = ["load_chat", "register"]

_MODES = ("vizrag", "text", "hyper-lite", "naive")
_TABLES = ("1", "2", "3", "4", "5", "2c")


def _make_judge(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """(Judge, tracker, cache) for ``--judge``; the judge goes through the middleware."""
    from ..eval import Judge, SqliteCache
    from ..rag import UsageTracker, build_chat_stack

    chat = load_chat(args.judge, "--judge", args.timeout)
    if chat is None:
        raise ValueError("the judge needs a model: give --judge provider:model "
                         "(e.g. openai:gpt-4o-mini) or python:module:NAME")
    tracker = UsageTracker()
    cache = None if args.no_cache else SqliteCache(args.cache or _default_cache())
    stack = build_chat_stack(chat, cache=cache, tracker=tracker, max_retries=args.max_retries,
                             max_concurrency=args.concurrency)
    judge = Judge(stack, concurrency=args.concurrency, show_progress=_progress(args))
    return judge, tracker, cache


def _load_systems(paths: list[str], questions: list[Any]) -> dict[str, dict[str, str]]:
    """``{system: {id: answer}}`` of answers files; refused (before any judge call): two
    files of one name, and answers whose recorded question is not the question file's."""
    from ..eval import answers_by_id, load_answers, refuse_other_questions, system_name

    out: dict[str, dict[str, str]] = {}
    for p in paths:
        name = system_name(p)
        if name in out:
            raise ValueError(f"two answers files named {name!r}: systems are named by the "
                             "file stem, rename one")
        records = load_answers(p)
        refuse_other_questions(questions, records, p)
        out[name] = answers_by_id(records)
    return out


def _modes(text: str) -> list[str]:
    modes = list(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))  # once each
    bad = [m for m in modes if m not in _MODES]
    if bad or not modes:
        raise ValueError(f"unknown mode(s) {', '.join(bad) or '(none)'}; choose from "
                         f"{', '.join(_MODES)}")
    return modes


def _check_out(out: str | None, names: list[str]) -> None:
    """``--out`` must be a folder (or not exist yet) with no folder where a file goes."""
    if not out:
        return
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out {out}: is a file; give a folder (one <system>.jsonl is "
                         "written per system)")
    clash = next((folder / f"{n}.jsonl" for n in names if (folder / f"{n}.jsonl").is_dir()),
                 None)
    if clash is not None:
        raise ValueError(f"--out {out}: {clash} is a folder, where its answers file goes")
    check_out(out, [f"{n}.jsonl" for n in names])  # e.g. a file above the folder


# ---------------------------------------------------------------------------- generate
def _generate(args: argparse.Namespace, store: str, runs: list[tuple[str, str, dict[str, Any]]],
              questions: list[Any], engine_kwargs: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    """Run ``(name, mode, overrides)`` on one store; write ``--out/<name>.jsonl``. A failing
    answer model (after its retries) is one ``ValueError`` line, not a traceback."""
    from ..eval import generate_answers, open_engine, write_generated
    from ..rag import ProviderError, UsageTracker

    _check_out(args.out, [name for name, _, _ in runs])  # before any answer is paid for
    tracker = UsageTracker()
    engine = open_engine(store, load_chat(args.llm, timeout=args.timeout),
                         make_embedder(args.embed, timeout=args.timeout) if args.embed
                         else None,  # None: the store's
                         tracker=tracker, concurrency=args.concurrency, show_progress=False,
                         max_retries=args.max_retries, top_k=args.top_k,
                         **(engine_kwargs or {}))
    out: dict[str, Any] = {}
    try:
        for name, mode, overrides in runs:
            try:
                got = generate_answers(engine, questions, mode, overrides=overrides,
                                       concurrency=args.concurrency,
                                       show_progress=_progress(args))
            except ProviderError as exc:
                raise ValueError(f"answer model failed: {' '.join(str(exc).split())[:300]}"
                                 ) from None
            if args.out:
                path = write_generated(Path(args.out) / f"{name}.jsonl", got)
                print(f"wrote {path} ({len(got)} answers)", file=sys.stderr)
            out[name] = got
    finally:
        engine.close()
    if engine.chat is not None:
        _usage_line("answers", tracker)
    return out


def _run_generate(args: argparse.Namespace) -> int:
    from ..eval import load_questions

    questions = load_questions(args.questions, limit=args.limit)
    overrides = {k: False for k, flag in (("retrieval_visualization", args.no_retrieval_viz),
                                          ("congestion_control", args.no_congestion_control),
                                          ("dual_view", args.no_dual_view)) if flag}
    runs = [(m, m, overrides) for m in _modes(args.modes)]
    _generate(args, args.store, runs, questions)
    return 0


# ---------------------------------------------------------------------------- judge
def _run_judge(args: argparse.Namespace) -> int:
    from ..eval import load_questions

    questions = load_questions(args.questions, limit=args.limit)
    systems = _load_systems(args.systems, questions)
    if args.protocol == "winrate" and len(systems) != 2:
        raise ValueError("--protocol winrate compares exactly 2 answers files")
    judge, tracker, cache = _make_judge(args)
    try:
        report = judge.run(args.protocol, questions, systems)
    finally:
        if cache is not None:
            cache.close()
    _usage_line("judge", tracker)
    if report.missing_note():
        print(f"vizrag eval judge: warning: {report.missing_note()}", file=sys.stderr)
    if report.nothing_judged():
        raise ValueError(report.nothing_judged())
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    else:
        print(report.to_markdown())
    return 0


# ---------------------------------------------------------------------------- tables
def _one_source(args: argparse.Namespace) -> None:
    """``--systems`` files or a ``--store`` to generate from, not both (one was ignored)."""
    if args.systems and getattr(args, "store", None):
        raise ValueError("give --systems FILE.jsonl ... or --store STORE, not both (answers "
                         "are read from the files or generated from the store)")


def _answers_for_table(args: argparse.Namespace, questions: list[Any]
                       ) -> tuple[dict[str, dict[str, str]], dict[str, Any] | None]:
    """Systems from ``--systems`` files, or generated from ``--store`` per ``--modes``."""
    _one_source(args)
    if args.systems:
        return _load_systems(args.systems, questions), None
    if not args.store:
        raise ValueError("give --systems FILE.jsonl ... or --store STORE")
    runs: list[tuple[str, str, dict[str, Any]]] = [(m, m, {}) for m in _modes(args.modes)]
    got = _generate(args, args.store, runs, questions)
    answers = {n: {a.id: a.answer for a in g} for n, g in got.items()}
    contexts = {n: {a.id: a.contexts for a in g} for n, g in got.items()}
    return answers, contexts


def _ablation_answers(args: argparse.Namespace, questions: list[Any]
                      ) -> tuple[dict[str, dict[str, str]], dict[str, Any] | None]:
    from ..eval import ABLATIONS

    _one_source(args)
    if args.systems:
        return _load_systems(args.systems, questions), None
    if not args.store:
        raise ValueError("give --store STORE (and --store-no-index-viz STORE) or --systems")
    # render even offline: congestion control and dual view act on the renderings (what a
    # vision model reads; the offline locator ranks G_top's entities, drawn or not)
    runs: list[tuple[str, str, dict[str, Any]]] = [
        (n, "vizrag", {**ov, "render": True}) for n, (ctor, ov) in ABLATIONS.items()
        if not ctor]
    got = _generate(args, args.store, runs, questions)
    if args.store_no_index_viz:
        got.update(_generate(args, args.store_no_index_viz,
                             [("no-index-viz", "vizrag", {"render": True})],
                             questions, {"index_visualization": False}))
    else:
        print("table 2: no --store-no-index-viz given; the no-index-viz row is left out",
              file=sys.stderr)
    order = [n for n in ABLATIONS if n in got]
    return ({n: {a.id: a.answer for a in got[n]} for n in order},
            {n: {a.id: a.contexts for a in got[n]} for n in order})


def _judged(args: argparse.Namespace, build: Any) -> Any:
    """``build(judge)`` with the ``--judge`` model; the cache is closed, usage printed."""
    judge, tracker, cache = _make_judge(args)
    try:
        table = build(judge)
    finally:
        if cache is not None:
            cache.close()
    _usage_line("judge", tracker)
    return table


def _table1(args: argparse.Namespace, questions: list[Any]) -> Any:
    from ..eval import table1

    if not args.systems or len(args.systems) < 2:
        raise ValueError("table 1 needs --systems OURS.jsonl OTHER.jsonl [...]")
    if not args.judge:
        raise ValueError("table 1 needs --judge SPEC (win rates are judged)")
    systems = _load_systems(args.systems, questions)
    return _judged(args, lambda j: table1(j, questions, next(iter(systems)), systems))


def _table2(args: argparse.Namespace, questions: list[Any]) -> Any:
    from ..eval import table2

    protocol = args.protocol or "score"
    if args.judge and protocol == "winrate" and args.systems and len(args.systems) < 2:
        raise ValueError("table 2 --protocol winrate compares the full system (the first "
                         "--systems file) with each other variant: give two or more files")
    answers, contexts = _ablation_answers(args, questions)
    if args.judge:
        return _judged(args, lambda j: table2(questions, answers, j, protocol))
    return table2(questions, answers, contexts=contexts)


def _table4(args: argparse.Namespace, questions: list[Any]) -> Any:
    from ..eval import table4

    answers, contexts = _answers_for_table(args, questions)
    return table4(questions, answers, contexts)


# ---------------------------------------------------------------------------- options
_TABLE_OPTIONS = ("questions", "concurrency", "systems", "store", "store_no_index_viz",
                  "modes", "llm", "embed", "top_k", "out", "judge", "protocol", "cache",
                  "no_cache", "max_retries", "timeout", "probes", "answers", "text_answers",
                  "models", "source", "layer", "n", "layouts", "seed")
"""The ``vizrag eval table`` options some table leaves unused (``--limit``, ``--json``,
``--no-progress`` are used by all)."""
_GEN = ("store", "llm", "embed", "top_k", "out", "max_retries", "timeout", "concurrency")
_JUDGE = ("judge", "protocol", "cache", "no_cache", "max_retries", "timeout", "concurrency")
_ASK = ("cache", "no_cache", "max_retries", "timeout", "out")
_SAMPLE = ("source", "layer", "n", "layouts", "seed", "out")


def _unused_options(args: argparse.Namespace) -> dict[str, str]:
    """``{option: why}`` of the options table ``args.number`` does not use with these
    arguments (``why`` completes "table N does not use --option")."""
    n = args.number
    why: dict[str, str] = {}
    used: set[str] = set()

    def use(opts: tuple[str, ...] | set[str], when: bool, because: str = "") -> None:
        if when:
            used.update(opts)
        else:
            why.update({o: because for o in opts if o not in why})

    if n == "1":
        use({"questions", "systems", *_JUDGE}, True)
        why["store"] = " (it compares --systems answers files and generates none)"
    elif n in ("2", "4"):
        use({"questions", "systems"}, True)
        extra = "store_no_index_viz" if n == "2" else "modes"
        use({*_GEN, extra}, not args.systems, " with --systems (the answers are read from "
            "the files)")
        use(_JUDGE, n == "2" and bool(args.judge), " without --judge" if n == "2" else
            " (it scores the answers against the gold answers, with no judge)")
    elif n == "5":
        use({"probes", "answers", "models"}, True)
        use(_ASK, bool(args.models), " without --models (it acts on the models asked now)")
    elif n == "3":
        use({"probes", "answers", "text_answers", "models"}, True)
        use(_ASK, bool(args.models), " without --models (it acts on the models asked now)")
        use(_SAMPLE, not args.probes, " with --probes (the probes are read from the file)")
    else:
        use({"models", *_SAMPLE, *_ASK}, True)
    return {o: why.get(o, "") for o in _TABLE_OPTIONS if o not in used}


def _flag(dest: str) -> str:
    return "--from" if dest == "source" else "--" + dest.replace("_", "-")


def _refuse_unused(args: argparse.Namespace, defaults: dict[str, Any]) -> None:
    """One error line for an option given to a table that does not use it (it would be
    ignored silently), checked before anything is read or asked."""
    if args.number == "1" and args.protocol == "score":
        raise ValueError("table 1 gives win rates only: --protocol score is not used (judge "
                         "scores: table 2, or vizrag eval judge --protocol score)")
    if args.number in ("2", "4"):
        _one_source(args)
    for dest, why in _unused_options(args).items():
        if getattr(args, dest) != defaults.get(dest):
            raise ValueError(f"table {args.number} does not use {_flag(dest)}{why}; leave it "
                             "out")


def _run_table(args: argparse.Namespace, defaults: dict[str, Any] | None = None) -> int:
    from ..eval import load_questions
    from .eval_probes import run_probe_table

    _refuse_unused(args, defaults or {})
    if args.number in ("3", "5", "2c"):
        table = run_probe_table(args)
    else:
        if not args.questions:
            raise ValueError(f"table {args.number} needs --questions FILE.jsonl")
        questions = load_questions(args.questions, limit=args.limit)
        build = {"1": _table1, "2": _table2, "4": _table4}[args.number]
        table = build(args, questions)
    print(json.dumps(table.model_dump(), indent=2) if args.json else table.to_markdown())
    return 0


# ---------------------------------------------------------------------------- parser
def _judge_opts(p: argparse.ArgumentParser, required: bool) -> None:
    p.add_argument("--judge", required=required, metavar="SPEC",
                   help="judge model: provider:model[@url] or python:module:NAME")
    p.add_argument("--protocol", choices=("winrate", "score"), default="winrate"
                   if required else None, help="selection-based win rate or 0-100 score"
                   + ("" if required else " (table 2; default score; table 1: winrate)"))
    p.add_argument("--cache", default=None, metavar="FILE",
                   help="judge cache (SQLite; default ~/.cache/vizrag/judge.sqlite)")
    p.add_argument("--no-cache", action="store_true", help="do not cache judge replies")
    _retries_opt(p)


def _retries_opt(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-retries", type=non_negative_int, default=5, metavar="N",
                   help="provider retries (429/5xx/timeouts) per call")
    p.add_argument("--timeout", type=seconds, default=120.0, metavar="S",
                   help="seconds a provider request may take in all, answer included "
                   "(default 120)")


def _gen_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--llm", default=None, metavar="SPEC",
                   help="answer model (default offline: extractive summaries)")
    p.add_argument("--embed", default=None, metavar="SPEC", help="embedder of the index")
    p.add_argument("--top-k", type=positive_int, default=5, metavar="N",
                   help="passages per answer")
    p.add_argument("--out", default=None, metavar="DIR", help="write DIR/<name>.jsonl")


def _common(p: argparse.ArgumentParser, questions: bool = True) -> None:
    p.add_argument("--questions", required=questions, metavar="FILE",
                   help="JSONL of {id, question[, answers, hops]}")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N",
                   help="first N questions")
    p.add_argument("--concurrency", type=positive_int, default=4, metavar="N",
                   help="model calls in flight")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def register(sub: Any) -> None:
    """Add ``vizrag eval`` (``generate``, ``judge``, ``table``)."""
    p = sub.add_parser("eval", help="evaluation: answers per mode, LLM judge, paper tables",
                       description=__doc__.split("\n\n")[0])
    esub = p.add_subparsers(dest="eval_command", metavar="SUBCOMMAND", required=True)

    g = esub.add_parser("generate", help="write one answers file per retrieval mode")
    _common(g)
    g.add_argument("--store", required=True, metavar="STORE",
                   help="a store directory, .sqlite file or postgresql:// URL")
    g.add_argument("--modes", default="vizrag,text,hyper-lite,naive", metavar="M1,M2")
    _gen_opts(g)
    _retries_opt(g)
    g.set_defaults(out="answers")
    for flag in ("retrieval-viz", "congestion-control", "dual-view"):
        g.add_argument(f"--no-{flag}", action="store_true", help=f"ablation: no {flag}")
    g.set_defaults(func=_run_generate)

    j = esub.add_parser("judge", help="LLM-as-judge win rate or score of answers files")
    _common(j)
    j.add_argument("--systems", nargs="+", required=True, metavar="FILE",
                   help="answers files (named by file stem)")
    _judge_opts(j, required=True)
    j.add_argument("--json", action="store_true", help="print one JSON object")
    j.set_defaults(func=_run_judge)

    t = esub.add_parser("table", help="regenerate a table of the paper (1, 2, 3, 4, 5, 2c)")
    t.add_argument("number", choices=_TABLES, metavar="N", help="1, 2, 3, 4, 5 or 2c")
    _common(t, questions=False)
    t.add_argument("--systems", nargs="+", default=None, metavar="FILE",
                   help="answers files (table 1: ours first; table 2: full first)")
    t.add_argument("--store", default=None, metavar="STORE", help="generate answers from it")
    t.add_argument("--store-no-index-viz", default=None, metavar="STORE",
                   help="table 2: a store indexed with --no-visualization")
    t.add_argument("--modes", default="vizrag,text,hyper-lite,naive", metavar="M1,M2",
                   help="table 4 with --store: modes to generate")
    _gen_opts(t)
    _judge_opts(t, required=False)
    add_probe_options(t)
    t.add_argument("--json", action="store_true", help="print the table as JSON")
    t.set_defaults(func=partial(_run_table, defaults={d: t.get_default(d)
                                                      for d in _TABLE_OPTIONS}))
