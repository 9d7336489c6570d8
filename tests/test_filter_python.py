"""LlamaIndex filters compare a bool metadata value with a number as Python (and LlamaIndex's
own vector store) does: ``MetadataFilter`` cannot hold a bool, so ``published == 1`` is how
its users ask for ``{"published": True}``. A reviewer found ``published == 1`` returned
nothing and ``published != 0`` let the False one through."""

from __future__ import annotations

import operator
import warnings
from typing import Any

import pytest

from hyperviz_core.rag.retrieve.filter_python import python_bools
from hyperviz_core.rag.retrieve.filters import MetadataCondition

_PY = {"==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
       "<": operator.lt, "<=": operator.le}


@pytest.mark.parametrize("op", sorted(_PY))
@pytest.mark.parametrize("value", [0, 1, 0.5, 2, -1])
def test_bools_compare_as_python_numbers(op: str, value: float) -> None:
    f = python_bools(MetadataCondition(key="k", op=op, value=value))
    for have in (True, False, 0, 1, 2, 0.5, -1):
        assert f.matches({"k": have}) is _PY[op](have, value), (op, value, have)


@pytest.mark.parametrize(("op", "values"), [("in", [1]), ("in", [0, 1]), ("in", [2, "x"]),
                                            ("nin", [0]), ("nin", [0, 1]), ("nin", [5])])
def test_in_and_nin(op: str, values: list[Any]) -> None:
    f = python_bools(MetadataCondition(key="k", op=op, value=values))
    for have in (True, False, 0, 1, 2, "x"):
        assert f.matches({"k": have}) is ((have in values) == (op == "in")), (op, values, have)


def test_other_values_and_a_missing_key_read_as_before() -> None:
    same = MetadataCondition(key="k", op="==", value="True")
    assert python_bools(same) is same
    assert not python_bools(MetadataCondition(key="k", op="==", value=1)).matches({})
    assert python_bools(MetadataCondition(key="k", op="!=", value=1)).matches({})


def test_llamaindex_filters_match_its_own_vector_store() -> None:
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.vector_stores import FilterOperator, MetadataFilter, MetadataFilters

    from vizrag_llamaindex import VizRAGIndex

    docs = [Document(id_="a", text="alpha physics Curie", metadata={"published": True}),
            Document(id_="b", text="beta physics Curie", metadata={"published": False}),
            Document(id_="c", text="gamma physics Curie", metadata={})]
    emb = MockEmbedding(embed_dim=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simple = VectorStoreIndex.from_documents(docs, embed_model=emb)
        viz = VizRAGIndex.from_documents(docs, embed_model=emb)

    def ids(nodes: Any) -> list[str]:
        return sorted({n.node.ref_doc_id for n in nodes if n.node.ref_doc_id})

    for value, op in ((1, FilterOperator.EQ), (0, FilterOperator.EQ), ([1], FilterOperator.IN),
                      (0, FilterOperator.NE), (0, FilterOperator.GT), ([0], FilterOperator.NIN)):
        mf = MetadataFilters(filters=[MetadataFilter(key="published", value=value, operator=op)])
        want = ids(simple.as_retriever(similarity_top_k=10, filters=mf).retrieve("physics"))
        got = ids(viz.as_retriever(top_k=10, filters=mf, include_image=False).retrieve("physics"))
        assert got == want, (value, op)
