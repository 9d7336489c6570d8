"""What ``--encoding auto`` would guess for the files on a machine that are not UTF-8.

Walks the folders given (links not followed) and, for each file of 64 bytes or more that
is not UTF-8 and has no NUL byte in its first 8,000 bytes (what a text reader takes for
text), takes the guess :func:`~hyperviz_core.rag.index.encoding_hint.guessed_encoding`
makes from its first 64 KiB. It prints how many such files there are, how many got each
guess, and the files given each encoding named by ``--show`` (to look at by eye: a guess
no labelled test set covers, made on files of every kind). No file is labelled, so it
counts guesses, not right ones.

    python benchmarks/encoding_guess_scan.py /usr/share /usr/lib /etc \\
        --show cp866 cp855 iso8859-5 mac-cyrillic
"""

from __future__ import annotations

import argparse
import os
from collections import Counter, defaultdict
from pathlib import Path

from hyperviz_core.rag.index.encoding_hint import guessed_encoding


def _sample(path: str) -> bytes | None:
    """The first 64 KiB of a file that is not UTF-8 and has no NUL byte near its start,
    else None."""
    try:
        if os.path.islink(path) or os.path.getsize(path) < 64:
            return None
        with open(path, "rb") as f:
            data = f.read(1 << 16)
    except OSError:
        return None
    if b"\0" in data[:8000]:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and len(data) == 1 << 16:
            return None  # UTF-8 cut at the sample's end
        return data
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--show", nargs="*", default=[], help="list the files guessed so")
    args = ap.parse_args()
    guesses: Counter[str] = Counter()
    shown: defaultdict[str, list[str]] = defaultdict(list)
    for folder in args.folders:
        for top, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(top, name)
                data = _sample(path)
                if data is None:
                    continue
                guess = str(guessed_encoding(data))
                guesses[guess] += 1
                if guess in args.show:
                    shown[guess].append(path)
    print(f"files not UTF-8 without a NUL byte: {sum(guesses.values())}")
    for guess, n in sorted(guesses.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {guess:14s} {n:5d}")
    for guess in args.show:
        print(f"guessed {guess}: {len(shown[guess])}")
        for path in shown[guess]:
            print(f"  {path}")


if __name__ == "__main__":
    main()
