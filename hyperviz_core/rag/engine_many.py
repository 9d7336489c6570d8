"""Several questions at once: ``VizRAG.query_many`` / ``aquery_many`` (a mixin of the engine).

Example::

    results = rag.query_many(["Who is Ada?", "Where is Bern?"])   # one store, a progress bar
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Protocol

from .result import RetrievalResult

__all__ = ["ManyQueries"]


def _questions(queries: Iterable[str], what: str, show_progress: bool
               ) -> tuple[list[str], Any]:
    """``queries`` as a list, refused when it is one string, and a progress bar over
    them (``show_progress``: shown for more than one question)."""
    from tqdm.auto import tqdm

    if isinstance(queries, (str, bytes)):
        raise TypeError(f"{what} takes a list of questions, not one string "
                        f"({str(queries)[:40]!r}); use query() for one question")
    items = list(queries)
    bar = tqdm(total=len(items), desc="questions", unit="q", leave=False,
               disable=not show_progress or len(items) < 2)
    return items, bar


class _Engine(Protocol):
    """What the mixin reads of the engine it is mixed into."""

    show_progress: bool

    def query(self, query: str, **kwargs: Any) -> RetrievalResult: ...

    async def aquery(self, query: str, **kwargs: Any) -> RetrievalResult: ...


class ManyQueries:
    """``query_many`` / ``aquery_many`` over the engine's ``query`` / ``aquery``."""

    def query_many(self: _Engine, queries: Iterable[str], *, show_progress: bool | None = None,
                   **kwargs: Any) -> list[RetrievalResult]:
        """:meth:`query` for several questions (store loaded once), with a progress bar
        (``show_progress``: this call's, else the engine's)."""
        shown = self.show_progress if show_progress is None else show_progress
        items, bar = _questions(queries, "query_many", shown)
        out: list[RetrievalResult] = []
        with bar:
            for q in items:
                out.append(self.query(q, **kwargs))
                bar.update(1)
        return out

    async def aquery_many(self: _Engine, queries: Iterable[str], *,
                          show_progress: bool | None = None, **kwargs: Any
                          ) -> list[RetrievalResult]:
        """Concurrent :meth:`aquery`, with a progress bar (``show_progress``: this call's,
        else the engine's)."""
        shown = self.show_progress if show_progress is None else show_progress
        items, bar = _questions(queries, "aquery_many", shown)

        async def one(q: str) -> RetrievalResult:
            result = await self.aquery(q, **kwargs)
            bar.update(1)
            return result

        with bar:
            return list(await asyncio.gather(*(one(q) for q in items)))

