"""Collision-free label placement (hyperedge IDs inside their regions, entity names beside
their nodes). A label is only placed where it touches no node, no other label and stays in the
panel, so label collisions are zero by construction; a name that finds no free slot is left
out (the ID on the node and the caption still identify the entity).

Name texts: :func:`distinct_names` cuts entity names to ``name_max_chars`` so that two
different names in one panel never read the same (a longer cut, or a cut in the middle that
keeps the distinguishing end, :func:`middle_cut`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from ..unitext import boundary, cut_back, search_fold, truncate

__all__ = ["MIN_CUT", "NAME_SPREAD", "Label", "Occupancy", "box_disk_distance", "cut_lengths",
           "distinct_names", "middle_cut", "near_candidates", "near_spots", "place_near"]

Box = tuple[float, float, float, float]


@dataclass
class Label:
    """A text label and its box (pixels, y down)."""

    id: str
    kind: str  # "entity" | "hyperedge" | "name"
    text: str
    x: float
    y: float
    bbox: Box
    size: float
    bold: bool = False
    boxed: bool = False
    color: str = "#000000"
    leader: tuple[tuple[float, float], tuple[float, float]] | None = None
    """A thin line from the label to its item, when the label had to sit outside it."""


SMALL_TEST = 4096
"""Box × (disk or label) pairs up to which :meth:`Occupancy.free_many` tests every pair
directly; above, it first narrows the boxes and obstacles down to those that can meet."""


class Occupancy:
    """What a new label must avoid in one panel: node disks, placed labels, the frame."""

    def __init__(self, frame: Box, disks: list[tuple[float, float, float]]) -> None:
        self.frame = frame
        self.disks = disks
        arr = np.asarray(disks, dtype=float).reshape(-1, 3)
        self._x, self._y, self._r = arr[:, 0], arr[:, 1], arr[:, 2] + 1.0
        self.boxes: list[Box] = []
        self._disk_polys: list[BaseGeometry] | None = None
        self._box_buf = np.empty((32, 4))  # rows [0, _box_n) mirror ``_box_src``
        self._box_n = 0
        self._box_src: list[Box] | None = None
        self._area_memo: tuple[tuple[object, object, object, int], _FreeArea] | None = None

    def _box_array(self) -> np.ndarray:
        """``np.asarray(self.boxes)``, extended as boxes are added instead of rebuilt."""
        boxes = self.boxes
        if self._box_src is not boxes or self._box_n > len(boxes):
            self._box_src, self._box_n = boxes, 0  # the list was replaced: rebuild
        n = len(boxes)
        if n > self._box_n:
            if n > len(self._box_buf):
                buf = np.empty((max(n, 2 * len(self._box_buf)), 4))
                buf[: self._box_n] = self._box_buf[: self._box_n]
                self._box_buf = buf
            self._box_buf[self._box_n:n] = boxes[self._box_n:n]
            self._box_n = n
        return self._box_buf[:n]

    def free(self, b: Box) -> bool:
        """True when box ``b`` is inside the frame and clear of nodes and labels."""
        fx0, fy0, fx1, fy1 = self.frame
        if b[0] < fx0 or b[1] < fy0 or b[2] > fx1 or b[3] > fy1:
            return False
        if self.boxes:
            arr = self._box_array()
            w = np.minimum(arr[:, 2], b[2]) - np.maximum(arr[:, 0], b[0])
            h = np.minimum(arr[:, 3], b[3]) - np.maximum(arr[:, 1], b[1])
            if np.any((w > -1.0) & (h > -1.0)):
                return False
        if len(self._x):
            # distance from each disk centre to the box (0 inside) against the radius
            dx = np.maximum(np.maximum(b[0] - self._x, self._x - b[2]), 0.0)
            dy = np.maximum(np.maximum(b[1] - self._y, self._y - b[3]), 0.0)
            if np.any(dx * dx + dy * dy < self._r * self._r):
                return False
        return True

    def free_many(self, xs: np.ndarray, ys: np.ndarray, w: float, h: float) -> np.ndarray:
        """Vectorised :meth:`free` for w×h boxes centred at (xs, ys).

        Each test runs only on the boxes that passed the ones before, against the labels and
        disks near them (those farther off cannot touch any of them): the same answers."""
        x0, y0, x1, y1 = xs - w / 2.0, ys - h / 2.0, xs + w / 2.0, ys + h / 2.0
        fx0, fy0, fx1, fy1 = self.frame
        ok = (x0 >= fx0) & (y0 >= fy0) & (x1 <= fx1) & (y1 <= fy1)
        if len(xs) * (len(self._x) + len(self.boxes)) <= SMALL_TEST:
            return self._free_all(ok, x0, y0, x1, y1)
        idx = np.flatnonzero(ok)
        if len(self._x) and len(idx):
            x0i, y0i, x1i, y1i = x0[idx], y0[idx], x1[idx], y1[idx]
            near = np.flatnonzero(
                (self._x + self._r >= x0i.min() - 1.0) & (self._x - self._r <= x1i.max() + 1.0)
                & (self._y + self._r >= y0i.min() - 1.0) & (self._y - self._r <= y1i.max() + 1.0))
            hit = _disk_hits(x0i, y0i, x1i, y1i, self._x[near], self._y[near], self._r[near])
            ok[idx[hit]] = False
            idx = idx[~hit]
        if self.boxes and len(idx):
            arr = self._box_array()
            x0i, y0i, x1i, y1i = x0[idx], y0[idx], x1[idx], y1[idx]
            arr = arr[(arr[:, 2] >= x0i.min() - 2.0) & (arr[:, 0] <= x1i.max() + 2.0)
                      & (arr[:, 3] >= y0i.min() - 2.0) & (arr[:, 1] <= y1i.max() + 2.0)]
            ok[idx[_box_hits(x0i, y0i, x1i, y1i, arr)]] = False
        return ok

    def _free_all(self, ok: np.ndarray, x0: np.ndarray, y0: np.ndarray, x1: np.ndarray,
                  y1: np.ndarray) -> np.ndarray:
        """:meth:`free_many`'s tests of boxes (x0, y0)–(x1, y1) inside the frame (``ok``)
        against every disk and label at once: for a few boxes, fewer array operations than
        narrowing them down first (the same comparisons, so the same answers)."""
        if len(self._x):
            ok &= ~_disk_hits(x0, y0, x1, y1, self._x, self._y, self._r)
        if self.boxes:
            ok &= ~_box_hits(x0, y0, x1, y1, self._box_array())
        return ok

    def add(self, b: Box) -> None:
        self.boxes.append(b)

    def nodes_near(self, bounds: Box) -> list[BaseGeometry]:
        """Disk polygons of the nodes whose disks reach into ``bounds``."""
        x0, y0, x1, y1 = bounds
        hit = ((self._x + self._r >= x0) & (self._x - self._r <= x1)
               & (self._y + self._r >= y0) & (self._y - self._r <= y1))
        if self._disk_polys is None:  # every node's disk, built once (vectorised)
            self._disk_polys = list(shapely.buffer(
                shapely.points(np.column_stack([self._x, self._y])), self._r, quad_segs=6))
        return [self._disk_polys[int(i)] for i in np.flatnonzero(hit)]


def _box(x: float, y: float, w: float, h: float) -> Box:
    return (x - w / 2.0, y - h / 2.0, x + w / 2.0, y + h / 2.0)


def _disk_hits(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
               cx: np.ndarray, cy: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Which boxes (x0, y0)–(x1, y1) overlap one of the disks (cx, cy, r)."""
    dx = np.maximum(np.maximum(x0[:, None] - cx, cx - x1[:, None]), 0.0)
    dy = np.maximum(np.maximum(y0[:, None] - cy, cy - y1[:, None]), 0.0)
    hits: np.ndarray = np.any(dx * dx + dy * dy < r * r, axis=1)
    return hits


def _box_hits(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
              arr: np.ndarray) -> np.ndarray:
    """Which boxes (x0, y0)–(x1, y1) touch one of the label boxes ``arr`` (rows x0, y0, x1,
    y1; within a pixel counts)."""
    bw = np.minimum(arr[:, 2], x1[:, None]) - np.maximum(arr[:, 0], x0[:, None])
    bh = np.minimum(arr[:, 3], y1[:, None]) - np.maximum(arr[:, 1], y0[:, None])
    hits: np.ndarray = np.any((bw > -1.0) & (bh > -1.0), axis=1)
    return hits


def place_in_region(
    occ: Occupancy, region: BaseGeometry, others: list[BaseGeometry], w: float, h: float
) -> tuple[float, float] | None:
    """A centre for a w×h box inside ``region`` (preferably outside ``others``), or None."""
    free = _free_area(occ, region, others)
    area = free.area
    shrink = min(w, h) / 2.0
    candidates: list[BaseGeometry] = []
    touching = free.touching
    if touching and (len(touching) < COVER_TEST_FROM or not _covered(area, touching, shrink)):
        candidates.append(free.outside())  # (its core is empty where _covered is True)
    candidates.append(area)
    for cand in candidates:
        core = cand.buffer(-shrink)
        if core.is_empty:
            continue
        pieces = sorted(getattr(core, "geoms", [core]), key=lambda g: -g.area)
        for piece in pieces[:3]:
            # (the pole of inaccessibility, ``shapely.ops.polylabel``, was measured on the
            # probe_bench drawings: one more entity shown by ID only, 3 ms slower)
            p = piece.representative_point()
            b = _box(p.x, p.y, w, h)
            if occ.free(b) and region.contains(Point(p.x, p.y)):
                return p.x, p.y
    # sample centres inside the region on a grid (nearest its inner point first); the box
    # may stick out of the region but must stay clear of nodes and labels
    return _grid_search(occ, region, w, h)


class _FreeArea:
    """``region`` less the node disks and placed labels in it (``area``), the ``others``
    that touch it and, once asked, ``area`` outside all of them (:meth:`outside`)."""

    def __init__(self, occ: Occupancy, region: BaseGeometry,
                 others: list[BaseGeometry]) -> None:
        nodes = [g for g in occ.nodes_near(region.bounds) if g.intersects(region)]
        area = region.difference(shapely.union_all(nodes)) if nodes else region
        rx0, ry0, rx1, ry1 = region.bounds
        if occ.boxes:
            arr = occ._box_array()
            arr = arr[(arr[:, 2] >= rx0) & (arr[:, 0] <= rx1) & (arr[:, 3] >= ry0)
                      & (arr[:, 1] <= ry1)]
            if len(arr):  # the same polygons as ``box(*b)``, made in one call
                near = shapely.box(arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3])
                area = area.difference(shapely.union_all(near).buffer(1.0))
        self.area: BaseGeometry = area
        self.touching = _touching(others, area)
        self._outside: BaseGeometry | None = None

    def outside(self) -> BaseGeometry:
        if self._outside is None:
            # only the parts of the other regions near ``area`` matter: clip them first
            ax0, ay0, ax1, ay1 = self.area.bounds
            clipped = shapely.clip_by_rect(self.touching, ax0 - 1.0, ay0 - 1.0, ax1 + 1.0,
                                           ay1 + 1.0)
            self._outside = self.area.difference(shapely.union_all(clipped))
        return self._outside


def _free_area(occ: Occupancy, region: BaseGeometry, others: list[BaseGeometry]) -> _FreeArea:
    """:class:`_FreeArea` of ``region``; the last one is kept on ``occ`` and given again while
    the region, the ``others`` list and the placed labels are the same ones (a label tried
    again at a smaller size, nothing placed in between)."""
    key = (region, others, occ.boxes, len(occ.boxes))
    memo = occ._area_memo
    if memo is not None and all(a is b for a, b in zip(memo[0][:3], key[:3], strict=True)) \
            and memo[0][3] == key[3]:
        return memo[1]
    free = _FreeArea(occ, region, others)
    occ._area_memo = key, free
    return free


def _touching(others: list[BaseGeometry], area: BaseGeometry) -> list[BaseGeometry]:
    """The geometries of ``others`` that intersect ``area``, in order (bounds first)."""
    if not others or area.is_empty:
        return []
    b = shapely.bounds(others)
    x0, y0, x1, y1 = area.bounds
    idx = np.flatnonzero((b[:, 2] >= x0) & (b[:, 0] <= x1) & (b[:, 3] >= y0) & (b[:, 1] <= y1))
    hit = shapely.intersects(np.asarray(others, dtype=object)[idx], area)
    return [others[int(i)] for i in idx[hit]]


COVER_TEST_FROM = 12
"""Other regions touching the free area from which :func:`place_in_region` runs the
:func:`_covered` test before the exact difference: with fewer, the test seldom finds the
area covered (6 of 134 calls over the probe and random hypergraphs of 12–90 entities) and
costs about as much as the difference it would save, so the difference is made directly.
Either way the label lands on the same spot: where the test shows no room, the difference
has no core either (the outside candidate is skipped as an empty one)."""


ROOM_TEST = 0.9
""":func:`_covered` erodes by this fraction of the label's half-height: the 10 % spare is
far more than the buffers' own approximation (arcs by chords, input simplified by 1 % of
the distance), so a test that finds no room is never contradicted by the exact erosion."""


def _covered(area: BaseGeometry, others: list[BaseGeometry], shrink: float) -> bool:
    """True when ``area`` minus the union of ``others`` has no room for a point ``shrink`` px
    inside it, shown without the union (of many large regions, the slowest step of label
    placement): the ``ROOM_TEST``·``shrink`` erosion of ``area`` is empty, or lies in one of
    ``others``, or in all of them (subtracted one at a time, each clipped to what is left,
    until nothing is). ``area.difference(union_all(others)).buffer(-shrink)`` is then empty
    too: a point that deep inside the difference would have a disk of ``ROOM_TEST``·``shrink``
    around it inside ``area`` and clear of ``others``. False means "not shown"."""
    rest = area.buffer(-ROOM_TEST * shrink)
    try:
        if rest.is_empty or shapely.covered_by(rest, others).any():  # one is often enough
            return True
        for o in others:
            x0, y0, x1, y1 = rest.bounds
            rest = rest.difference(shapely.clip_by_rect(o, x0 - 1.0, y0 - 1.0, x1 + 1.0,
                                                        y1 + 1.0))
            if rest.is_empty:
                return True
    except shapely.errors.GEOSException:  # pragma: no cover - the exact path decides
        return False
    return False


def _grid_search(
    occ: Occupancy, region: BaseGeometry, w: float, h: float
) -> tuple[float, float] | None:
    x0, y0, x1, y1 = region.bounds
    step = 2.0
    while (x1 - x0) * (y1 - y0) / (step * step) > 20000:
        step *= 1.5
    gx, gy = np.meshgrid(np.arange(x0, x1 + 0.01, step), np.arange(y0, y1 + 0.01, step))
    xs, ys = gx.ravel(), gy.ravel()
    inside = shapely.contains_xy(region, xs, ys)
    xs, ys = xs[inside], ys[inside]
    if not len(xs):
        return None
    ok = occ.free_many(xs, ys, w, h)
    if not ok.any():
        return None
    c = region.representative_point()
    d = np.hypot(xs - c.x, ys - c.y)
    d[~ok] = np.inf
    i = int(np.argmin(d))
    return float(xs[i]), float(ys[i])


def place_near(
    occ: Occupancy, x: float, y: float, r: float, w: float, h: float, rings: int = 1
) -> tuple[float, float] | None:
    """A centre for a w×h box beside a node at (x, y, r): right, left, below, above, diagonals."""
    spots = near_spots(occ, x, y, r, w, h, rings)
    return spots[0] if spots else None


def box_disk_distance(b: Box, x: np.ndarray, y: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Distance from box ``b`` to each disk (0 when they touch or overlap)."""
    dx = np.maximum(np.maximum(b[0] - x, x - b[2]), 0.0)
    dy = np.maximum(np.maximum(b[1] - y, y - b[3]), 0.0)
    return np.maximum(np.hypot(dx, dy) - r, 0.0)


def near_spots(
    occ: Occupancy, x: float, y: float, r: float, w: float, h: float, rings: int = 1
) -> list[tuple[float, float]]:
    """Every free centre for a w×h box beside a node at (x, y, r), in preference order:
    right, left, below, above, the diagonals, then the same one ring further out."""
    cands = near_candidates(x, y, r, w, h, rings)
    arr = np.asarray(cands)
    ok = np.flatnonzero(occ.free_many(arr[:, 0], arr[:, 1], w, h))
    return [cands[int(i)] for i in ok]


def near_candidates(
    x: float, y: float, r: float, w: float, h: float, rings: int = 1
) -> list[tuple[float, float]]:
    """The centres :func:`near_spots` tests, in its order (free or not)."""
    cands: list[tuple[float, float]] = []
    for ring in range(rings):
        gap = 2.0 + ring * (h + 2.0)
        dx = r + gap + w / 2.0
        dy = r + gap + h / 2.0
        diag = (r + gap) / math.sqrt(2.0)
        cands += [
            (x + dx, y), (x - dx, y), (x, y + dy), (x, y - dy),
            (x + diag + w / 2.0, y + diag + h / 2.0), (x - diag - w / 2.0, y + diag + h / 2.0),
            (x + diag + w / 2.0, y - diag - h / 2.0), (x - diag - w / 2.0, y - diag - h / 2.0),
        ]
    return cands


def make_box(x: float, y: float, w: float, h: float) -> Box:
    """Box of size w×h centred at (x, y)."""
    return _box(x, y, w, h)


NAME_SPREAD = 2
"""A name cut that reads like another entity's in the same panel may grow up to this many
times ``name_max_chars`` characters (32 by default) to tell them apart."""


MIN_CUT = 7
"""The shortest cut a name is tried at when its label finds no owned spot: 6 characters
and the ellipsis (:func:`cut_lengths`)."""


def cut_lengths(max_chars: int) -> list[int]:
    """The shorter cuts (longest first) a name is tried at when its cut at ``max_chars``
    finds no spot that is its node's: three quarters, five eighths, half of ``max_chars``,
    then ``MIN_CUT`` (never under it).

    >>> cut_lengths(16), cut_lengths(10), cut_lengths(7)
    ([12, 10, 8, 7], [7], [])
    """
    out: list[int] = []
    for m in (max_chars * 3 // 4, max_chars * 5 // 8, max_chars // 2, MIN_CUT):
        m = max(m, MIN_CUT)
        if m < max_chars and m not in out:
            out.append(m)
    return out


def _tail_start(line: str, most: int) -> int:
    """Where the end of ``line`` kept by :func:`middle_cut` starts: its longest run of whole
    last words of at most ``most`` characters, else its last ``most`` characters (whole
    characters: the start moves right to a boundary)."""
    for i in range(max(1, len(line) - most), len(line)):
        if line[i - 1] == " " and line[i] != " ":
            return i
    i = max(1, len(line) - most)
    while i < len(line) and not boundary(line, i):
        i += 1
    return i


def middle_cut(text: str, max_chars: int) -> str:
    """``text`` on one line in at most ``max_chars`` characters, cut in the middle: its
    start, an ellipsis and its last words (at most two thirds of the room), as the end of a
    name often tells it apart (a state, a year, "(film)"). Unchanged when it fits; under 5
    characters it is cut at the end (:func:`~hyperviz_core.unitext.truncate`).

    >>> middle_cut("Jiménez Municipality, Coahuila", 16)
    'Jiménez…Coahuila'
    >>> middle_cut("Jiménez Municipality, Chihuahua", 16)
    'Jiméne…Chihuahua'
    """
    line = " ".join(str(text).split())
    if len(line) <= max_chars or max_chars < 5:
        return truncate(line, max_chars)
    room = max_chars - 1  # the ellipsis takes one
    start = _tail_start(line, room - max(1, room // 3))
    head = line[: cut_back(line, room - (len(line) - start))].rstrip(" ,;:")
    return f"{head}…{line[start:]}"


def distinct_names(names: list[str], max_chars: int) -> list[str]:
    """``names`` cut to ``max_chars`` (:func:`~hyperviz_core.unitext.truncate`), except
    that different names whose cuts read alike (equal after the viewer's search folding,
    :func:`~hyperviz_core.unitext.search_fold`: case, accents, full-width letters) are cut
    again, alike within each such group, to the first of: the middle cut (:func:`middle_cut`)
    at ``max_chars``, then the end cut and the middle cut at one more character, and so on
    up to ``NAME_SPREAD`` × ``max_chars``; the first that tells every name of the group apart
    (and reads like no other name's text) is kept. Names that read alike in full
    ("Müller …", "Muller …") cannot be told apart and may keep texts that read alike.
    Deterministic; identical names keep identical texts, and a group nothing tells apart
    within the bound keeps its first cut.

    >>> distinct_names(["Jiménez Municipality, Coahuila", "Jiménez Municipality, Chihuahua",
    ...                 "Paris"], 16)
    ['Jiménez…Coahuila', 'Jiméne…Chihuahua', 'Paris']
    >>> distinct_names(["Université Paris-Saclay", "Universite Paris-Saclay Campus"], 16)
    ['Unive…ris-Saclay', 'Universit…Campus']
    """
    full = [" ".join(str(n).split()) for n in names]
    texts = [truncate(f, max_chars) for f in full]
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(texts):
        groups.setdefault(search_fold(t), []).append(i)
    for group in groups.values():
        kinds = {full[i] for i in group}
        if len({search_fold(f) for f in kinds}) < 2:
            continue  # one name (maybe on several entities, maybe in look-alike spellings)
        members = set(group)
        taken = {search_fold(t) for i, t in enumerate(texts) if i not in members}
        found = _first_apart(sorted(kinds), max_chars, taken)
        if found is not None:
            for i in group:
                texts[i] = found[full[i]]
    return texts


def _first_apart(kinds: list[str], max_chars: int, taken: set[str]) -> dict[str, str] | None:
    """The first cuts of :func:`distinct_names` (name → text) that tell ``kinds`` apart."""
    for m in range(max_chars, NAME_SPREAD * max_chars + 1):
        for cut in (truncate, middle_cut):
            cand = {f: cut(f, m) for f in kinds}
            if _tells_apart(cand, taken):
                return cand
    return None


def _tells_apart(cuts: dict[str, str], taken: set[str]) -> bool:
    """Whether the ``cuts`` (name → text) of names that read differently read differently
    too, and none reads like a text in ``taken`` (folded)."""
    seen: dict[str, str] = {}
    for name, text in cuts.items():
        folded = search_fold(text)
        if folded in taken or seen.setdefault(folded, search_fold(name)) != search_fold(name):
            return False
    return True
