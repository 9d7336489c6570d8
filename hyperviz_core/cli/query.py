"""``vizrag query``: ask a store a question (or a batch of them).

Offline by default: prints the ranked evidence and a clearly labelled extractive summary.
``--llm openai:MODEL`` sends the renderings I_top/I_bot to a vision model and prints its
answer. ``--out DIR`` writes ``top.png``/``top.html`` and ``bottom.png``/``bottom.html``
(one subfolder per question in batch mode; ``--render`` without ``--out`` or ``--full``,
which alone output the images, says so in one ``note:`` line on stderr). ``--questions
FILE.jsonl`` (lines ``{"id", "question"}``; ``-``: standard input) answers every question
with the store loaded once (the question ``-`` is read from standard input too); with
``--json`` each result is one JSON line ``{"id", "question", "answer", "answer_kind",
"citations", "chunks": [{"doc_id", "chunk_id", "score", "text"}], "locator": {"kind",
"description"}, ...}``.

A question that fails (a model error, a rendering error ...) does not stop a batch: it gets
the record ``{"id", "error"}`` (text mode: ``== id`` then ``error: ...``) and the batch goes
on (a single question that fails says ``vizrag query: error: ...`` on stderr and, with
``--json``, prints the record ``{"error"}`` too: no ``"id"``, as its answer has none); the
exit code is the number of failed questions, capped at 125 (0 = all answered). A
damaged or missing store, or an ``--out`` that cannot be written (a full disk, a read-only
folder: one line naming the folder; the folders the command created and left empty are
removed), stops at once with exit code 2; Ctrl-C stops a batch with one line
(``interrupted after N of M questions``, their records printed) and exit code 130. Each
question's views go to ``--out``/<safe id>: ids are sanitised (never ``..`` or a path) and
made distinct (``-2``).
The store is opened read-only: querying works on a read-only file or folder.
``--verbose`` prints every stage-hook event (stage start/end, model calls, renderings; see
:mod:`hyperviz_core.rag.hooks`) to stderr as ``vizrag: NAME PHASE [ms] {payload JSON}``.
With a model, each question's usage (``RetrievalResult.usage``: calls, tokens, retries ...)
is one ``vizrag query: usage: ...`` line on stderr (``--json``: the record's ``"usage"``) and
a batch ends with ``vizrag query: total usage: ...``; offline output has neither.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path, PurePath
from typing import Any

from ..surrogates import locale_hint, not_unicode
from ..unitext import truncate
from ..viewer.files import write_views
from .argtypes import blocking_file, check_top_k_hops
from .index import add_provider_options, make_chat, make_embedder
from .index_output import said_later
from .questions import folders_for, load_questions, stdin_text
from .terminal import one_line, stdout_is_unicode, terminal_safe

__all__ = [
    "MAX_EXIT",
    "compact",
    "folders_for",
    "locator_note",
    "register",
    "verbose_hook",
]

_MODES = ("vizrag", "text", "hyper-lite", "naive")


def compact(result: Any, qid: str | None = None, images: dict[str, str] | None = None
            ) -> dict[str, Any]:
    """The JSON line of one result (no base64 images; ``--full`` gives everything)."""
    out: dict[str, Any] = {}
    if qid is not None:
        out["id"] = qid
    out.update({
        "question": result.query,
        "mode": result.mode,
        "answer": result.answer,
        "answer_kind": result.answer_kind,
        "citations": result.citations.model_dump() if result.citations else None,
        "keywords": result.keywords,
        "chunks": [{"doc_id": c.doc_id, "chunk_id": c.chunk_id, "score": c.score,
                    "title": c.title, "text": c.text, **_pages(c.metadata)}
                   for c in result.chunks],
        "entities": [{"key": e.key, "name": e.name, "id": e.visual_id,
                      "visual_id": e.visual_id, "layer": e.layer, "role": e.role,
                      "score": e.score} for e in result.entities],
        "hyperedges": [{"id": h.id, "visual_id": h.visual_id, "kind": h.kind,
                        "members": h.members, "description": h.description}
                       for h in result.hyperedges],
        "locator": locator_note(result),
        "captions": {"top": result.top_view.caption if result.top_view else None,
                     "bottom": result.bottom_view.caption if result.bottom_view else None},
        "timings_ms": result.timings,
        "warnings": result.warnings,
    })
    if result.usage is not None:  # a model was called (offline records stay as they were)
        out["usage"] = result.usage.model_dump()
    if images:
        out["images"] = images
    return out


def verbose_hook(name: str, phase: str, payload: dict[str, Any]) -> None:
    """Stage hook of ``--verbose``: one line per event on stderr.

    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     verbose_hook("rank", "end", {"chunks": ["c1"], "elapsed_ms": 1.25})
    >>> print(err.getvalue().strip())
    vizrag: rank end 1.2 ms {"chunks": ["c1"]}
    """
    rest = {k: v for k, v in payload.items() if k != "elapsed_ms"}
    ms = payload.get("elapsed_ms")
    took = f" {ms:.1f} ms" if isinstance(ms, (int, float)) else ""
    body = json.dumps(rest, ensure_ascii=False, sort_keys=True, default=str)
    print(f"vizrag: {name} {phase}{took} {body}", file=sys.stderr)


OFFLINE_LOCATOR = "offline structural locator — no vision model read the image"
#: the same in ``text`` mode, which draws no image at all
TEXT_MODE_LOCATOR = "offline structural locator — text mode draws no image"
#: the same when I_top was not drawn (no ``--render``, no model to read it)
UNDRAWN_LOCATOR = "offline structural locator — no image was drawn (--render draws one)"


def locator_note(result: Any) -> dict[str, str]:
    """Which locator picked the G_top entities: ``{"kind", "description"}``.

    ``kind`` is ``vision-model`` (a model was sent I_top), ``text-model`` (a model read the
    theme listing only), ``offline-structural`` (no model: the best-connected shown
    entities; in ``text`` mode, which draws no image, and when I_top was not drawn, the
    description says so rather than that no model read the image) or ``none`` (the mode has
    no locate step).
    """
    if "locate" not in result.timings:
        return {"kind": "none", "description": f"no locate step in mode {result.mode}"}
    from ..rag.retrieve.stages import NO_KNOWN_ID

    offline = (TEXT_MODE_LOCATOR if result.mode == "text" else
               OFFLINE_LOCATOR if result.top_view is not None else UNDRAWN_LOCATOR)
    for start, why in (("locate model failed", "the locate model failed"),
                       (NO_KNOWN_ID, "the locate model named no entity ID of I_top")):
        if any(w.startswith(start) for w in result.warnings):
            return {"kind": "offline-structural", "description": f"{offline} ({why})"}
    calls = [p for p in result.prompts if p.stage == "locate"]
    if not calls:
        return {"kind": "offline-structural", "description": offline}
    if calls[-1].images:
        return {"kind": "vision-model",
                "description": "vision model read the image I_top to locate entities"}
    return {"kind": "text-model",
            "description": "chat model located entities from the theme listing; no image was "
                           "sent"}


def _print_human(result: Any, images: dict[str, str]) -> None:
    from ..rag.citations import cited_legend
    from ..rag.query_usage import usage_summary

    # the question, stored texts and the model's answer are untrusted: no raw control codes
    safe = terminal_safe
    print(f"Q: {safe(result.query)}")
    print(f"mode {result.mode} · keywords: {safe(', '.join(result.keywords) or '-')}")
    print(f"Locator: {locator_note(result)['description']}")
    if result.answer_kind == "llm":
        print(f"\nAnswer:\n{safe(result.answer)}\n")
        if legend := cited_legend(result):  # what the E#/H# it cites are ([n]: below)
            print("Cited:\n" + "\n".join(f"  {safe(line)}" for line in legend) + "\n")
    elif result.answer:
        print(f"\n{safe(result.answer)}\n")
    print("Top passages:")
    for c in result.chunks:
        text = truncate(c.text, 220)
        where = one_line(c.doc_id) + _page_label(c.metadata)
        name = f"{one_line(c.title)}  ({where})" if c.title else where
        print(f"  [{c.rank}] {c.score:.3f}  {name}\n      {safe(text)}")
    if images:
        print("Images: " + ", ".join(images[k] for k in sorted(images)))
    for w in result.warnings:
        print(f"warning: {safe(w)}", file=sys.stderr)
    if result.usage is not None:  # what the model calls of this question cost
        print(f"vizrag query: usage: {usage_summary(result.usage)}", file=sys.stderr)


def _pages(meta: dict[str, Any]) -> dict[str, int]:
    """The pages a passage of a PDF, a deck or a workbook spans (``page``, ``page_end``:
    :mod:`~..rag.index.pages`), else nothing."""
    return {k: meta[k] for k in ("page", "page_end") if type(meta.get(k)) is int}


@functools.cache
def _page_units() -> dict[str, tuple[str, str]]:
    """What a page of a file is, by its suffix (a PDF's: a page)."""
    from ..rag.index.suffixes import PPT_SUFFIXES, PPTX_SUFFIXES, XLS_SUFFIXES, XLSX_SUFFIXES

    return {**dict.fromkeys((*PPTX_SUFFIXES, *PPT_SUFFIXES, ".odp"), ("slide", "slides")),
            **dict.fromkeys((*XLSX_SUFFIXES, *XLS_SUFFIXES, ".ods"), ("sheet", "sheets")),
            ".epub": ("section", "sections")}


def _page_label(meta: dict[str, Any]) -> str:
    """``, p. 3`` or ``, pp. 3-4`` for a passage of a PDF, ``, slide 3`` / ``, slides 3-4``
    of a deck, ``, sheet 2`` of a workbook, else ``""``.

    >>> _page_label({"page": 3, "page_end": 4}), _page_label({"source": "a.PPTX", "page": 2})
    (', pp. 3-4', ', slide 2')
    >>> _page_label({"source": "a.ppsm", "page": 2}), _page_label({"source": "b.xltx", "page": 1})
    (', slide 2', ', sheet 1')
    """
    pages = _pages(meta)
    if "page" not in pages:
        return ""
    source = meta.get("source")
    suffix = PurePath(source).suffix.lower() if isinstance(source, str) else ""
    one, many = _page_units().get(suffix, ("p.", "pp."))
    first, last = pages["page"], pages.get("page_end", pages["page"])
    return f", {one} {first}" if last == first else f", {many} {first}-{last}"


#: the retrieval's and the answer's warnings (a model that failed, passages nothing matched,
#: made-up citations), logged as they happen and kept on the result: the result says them, once
_SAID_WITH_THE_RESULT = (("hyperviz_core.rag.retrieve.stages", "retrieval of "),
                         ("hyperviz_core.rag.answer", "the answer cites "))

#: exit codes above this mean "killed by a signal" to shells; more failures still exit 125
MAX_EXIT = 125


def _open_engine(args: argparse.Namespace) -> Any:
    from pydantic import ValidationError

    from ..rag.engine import VizRAG
    from .index import open_existing

    check_top_k_hops(args.top_k, args.hops)
    store = open_existing(args.store, read_only=True)  # a query never writes the store
    try:
        embedder = (make_embedder(args.embed, timeout=args.timeout, max_retries=args.max_retries)
                    if args.embed else None)  # None: the store's
        return VizRAG(store, chat=_chat(args), embedder=embedder, mode=args.mode,
                      top_k=args.top_k, hops=args.hops, show_progress=False, close_store=True)
    except ValidationError as exc:
        store.close()
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())) or "option"
        raise ValueError(f"invalid --{where.replace('_', '-')}: {err.get('msg', '')}") from None
    except BaseException:
        store.close()
        raise


def _filter(text: str) -> Any:
    """``--filter``'s JSON as the engine's filter (argparse names the option on an error)."""
    from pydantic import ValidationError

    from ..rag.retrieve.filters import as_filter

    try:
        return as_filter(json.loads(text))
    except (ValueError, TypeError) as exc:  # JSON, pydantic and filter errors
        said = (str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
                if isinstance(exc, ValidationError) and exc.errors() else str(exc))
        raise argparse.ArgumentTypeError(f"not a metadata filter: {said}") from None


def _chat(args: argparse.Namespace) -> Any:
    """``--llm`` in the retry middleware ``index`` and ``eval`` use (429/5xx/timeouts,
    ``--max-retries``; :func:`~hyperviz_core.rag.build_chat_stack`); no cache: the store
    is opened read-only."""
    chat = make_chat(args.llm, timeout=args.timeout)
    if chat is None:
        return None
    from ..rag.providers.middleware import build_chat_stack

    return build_chat_stack(chat, max_retries=args.max_retries)


#: ``--render`` without ``--out`` or ``--full``: the images are drawn, and no output has them
RENDER_NOTE = ("vizrag query: note: --render without --out or --full shows no image: "
               "--out DIR writes the views (PNG + HTML), --full prints them (base64 in the "
               "JSON); --json has their captions only")


def _run(args: argparse.Namespace) -> int:
    if args.question == "-":  # the question is standard input's text
        if args.questions == "-":
            raise ValueError("the question '-' and --questions - both read standard input: "
                             "give one of them")
        if not args.questions:
            args.question = stdin_text("the question -").strip()
            if not args.question:
                raise ValueError("the question read from standard input ('-') is empty")
    if args.question is not None and not args.question.strip() and not args.questions:
        raise ValueError("the question is empty (only whitespace)")
    if not args.question and not args.questions:
        raise ValueError("give a question or --questions FILE.jsonl")
    if args.question and args.questions:
        raise ValueError("give either a question or --questions, not both")
    if args.question:
        _check_text(args.question, argv=True)  # bad bytes on the command line: exit 2
    batch = load_questions(args.questions) if args.questions else [(None, args.question)]
    folders = folders_for([str(q) for q, _ in batch])
    out = Path(args.out) if args.out else None
    blocked = blocking_file(out) if out else None  # --out, or a folder above it, a file
    if blocked is not None:
        raise ValueError(f"--out {out}: {blocked} exists and is not a folder")
    if getattr(args, "render", False) and out is None and not args.full:
        print(RENDER_NOTE, file=sys.stderr)  # drawn, but nothing would show the images
    from tqdm.auto import tqdm

    bar = tqdm(total=len(batch), desc="questions", unit="q", leave=False,
               disable=len(batch) < 2 or args.no_progress or not sys.stderr.isatty())
    done = [0, 0]  # questions printed (answered or failed), failed
    total: list[Any] = [None]  # the batch's model usage (None: no model call)
    try:
        _answer_all(args, batch, folders, out, bar, done, total)
    except KeyboardInterrupt:
        if len(batch) < 2:
            raise  # one question: `vizrag query: interrupted` (main)
        print(f"vizrag query: interrupted after {done[0]} of {len(batch)} questions (their "
              "records are above)", file=sys.stderr)
        return 130
    failed = done[1]
    if total[0] is not None and len(batch) > 1:
        from ..rag.query_usage import usage_summary

        print(f"vizrag query: total usage: {usage_summary(total[0])}", file=sys.stderr)
    if failed and len(batch) > 1:
        print(f"vizrag query: {failed} of {len(batch)} questions failed", file=sys.stderr)
    return min(failed, MAX_EXIT)


def _answer_all(args: argparse.Namespace, batch: list[tuple[Any, str]], folders: list[str],
                out: Path | None, bar: Any, done: list[int], total: list[Any]) -> None:
    """Answer and print every question of ``batch``, counting in ``done`` the questions
    printed (answered or failed) and the failed ones, so that Ctrl-C can say how far it
    got; ``total[0]``: the answered questions' model usage summed."""
    from ..rag.query_usage import add_reports
    from ..rag.store.sqlite.check import is_store_failure, store_errors
    from . import is_missing_graphviz

    with store_errors(args.store), bar:
        engine = _open_engine(args)
        try:
            for (qid, question), folder in zip(batch, folders, strict=True):
                held: list[str] = []
                try:
                    _check_text(question)
                    with said_later(*_SAID_WITH_THE_RESULT) as held:  # said with the result
                        result = engine.query(question, render=render_setting(args, out),
                                              hooks=[verbose_hook] if args.verbose else None,
                                              filters=args.filter)
                    images: dict[str, str] = {}
                    if out is not None:
                        images = _write_or_stop(result, out / folder if qid is not None
                                                else out, out, done[0], len(batch))
                        if not images:
                            _no_views_note(result, qid)
                    _print_result(args, result, qid, images, len(batch))
                    total[0] = add_reports(total[0], result.usage)
                except Exception as exc:  # one failing question must not lose the batch
                    if (is_store_failure(exc) or isinstance(exc, (BrokenPipeError, OutError))
                            or is_missing_graphviz(exc)):
                        raise  # the store is unusable, nobody reads the output, no `dot`,
                        # or --out cannot be written (every question would fail the same)
                    done[1] += 1
                    for said in held:  # no result will say them
                        print(f"warning: {terminal_safe(said)}", file=sys.stderr)
                    _report_failure(args, qid, exc)
                finally:
                    bar.update(1)
                done[0] += 1
        finally:
            engine.close()


class OutError(ValueError):
    """``--out`` could not be written (a full disk, a read-only folder): one line naming
    the folder, exit code 2; a batch stops, as every question would fail the same way."""


def _write_or_stop(result: Any, folder: Path, out: Path, done: int, total: int
                   ) -> dict[str, str]:
    """``write_views`` into ``folder`` (under ``--out`` ``out``); a write that fails removes
    the folders it created and left empty (up to ``out`` and the ones above it that did not
    exist) and raises :class:`OutError` naming the folder and the reason."""
    made = [p for p in (folder, *folder.parents) if not p.exists()]  # deepest first
    try:
        return write_views(result, folder)
    except OSError as exc:
        for path in made:
            try:
                path.rmdir()  # only an empty folder: a view written before stays
            except OSError:
                break
        why = exc.strerror or str(exc)
        name = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(folder) else ""
        stop = (f"; the batch stops after {done} of {total} questions" if total > 1 else "")
        raise OutError(f"--out: cannot write the views into {folder}{name}: {why}"
                       f"{f' [Errno {exc.errno}]' if exc.errno else ''}{stop}") from None


def _no_views_note(result: Any, qid: str | None) -> None:
    """Say on stderr why ``--out`` received no view (``text``/``naive`` modes draw none)."""
    why = "; ".join(f"{v}: {r}" for v, r in sorted(result.skipped_views.items()))
    print(f"vizrag query: note: {'question ' + qid + ': ' if qid else ''}--out received no "
          f"view in {result.mode} mode ({why or 'this mode draws no views'})", file=sys.stderr)


def _check_text(question: str, *, argv: bool = False) -> None:
    """Refuse a question that is not Unicode text (a lone surrogate: undecodable bytes on
    the command line, or ``\\ud800`` in a JSONL file) before it reaches the engine; one from
    the command line (``argv``) whose bytes are UTF-8 says the locale is not
    (:func:`~hyperviz_core.surrogates.locale_hint`)."""
    if why := not_unicode(question, "the question"):
        raise ValueError(why + (locale_hint(question) if argv else ""))


def render_setting(args: argparse.Namespace, out: Path | None) -> bool | None:
    """``render=`` for the engine: True with ``--out``/``--render``, False with
    ``--no-render``, else None (render only when a vision model reads the images)."""
    if out is not None or getattr(args, "render", False):
        return True
    return False if args.no_render else None


def _report_failure(args: argparse.Namespace, qid: str | None, exc: BaseException) -> None:
    """Say a question's failure: the record ``{"id", "error"}`` of a batch (text: ``== id``
    then ``error: ...``); a single question's one line on stderr, and with ``--json`` or
    ``--full`` its record on stdout too, ``{"error"}`` (no ``"id"``, as its answer has none).
    """
    error = " ".join(f"{type(exc).__name__}: {exc}".split())
    if qid is None:
        print(f"vizrag query: error: {error}", file=sys.stderr)
    if args.json or args.full:
        record = {"error": error} if qid is None else {"id": qid, "error": error}
        print(json.dumps(record, ensure_ascii=not stdout_is_unicode()))
    elif qid is not None:
        print(f"== {terminal_safe(qid)}\nerror: {terminal_safe(error)}\n")


def _print_result(args: argparse.Namespace, result: Any, qid: str | None,
                  images: dict[str, str], n: int) -> None:
    if args.full:
        full = json.loads(result.model_dump_json(  # offline: no "usage" (as it was)
            exclude={"usage"} if result.usage is None else None))
        full["locator"] = locator_note(result)
        print(json.dumps(full, ensure_ascii=not stdout_is_unicode()))
    elif args.json:
        print(json.dumps(compact(result, qid, images), ensure_ascii=not stdout_is_unicode()))
    else:
        if qid is not None:
            print(f"== {terminal_safe(qid)}")
        _print_human(result, images)
        if n > 1:
            print()


def register(sub: Any) -> None:
    """Add ``vizrag query`` to the subcommand parser."""
    p = sub.add_parser("query", help="ask a store a question (offline: ranked evidence)",
                       description=__doc__.split("\n\n")[0],
                       epilog="Exit codes: 0 answered; 1 the question failed (its error "
                       "record {\"error\"} with --json); with --questions, the number of "
                       "questions that failed (1-125; each has its error record, {\"id\", "
                       "\"error\"} with --json); 2 also when nothing could run (a usage "
                       "error, no store, a bad questions file: one line on stderr, no "
                       "record), so a script tells the two apart by the records; 130 "
                       "Ctrl-C, 143 SIGTERM.")
    p.add_argument("question", nargs="?",
                   help="the question ('-': read it from standard input; or use --questions)")
    p.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    p.add_argument("--mode", default="vizrag", choices=_MODES, help="retrieval mode")
    p.add_argument("--top-k", type=int, default=5, help="ranked passages to return")
    p.add_argument("--hops", type=int, default=1, help="sub-hypergraph radius")
    p.add_argument("--llm", default=None,
                   help="chat/vision model, e.g. openai:gpt-4o-mini (default: offline)")
    p.add_argument("--embed", default=None, help="embedder (must match the index)")
    p.add_argument("--filter", default=None, type=_filter, metavar="JSON",
                   help='only passages whose metadata passes it, e.g. \'{"team": "beta", '
                        '"year": {"$gte": 2021}}\' (or the engine\'s {"key", "op", "value"})')
    add_provider_options(p)
    p.add_argument("--out", default=None, help="write I_top/I_bot PNG + HTML here")
    p.add_argument("--questions", default=None,
                   help="JSONL file of {id, question} ('-': standard input)")
    p.add_argument("--json", action="store_true", help="one JSON line per question")
    p.add_argument("--full", action="store_true",
                   help="print the complete RetrievalResult JSON (with base64 images)")
    p.add_argument("--render", action="store_true",
                   help="render I_top/I_bot even when no model reads them (offline)")
    p.add_argument("--no-render", action="store_true",
                   help="never render unless --out is given (offline this is the default; "
                        "kept for compatibility)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar over --questions (shown on a terminal)")
    p.add_argument("--verbose", action="store_true",
                   help="print the stage events (stages, model calls, renderings) to stderr")
    p.set_defaults(func=_run)
