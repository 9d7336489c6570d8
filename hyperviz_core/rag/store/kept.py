"""Arrays and string lists as one blob (an uncompressed ``.npz``), for derived data a store keeps.

The per-state query arrays of lazy retrieval are kept in the store file (SQLite,
:mod:`.sqlite.state_arrays`) or database (PostgreSQL, :mod:`.postgres.state_arrays`) as one
blob per array set: integer arrays stored as int32 where the values fit, floating-point
arrays as float64 (bit for bit), string lists as their UTF-8 bytes and end offsets. The blob
is read with ``allow_pickle=False``: nothing in it is executed.

Example:
    >>> import numpy as np
    >>> blob = pack_arrays({"pairs": np.arange(4), "w": np.array([0.1, 1 / 3])},
    ...                    {"ids": ["a", "é"]})
    >>> arrays, strings = unpack_arrays(blob)
    >>> arrays["pairs"].tolist(), arrays["pairs"].dtype.name, strings["ids"]
    ([0, 1, 2, 3], 'int64', ['a', 'é'])
    >>> arrays["w"].tolist() == [0.1, 1 / 3], arrays["w"].dtype.name
    (True, 'float64')
"""

from __future__ import annotations

import io
import logging
import zipfile
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["STATE_TABLE", "UNREADABLE", "Arrays", "Strings", "pack_arrays", "read_kept",
           "unpack_arrays"]

log = logging.getLogger(__name__)

#: the table both stores keep the arrays in, one row per array set: (name, state, data)
STATE_TABLE = "vizrag_state_arrays_v1"

#: integer arrays (read back as int64) and float64 arrays, by name
Arrays = dict[str, npt.NDArray[Any]]
Strings = dict[str, list[str]]

#: what reading a damaged blob raises (the caller computes the arrays again)
UNREADABLE = (ValueError, KeyError, OSError, zipfile.BadZipFile, UnicodeDecodeError)


def pack_arrays(arrays: Arrays, strings: Strings) -> bytes:
    """One ``.npz`` blob of ``arrays`` (integers as int32 when every value fits, floats as
    float64) and ``strings``."""
    out: dict[str, npt.NDArray[np.generic]] = {}
    for key, arr in arrays.items():
        if arr.dtype.kind == "f":
            out[f"f.{key}"] = arr.astype(np.float64)
            continue
        small = arr.size == 0 or (int(arr.min()) >= -(2**31) and int(arr.max()) < 2**31)
        out[f"i.{key}"] = arr.astype(np.int32 if small else np.int64)
    for key, texts in strings.items():
        encoded = [t.encode("utf-8") for t in texts]
        out[f"s.{key}.bytes"] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        out[f"s.{key}.ends"] = np.cumsum([len(b) for b in encoded], dtype=np.int64)
    buf = io.BytesIO()
    np.savez(buf, **out)  # type: ignore[arg-type]
    return buf.getvalue()


def unpack_arrays(blob: bytes) -> tuple[Arrays, Strings]:
    """What :func:`pack_arrays` packed (integer arrays back as int64, floats as float64);
    raises one of :data:`UNREADABLE` for a damaged blob."""
    arrays: Arrays = {}
    strings: Strings = {}
    with np.load(io.BytesIO(blob), allow_pickle=False) as data:
        for key in data.files:
            kind, _, rest = key.partition(".")
            if kind == "i":
                arrays[rest] = data[key].astype(np.int64)
            elif kind == "f":
                arrays[rest] = data[key].astype(np.float64, copy=False)
            elif kind == "s" and rest.endswith(".bytes"):
                field = rest[: -len(".bytes")]
                raw = data[key].tobytes()
                ends = data[f"s.{field}.ends"].tolist()
                starts = [0, *ends[:-1]] if ends else []
                strings[field] = [raw[a:b].decode("utf-8")
                                  for a, b in zip(starts, ends, strict=True)]
    return arrays, strings


def read_kept(name: str, blob: bytes) -> tuple[Arrays, Strings] | None:
    """The kept array set ``name`` from its stored ``blob``; None (logged as a warning) when
    the blob is damaged: the caller computes the arrays again."""
    try:
        return unpack_arrays(blob)
    except UNREADABLE as exc:
        log.warning("kept query arrays %r unreadable (%s); computing them again", name, exc)
        return None
