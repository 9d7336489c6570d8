"""VizRAG offline demo: index 60 MuSiQue paragraphs, ask three 2-hop questions.

For each question it prints the top passages (with the evidence that ranked them) and writes
the dual-view renderings of the retrieved sub-hypergraphs — I_top (themes) and I_bot
(entities and relations) — as PNG plus a self-contained HTML viewer::

    python examples/demo.py --out out/demo        # what `make demo` runs
    vizrag demo --out out/demo                    # the same, from an installed package

Everything runs offline (heuristic extraction, hashed embeddings, no language model), so
there is no generated answer: an extractive summary, labelled as such, stands in for it.
The code is :func:`hyperviz_core.demo.run_demo` (about 60 lines: ``VizRAG.insert``, then
``VizRAG.query(..., render=True)`` and :func:`hyperviz_core.viewer.render_html` per
question). Data: ``hyperviz_core/data/demo`` (MuSiQue, CC BY 4.0; subset selection from
HippoRAG, MIT), shipped in the package.
"""

from __future__ import annotations

import sys

from hyperviz_core.cli import main as vizrag


def main(argv: list[str] | None = None) -> int:
    """``vizrag demo`` with these arguments (``--out DIR``, ``--top-k N``)."""
    return vizrag(["demo", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
