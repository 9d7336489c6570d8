"""Relative links in README.md and docs/*.md point at files and headings that exist."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# [text](target) or [text](target "title"); images (![alt](src)) match too.
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"`[^`]*`")
EXTERNAL = ("http://", "https://", "mailto:")


def markdown_files() -> list[Path]:
    """README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def outside_fences(text: str) -> list[tuple[int, str]]:
    """The (1-based line number, line) pairs that are not inside a fenced code block."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if match:
            if fence is None:
                fence = match.group(1)
                continue
            if match.group(1) == fence:
                fence = None
                continue
        if fence is None:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before the -1, -2 suffixes of duplicates)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every heading anchor of a Markdown file, duplicates suffixed -1, -2, ..."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in outside_fences(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def broken_links(path: Path) -> list[str]:
    """'file:line: target (why)' for each relative link of one file that does not resolve."""
    problems: list[str] = []
    where = path.relative_to(ROOT)
    for number, line in outside_fences(path.read_text(encoding="utf-8")):
        for target in LINK.findall(INLINE_CODE.sub("", line)):
            if target.startswith(EXTERNAL):
                continue
            file_part, _, anchor = target.partition("#")
            destination = (path.parent / file_part).resolve() if file_part else path
            if not destination.exists():
                problems.append(f"{where}:{number}: {target} (no such file)")
                continue
            if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
                problems.append(f"{where}:{number}: {target} (no heading with that anchor)")
    return problems


def test_slug_follows_github_rules() -> None:
    assert slug("PostgreSQL store") == "postgresql-store"
    assert slug("Hyper-RAG: import, export, live retrievals") == (
        "hyper-rag-import-export-live-retrievals"
    )
    assert slug("The tuned weights, held out (`benchmarks/weights_cv.py`)") == (
        "the-tuned-weights-held-out-benchmarksweights_cvpy"
    )


def test_relative_links_resolve() -> None:
    problems = [problem for path in markdown_files() for problem in broken_links(path)]
    assert not problems, "broken relative links:\n" + "\n".join(problems)
