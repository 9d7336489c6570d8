"""Several questions at once: ``VizRAG.query_many`` / ``aquery_many`` (a mixin of the engine).

Example::

    results = rag.query_many(["Who is Ada?", "Where is Bern?"])   # one store, a progress bar
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Literal, Protocol, overload

from .index.report import cancel_all
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


def _name(exc: BaseException, n: int, total: int, query: object) -> None:
    """Note on ``exc`` which question raised it."""
    exc.add_note(f"(question {n} of {total}: {str(query)[:80]!r})")


class ManyQueries:
    """``query_many`` / ``aquery_many`` over the engine's ``query`` / ``aquery``."""

    @overload
    def query_many(self: _Engine, queries: Iterable[str], *, show_progress: bool | None = None,
                   return_exceptions: Literal[False] = False, **kwargs: Any
                   ) -> list[RetrievalResult]: ...

    @overload
    def query_many(self: _Engine, queries: Iterable[str], *, show_progress: bool | None = None,
                   return_exceptions: Literal[True], **kwargs: Any
                   ) -> list[RetrievalResult | Exception]: ...

    @overload
    def query_many(self: _Engine, queries: Iterable[str], *, show_progress: bool | None = None,
                   return_exceptions: bool = False, **kwargs: Any
                   ) -> list[RetrievalResult] | list[RetrievalResult | Exception]: ...

    def query_many(self: _Engine, queries: Iterable[str], *, show_progress: bool | None = None,
                   return_exceptions: bool = False, **kwargs: Any
                   ) -> list[RetrievalResult] | list[RetrievalResult | Exception]:
        """:meth:`query` for several questions (store loaded once), with a progress bar
        (``show_progress``: this call's, else the engine's). A question that fails stops
        the call, its error noting which question it was; ``return_exceptions=True`` puts
        the error in that question's place instead and goes on (as LangChain's
        ``batch``)."""
        shown = self.show_progress if show_progress is None else show_progress
        items, bar = _questions(queries, "query_many", shown)
        out: list[RetrievalResult | Exception] = []
        with bar:
            for n, q in enumerate(items, 1):
                try:
                    out.append(self.query(q, **kwargs))
                except Exception as exc:
                    if not return_exceptions:
                        _name(exc, n, len(items), q)
                        raise
                    out.append(exc)
                bar.update(1)
        return out

    @overload
    async def aquery_many(self: _Engine, queries: Iterable[str], *,
                          show_progress: bool | None = None,
                          return_exceptions: Literal[False] = False,
                          max_concurrency: int | None = None, **kwargs: Any
                          ) -> list[RetrievalResult]: ...

    @overload
    async def aquery_many(self: _Engine, queries: Iterable[str], *,
                          show_progress: bool | None = None, return_exceptions: Literal[True],
                          max_concurrency: int | None = None, **kwargs: Any
                          ) -> list[RetrievalResult | Exception]: ...

    @overload
    async def aquery_many(self: _Engine, queries: Iterable[str], *,
                          show_progress: bool | None = None, return_exceptions: bool = False,
                          max_concurrency: int | None = None, **kwargs: Any
                          ) -> list[RetrievalResult] | list[RetrievalResult | Exception]: ...

    async def aquery_many(self: _Engine, queries: Iterable[str], *,
                          show_progress: bool | None = None, return_exceptions: bool = False,
                          max_concurrency: int | None = None, **kwargs: Any
                          ) -> list[RetrievalResult] | list[RetrievalResult | Exception]:
        """Concurrent :meth:`aquery` (at most ``max_concurrency`` questions at a time; None:
        all), with a progress bar (``show_progress``: this call's, else the engine's). A
        question that fails cancels the others and raises, its error noting which question
        it was; ``return_exceptions=True`` puts the error in its place and lets the others
        run. Cancelling the call cancels every question."""
        if max_concurrency is not None and (type(max_concurrency) is not int
                                            or max_concurrency < 1):
            raise ValueError(f"max_concurrency must be None or an int >= 1, not "
                             f"{max_concurrency!r}")
        shown = self.show_progress if show_progress is None else show_progress
        items, bar = _questions(queries, "aquery_many", shown)
        slots = asyncio.Semaphore(max_concurrency or max(len(items), 1))

        async def one(n: int, q: str) -> RetrievalResult | Exception:
            async with slots:
                try:
                    result: RetrievalResult | Exception = await self.aquery(q, **kwargs)
                except Exception as exc:
                    if not return_exceptions:
                        _name(exc, n, len(items), q)
                        raise
                    result = exc
            bar.update(1)
            return result

        with bar:
            tasks = [asyncio.ensure_future(one(n, q)) for n, q in enumerate(items, 1)]
            try:
                return list(await asyncio.gather(*tasks))
            except BaseException:  # one failed, or the call was cancelled: stop the others
                await cancel_all(tasks)
                raise
