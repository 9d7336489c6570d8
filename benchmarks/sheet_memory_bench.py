"""Peak memory of reading a large spreadsheet of records: an ``.ods`` file of ``--rows``
records (a sheet ``id``/``text``, as ``tests/test_ods_stream56.py`` writes it) is read with
``iter_sourced_documents``, each document dropped once read, in a fresh process; the
script prints the documents read, the seconds and the process's peak resident memory, and
the same for a file of two records (what importing the package costs).

    python benchmarks/sheet_memory_bench.py --rows 500000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def read(path: Path) -> None:
    """Read every document of ``path`` and print what it cost (the child process)."""
    from hyperviz_core.rag.index.loaders import iter_sourced_documents

    start = time.perf_counter()
    count = sum(1 for _ in iter_sourced_documents([path]))
    # this process's high-water mark (``ru_maxrss`` keeps the parent's across ``exec``)
    status = Path("/proc/self/status").read_text().splitlines()
    peak = next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmHWM"))
    print(f"{path.name}: {count:,} documents in {time.perf_counter() - start:.1f} s, "
          f"peak RSS {peak} MiB")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--read", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.read:
        read(args.read)
        return
    sys.path.insert(0, str(ROOT))
    from tests.test_ods_stream56 import _book

    with tempfile.TemporaryDirectory() as tmp:
        for rows in (2, args.rows):
            path = _book(Path(tmp) / f"records-{rows}.ods", rows)
            print(f"{path.name}: {path.stat().st_size / 2**20:.1f} MiB on disk")
            subprocess.run([sys.executable, __file__, "--read", str(path)], check=True)


if __name__ == "__main__":
    main()
