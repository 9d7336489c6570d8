"""Peeling (congestion control's removal order) against the straightforward reference.

The peeler keeps its own live member counts and charges a hyperedge once, when it goes; the
reference below is the former implementation (every co-member of a peeled entity re-read,
``Hypergraph.remove_entity`` one by one), quadratic in a hyperedge's size. Both must give
the same order, the same kept hypergraph and the same report on any input.
"""

from __future__ import annotations

import heapq
import importlib
import random
from collections.abc import Iterator

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.prune import Budget, entity_importance, peel_order, prune
from hyperviz_core.testing import random_hypergraph

prune_mod = importlib.import_module("hyperviz_core.prune")  # the package exports prune()

WORDS = ["radium", "carbon", "fibre", "nobel", "isotope", "weaving", "prize", "lab"]


class _RefPeeler:
    """The former peeler: touches every co-member of each peeled entity."""

    def __init__(self, hg: Hypergraph, budget: Budget, imp0: dict[str, float],
                 match: dict[str, float], m0: int) -> None:
        self.hg, self.m0 = hg, m0
        self.alpha = budget.alpha
        self.bm = {k: imp0[k] - budget.alpha * hg.degree(k) / m0 for k in hg.entities}
        self.match = {k: match.get(k, 0.0) > 0 for k in hg.entities}
        self.value: dict[str, float] = {}
        self.heap: list[tuple[float, bool, str]] = []
        for k in sorted(hg.entities):
            self.touch(k)

    def touch(self, key: str) -> None:
        val = round(self.alpha * self.hg.degree(key) / self.m0 + self.bm[key], 9)
        if self.value.get(key) != val:
            self.value[key] = val
            heapq.heappush(self.heap, (val, self.match[key], key))

    def lowest(self) -> str:
        while self.heap:
            val, _, key = heapq.heappop(self.heap)
            if key in self.hg.entities and self.value.get(key) == val:
                return key
        raise RuntimeError("no entity left to prune")

    def remove(self, key: str) -> list[str]:
        touched = {m for hid in self.hg.neighbors(key) for m in self.hg.members(hid)}
        gone = self.hg.remove_entity(key)
        for m in sorted(touched - {key}):
            if m in self.hg.entities:
                self.touch(m)
        return gone


def _ref_peel_order(hg: Hypergraph, budget: Budget | None = None, query: str | None = None,
                    importance: dict[str, float] | None = None) -> list[str]:
    budget = budget or Budget()
    imp = importance if importance is not None else entity_importance(
        hg, query, budget.alpha, budget.beta)
    use_query = bool(query and query.strip()) and budget.beta > 0
    match = entity_importance(hg, query, 0.0, 1.0) if use_query else {}
    work = hg.copy()
    peel = _RefPeeler(work, budget, imp, match, max(len(hg.hyperedges), 1))
    out: list[str] = []
    while work.entities:
        key = peel.lowest()
        peel.remove(key)
        out.append(key)
    return out


def _ref_kept(hg: Hypergraph, order: list[str], k: int) -> Hypergraph:
    out = hg.copy()
    for key in order[: len(order) - k]:
        out.remove_entity(key)
    return out


def _ref_caps(out: Hypergraph, budget: Budget, order: list[str], imp: dict[str, float]
              ) -> tuple[Hypergraph, list[str], list[str]]:
    ents: list[str] = []
    edges: list[str] = []
    if budget.max_entities is not None and len(out.entities) > budget.max_entities:
        for key in order:
            if len(out.entities) <= budget.max_entities:
                break
            if key in out.entities:
                edges += out.remove_entity(key)
                ents.append(key)
    if budget.max_hyperedges is not None and len(out.hyperedges) > budget.max_hyperedges:
        weakest = sorted(out.hyperedges, key=lambda h: (
            sum(imp.get(m, 0.0) for m in out.members(h)),
            -len(out.hyperedges[h].members), h))
        for hid in weakest[: len(out.hyperedges) - budget.max_hyperedges]:
            members = out.members(hid)
            out.remove_hyperedge(hid)
            edges.append(hid)
            for m in members:
                if out.degree(m) == 0:
                    out.remove_entity(m)
                    ents.append(m)
    return out, ents, edges


def _hypergraph(seed: int) -> Hypergraph:
    """Random entities (some isolated), hyperedges of 1 to ~all members (singletons, one
    large hyperedge now and then), member attributes, descriptions a query can match."""
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    keys = [f"e{i:02d}" for i in range(n)]
    ents = [Entity(name=k, description=" ".join(rng.sample(WORDS, rng.randint(0, 3))))
            for k in keys]
    edges: list[Hyperedge] = []
    for j in range(rng.randint(0, 30)):
        size = rng.choice([1, 2, 2, 3, 4, 6, n]) if rng.random() < 0.9 else n
        members = rng.sample(keys, min(size, n))
        attrs = {m: {"role": f"r{i}"} for i, m in enumerate(members) if rng.random() < 0.3}
        edges.append(Hyperedge(id=f"h{j:02d}", members=members, member_attrs=attrs,
                               description=rng.choice(WORDS)))
    return Hypergraph(entities=ents, hyperedges=edges, metadata={"seed": seed})


def _budgets(rng: random.Random) -> Iterator[tuple[Budget, str | None]]:
    yield Budget(), None
    yield Budget(), rng.choice(WORDS)
    yield Budget(alpha=0.0, beta=1.0), rng.choice(WORDS)
    yield Budget(alpha=1.0, beta=0.0), rng.choice(WORDS)
    yield Budget(alpha=1e-12, beta=0.5), rng.choice(WORDS)  # degree changes round away
    yield Budget(alpha=round(rng.random(), 3), beta=round(rng.random(), 3)), " ".join(
        rng.sample(WORDS, 2))


def _same(a: Hypergraph, b: Hypergraph) -> None:
    assert list(a.entities) == list(b.entities)
    assert list(a.hyperedges) == list(b.hyperedges)
    assert a.model_dump() == b.model_dump()
    assert a.to_hif() == b.to_hif()
    for key in a.entities:
        assert a.neighbors(key) == b.neighbors(key)


@pytest.mark.parametrize("seed", range(60))
def test_peel_order_and_kept_equal_the_reference(seed: int) -> None:
    hg = _hypergraph(seed)
    before = hg.model_dump()
    rng = random.Random(1000 + seed)
    for budget, query in _budgets(rng):
        order = peel_order(hg, budget, query)
        assert order == _ref_peel_order(hg, budget, query)
        assert sorted(order) == sorted(hg.entities)
        for k in sorted({0, 1, len(order) // 3, len(order) // 2, len(order) - 1, len(order)}):
            _same(prune_mod._kept(hg, order, k), _ref_kept(hg, order, k))
            work, gone = hg.copy(), []
            for key in order[: len(order) - k]:
                gone += work.remove_entity(key)
            assert prune_mod._dropped(hg, order[: len(order) - k]) == gone
    assert hg.model_dump() == before  # the input is only read


@pytest.mark.parametrize("seed", range(12))
def test_peel_order_equals_the_reference_on_generated_hypergraphs(seed: int) -> None:
    hg = random_hypergraph(20 + 7 * seed, 10 + 4 * seed, seed=seed, max_size=3 + seed)
    for query in (None, "", "type description"):
        assert peel_order(hg, Budget(), query) == _ref_peel_order(hg, Budget(), query)


@pytest.mark.parametrize("seed", range(16))
def test_prune_equals_the_reference(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    hg = _hypergraph(seed) if seed % 2 else random_hypergraph(60, 30, seed=seed)
    rng = random.Random(seed)
    budgets = [Budget(gamma=rng.choice([0.005, 0.01, 0.05])),
               Budget(gamma=0.02, max_entities=rng.randint(1, 20),
                      max_hyperedges=rng.randint(1, 10)),
               Budget(enabled=False, max_entities=rng.randint(1, 30))]

    def run() -> list[tuple[dict[str, object], dict[str, object]]]:
        out = []
        for budget in budgets:
            for query in (None, rng_query):
                small, report = prune(hg, budget, query)
                out.append((small.model_dump(), report.model_dump()))
        return out

    rng_query = rng.choice(WORDS)
    new = run()
    monkeypatch.setattr(prune_mod, "peel_order", _ref_peel_order)
    monkeypatch.setattr(prune_mod, "_kept", _ref_kept)
    monkeypatch.setattr(prune_mod._Caps, "apply", staticmethod(_ref_caps))
    assert new == run()


class _Counts:
    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def wrap(self, monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> None:
        real = getattr(owner, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.calls[name] = self.calls.get(name, 0) + 1
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)


def test_one_large_hyperedge_peels_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """20,000 entities in one hyperedge: the former peeler made ~2·10⁸ degree reads (every
    co-member of every peeled entity) and rebuilt the hyperedge 20,000 times."""
    n = 20_000
    keys = [f"n{i:05d}" for i in range(n)]
    hg = Hypergraph(entities=[Entity(name=k) for k in keys],
                    hyperedges=[Hyperedge(id="big", members=keys)])
    counts = _Counts()
    counts.wrap(monkeypatch, prune_mod._Peeler, "touch")
    counts.wrap(monkeypatch, prune_mod._Peeler, "remove")
    counts.wrap(monkeypatch, heapq, "heappush")
    counts.wrap(monkeypatch, heapq, "heappop")
    for name in ("remove_entity", "degree", "members", "neighbors", "copy"):
        counts.wrap(monkeypatch, Hypergraph, name)
    order = peel_order(hg)
    assert sorted(order) == keys
    # all tie at degree 1 until the hyperedge goes (with the next-to-last): then by key
    assert order[: n - 2] == keys[: n - 2]
    c = counts.calls
    assert c.get("remove_entity", 0) == 0 and c.get("copy", 0) == 0
    assert c["remove"] == n
    assert c["touch"] <= n + 1  # once each, plus the last member when the hyperedge goes
    assert c["heappush"] <= n + 1 and c["heappop"] <= 2 * n
    assert c["degree"] <= 2 * n and c["neighbors"] <= n and c["members"] <= 1

    counts.calls.clear()
    small, report = prune(hg, Budget(gamma=1.0))  # estimate_cost: linear as well
    assert 0 < len(small.entities) < n and report.layouts_run <= 2 * Budget().max_iterations
    assert len(small.hyperedges) == 1 and small.members("big") == order[n - len(small.entities):]
    assert c.get("remove_entity", 0) == 0
    assert c["touch"] <= n + 1 and c["degree"] <= 3 * n

    counts.calls.clear()  # the cap alone (congestion control off) cuts all but 25
    small, report = prune(hg, Budget(enabled=False, max_entities=25))
    assert list(small.entities) == sorted(order[-25:]) and report.entities == order[:-25]
    assert small.members("big") == order[-25:] and report.hyperedges == []
    assert c.get("remove_entity", 0) == 0 and c["touch"] <= n + 1


def test_many_shared_hyperedges_touch_each_degree_change_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each touch after the first is a degree that changed: at most one per hyperedge."""
    hg = random_hypergraph(400, 300, seed=3, min_size=20, max_size=60)
    counts = _Counts()
    counts.wrap(monkeypatch, prune_mod._Peeler, "touch")
    order = peel_order(hg, Budget(), "type")
    assert counts.calls["touch"] <= len(hg.entities) + len(hg.hyperedges)
    monkeypatch.undo()
    assert order == _ref_peel_order(hg, Budget(), "type")
