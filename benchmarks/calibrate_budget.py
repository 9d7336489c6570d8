"""Calibrate the congestion budget defaults (γ, w_v, w_e) on readability metrics.

Draws random hypergraphs (``hyperviz_core.testing.random_hypergraph``; sizes 20–100
entities, hyperedge densities m/n = 0.3, 0.5, 0.8, seeds 1–3) as the default dual view with
congestion control **off**, and records for each drawing the two parts of the cost measured
on the drawn geometry (node area Σ π·r², hyperedge length Σ L_e; both ÷ panel area A) and
whether it is *legible*: 0 label–label and label–node collisions, 0 node overlaps,
purity 1.0, 0 unbridged splits, 0 ambiguous labels and every entity named in every panel.

For every (w_v, w_e) on the grid {1, 2, 3, 5, 10}², x = (w_v·nodes + w_e·length) / A; γ is
the threshold that best separates legible (x ≤ γ) from illegible drawings (accuracy, then
the widest relative margin), placed midway in the gap. The printed table is the calibration
run documented in the README; ``Budget``'s defaults are the winning row (rounded).

Usage::

    .venv/bin/python benchmarks/calibrate_budget.py            # full grid (~3 min, 1 core)
    .venv/bin/python benchmarks/calibrate_budget.py --quick    # seeds 1 only
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hyperviz_core.prune import Budget  # noqa: E402
from hyperviz_core.render import HyperViz  # noqa: E402
from hyperviz_core.testing import random_hypergraph  # noqa: E402

LEGIBLE_ZERO = ("label_label_collisions", "label_node_collisions", "node_overlaps",
                "ambiguous_labels", "unnamed_entities", "unbridged_splits")
GRID = (1.0, 2.0, 3.0, 5.0, 10.0)


def measure(n: int, m: int, seed: int) -> dict[str, Any]:
    """Cost parts (÷ panel area) and legibility of one unpruned dual view."""
    viz = HyperViz(budget=Budget(enabled=False, w_v=1.0, w_e=1.0))
    r = viz.render(random_hypergraph(n, m, seed=seed))
    exp, met = r.export(), r.metrics
    area = sum((p["bbox"][2] - p["bbox"][0]) * (p["bbox"][3] - p["bbox"][1])
               for p in exp["panels"])
    nodes = sum(math.pi * pp["r"] ** 2 for e in exp["entities"] for pp in e["panel_positions"])
    legible = all(met[k] == 0 for k in LEGIBLE_ZERO) and met["purity"] == 1.0
    return {"n": n, "m": m, "seed": seed, "nodes": nodes / area,
            "length": (met["cost"] - nodes) / area, "legible": legible}


def best_gamma(rows: list[dict[str, Any]], w_v: float, w_e: float) -> tuple[float, float, float]:
    """(γ, accuracy, relative margin) of the best threshold for these weights."""
    xs = sorted((w_v * r["nodes"] + w_e * r["length"], r["legible"]) for r in rows)
    best = (0.0, -1.0, -1.0)
    for i in range(len(xs) + 1):
        lo = xs[i - 1][0] if i else 0.0
        hi = xs[i][0] if i < len(xs) else lo * 1.1
        acc = (sum(1 for _, ok in xs[:i] if ok) + sum(1 for _, ok in xs[i:] if not ok)) / len(xs)
        margin = (hi - lo) / hi if hi > 0 else 0.0
        if (acc, margin) > (best[1], best[2]):
            best = ((lo + hi) / 2.0, acc, margin)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="seed 1 only")
    args = parser.parse_args(argv)
    seeds = (1,) if args.quick else (1, 2, 3)
    rows = []
    for n in (20, 30, 40, 50, 70, 100):
        for dens in (0.3, 0.5, 0.8):
            for seed in seeds:
                rows.append(measure(n, max(2, round(n * dens)), seed))
    print("drawings (dual view, congestion control off):")
    print(f"{'n':>4} {'m':>4} {'seed':>4} {'nodes/A':>8} {'length/A':>9} legible")
    for r in rows:
        print(f"{r['n']:>4} {r['m']:>4} {r['seed']:>4} {r['nodes']:>8.4f} {r['length']:>9.4f} "
              f"{'yes' if r['legible'] else 'no'}")
    table = [(w_v, w_e, *best_gamma(rows, w_v, w_e)) for w_v in GRID for w_e in GRID]
    table.sort(key=lambda t: (-t[3], -t[4], t[0], t[1]))
    print("\nthreshold per weight pair (best first):")
    print(f"{'w_v':>5} {'w_e':>5} {'gamma':>7} {'accuracy':>9} {'margin':>7}")
    for w_v, w_e, gamma, acc, margin in table[:10]:
        print(f"{w_v:>5.0f} {w_e:>5.0f} {gamma:>7.4f} {acc:>9.3f} {margin:>7.3f}")
    w_v, w_e, gamma, acc, _ = table[0]
    print(f"\ncalibrated: w_v={w_v:g} w_e={w_e:g} gamma={gamma:.4f} (accuracy {acc:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
