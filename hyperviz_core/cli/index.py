"""``vizrag index`` and ``vizrag stats``: build and inspect a store (``vizrag delete``:
:mod:`hyperviz_core.cli.delete`).

Offline by default (heuristic extraction, hashed embeddings). ``--llm openai:MODEL`` (any
OpenAI-compatible endpoint, see ``vizrag index --help``) switches extraction and themes to an
LLM, with retries and a persistent call cache in the store.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .argtypes import non_negative_int, positive_int
from .index_missing import files_missing, missing_note
from .index_output import (
    interrupted,
    outcome,
    print_index,
    quiet_document_failures,
    stats_line,
)
from .index_store import (
    after_run,
    created_paths,
    open_for_index,
    prune_missing,
    recorded_embedder,
    settle_created,
)
from .terminal import terminal_safe

__all__ = ["add_provider_options", "make_chat", "make_embedder", "open_existing",
           "recorded_embedder", "register", "seconds"]


def _note_without_ann() -> None:
    """``--ann-threshold`` asked for, and the ``ann`` extra missing: said, not ignored."""
    from ..extras import install_hint
    from ..rag.ann import usearch_available

    if not usearch_available():
        print("vizrag index: --ann-threshold needs the 'ann' extra (usearch), which is not "
              f"installed: vector search stays exact; {install_hint('ann')}", file=sys.stderr)


def _parsed(flag: str, spec: str) -> Any:
    """The parsed ``provider:model`` spec of ``flag``; a provider without its API key in
    the environment is a one-line error before anything is written (not one failure per
    document)."""
    from ..rag.providers.spec import KNOWN_PROVIDERS, parse_model_spec

    parsed = parse_model_spec(spec)
    if not parsed.offline and parsed.api_key is None:
        key_env = KNOWN_PROVIDERS[parsed.provider][1]
        raise ValueError(f"{flag} {spec!r} needs an API key: set {key_env} (any value for a "
                         "local OpenAI-compatible server that checks none)")
    return parsed


def seconds(text: str) -> float:
    """``--timeout``: a positive number of seconds, else a one-line argparse error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def add_provider_options(p: argparse.ArgumentParser) -> None:
    """``--timeout`` and ``--max-retries`` (the provider calls of ``--llm`` / ``--embed``)."""
    p.add_argument("--timeout", type=seconds, default=120.0, metavar="S",
                   help="seconds a provider request may take in all, answer included "
                   "(default 120)")
    p.add_argument("--max-retries", type=non_negative_int, default=5, metavar="N",
                   help="provider retries (429/5xx/timeouts) per call (default 5)")


def make_chat(spec: str | None, *, timeout: float | None = None, flag: str = "--llm") -> Any:
    """A chat model from ``provider:model[@base_url]`` (``offline``/``none`` → None);
    ``timeout``: seconds per request (default the model's, 120); ``flag``: the option its
    errors name.

    Parsed by :func:`hyperviz_core.rag.providers.spec.parse_model_spec`.
    """
    if not spec or spec.strip().lower() in ("offline", "none", "heuristic"):
        return None
    from ..rag.providers.spec import chat_model_from_spec

    kw = {} if timeout is None else {"timeout": timeout}
    try:
        return chat_model_from_spec(_parsed(flag, spec), **kw)
    except ImportError as exc:  # the provider's extra (e.g. 'openai') is not installed
        raise ValueError(f"{flag} {spec!r} is unavailable: {exc}") from None


def make_embedder(spec: str | None, *, timeout: float | None = None,
                  max_retries: int | None = 5, show_progress: bool | None = None) -> Any:
    """An embedder from ``offline``, ``hashing[:DIM]``, ``local-minilm`` (the optional
    ``vizrag[local]`` extra) or ``provider:model[@base_url]``. A provider's one makes
    requests of at most ``timeout`` seconds and comes in a
    :class:`~hyperviz_core.rag.RetryingEmbedder` of ``max_retries`` (``None``: unwrapped,
    for a caller that wraps it itself). ``show_progress``: the local model's progress bar
    (None: when stderr is a terminal)."""
    from ..rag.providers.offline import HashingEmbedder

    if not spec or spec.strip().lower() in ("offline", "hashing", "default"):
        return HashingEmbedder()
    low = spec.strip().lower()
    if low in ("local-minilm", "local"):
        from ..rag.local_embed import LocalMiniLMEmbedder

        try:
            return LocalMiniLMEmbedder(show_progress=sys.stderr.isatty() if show_progress
                                       is None else show_progress)
        except ImportError as exc:
            raise ValueError(f"--embed {spec!r} is unavailable: {exc}") from None
    if low.startswith("hashing:"):
        try:
            return HashingEmbedder(dim=int(low.split(":", 1)[1]))
        except ValueError as exc:
            raise ValueError(f"bad --embed {spec!r}: {exc}") from None
    from ..rag.providers.retry import with_retries
    from ..rag.providers.spec import embedder_from_spec

    kw = {} if timeout is None else {"timeout": timeout}
    try:
        embedder = embedder_from_spec(_parsed("--embed", spec), **kw)
        return embedder if max_retries is None else with_retries(embedder, max_retries)
    except ImportError as exc:  # the provider's extra (e.g. 'openai') is not installed
        raise ValueError(f"--embed {spec!r} is unavailable: {exc}") from None


def open_existing(path: str, *, read_only: bool) -> Any:
    """Open a store that must exist (never create one to read it): read-only (``mode=ro``)
    for reading commands, and refusing a read-only file or folder up front for writing
    ones."""
    from ..rag.store import open_store

    return open_store(path, read_only=read_only, must_exist=True)


def _print_stats(stats: Any) -> None:
    print(stats_line(stats))


def _load_inputs(args: argparse.Namespace) -> tuple[Any, Any]:
    """The documents to index as a stream (one per id, by ``--on-duplicate``; large text
    files as parts of ``--part-kb``) and what was dropped."""
    from ..rag.index.loaders import LoaderError, no_documents
    from ..rag.index.stream import DocumentStream

    if args.part_kb is not None and not 1 / 1024 <= args.part_kb < 2**40:
        raise ValueError(f"--part-kb must be a number of kilobytes from 1/1024 (one byte) "
                         f"up, got {args.part_kb}")
    docs = DocumentStream(
        args.paths, on_duplicate=args.on_duplicate, limit=args.limit,
        on_unreadable="skip" if args.skip_unreadable else "error",
        follow_links=args.follow_links, encoding=args.encoding,
        part_bytes=int(args.part_kb * 1024) if args.part_kb else None,
        text_field=args.text_field, id_field=args.id_field, title_field=args.title_field,
    )
    rep = docs.report
    if rep.unreadable and not rep.read:
        raise LoaderError(f"no input file could be read ({len(rep.unreadable)} skipped); the "
                          f"first: {rep.unreadable[0]}")
    if not rep.read:  # e.g. a folder of PDFs: nothing to index, so no store either
        raise no_documents(args.paths)
    return docs, rep


class _ReadingNotes(logging.Handler):
    """Prints each file's guessed encoding (``--encoding auto``), each attachment not read
    and what a reading library said of a file (:mod:`~..rag.index.libnotes`), once, on
    stderr."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        said = record.getMessage()
        if said not in self.seen:  # a file is read twice: planned, then indexed
            self.seen.add(said)
            print(f"vizrag index: note: {terminal_safe(said)}", file=sys.stderr)


@contextmanager
def _saying_notes() -> Iterator[None]:
    """Have this run say each encoding ``--encoding auto`` guesses, each attachment of
    a message that could not be read (both logged at INFO) and what a reading library said
    of a file (a warning); after it, the loggers are as
    they were (a program that runs ``vizrag index`` and then reads files itself is not
    told of them on stderr)."""
    notes = _ReadingNotes()
    logs = [logging.getLogger(f"hyperviz_core.rag.index.{name}")
            for name in ("legacy", "mails", "libnotes")]
    levels = [log.level for log in logs]
    for log in logs:
        log.addHandler(notes)
        log.setLevel(logging.INFO)
    try:
        yield
    finally:
        for log, level in zip(logs, levels, strict=True):
            log.removeHandler(notes)
            log.setLevel(level)


def _encoding(value: str) -> str:
    """``--encoding``: a text encoding Python knows that reads ASCII as ASCII."""
    from ..rag.index.legacy import fallback_encoding

    try:
        fallback_encoding(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _workers(value: str) -> int | str:
    """``--workers``: a number (0 or more) or ``auto``."""
    if value == "auto":
        return value
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or 'auto': {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {n}")
    return n


def _text_file(path: str) -> bool:
    """Whether ``path`` is a file read as one document, its path its ``source`` (``.md``,
    ``.txt``, ``.html``, ``.pdf``, ``.docx``, ``.pptx`` ...:
    :data:`~..rag.index.suffixes.FILE_SUFFIXES`)."""
    from ..rag.index.suffixes import FILE_SUFFIXES

    p = Path(path).expanduser()
    return p.suffix.lower() in FILE_SUFFIXES and p.is_file()


def _run_index(args: argparse.Namespace) -> int:
    with _saying_notes():  # (an encoding is guessed only with --encoding auto)
        return _index(args)


def _index(args: argparse.Namespace) -> int:
    from ..rag.providers.retry import with_retries
    from ..rag.store import is_store_url
    from ..rag.store.sqlite.check import store_errors

    if args.chunk_overlap >= args.chunk_size:
        raise ValueError(f"--chunk-overlap ({args.chunk_overlap}) must be smaller than "
                         f"--chunk-size ({args.chunk_size})")
    # folders and text files are read by their absolute path (normalised: `../x/notes` is
    # `/.../x/notes`), so their documents record one source whatever the flags, the spelling
    # and the directory the run starts in (see prune; a file of another folder with the
    # same name is then known as another file, never replacing it)
    folders = {p for p in args.paths if Path(p).expanduser().is_dir()}
    if args.prune_missing and not folders:
        raise ValueError("--prune-missing removes the documents of files gone from a "
                         "folder: give a folder among the paths")
    args.paths = [os.path.abspath(Path(p).expanduser())
                  if p in folders or _text_file(p) else p for p in args.paths]
    docs, dup = _load_inputs(args)
    chat = make_chat(args.llm, timeout=args.timeout)
    # retried by the Indexer (which counts the retries); a bad spec, or a provider that
    # cannot tell its dimension, fails here, before the store is touched
    progress = not args.no_progress and sys.stderr.isatty()
    embedder = (make_embedder(args.embed, timeout=args.timeout, max_retries=None,
                              show_progress=progress) if args.embed
                else recorded_embedder(args.store) or make_embedder("offline"))
    with_retries(embedder, args.max_retries).dim  # noqa: B018 - the (retried) probe
    ann_threshold = None if is_store_url(args.store) else args.ann_threshold  # SQLite only
    if ann_threshold:
        _note_without_ann()
    elif args.ann_threshold is not None and is_store_url(args.store):
        print("vizrag index: note: --ann-threshold applies to a SQLite store; a PostgreSQL "
              "store searches exactly up to 50,000 vectors a space and with its HNSW index "
              "beyond (docs/postgres.md)", file=sys.stderr)
    with store_errors(args.store):
        options = {} if ann_threshold is None else {"ann_threshold": ann_threshold}
        created = created_paths(args.store)
        store, before = open_for_index(args.store, options, created)
        if getattr(store, "ann_files", None) is not None:  # its build's progress bar
            store.ann_files.show_progress = None if progress else False
        try:
            indexer = _indexer(args, store, embedder, chat, docs.total_bytes, progress)
            t0 = time.perf_counter()
            try:
                with quiet_document_failures():  # the report lists them, once
                    report = indexer.index(docs, total_bytes=docs.total_bytes)
                prune_missing(args, store, indexer, report)
                missing = files_missing(args, store, report)  # what --prune-missing removes
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM: stopped at the next commit
                return interrupted(args, store, before, t0, dup)
            ready, stopped_step = after_run(args, store, report, before == 0)
        finally:
            store.close()
    fate = settle_created(args.store, report, created)
    where = terminal_safe(args.store) if fate else store.path  # removed or kept: as given
    print_index(args, report, docs, dup, where, ready, fate, missing)
    if missing:
        print(missing_note(missing, len(folders)), file=sys.stderr)
    return outcome(report, where, fate, stopped_step, model=chat is not None,
                   json_out=args.json)


def _indexer(args: argparse.Namespace, store: Any, embedder: Any, chat: Any,
             total_bytes: int, progress: bool) -> Any:
    """The run's :class:`~hyperviz_core.rag.index.indexer.Indexer`, from the options."""
    from ..rag.index.indexer import Indexer
    from ..rag.index.workers import auto_workers

    return Indexer(
        store, embedder=embedder, index_visualization=not args.no_visualization,
        concurrency=args.concurrency, max_retries=args.max_retries, show_progress=progress,
        chat=chat, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap,
        chunk_unit=args.chunk_unit, infer_titles=not args.no_infer_titles,
        workers=auto_workers(total_bytes) if args.workers == "auto" else args.workers,
    )


def _run_stats(args: argparse.Namespace) -> int:
    from ..rag.store.sqlite.check import store_errors

    with store_errors(args.store):
        store = open_existing(args.store, read_only=True)
        try:
            stats = store.stats()
        finally:
            store.close()
    if args.json:
        print(json.dumps(stats.model_dump(mode="json"), indent=2, sort_keys=True))
        return 0
    print(f"store {stats.path}")
    _print_stats(stats)
    if stats.embedder:
        vec = ", ".join(f"{k} {v}" for k, v in stats.vectors.items())
        print(f"vectors ({stats.embedder}, dim {stats.embedding_dim}): {vec}")
    print(f"LLM cache entries {stats.llm_cache_entries}")
    return 0


def register(sub: Any) -> None:
    """Add the ``index`` and ``stats`` subcommands (``delete``: :mod:`.delete`)."""
    p = sub.add_parser(
        "index",
        help="index text, Markdown, HTML, PDF, Office, e-mail, JSON, JSONL, CSV ... files into a "
        "store",
        description="Index documents into a VizRAG store (offline unless --llm is given). "
        "Text and Markdown files, HTML pages, PDFs (vizrag[pdf]), .docx/.docm/.dotx "
        "(vizrag[docx]), .doc/.dot (vizrag[doc]), .pptx/.pptm/.potx/.ppsx (vizrag[pptx]), "
        ".ppt/.pps/.pot (vizrag[ppt]), .xlsx/.xlsm/.xltx "
        "(vizrag[xlsx]), .xls (vizrag[xls]), "
        ".odt/.odp/.ods, .epub, .eml, .msg (vizrag[msg]), .rtf (vizrag[rtf]), .srt/.vtt, "
        ".ipynb: one document each; .mbox: a document per message. "
        "JSON: a list of objects with a text field ([{\"title\", \"text\"}] works as is), "
        "or a dict title -> list of sentences (HotpotQA). JSONL: one object per line. CSV/TSV "
        "(and each .xlsx/.xls/.ods sheet): a row per document when the header has the text field, "
        "else one table document.",
        epilog="Exit codes: 0 every document indexed (or unchanged); 1 some documents failed "
        "(each named; the others are stored); 2 nothing could run, or the store itself "
        "failed (a usage or input error, a full disk: one line on stderr); 130 Ctrl-C, 143 "
        "SIGTERM (the committed documents are kept: run the same command again).",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    p.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    p.add_argument("--llm", default="offline", metavar="PROVIDER:MODEL",
                   help="'offline' (default, heuristics) or e.g. openai:gpt-4o-mini "
                   "(OpenAI-compatible; see the README for base URLs and keys)")
    p.add_argument("--embed", default=None, metavar="SPEC",
                   help="'offline' (hashed n-grams), 'hashing:DIM', 'local-minilm' "
                   "(all-MiniLM-L6-v2 on the CPU; needs vizrag[local]) or provider:model; "
                   "default: the embedder an existing store recorded when it is an offline "
                   "one, else 'offline'")
    p.add_argument("--chunk-size", type=positive_int, default=1200, metavar="N")
    p.add_argument("--chunk-overlap", type=non_negative_int, default=100, metavar="N")
    p.add_argument("--chunk-unit", choices=("char", "token"), default="char")
    p.add_argument("--no-infer-titles", action="store_true",
                   help="leave untitled long documents untitled (default: the title their "
                        "opening states in capitals)")
    p.add_argument("--text-field", default=None, metavar="F",
                   help="the text field of JSON records (default: text, else content, "
                        "contents, body or passage; a field you name must be in every record)")
    p.add_argument("--id-field", default="id", metavar="F")
    p.add_argument("--title-field", default="title", metavar="F")
    p.add_argument("--concurrency", type=positive_int, default=8, metavar="N")
    add_provider_options(p)
    p.add_argument("--workers", type=_workers, default="auto", metavar="N|auto",
                   help="processes running the offline extraction beside this one (0: none; "
                        "auto: one per core but one, from 1 MB of input; LLM extraction "
                        "always runs in this process)")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N",
                   help="index only the first N documents (the others are counted as "
                   "left out by --limit)")
    p.add_argument("--ann-threshold", type=non_negative_int, default=None, metavar="N",
                   help="SQLite store: vector spaces of N vectors or more get a persisted HNSW "
                   "index beside the store, built at the end of the run (default 100000; 0: "
                   "never; needs the vizrag[ann] extra)")
    p.add_argument("--no-visualization", action="store_true",
                   help="do not send chunk images to the theme model (ablation)")
    p.add_argument("--on-duplicate", choices=("error", "skip", "replace"), default="error",
                   help="two inputs with the same document id but different content: stop "
                   "naming both (error, default), keep the first (skip) or the last (replace)")
    p.add_argument("--follow-links", action="store_true",
                   help="also read the files that symbolic links in a folder lead to "
                   "outside it (left out by default, and listed)")
    p.add_argument("--skip-unreadable", action="store_true",
                   help="leave out a file that cannot be read (binary, not UTF-8, invalid "
                   "JSON, no permission) and name it, instead of stopping before anything "
                   "is written")
    p.add_argument("--encoding", type=_encoding, default=None, metavar="ENC",
                   help="read a text file (text, Markdown, HTML without a declared charset, "
                   "CSV, JSON, JSONL, subtitles) that is not UTF-8 in this encoding from its "
                   "first line that is not (cp1252, gb18030, shift_jis ...: one that reads "
                   "ASCII as ASCII; auto: the one its bytes read as plausible text in, a "
                   "guess); UTF-8 files are read as before")
    p.add_argument("--part-kb", type=float, default=256, metavar="KB",
                   help="index a text file larger than this as consecutive parts "
                   "(ID#part00001 ...), read and committed one at a time (default 256); a "
                   "part ends at a blank line past it, else at about twice it")
    p.add_argument("--compact", action=argparse.BooleanOptionalAction, default=None,
                   help="rewrite the SQLite store without free space afterwards (VACUUM: "
                   "about 10%% smaller, seconds per GB), also after a run that changed "
                   "nothing; default: only when this run filled an empty store")
    p.add_argument("--prepare", action=argparse.BooleanOptionalAction, default=True,
                   help="SQLite store of 4,000 chunks or more: at the end, build and keep in "
                   "the store what queries read (full-text index, BM25 lengths, query "
                   "arrays), so each read-only `vizrag query` starts from it (default: on)")
    p.add_argument("--prune-missing", action="store_true",
                   help="after a run that stored every document, delete the documents of "
                        "text files inside the given folders whose files are gone (deleted "
                        "or renamed)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bars (indexing, local embedder, ANN index build)")
    p.add_argument("--json", action="store_true", help="print the index report as JSON")
    p.set_defaults(func=_run_index)

    s = sub.add_parser("stats", help="print the counts of a store")
    s.add_argument("--store", required=True, metavar="STORE",
                   help="store directory, .sqlite file or postgresql:// URL")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_run_stats)
