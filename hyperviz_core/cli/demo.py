"""``vizrag demo``: the offline demo on the corpus bundled with the package
(:mod:`hyperviz_core.demo`): index 60 MuSiQue paragraphs, ask three 2-hop questions, write
PNG + HTML views per question."""

from __future__ import annotations

import argparse
from typing import Any

from .argtypes import positive_int


def _run(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    run_demo(args.out, top_k=args.top_k)
    return 0


def register(sub: Any) -> None:
    """Add the ``demo`` subcommand."""
    p = sub.add_parser(
        "demo", help="offline demo on the bundled corpus (writes PNG + HTML views)",
        description="Index 60 bundled MuSiQue paragraphs offline, ask three 2-hop questions "
                    "with visual retrieval and write, per question, the I_top/I_bot views "
                    "(PNG + HTML) and result.json under --out.")
    p.add_argument("--out", default="out/demo",
                   help="output folder (its 'store' subfolder is the demo's index, replaced "
                        "each run; default out/demo)")
    p.add_argument("--top-k", type=positive_int, default=3, help="passages to print per question")
    p.set_defaults(func=_run)
