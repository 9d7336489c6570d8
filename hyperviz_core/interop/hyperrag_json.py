"""JSON files of a Hyper-RAG working dir: parsing with one-line errors, lean options.

``read_json`` parses a file with :class:`~.hyperrag_pickle.HyperRAGFormatError` as the one
error for a missing, unreadable or malformed file; ``keep`` builds objects with only the
keys a reader needs, and ``matrix`` leaves a nano-vectordb file's base64 matrix (most of
such a file) as bytes instead of parsing it into one large string.

Example:
    >>> split_matrix(b'{"embedding_dim": 2, "data": [], "matrix": "AAAA"}')
    (b'{"embedding_dim": 2, "data": []}', b'AAAA', 44)
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .hyperrag_files import read_json_bytes
from .hyperrag_pickle import HyperRAGFormatError

__all__ = ["json_errors", "parse_json", "read_json", "split_matrix"]

#: the last member of a nano-vectordb file: its base64 matrix, then the closing brace
_MATRIX_TAIL = re.compile(rb'"matrix"\s*:\s*"([A-Za-z0-9+/=]*)"\s*}\s*\Z')


def split_matrix(raw: bytes) -> tuple[bytes, bytes | None, int]:
    """``(rest of the object, base64 matrix, its offset in raw)`` when the file ends with
    its ``"matrix"`` member as nano-vectordb writes it, else ``(raw, None, -1)``: the
    matrix (most of the file) is then never decoded into a Python string."""
    i = raw.rfind(b'"matrix"')
    m = _MATRIX_TAIL.match(raw, i) if i > 0 else None
    head = raw[:i].rstrip() if m else b""
    if m is None or not head.endswith(b","):
        return raw, None, -1
    return head[:-1] + b"}", m.group(1), m.start(1)


@contextlib.contextmanager
def json_errors(p: Path) -> Iterator[None]:
    """Turn the errors of reading and parsing JSON file ``p`` into one-line
    :class:`HyperRAGFormatError` messages (nesting too deep for the parser, an integer
    beyond Python's digit limit included)."""
    try:
        yield
    except HyperRAGFormatError:
        raise
    except FileNotFoundError:
        raise HyperRAGFormatError(f"{p}: missing (not a Hyper-RAG working dir?)") from None
    except IsADirectoryError:
        raise HyperRAGFormatError(f"{p}: is a directory, expected a JSON file") from None
    except json.JSONDecodeError as exc:
        raise HyperRAGFormatError(
            f"{p}: malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except UnicodeDecodeError as exc:
        raise HyperRAGFormatError(f"{p}: not UTF-8 JSON ({exc.reason})") from None
    except MemoryError:
        raise HyperRAGFormatError(f"{p}: out of memory parsing it (free memory or raise the "
                                  "process's memory limit)") from None
    except RecursionError:
        raise HyperRAGFormatError(f"{p}: malformed JSON (nested too deeply to read)") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise HyperRAGFormatError(f"{p}: malformed JSON ({str(exc)[:200]})") from None


def parse_json(data: bytes, hook: Callable[[list[tuple[str, Any]]], Any] | None = None
               ) -> Any:
    """JSON bytes (any UTF encoding) → objects; ``hook`` as ``object_pairs_hook``."""
    text = data.decode(json.detect_encoding(data), "surrogatepass")
    del data  # the text alone while parsing (the caller's reference aside)
    return json.loads(text, object_pairs_hook=hook)


def read_json(path: str | Path, *, keep: frozenset[str] | None = None,
              matrix: bool = False) -> Any:
    """Parse a JSON file; one-line :class:`HyperRAGFormatError` when missing or malformed.

    ``keep``: build objects with only these keys (the others are parsed, checked and
    dropped at once, so a large file's unused fields never pile up in memory).
    ``matrix``: a nano-vectordb file; its trailing base64 ``"matrix"`` is returned as
    ``bytes`` without a JSON parse of it.
    """
    p = Path(path)
    hook = None if keep is None else (
        lambda pairs: {k: v for k, v in pairs if k in keep})
    with json_errors(p):
        raw = read_json_bytes(p)  # a regular file of bounded size, or a one-line error
        head, b64, _ = split_matrix(raw) if matrix else (raw, None, -1)
        del raw
        out = parse_json(head, hook)
        if b64 is not None and isinstance(out, dict):
            out["matrix"] = b64
        return out
