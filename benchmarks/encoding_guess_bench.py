"""How often ``--encoding auto`` reads a legacy-encoded file right.

Runs over a folder laid out as chardet's test files are (one sub-folder per encoding,
named by it: ``KOI8-R/``, ``windows-1251-russian/``, ``SHIFT_JIS/`` ...; chardet's own are
at https://github.com/chardet/chardet/tree/main/tests, and ship inside some installs, e.g.
the Google Cloud SDK's ``platform/gsutil/third_party/chardet/tests``). For each file that
is not UTF-8 (pure ASCII files are left out: nothing to guess), it reads the file as
``vizrag index --encoding auto`` does (``legacy.decode_text(data, "auto")``) and prints, per
folder: the files, how many read **right** (the very text the folder's encoding gives,
line ends aside), **wrong** (another text; the guessed encodings are listed, and for those
read as a text of the same length, how many of its characters differ) and **none**
(no guess: an error naming the file). Folders of encodings Python has no codec for, and
UTF-16/UTF-32/UTF-8 ones, are skipped.

    python benchmarks/encoding_guess_bench.py \
        --tests /usr/lib/google-cloud-sdk/platform/gsutil/third_party/chardet/tests

Files labelled one by one are read so too (``--file PATH=ENCODING``, repeated), e.g.
charset_normalizer's ten samples that are not UTF-8, with the encodings its own
``tests/test_full_detection.py`` expects (``DATA=.../charset_normalizer/data``)::

    python benchmarks/encoding_guess_bench.py --file $DATA/sample-arabic-1.txt=cp1256 \
        --file $DATA/sample-french-1.txt=cp1252 --file $DATA/sample-chinese.txt=big5 \
        --file $DATA/sample-greek.txt=cp1253 --file $DATA/sample-greek-2.txt=cp1253 \
        --file $DATA/sample-hebrew-2.txt=cp1255 --file $DATA/sample-hebrew-3.txt=cp1255 \
        --file $DATA/sample-korean.txt=cp949 --file $DATA/sample-turkish.txt=cp1254 \
        --file $DATA/sample-russian.txt=mac_cyrillic
"""

from __future__ import annotations

import argparse
import codecs
from collections import Counter
from pathlib import Path

from hyperviz_core.rag.index.encoding_hint import guessed_encoding
from hyperviz_core.rag.index.legacy import AUTO, TextDecodeError, decode_text
from hyperviz_core.rag.index.textlines import line_ends


def folder_codec(name: str) -> str | None:
    """Python's codec for a folder named by its encoding (a language may follow:
    ``iso-8859-2-czech``), None when Python has none or it is UTF-8/16/32."""
    parts = name.split("-")
    for n in range(len(parts), 0, -1):
        try:
            codec = codecs.lookup("-".join(parts[:n])).name
        except LookupError:
            continue
        return None if codec.startswith(("utf", "ascii")) else codec
    return None


def _groups(tests: Path | None, files: list[str]) -> list[tuple[str, str, list[Path]]]:
    """(name, Python's codec, the files) of each folder of ``tests`` and of the
    ``PATH=ENCODING`` ``files``, by encoding."""
    groups: list[tuple[str, str, list[Path]]] = []
    for folder in sorted(p for p in tests.iterdir() if p.is_dir()) if tests else ():
        truth = folder_codec(folder.name)
        if truth is not None:
            groups.append((folder.name, truth, sorted(folder.iterdir())))
    labelled: dict[str, list[Path]] = {}
    for item in files:
        path, _, encoding = item.rpartition("=")
        labelled.setdefault(codecs.lookup(encoding).name, []).append(Path(path))
    groups += [(codec, codec, paths) for codec, paths in sorted(labelled.items())]
    return groups


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--tests", type=Path, help="chardet's tests folder")
    ap.add_argument("--file", action="append", default=[], metavar="PATH=ENCODING",
                    help="a file and the encoding it is in (repeatable)")
    args = ap.parse_args()
    if args.tests is None and not args.file:
        ap.error("give --tests DIR or --file PATH=ENCODING")
    totals: Counter[str] = Counter()
    for name, truth, paths in _groups(args.tests, args.file):
        row: Counter[str] = Counter()
        wrong: Counter[str] = Counter()
        for path in paths:
            data = path.read_bytes()
            try:
                data.decode("utf-8")
                continue  # ASCII (or UTF-8): nothing to guess
            except UnicodeDecodeError:
                pass
            try:
                want = line_ends(data.decode(truth))
            except UnicodeDecodeError:
                continue  # not the folder's encoding after all
            row["files"] += 1
            try:
                got = line_ends(decode_text(data, AUTO, where=str(path)))
            except TextDecodeError:
                row["none"] += 1
                continue
            if got == want:
                row["right"] += 1
            else:
                row["wrong"] += 1
                wrong[str(guessed_encoding(data))] += 1
                if len(got) == len(want):  # a variant mapping: how many characters differ
                    row["chars"] += len(want)
                    row["differ"] += sum(a != b for a, b in zip(got, want, strict=True))
        if row["files"]:
            totals.update(row)
            said = ", ".join(f"{k} {v}" for k, v in sorted(wrong.items()))
            print(f"{name:26s} ({truth:12s}) files {row['files']:3d}  right "
                  f"{row['right']:3d}  wrong {row['wrong']:3d}  none {row['none']:3d}"
                  + (f"  (read as {said})" if said else "")
                  + (f"; {row['differ']:,} of {row['chars']:,} characters differ in the "
                     "wrong ones of the same length" if row["chars"] else ""))
    print(f"all: files {totals['files']}, right {totals['right']}, wrong {totals['wrong']}, "
          f"none {totals['none']}")


if __name__ == "__main__":
    main()
