"""The offline demo: index 60 bundled MuSiQue paragraphs, ask three 2-hop questions.

The data ships inside the package (``hyperviz_core/data/demo``: MuSiQue, CC BY 4.0; subset
selection from HippoRAG, MIT — see the README beside it), so ``vizrag demo`` works right
after ``pip install vizrag``, without the repository. For each question :func:`run_demo`
prints the keywords, the entities located in I_top, the top passages with the evidence
that ranked them and the answer, and writes the dual-view renderings of the retrieved
sub-hypergraphs — I_top (themes) and I_bot (entities and relations) — as PNG plus a
self-contained HTML viewer, and ``result.json``.

Everything runs offline (heuristic extraction, hashed embeddings, no language model), so
there is no generated answer: an extractive summary, labelled as such, stands in for it.

Example:
    >>> passages, questions = demo_passages(), demo_questions()
    >>> len(passages), len(questions), questions[0].question
    (60, 3, 'Who is the wife of Kim Jong-chul?')
    >>> demo_documents()[0].id == f"musique-{passages[0].musique_corpus_idx}"
    True
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from .atomic import atomic_write_bytes
from .unitext import truncate

if TYPE_CHECKING:
    from .rag.result import RetrievalResult
    from .rag.types import Document

__all__ = ["DemoPassage", "DemoQuestion", "demo_documents", "demo_passages", "demo_questions",
           "run_demo"]

_DATA = files("hyperviz_core") / "data" / "demo"


class DemoPassage(BaseModel):
    """One bundled paragraph: its index in the 1,890-passage MuSiQue benchmark subset."""

    model_config = ConfigDict(frozen=True)

    musique_corpus_idx: int
    title: str
    text: str


class DemoQuestion(BaseModel):
    """One bundled 2-hop question; ``answers`` and ``gold_titles`` are for the reader only
    (the demo never uses them for retrieval)."""

    model_config = ConfigDict(frozen=True)

    id: str
    question: str
    answers: list[str]
    gold_titles: list[str]


def _read(name: str) -> Any:
    return json.loads((_DATA / name).read_text(encoding="utf-8"))


def demo_passages() -> list[DemoPassage]:
    """The 60 bundled paragraphs, in file order."""
    return [DemoPassage.model_validate(p) for p in _read("musique_demo_passages.json")]


def demo_questions() -> list[DemoQuestion]:
    """The three bundled questions."""
    return [DemoQuestion.model_validate(q) for q in _read("musique_demo_questions.json")]


def demo_documents() -> list[Document]:
    """The bundled paragraphs as engine documents (id ``musique-<corpus index>``)."""
    from .rag.types import Document

    return [Document(id=f"musique-{p.musique_corpus_idx}", title=p.title, text=p.text,
                     metadata={"source": "MuSiQue (CC BY 4.0)"}) for p in demo_passages()]


def _clear_demo_store(store_dir: Path) -> None:
    """Remove the store an earlier demo run left in ``store_dir`` (a fresh index each run);
    raise ValueError, removing nothing, when the path holds anything else: a symbolic link,
    a file, entries other than a store's own, or a store with documents not the demo's."""
    if not store_dir.exists() and not store_dir.is_symlink():
        return
    from .rag.store import open_store
    from .rag.store.sqlite.files import store_entries
    from .rag.store.sqlite.schema import STORE_FILENAME

    database = store_dir / STORE_FILENAME
    kinds = store_entries(database)  # the store's own entries: path -> is a folder
    entries = ([] if store_dir.is_symlink() or not store_dir.is_dir()
               else sorted(store_dir.iterdir()))
    own = (not store_dir.is_symlink() and store_dir.is_dir() and all(
        p in kinds and not p.is_symlink() and p.is_dir() == kinds[p] for p in entries))
    if own and entries:
        own = database.is_file()
        if own:
            with open_store(store_dir, read_only=True) as store:
                held = {d.id for d in store.documents()}
            own = held <= {d.id for d in demo_documents()}
    if not own:
        raise ValueError(f"{store_dir} exists and is not a store of this demo (it would be "
                         "replaced): give another --out")
    shutil.rmtree(store_dir)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48]


def _print_result(result: RetrievalResult, n: int, q: DemoQuestion, elapsed: float,
                  say: Callable[[str], None]) -> None:
    say(f"\n[{n}] {q.question}")
    say(f"    keywords: {', '.join(result.keywords)}")
    names = {e.key: e.name for e in result.entities}
    located = [names.get(k, k) for k in result.located[:6]]
    say(f"    entities located in I_top (offline locator): "
        f"{', '.join(located) or '-'}  ({elapsed:.2f} s incl. rendering)")
    for c in result.chunks:
        text = truncate(c.text, 160)
        via = f"  via {', '.join(c.entities[:3])}" if c.entities else ""
        say(f"    #{c.rank} {c.score:.2f} {c.title}{via}\n        {text}")
    say("    " + (result.answer or "").replace("\n", "\n    "))
    say(f"    (MuSiQue gold answer: {', '.join(q.answers)})")


def _write_views(result: RetrievalResult, folder: Path) -> list[str]:
    """The views (PNG, export JSON, HTML) and ``result.json``, each replaced whole."""
    from .viewer.files import write_views

    written = write_views(result, folder)
    atomic_write_bytes(folder / "result.json", result.model_dump_json(indent=1).encode("utf-8"))
    return [written[k] for k in ("top_png", "top_html", "bottom_png", "bottom_html")
            if k in written]


def run_demo(out: str | Path, *, top_k: int = 3,
             say: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Index the bundled corpus into ``out/store`` (a fresh index each run), answer the three
    questions with visual retrieval and write ``out/q<N>-<slug>/`` (``top``/``bottom`` PNG +
    HTML, ``result.json``) and ``out/summary.json``; ``say`` prints each line. Returns the
    summary: per question its folder and the titles of its top passages."""
    from .layouts.gvrun import require_dot
    from .rag.engine import VizRAG

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder: give a folder for the demo's "
                         "output (it is created when missing)")
    require_dot()  # the demo draws: say it before indexing, not after
    with _only_run(out):
        return _run(out, top_k, say, VizRAG)


@contextlib.contextmanager
def _only_run(out: Path) -> Iterator[None]:
    """Hold a lock named after ``out`` (in the temporary folder: ``out`` is left as it is)
    for the run: a second demo on the same folder would clear the index the first is
    writing (an error now, not a race)."""
    try:
        import fcntl
    except ImportError:  # not POSIX (Windows): no lock
        yield
        return
    key = hashlib.sha256(str(out.resolve()).encode("utf-8")).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"vizrag-demo-{key}.lock"
    while True:
        with path.open("w") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise ValueError(f"another vizrag demo is writing {out}: wait for it, or "
                                 "give another --out") from None
            if not _names(path, fh):  # a run that ended removed it meanwhile: lock anew
                continue
            try:
                yield
            finally:  # removed while still held: no lock file is left behind per --out
                with contextlib.suppress(OSError):
                    path.unlink()
            return  # the lock goes with the file's closing


def _names(path: Path, fh: Any) -> bool:
    """Whether ``path`` is still the file open as ``fh`` (not removed, not replaced)."""
    try:
        return os.stat(path).st_ino == os.fstat(fh.fileno()).st_ino
    except OSError:
        return False


def _run(out: Path, top_k: int, say: Callable[[str], None], engine: Any
         ) -> list[dict[str, Any]]:
    store_dir = out / "store"
    _clear_demo_store(store_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    summary: list[dict[str, Any]] = []
    with engine(store_dir, show_progress=False, top_k=top_k) as rag:
        rag.insert(demo_documents())
        s = rag.stats()
        say(f"Indexed {s.documents} passages in {time.perf_counter() - t0:.1f} s: {s.chunks} "
            f"chunks, {s.entities} entities, {s.relation_hyperedges} relation hyperedges "
            f"(G_bot), {s.theme_hyperedges} theme hyperedges over {s.key_entities} key "
            f"entities (G_top).")
        for n, q in enumerate(demo_questions(), 1):
            t1 = time.perf_counter()
            result = rag.query(q.question, render=True)  # offline nothing reads the images
            _print_result(result, n, q, time.perf_counter() - t1, say)
            folder = out / f"q{n}-{_slug(q.question)}"
            say(f"    wrote {', '.join(_write_views(result, folder))}")
            summary.append({"question": q.question, "folder": str(folder),
                            "top_passages": [c.title for c in result.chunks]})
    atomic_write_bytes(out / "summary.json",
                       json.dumps(summary, indent=1, ensure_ascii=False).encode("utf-8"))
    say(f"\nDone in {time.perf_counter() - t0:.1f} s. Open {out}/q1-*/bottom.html in a browser.")
    return summary
