"""Our TNEF reader (``hyperviz_core.rag.index.tneffiles``) beside tnefparse, file by file.

For each ``.tnef`` file of the folders given (tnefparse's own ``tests/examples/``, from its
source distribution: ``pip download --no-deps --no-binary :all: tnefparse``), prints whether
the two agree on the attachments' names, in order, and on their bytes (equal; equal but
for NUL bytes tnefparse strips from an attachment's end; or equal but for the 16-byte
interface id tnefparse keeps before an attached OLE object's compound file), and the first
characters of the body our reader shows. A message attached inside (an Outlook item) counts
as named only on both sides. tnefparse is not a dependency of this project: install it to
run this (``pip install tnefparse``); checksums are not checked on either side.

    python benchmarks/tnef_compare.py /tmp/tnefparse-1.4.0/tests/examples
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.tneffiles import unwrapped


def _theirs(module: Any, data: bytes) -> list[tuple[str, bytes | None]]:
    """(name, bytes or None for a message attached) of each attachment, as tnefparse reads
    them."""
    out: list[tuple[str, bytes | None]] = []
    for attachment in module.TNEF(data, do_checksum=False).attachments:
        name = attachment.long_filename()
        out.append((name, None if hasattr(attachment, "embed") else attachment.data))
    return out


def _ours(files: list[str], attached: list[tuple[str, bytes]]
          ) -> list[tuple[str, bytes | None]]:
    """(name, bytes or None) of each attachment our reader names: ``attached`` holds those
    with bytes, in the same order."""
    out: list[tuple[str, bytes | None]] = []
    rest = list(attached)
    for name in files:
        out.append((name, rest.pop(0)[1] if rest and rest[0][0] == name else None))
    return out


def _verdict(ours: list[tuple[str, bytes | None]], theirs: list[tuple[str, bytes | None]]
             ) -> str:
    if [n for n, _ in ours] != [n for n, _ in theirs]:
        return "names differ"
    if all(a == b for (_, a), (_, b) in zip(ours, theirs, strict=True)):
        return "same"
    differ = [(a, b) for (_, a), (_, b) in zip(ours, theirs, strict=True) if a != b]
    if all(a is not None and b is not None and a.rstrip(b"\0") == b.rstrip(b"\0")
           for a, b in differ):
        return "same but for NUL bytes at an attachment's end"
    if all(a is not None and b is not None and a.rstrip(b"\0") == b[16:].rstrip(b"\0")
           for a, b in differ):  # an OLE object attached: tnefparse keeps its interface id
        return "same but for the 16-byte interface id before an object's bytes"
    return "bytes differ"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args(argv)
    try:
        module = importlib.import_module("tnefparse.tnef")
    except ModuleNotFoundError:
        print("tnef_compare: needs tnefparse: pip install tnefparse", file=sys.stderr)
        return 2
    counts: dict[str, int] = {}
    for path in sorted(p for folder in args.folders for p in folder.glob("*.tnef")):
        data = path.read_bytes()
        try:
            inner = unwrapped(data)
        except LoaderError as exc:
            print(f"{path.name}: ours: {exc}")
            counts["ours refused"] = counts.get("ours refused", 0) + 1
            continue
        ours = _ours(inner.files, inner.attached)
        verdict = _verdict(ours, _theirs(module, data))
        counts[verdict] = counts.get(verdict, 0) + 1
        notes = f"; not read: {'; '.join(inner.unread)}" if inner.unread else ""
        print(f"{path.name}: {len(ours)} attachments, {verdict}; body "
              f"{inner.body[:40]!r}{notes}")
    print("; ".join(f"{n} {what}" for what, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
