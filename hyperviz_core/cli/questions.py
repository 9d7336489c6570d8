"""What ``vizrag query`` reads and where its outputs go: the questions of ``--questions``
(JSONL, or one JSON list; ``-``: standard input), standard input as UTF-8 text, and the
folder name of each question's ``--out`` files."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..probe.textio import decode_utf8
from ..surrogates import surrogate_at

__all__ = ["folders_for", "load_questions", "stdin_text"]

_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                       *(f"lpt{i}" for i in range(1, 10))})


def _safe(name: str) -> str:
    """A folder name from a question id: never ``.``/``..``, a separator or a device name;
    letters of any script are kept (composed, NFC), so ids that differ only in them
    (``Größe``, ``Grüße``) keep names that say which is which.

    >>> [_safe(x) for x in ("Größe", "fr-E\u0301lodie", "a/b:c", "..", "CON.txt", "हिन्दी")]
    ['Größe', 'fr-Élodie', 'a_b_c', 'q', 'q_CON.txt', 'हिन्दी']
    >>> len(_safe("\U00020000" * 100).encode())  # at most 160 bytes: a name the file system takes
    160
    """
    kept = "".join(c if c.isalnum() or c in "._-" or unicodedata.category(c).startswith("M")
                   else " " for c in unicodedata.normalize("NFC", name))
    out = re.sub(r" +", "_", kept)
    out = out.encode("utf-8")[:160].decode("utf-8", "ignore").strip(".")  # + "-N" < 255
    if not out or out.split(".")[0].lower() in _RESERVED:
        out = f"q_{out}" if out else "q"
    return out


def folders_for(ids: list[str]) -> list[str]:
    """One distinct, safe folder name per question id (``-2``, ``-3`` ... on collisions,
    compared case-insensitively since some file systems are).

    >>> folders_for(["..", "a/b", "a_b", "A_B", ""])
    ['q', 'a_b', 'a_b-2', 'A_B-3', 'q-2']
    """
    taken: set[str] = set()
    out = []
    for qid in ids:
        base = _safe(qid)
        name, n = base, 1
        while name.casefold() in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name.casefold())
        out.append(name)
    return out


def stdin_text(what: str) -> str:
    """Standard input read whole as UTF-8 text (``-`` for ``what``; a byte-order mark, as
    Windows PowerShell writes one, skipped), else a one-line error."""
    stream = getattr(sys.stdin, "buffer", None)
    raw = stream.read() if stream is not None else sys.stdin.read()
    if isinstance(raw, str):
        return raw.removeprefix("\ufeff")
    try:
        return bytes(raw).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} (standard input): not UTF-8 text at byte {exc.start} "
                         f"({exc.reason})") from None


_FORMAT = 'JSONL: one {"id", "question"} object per line, or a JSON list of them'


def _question_records(text: str, path: str) -> Iterator[tuple[int, Any]]:
    """The records of a questions file, numbered: its JSONL lines, or the items of one JSON
    list (``[{"id", "question"}, ...]``, numbered from 1)."""
    if text.lstrip().startswith("["):
        try:
            whole = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            whole = None  # JSONL whose first record is a list: said below, line by line
        if isinstance(whole, list):
            yield from enumerate(whole, 1)
            return
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg}); {_FORMAT}") from None
        except RecursionError:
            raise ValueError(f"{path}:{n}: JSON nested too deeply to read") from None


def load_questions(path: str) -> list[tuple[str, str]]:
    """``--questions FILE.jsonl`` (``-``: standard input) as ``(id, question)`` pairs."""
    items: list[tuple[str, str]] = []
    if path == "-":
        text, path = stdin_text("--questions -"), "<stdin>"
    else:
        text = decode_utf8(Path(path).read_bytes(), path)  # a byte-order mark skipped
    for n, obj in _question_records(text, path):
        if not isinstance(obj, dict) or "question" not in obj:
            raise ValueError(f"{path}:{n}: expected an object with a \"question\" ({_FORMAT})")
        if not str(obj["question"]).strip():  # the file is refused before any is answered
            raise ValueError(f"{path}:{n}: the question is empty (only whitespace)")
        raw = obj.get("id", n)
        if isinstance(raw, bool) or not isinstance(raw, str | int) or str(raw).strip() == "":
            raise ValueError(f"{path}:{n}: the id must be a string or an integer, not "
                             f"{json.dumps(raw)} (leave it out to number the line)")
        qid = str(raw)
        if surrogate_at(qid) is not None:
            raise ValueError(f"{path}:{n}: the id is not valid Unicode text")
        items.append((qid, str(obj["question"])))
    return items
