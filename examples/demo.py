"""VizRAG demo: load the bundled Les Misérables hypergraph (HIF) and print its summary."""

from __future__ import annotations

import argparse
from importlib import resources

from hyperviz_core import Hypergraph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="out/demo", help="output directory")
    args = parser.parse_args()
    path = resources.files("hyperviz_core").joinpath("data/lesmis.hif.json")
    hg = Hypergraph.from_hif(path.read_text(encoding="utf-8"))
    stats = hg.stats()
    print(f"Les Misérables co-appearance hypergraph: {stats.entities} entities, "
          f"{stats.hyperedges} hyperedges, {stats.incidences} incidences")
    hub = max(hg.entities, key=lambda k: (hg.degree(k), k))
    print(f"hub: {hg.entities[hub].name} (degree {hg.degree(hub)}); output dir: {args.out}")


if __name__ == "__main__":
    main()
