"""Answer generation (paper §4.2 step 6) and the listings shared with the locate prompt.

``A = MLLM(P_answer(q, V_rel, E_dif, sources), I_bot)``: the prompt lists the retrieved
entities and hyperedges by the visual IDs of the bottom rendering (``E#``/``H#``) and the top
source passages; the image I_bot goes along unless the mode is text-only. Sync, async and
streaming variants; a model without a ``stream``/``astream`` method yields its whole answer
as one piece.

With no chat model there is no LLM answer: :func:`extractive_summary` picks the query-relevant
sentences of the top passages and labels them as such (``answer_kind="extractive"``).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any

from ..idmap import IdMap
from ..model import Hypergraph
from .extract.parse.fields import answer_text
from .prompts import Prompts, defuse, fence
from .providers.offline import content_words
from .providers.protocols import ChatModel, reply_text
from .reasoning import reasoning_end
from .result import RetrievalResult, RetrievedEntity, RetrievedHyperedge, SentPrompt, image_sha256

__all__ = [
    "EXTRACTIVE_LABEL",
    "Answerer",
    "answer_prompt",
    "entity_listing",
    "extractive_summary",
    "hyperedge_listing",
    "theme_contexts",
]

EXTRACTIVE_LABEL = (
    "Extractive summary (no language model configured; sentences quoted from the top "
    "passages):"
)
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


def _sentences(text: str) -> list[str]:
    """The sentences of a passage, white space collapsed; Markdown heading lines (``# ...``)
    are titles, not sentences, and are left out rather than glued to the next sentence.

    >>> _sentences("# Hello Love (song)\\n\\nHello Love is a 1974 single. It charted.")
    ['Hello Love is a 1974 single.', 'It charted.']
    """
    body = " ".join(line for line in text.splitlines() if not _HEADING.match(line))
    return _SENT.split(" ".join(body.split()))
_DESC = 240


def _cut(text: str, n: int = _DESC) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def entity_listing(entities: Iterable[RetrievedEntity], limit: int = 40) -> str:
    """``E3 name (type): description`` per entity that has a visual ID (others by name)."""
    lines = []
    for e in list(entities)[:limit]:
        head = f"{e.visual_id} {e.name}" if e.visual_id else e.name
        desc = _cut(e.description)
        lines.append(f"{head} ({e.type})" + (f": {desc}" if desc else ""))
    return "\n".join(lines) or "(none)"


def hyperedge_listing(
    hyperedges: Iterable[RetrievedHyperedge], entity_ids: dict[str, str], limit: int = 30
) -> str:
    """``H2 [E1, E3]: description`` per hyperedge; members without an ID by key."""
    lines = []
    for h in list(hyperedges)[:limit]:
        members = ", ".join(entity_ids.get(m, m) for m in h.members)
        head = f"{h.visual_id} " if h.visual_id else ""
        lines.append(f"{head}[{members}]: {_cut(h.description)}")
    return "\n".join(lines) or "(none)"


def theme_contexts(
    hg: Hypergraph, theme_ids: Sequence[str], id_map: IdMap, limit: int = 12
) -> str:
    """Locate-prompt listing of the retrieved themes (``H#``) and their entities (``E#``).

    Themes or entities the rendering pruned keep their name but get no ID.
    """
    lines: list[str] = []
    shown: list[str] = []
    for hid in theme_ids[:limit]:
        if hid not in hg.hyperedges:
            continue
        edge = hg.hyperedges[hid]
        members = []
        for key in edge.members:
            ent = hg.entities.get(key)
            name = ent.name if ent else key
            vid = id_map.entities.get(key)
            members.append(f"{vid} {name}" if vid else name)
            if vid and key not in shown:
                shown.append(key)
        head = id_map.hyperedges.get(hid, "theme")
        lines.append(f"{head}: {_cut(edge.description, 160)} — entities: {', '.join(members)}")
    extra = [k for k in sorted(id_map.entities, key=lambda k: _num(id_map.entities[k]))
             if k not in shown and k in hg.entities]
    if extra:
        lines.append("Other entities in the drawing: " + ", ".join(
            f"{id_map.entities[k]} {hg.entities[k].name}" for k in extra[:40]))
    return fence("THEMES", "\n".join(lines) or "(none)")


def _num(visual_id: str) -> int:
    return int(visual_id[1:]) if visual_id[1:].isdigit() else 0


def answer_prompt(result: RetrievalResult, prompts: Prompts, *, image: bool,
                  max_sources: int = 5) -> str:
    """P_answer filled from a retrieval result (IDs as in its bottom rendering)."""
    ids = {e.key: e.visual_id for e in result.entities if e.visual_id and e.layer == "bottom"}
    bottom = [e for e in result.entities if e.layer == "bottom"]
    bottom.sort(key=lambda e: (e.visual_id is None, _num(e.visual_id or "E0"), -e.score, e.key))
    edges = [h for h in result.hyperedges if h.kind == "relation"]
    edges.sort(key=lambda h: (h.visual_id is None, _num(h.visual_id or "H0"), -h.score, h.id))
    sources = "\n\n".join(
        f"[{c.rank}] {defuse(c.title, one_line=True)}\n{fence(f'SOURCE {c.rank}', c.text)}"
        for c in result.chunks[:max_sources]
    ) or "(none)"
    return prompts.format(
        "answer", image=image, query=result.query,
        entities=fence("ENTITIES", entity_listing(bottom)),
        hyperedges=fence("HYPEREDGES", hyperedge_listing(edges, ids)), sources=sources,
    )


#: a passage is quoted when it scores at least this share of the top passage's score
_NEAR_TOP = 0.25


def extractive_summary(result: RetrievalResult, *, max_sentences: int = 3) -> str:
    """The best sentence of each of the top passages (query-term overlap, then the
    passage's supporting entities), labelled as an extractive summary — one sentence per
    passage so that every hop of a multi-hop chain can show up. Passages nothing of the
    question matched (:attr:`~.result.RetrievalResult.unmatched`), that scored 0 or below a
    quarter of the top passage's score, are not quoted, nor a sentence twice (two copies of
    one text), nor a sentence that shares no word with the question or the passage's
    supporting entities."""
    if result.unmatched:
        return f"{EXTRACTIVE_LABEL}\n(no passage matched the question)"
    terms = set(content_words(result.query))
    lines: list[str] = []
    quoted: set[str] = set()
    top = max((c.score for c in result.chunks), default=0.0)
    near = [c for c in result.chunks if c.score > 0 and c.score >= _NEAR_TOP * top]
    for chunk in near:
        if len(lines) == max_sentences:
            break
        names = {w for key in chunk.entities[:3] for w in content_words(key)}
        best: tuple[float, int, str] | None = None
        for si, sent in enumerate(_sentences(chunk.text)):
            words = set(content_words(sent))
            if not words or sent.casefold() in quoted:
                continue
            score = len(words & terms) + 0.5 * len(words & names) - 0.001 * si
            if best is None or score > best[0]:
                best = (score, si, sent)
        if best is not None and best[0] > 0:  # shares a word with the question or its names
            quoted.add(best[2].casefold())
            lines.append(f"- {_cut(best[2], 300)} [{chunk.rank}]")
    if not lines:
        return f"{EXTRACTIVE_LABEL}\n" + ("(no passages retrieved)" if not result.chunks else
                                         "(no retrieved passage shares a word with the question)")
    return EXTRACTIVE_LABEL + "\n" + "\n".join(lines)


class ThinkFilter:
    """A streamed answer without a reasoning model's ``<think>...</think>`` blocks: feed it
    the pieces as they come; a tag split across pieces is held back until it is whole.

    A reasoning model whose chat template opens ``<think>`` in the prompt (DeepSeek-R1, QwQ
    served without a reasoning parser) streams its reasoning, then an unpaired ``</think>``.
    With ``hold`` > 0 (default :attr:`HOLD`, 0) the start of a stream is held back until a
    tag shows, the stream ends or ``hold`` characters are held, and text before an unpaired
    leading ``</think>`` (no ``<think>`` before it) is dropped; with 0 the pieces are shown
    as they come (the built-in :class:`~hyperviz_core.rag.OpenAIChatModel` drops that
    reasoning itself before it streams). The recorded answer drops it either way.

    >>> f = ThinkFilter()
    >>> [f.feed(p) for p in ["<thi", "nk>plan</th", "ink>Ada", " wrote [1]."]] + [f.flush()]
    ['', '', 'Ada', ' wrote [1].', '']
    >>> f = ThinkFilter(hold=4096)
    >>> [f.feed(p) for p in ["plan", "</think>", "Ada"]] + [f.flush()]
    ['', '', 'Ada', '']
    """

    OPEN, CLOSE = "<think>", "</think>"
    #: characters held at the start of a stream while an unpaired ``</think>`` may come (0:
    #: none, every piece is shown at once; set it for a model that opens ``<think>`` in its
    #: prompt and streams through a wrapper of its own)
    HOLD = 0

    def __init__(self, hold: int | None = None) -> None:
        self.held, self.inside = "", False
        self.hold = self.HOLD if hold is None else max(0, hold)
        self.leading = self.hold > 0  # no tag seen yet: the start is held back

    def _lead(self, text: str) -> str | None:
        """While the start is held: the text to go on with once a tag shows (``None``: keep
        holding ``text``)."""
        end = reasoning_end(text)  # reasoning, then an unpaired </think> ending its line
        if end >= 0:
            self.leading = False
            return text[end:]
        if self.OPEN in text.lower() or len(text) >= self.hold:
            self.leading = False
            return text
        return None

    def feed(self, piece: str) -> str:
        """What of ``piece`` (with what was held back) can be shown now."""
        text, out = self.held + piece, []
        self.held = ""
        if self.leading:
            rest = self._lead(text)
            if rest is None:
                self.held = text
                return ""
            text = rest
        while text:
            tag = self.CLOSE if self.inside else self.OPEN
            at = text.lower().find(tag)
            if at < 0:
                keep = _partial_tag(text, tag)  # a tag may be starting at the end
                if not self.inside:
                    out.append(text[: len(text) - keep])
                self.held = text[len(text) - keep:]
                break
            if not self.inside:
                out.append(text[:at])
            text, self.inside = text[at + len(tag):], not self.inside
        return "".join(out)

    def flush(self) -> str:
        """The end of the stream: text held back that turned out to be no tag (or no
        reasoning: a start held back that no ``</think>`` ended)."""
        held, self.held = self.held, ""
        if self.leading:
            self.leading = False
            return self.feed(held) + self.flush() if held else ""
        return "" if self.inside else held


def _partial_tag(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that is a beginning of ``tag``."""
    low = text.lower()
    return next((n for n in range(min(len(tag) - 1, len(low)), 0, -1)
                 if tag.startswith(low[-n:])), 0)


class Answerer:
    """Generates answers from a :class:`RetrievalResult` with a chat/vision model."""

    def __init__(self, chat: ChatModel, prompts: Prompts | None = None,
                 max_sources: int = 5) -> None:
        self.chat = chat
        self.prompts = prompts or Prompts()
        self.max_sources = max_sources

    def request(self, result: RetrievalResult) -> tuple[str, list[bytes]]:
        """The answer prompt and the images sent with it (I_bot unless text-only)."""
        visual = bool(result.settings.get("images", True))
        images = [result.bottom_view.png] if visual and result.bottom_view else []
        prompt = answer_prompt(result, self.prompts, image=bool(images),
                               max_sources=self.max_sources)
        return prompt, images

    def _record(self, result: RetrievalResult, prompt: str, images: list[bytes],
                answer: str) -> None:
        answer = reply_text(answer)
        result.prompts.append(SentPrompt(
            stage="answer", prompt=prompt, system=self.prompts.system_prompt(),
            images=[image_sha256(p) for p in images], response=answer))
        result.answer = answer_text(answer).strip()  # a reasoning model's <think> left out
        result.answer_kind = "llm"

    def answer(self, result: RetrievalResult,
               request: tuple[str, list[bytes]] | None = None) -> str:
        """Fill ``result.answer`` (and its prompt record) and return the answer
        (``request``: the :meth:`request` already built for ``result``)."""
        prompt, images = request or self.request(result)
        text = self.chat.complete(prompt, images=images, system=self.prompts.system_prompt())
        self._record(result, prompt, images, text)
        return result.answer or ""

    async def aanswer(self, result: RetrievalResult,
                      request: tuple[str, list[bytes]] | None = None) -> str:
        """Async :meth:`answer`."""
        prompt, images = request or self.request(result)
        text = await self.chat.acomplete(prompt, images=images,
                                         system=self.prompts.system_prompt())
        self._record(result, prompt, images, text)
        return result.answer or ""

    def stream(self, result: RetrievalResult,
               request: tuple[str, list[bytes]] | None = None) -> Iterator[str]:
        """Yield the answer in pieces (one piece for models that cannot stream;
        ``request``: the :meth:`request` already built for ``result``)."""
        prompt, images = request or self.request(result)
        system = self.prompts.system_prompt()
        streamer: Any = getattr(self.chat, "stream", None)
        pieces: list[str] = []
        if callable(streamer):
            shown = ThinkFilter()
            for piece in streamer(prompt, images=images, system=system):
                pieces.append(str(piece))
                if out := shown.feed(str(piece)):
                    yield out
            if out := shown.flush():
                yield out
        else:
            whole = self.chat.complete(prompt, images=images, system=system)
            pieces.append(whole)
            yield answer_text(whole)
        self._record(result, prompt, images, "".join(pieces))

    async def astream(self, result: RetrievalResult,
                      request: tuple[str, list[bytes]] | None = None) -> AsyncIterator[str]:
        """Async :meth:`stream`."""
        prompt, images = request or self.request(result)
        system = self.prompts.system_prompt()
        streamer: Any = getattr(self.chat, "astream", None)
        pieces: list[str] = []
        if callable(streamer):
            shown = ThinkFilter()
            async for piece in streamer(prompt, images=images, system=system):
                pieces.append(str(piece))
                if out := shown.feed(str(piece)):
                    yield out
            if out := shown.flush():
                yield out
        else:
            whole = await self.chat.acomplete(prompt, images=images, system=system)
            pieces.append(whole)
            yield answer_text(whole)
        self._record(result, prompt, images, "".join(pieces))
