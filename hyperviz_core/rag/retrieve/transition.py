"""The random walk's transition over a bipartite entity–hyperedge incidence graph.

With ``inc`` the entity × hyperedge incidence matrix (CSR) and ``A = [[0, inc], [incᵀ, 0]]``
the adjacency of the bipartite graph, the walk's column-stochastic transition matrix is
``P = A·D⁻¹`` (``D`` the node degrees). :class:`~.walk.EntityWalk` only needs its two
off-diagonal blocks, ``P_eh`` (hyperedges → entities) and ``P_he`` (entities →
hyperedges). :func:`bipartite_transition` builds them straight from ``inc``, without
forming ``A``, the product or the slices (a first query on the synthetic 50 MB benchmark
store, 2.5 M incidences, peaked at 687–692 MiB of memory instead of 791–793 MiB): the same
entries, each row's in the order SciPy's product writes them (reversed), so the walk's sums
run in the same order and its scores are bit-identical (compared array for array on random
graphs and on three benchmark stores with SciPy 1.17).

Example:
    >>> import numpy as np, scipy.sparse as sp
    >>> inc = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]))
    >>> to_entities, to_edges, degree, inv = bipartite_transition(inc)
    >>> to_entities.toarray().tolist()   # hyperedge → its members, 1/|h| each
    [[0.5, 0.5], [0.5, 0.0], [0.0, 0.5]]
    >>> to_edges.toarray().tolist()      # entity → its hyperedges, 1/deg(e) each
    [[0.5, 1.0, 0.0], [0.5, 0.0, 1.0]]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

__all__ = ["Transition", "bipartite_transition", "scale_columns", "symmetric",
           "upper_triangle"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class Transition(NamedTuple):
    """The walk's two transition blocks and the node degrees they were scaled by."""

    to_entities: sp.csr_matrix
    """``P_eh`` (``n_e × n_h``): hyperedge → its member entities, ``1/|h|`` each."""
    to_edges: sp.csr_matrix
    """``P_he`` (``n_h × n_e``): entity → its hyperedges, ``1/deg(e)`` each."""
    degree: FloatArray
    """Degree of every node, entities first then hyperedges."""
    inv: FloatArray
    """``1/degree`` (0 for an isolated node)."""


def _reversed_rows(indptr: npt.NDArray[np.integer]) -> IntArray:
    """The permutation that reverses every row of a CSR matrix with this ``indptr``."""
    bounds = indptr.astype(np.int64)  # int32 sums would wrap past 2^30 entries
    n = int(bounds[-1])
    rows = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    out: IntArray = (bounds[:-1] + bounds[1:] - 1)[rows] - np.arange(n, dtype=np.int64)
    return out


def scale_columns(matrix: sp.csr_matrix, factors: FloatArray) -> sp.csr_matrix:
    """``matrix @ diag(factors)`` for a CSR ``matrix`` without explicit zeros (and
    ``factors`` nonzero on its columns), each row's entries in the reverse of their order in
    ``matrix`` (as SciPy's sparse product writes them).

    >>> m = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    >>> scale_columns(m, np.array([1.0, 10.0, 0.5])).toarray().tolist()
    [[1.0, 0.0, 1.0], [0.0, 30.0, 0.0]]
    """
    order = _reversed_rows(matrix.indptr)
    cols = matrix.indices[order]
    return sp.csr_matrix((matrix.data[order] * factors[cols], cols, matrix.indptr.copy()),
                         shape=matrix.shape)


def bipartite_transition(inc: sp.csr_matrix) -> Transition:
    """The transition blocks into entities and into hyperedges, and the node degrees.
    ``inc`` is brought to canonical form first (sorted indices, duplicates summed, on a
    copy), the form the entry order above is stated for."""
    if not inc.has_canonical_format:
        inc = inc.copy()
        inc.sum_duplicates()
    n_e = inc.shape[0]
    deg = np.concatenate([np.asarray(inc.sum(axis=1)).ravel(),
                          np.asarray(inc.sum(axis=0)).ravel()]).astype(np.float64)
    inv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)
    # A's entity rows are inc's rows (in inc's order); its hyperedge rows list their entities
    # in ascending order (incᵀ converted to CSR)
    return Transition(scale_columns(inc, inv[n_e:]), scale_columns(inc.T.tocsr(), inv[:n_e]),
                      deg, inv)


def upper_triangle(matrix: FloatArray) -> FloatArray:
    """The upper triangle of a square ``matrix``, row by row (the half of a symmetric
    matrix BLAS ``symv`` reads, as it is stored: :func:`symmetric` gives it back).

    >>> upper_triangle(np.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [1.0, 2.0, 4.0]
    """
    n = matrix.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    return np.concatenate([matrix[i, i:] for i in range(n)]).astype(np.float64, copy=False)


def symmetric(upper: FloatArray, n: int) -> FloatArray:
    """The symmetric ``n × n`` matrix (Fortran order, as BLAS reads it without a copy) whose
    upper triangle is ``upper`` (:func:`upper_triangle`'s order); the lower triangle mirrors it.

    >>> symmetric(np.array([1.0, 2.0, 4.0]), 2).tolist()
    [[1.0, 2.0], [2.0, 4.0]]
    """
    if upper.shape != (n * (n + 1) // 2,):
        raise ValueError(f"{upper.shape[0]} values are not the upper triangle of a {n} x {n} "
                         "matrix")
    out = np.empty((n, n), dtype=np.float64, order="F")
    start = 0
    for i in range(n):
        row = upper[start:start + n - i]
        out[i, i:] = row
        out[i:, i] = row
        start += n - i
    return out
