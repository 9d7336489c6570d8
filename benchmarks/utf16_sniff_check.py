"""How well ``--encoding auto`` tells UTF-16 without a byte-order mark (``unmarked_utf16``).

Two counts, printed:

- **text read as UTF-16:** the first ``--passages`` passages of a corpus (MuSiQue's
  ``corpus.json``, a list of records with a ``text`` field), each encoded in UTF-16 LE and
  BE without a mark: how many are told as such, in their byte order;
- **files with a NUL byte told as UTF-16:** the regular files under ``--binaries`` folders
  whose first 8,000 bytes hold a NUL byte and that start with no byte-order mark (binary
  files, and UTF-16 text without a mark), up to ``--files`` of them in a shuffled order
  (seed 0): how many are told as UTF-16, listed, to be looked at: a binary file among them
  would be read as text by ``--encoding auto``;
- with ``--cjk DIR`` (a chardet-style tests folder: ``Big5/``, ``GB2312/``, ``EUC-JP/``,
  ``SHIFT_JIS/``, ``EUC-KR/`` ...): **Chinese, Japanese and Korean text read as UTF-16**:
  each file of those folders decoded in its encoding, only its lines at least half of whose
  characters are not ASCII kept (the prose, not the markup), encoded in UTF-16 LE and BE
  without a mark: how many of those with 100 characters or more are told as such;
- with ``--read FILE ...``: each file read as ``load_documents(..., encoding="auto")`` reads
  it (for chardet's ``tests/UTF-16*/*``: with a mark or without), or its error.

    python benchmarks/utf16_sniff_check.py --data ../shared/data/musique \
        --binaries /usr/lib /usr/share .venv/lib
"""

from __future__ import annotations

import argparse
import json
import os
import random
from pathlib import Path

from hyperviz_core.rag.index.loaders import LoaderError, load_documents
from hyperviz_core.rag.index.widetext import SNIFF_BYTES, UNMARKED, bom_codec, unmarked_utf16


def texts_told(corpus: Path, n: int) -> None:
    texts = [str(rec["text"]) for rec in json.loads(corpus.read_text(encoding="utf-8"))[:n]]
    for codec in UNMARKED:
        told = sum(unmarked_utf16(t.encode(codec)[:SNIFF_BYTES]) == codec for t in texts)
        print(f"text read as {UNMARKED[codec]}: {told} of {len(texts)} passages")


def binaries_taken(roots: list[Path], limit: int) -> None:
    files = sorted(os.path.join(d, f) for root in roots for d, _, fs in os.walk(root)
                   for f in fs)
    random.Random(0).shuffle(files)
    seen, taken = 0, []
    for path in files:
        if seen >= limit:
            break
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as fh:
                head = fh.read(SNIFF_BYTES)
        except OSError:
            continue
        if b"\x00" not in head or bom_codec(head) is not None:
            continue
        seen += 1
        if (codec := unmarked_utf16(head)) is not None:
            taken.append(f"{path} ({codec})")
    print(f"files with a NUL byte told as UTF-16: {len(taken)} of {seen}")
    for line in taken[:20]:
        print(f"  {line}")


#: the encodings of Chinese, Japanese and Korean text (Python's names)
_CJK = ("big5", "gb2312", "gbk", "gb18030", "euc_jp", "shift_jis", "cp932", "euc_kr", "cp949")


def cjk_told(tests: Path) -> None:
    from encoding_guess_bench import folder_codec  # (a sibling script)

    texts = []
    for folder in sorted(p for p in tests.iterdir() if p.is_dir()):
        codec = folder_codec(folder.name)
        if codec is None or codec.replace("-", "_") not in _CJK:
            continue
        for path in sorted(folder.iterdir()):
            try:
                text = path.read_bytes().decode(codec)
            except UnicodeDecodeError:
                continue
            prose = [ln for ln in text.splitlines()
                     if ln.strip() and 2 * sum(not c.isascii() for c in ln) >= len(ln)]
            if len("\n".join(prose)) >= 100:
                texts.append("\n".join(prose) + "\n")
    for codec in UNMARKED:
        told = sum(unmarked_utf16(t.encode(codec)[:SNIFF_BYTES]) == codec for t in texts)
        print(f"CJK text read as {UNMARKED[codec]}: {told} of {len(texts)} files")


def files_read(paths: list[Path]) -> None:
    read = 0
    for path in paths:
        try:
            (doc,) = load_documents([path], encoding="auto")
        except LoaderError as exc:
            print(f"  not read: {exc}")
            continue
        read += 1
        print(f"  read: {path} ({len(doc.text):,} characters: {doc.text[:40]!r})")
    print(f"files read with --encoding auto: {read} of {len(paths)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data/musique"))
    ap.add_argument("--passages", type=int, default=500)
    ap.add_argument("--binaries", type=Path, nargs="*", default=[Path("/usr/lib")])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--read", type=Path, nargs="*", default=[])
    ap.add_argument("--cjk", type=Path, help="a chardet-style tests folder")
    args = ap.parse_args()
    if args.cjk:
        cjk_told(args.cjk)
    texts_told(args.data / "corpus.json", args.passages)
    binaries_taken(args.binaries, args.files)
    if args.read:
        files_read(args.read)


if __name__ == "__main__":
    main()
