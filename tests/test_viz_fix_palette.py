"""The default ("vivid") palette stays distinguishable under colour-vision deficiency.

Simulation: Machado, Oliveira & Fernandes (2009), severity 1.0, applied to linear RGB (the
matrices and the CIE76 ΔE of the accessibility review's ``contrast.py``). Every two colours of
the palette must stay at least ``MIN_DELTA_E`` apart for normal vision and under deuteranopia,
protanopia and tritanopia: any two hyperedges can share a drawing, not only neighbours.

Threshold: 12 CIE76 units, the limit below which the review flagged pairs as near-identical
(about five times the just-noticeable difference of 2.3). Hyperedges are told apart by thin
outlines and 13 %-alpha tints, small marks that need far more than a JND. Before the fix the
palette's minimum was 4.27 (H1 #0072b2 / H9 #9467bd, protanopia); after it is 13.54.
"""

from __future__ import annotations

import itertools

import numpy as np

from hyperviz_core.style import PALETTES, Style

MIN_DELTA_E = 12.0

MACHADO = {
    "normal": np.eye(3),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}


def _linear(color: str) -> np.ndarray:
    v = np.array([int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _srgb(lin: np.ndarray) -> np.ndarray:
    lin = np.clip(lin, 0, 1)
    return np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)


def _lab(rgb: np.ndarray) -> np.ndarray:
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ lin
    xyz = xyz / np.array([0.95047, 1, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def min_delta_e(colors: list[str]) -> tuple[float, str, str, str]:
    """(smallest ΔE, vision, colour a, colour b) over every pair and simulation."""
    worst = (float("inf"), "", "", "")
    for vision, m in MACHADO.items():
        labs = {c: _lab(_srgb(m @ _linear(c))) for c in colors}
        for a, b in itertools.combinations(colors, 2):
            d = float(np.linalg.norm(labs[a] - labs[b]))
            worst = min(worst, (d, vision, a, b))
    return worst


def test_vivid_palette_pairs_stay_apart_under_colour_vision_deficiency() -> None:
    d, vision, a, b = min_delta_e(PALETTES["vivid"])
    assert d >= MIN_DELTA_E, f"{a} and {b} are {d:.1f} apart under {vision}"


def test_the_check_catches_the_old_collisions() -> None:
    old = ["#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9",
           "#8c564b", "#7f7f00", "#9467bd", "#17becf", "#e31a1c", "#4d4d4d"]
    d, vision, a, b = min_delta_e(old)
    assert round(d, 2) == 4.27 and vision == "protanopia" and {a, b} == {"#0072b2", "#9467bd"}


def test_only_the_colliding_entries_changed() -> None:
    vivid = Style().colors()
    assert vivid[:7] == ["#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9",
                         "#8c564b"]
    assert vivid[11] == "#4d4d4d" and len(vivid) == 12 == len(set(vivid))
