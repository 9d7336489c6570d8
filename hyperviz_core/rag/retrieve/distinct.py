"""Sorted distinct values of an integer array whose values lie in ``range(bound)``.

``np.unique`` sorts (or hashes) its input; when the input is large, a boolean mask over the
value range and ``np.flatnonzero`` give the same sorted distinct values in one pass (lazy
retrieval gathers tens of thousands of candidate chunks or hub hyperedges per query).

Example:
    >>> import numpy as np
    >>> sorted_distinct(np.array([5, 1, 5, 3]), bound=8, mask_above=2).tolist()
    [1, 3, 5]
    >>> sorted_distinct(np.array([5, 1, 5, 3]), bound=8).tolist()
    [1, 3, 5]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["sorted_distinct"]


def sorted_distinct(values: npt.NDArray[np.integer], bound: int, mask_above: int = 256
                    ) -> npt.NDArray[np.integer]:
    """The distinct ``values`` (each in ``0 ≤ v < bound``) in increasing order; through a
    mask of ``bound`` booleans when there are more than ``mask_above`` values."""
    if values.size <= mask_above:
        return np.unique(values)
    seen = np.zeros(bound, dtype=bool)
    seen[values] = True
    return np.flatnonzero(seen)
