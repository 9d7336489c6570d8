"""The walk's transition blocks built straight from the incidence matrix (:mod:`.transition`)
equal the blocks of the sparse product ``A·D⁻¹`` they replace."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hyperviz_core.rag.retrieve.transition import bipartite_transition, scale_columns


def _incidence(seed: int, n_e: int, n_h: int, m: int) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    pairs = np.unique(np.stack([rng.integers(0, n_e, m), rng.integers(0, n_h, m)], 1), axis=0)
    pairs = pairs[rng.permutation(len(pairs))]  # rows' entries in no particular order
    return sp.csr_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n_e, n_h))


def _products(inc: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_e = inc.shape[0]
    adj = sp.bmat([[None, inc], [inc.T, None]], format="csr")
    deg = np.asarray(adj.sum(axis=0)).ravel()
    inv = np.divide(1.0, deg, out=np.zeros_like(deg, dtype=np.float64), where=deg > 0)
    tr = (adj @ sp.diags(inv)).tocsr()
    return tr[:n_e][:, n_e:].toarray(), tr[n_e:][:, :n_e].toarray(), inv


@pytest.mark.parametrize("seed", range(12))
def test_blocks_equal_the_products(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    inc = _incidence(seed, int(rng.integers(1, 120)), int(rng.integers(1, 200)),
                     int(rng.integers(1, 1500)))
    to_entities, to_edges, degree, inv = bipartite_transition(inc)
    want_e, want_h, want_inv = _products(inc)
    assert np.array_equal(inv, want_inv)
    assert np.array_equal(np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0),
                          want_inv)
    assert np.array_equal(to_entities.toarray(), want_e)  # one product per entry: exact
    assert np.array_equal(to_edges.toarray(), want_h)


def test_columns_sum_to_one_where_a_node_has_neighbours() -> None:
    inc = _incidence(7, 40, 60, 300)
    to_entities, to_edges, _, _ = bipartite_transition(inc)
    # column-stochastic: what leaves hyperedge h (resp. entity e) sums to 1
    out_of_edges = np.asarray(to_entities.sum(axis=0)).ravel()
    out_of_entities = np.asarray(to_edges.sum(axis=0)).ravel()
    np.testing.assert_allclose(out_of_edges[np.diff(inc.tocsc().indptr) > 0], 1.0)
    np.testing.assert_allclose(out_of_entities[np.diff(inc.indptr) > 0], 1.0)


def test_scale_columns_reverses_each_row_and_scales() -> None:
    m = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 1]), np.array([0, 2, 3])),
                      shape=(2, 3))
    out = scale_columns(m, np.array([10.0, 100.0, 0.5]))
    assert out.indices.tolist() == [0, 2, 1] and out.data.tolist() == [20.0, 0.5, 300.0]
    assert np.array_equal(out.toarray(), (m @ sp.diags([10.0, 100.0, 0.5])).toarray())


@pytest.mark.parametrize("seed", range(6))
def test_each_row_lists_its_entries_in_reverse(seed: int) -> None:
    """The entry order the walk's sums follow (that of SciPy's product of the old
    construction): an entity's hyperedges in reverse of the canonical incidence order, a
    hyperedge's entities from the highest position down."""
    inc = _incidence(seed, 50, 80, 400)
    canonical = inc.copy()
    canonical.sum_duplicates()
    to_entities, to_edges, _, _ = bipartite_transition(inc)
    for i in range(inc.shape[0]):
        row = canonical.indices[canonical.indptr[i]:canonical.indptr[i + 1]]
        assert to_entities.indices[to_entities.indptr[i]:to_entities.indptr[i + 1]].tolist() \
            == row[::-1].tolist()
    members = canonical.tocsc()
    for h in range(inc.shape[1]):
        ents = sorted(members.indices[members.indptr[h]:members.indptr[h + 1]].tolist())
        assert to_edges.indices[to_edges.indptr[h]:to_edges.indptr[h + 1]].tolist() \
            == ents[::-1]


def test_a_non_canonical_input_is_not_changed() -> None:
    inc = sp.csr_matrix((np.ones(3), np.array([2, 0, 2]), np.array([0, 3])), shape=(1, 3))
    assert not inc.has_canonical_format
    to_entities, _, degree, inv = bipartite_transition(inc)
    assert inc.indices.tolist() == [2, 0, 2]  # the caller's matrix as it was
    assert to_entities.indices.tolist() == [2, 0]  # duplicates summed, then reversed
    assert to_entities.data.tolist() == [1.0, 1.0]  # h2: 2 incidences × 1/2; h0: 1 × 1
    assert inv.tolist() == [1 / 3, 1.0, 0.0, 0.5]
    assert degree.tolist() == [3.0, 1.0, 0.0, 2.0]
