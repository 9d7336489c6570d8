"""What the PDF reader's running-line pass leaves out (``pdfrunning.without_running_lines``).

For each PDF given, prints its page count, how many lines the pass leaves out (running heads
after their first page, page numbers everywhere), and each distinct line left out with its
numbers as ``#`` and how many times. Nothing is timed: it counts, on the text pypdf extracts.

    python benchmarks/pdf_running_bench.py /usr/share/doc/libtasn1-doc/libtasn1.pdf \
        /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from hyperviz_core.rag.index.pdfrunning import _key, without_running_lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdfs", nargs="+", type=Path)
    args = parser.parse_args()
    import pypdf

    for path in args.pdfs:
        pages = [page.extract_text() or "" for page in pypdf.PdfReader(path).pages]
        out = without_running_lines(pages)
        left: Counter[str] = Counter()
        for before, after in zip(pages, out, strict=True):
            kept = Counter(after.split("\n"))
            for line in before.split("\n"):
                if kept[line]:
                    kept[line] -= 1
                else:
                    left[_key(line) or "(empty)"] += 1
        print(f"{path}: {len(pages)} pages, {sum(left.values())} lines left out")
        for key, count in sorted(left.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {count:4d}  {key}")


if __name__ == "__main__":
    main()
