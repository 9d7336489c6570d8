"""A query's keywords are read from its first KEYWORD_CHARS characters (a pasted 570 KB
document spent seconds finding names for 12 keywords, holding up every other query on the
engine), and a query holding a lone surrogate is refused before it runs (its result could
not be serialised: a web service answered 500 at the JSON step)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract import heuristic
from hyperviz_core.rag.extract.heuristic import KEYWORD_CHARS, heuristic_keywords


def test_keywords_read_a_bounded_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    find = heuristic.find_spans

    def spy(sentence: str, *args: Any) -> Any:
        read.append(len(sentence))
        return find(sentence, *args)

    monkeypatch.setattr(heuristic, "find_spans", spy)
    names = " ".join(f"Person{i} Surname{i} met Partner{i} Other{i} and" for i in range(5000))
    assert len(names) > 10 * KEYWORD_CHARS
    got = heuristic_keywords(names)
    assert max(read) <= KEYWORD_CHARS
    assert got == heuristic_keywords(names[:KEYWORD_CHARS].rsplit(" ", 1)[0])
    assert got[:2] == ["Person0 Surname0", "Partner0 Other0"] and len(got) == 12
    short = "Where did Ada Lovelace meet Charles Babbage?"
    assert heuristic_keywords(short)[:2] == ["Ada Lovelace", "Charles Babbage"]


@pytest.mark.parametrize("call", ["retrieve", "query"])
def test_a_query_with_a_lone_surrogate_is_refused(tmp_path: Path, call: str) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="q", text="Quasar Corp is owned by Ada Lovelace.")])
        with pytest.raises(ValueError, match=r"the query is not valid Unicode text "
                                             r"\(character 5: '\\ud800'\)"):
            getattr(rag, call)("Who \ud800 owns Quasar?")
        with pytest.raises(TypeError, match="the query must be a string, got int"):
            getattr(rag, call)(42)


def test_async_deletes_run_off_the_event_loop(tmp_path: Path) -> None:
    """``adelete``/``adelete_many``: the sync deletes in a worker thread (the engine had
    ``ainsert`` but no async delete; ``delete_many`` of 100 documents blocked the loop)."""
    import asyncio
    import threading

    seen: list[str] = []
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id=f"d{i}", text=f"Note {i} about Quasar Corp.") for i in range(4)])
        delete_many = rag.indexer.delete_many

        def spy(ids: Any) -> Any:
            seen.append(threading.current_thread().name)
            return delete_many(ids)

        rag.indexer.delete_many = spy  # type: ignore[method-assign]

        async def main() -> tuple[dict[str, int], dict[str, int]]:
            one = await rag.adelete("d0")
            many = await rag.adelete_many(d for d in ("d1", "d2", "nope"))
            return one, many

        one, many = asyncio.run(main())
        assert one["documents"] == 1 and many["documents"] == 2
        assert seen and seen[0] != threading.main_thread().name
        assert [d.id for d in rag.store.documents()] == ["d3"]
        with pytest.raises(TypeError, match="takes a list of document ids"):
            asyncio.run(rag.adelete_many("d3"))
