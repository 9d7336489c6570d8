"""plan_space_blocks: the one plan of plan_space, embedded and handed out a block at a time."""

from __future__ import annotations

import numpy as np

from hyperviz_core.rag import HashingEmbedder
from hyperviz_core.rag.store.vector_plan import plan_space, plan_space_blocks
from hyperviz_core.rag.types import content_hash


def test_blocks_concatenate_to_the_single_plan() -> None:
    live = {f"e{i:03d}": f"entity number {i} of the test" for i in range(300)}
    stored = {"e005": content_hash(live["e005"]), "e007": "stale-hash"}
    emb = HashingEmbedder(dim=64)
    dims: list[int] = []

    def known(ids: list[str]) -> dict[str, str]:
        return {i: stored[i] for i in ids if i in stored}

    whole = plan_space("entity", live, None, emb, stored_hashes=known,
                       record_dim=lambda d, n: dims.append(d))
    blocks = list(plan_space_blocks("entity", live, emb, stored_hashes=known,
                                    record_dim=lambda d, n: dims.append(d), block=128))
    assert [len(b.ids) for b in blocks] == [128, 128, 43]  # e005 unchanged: not re-embedded
    assert [i for b in blocks for i in b.ids] == whole.ids
    assert np.vstack([b.matrix for b in blocks]).tobytes() == whole.matrix.tobytes()
    assert {k: v for b in blocks for k, v in b.hashes.items()} == whole.hashes
    assert sum(b.embedded for b in blocks) == whole.embedded == 299
    assert set(dims) == {64}


def test_no_embedder_no_blocks() -> None:
    got = plan_space_blocks("chunk", {"c": "text"}, None, stored_hashes=lambda ids: {},
                            record_dim=lambda d, n: None)
    assert list(got) == []
