"""Answer generation (paper §4.2 step 6) and the listings shared with the locate prompt.

``A = MLLM(P_answer(q, V_rel, E_dif, sources), I_bot)``: the prompt lists the retrieved
entities and hyperedges by the visual IDs of the bottom rendering (``E#``/``H#``; every one
drawn is named, descriptions within :data:`LISTING_CHARS`) and every retrieved passage
(:class:`Answerer` ``max_sources`` caps them); the image I_bot goes along unless the mode is
text-only. Sync, async and
streaming variants; a model without a ``stream``/``astream`` method yields its whole answer
as one piece.

With no chat model there is no LLM answer: :func:`extractive_summary` picks the query-relevant
sentences of the top passages and labels them as such (``answer_kind="extractive"``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from ..unitext import truncate
from .citations import read_citations
from .extract.parse.fields import answer_text
from .prompts import DESCRIPTION_CHARS, Prompts, defuse, fence, id_number, theme_contexts
from .providers.offline import content_words
from .providers.protocols import ChatModel, reply_text
from .reasoning import ReasoningCut
from .result import RetrievalResult, SentPrompt, image_sha256
from .retrieve.lexical import cjk_token, marked, segmented, tokens
from .scripts import letters_alike
from .sentences import sentences

log = logging.getLogger(__name__)

__all__ = [
    "EXTRACTIVE_LABEL",
    "LISTING_CHARS",
    "Answerer",
    "answer_prompt",
    "extractive_summary",
    "knowledge_listings",
    "theme_contexts",
]

EXTRACTIVE_LABEL = (
    "Extractive summary (no language model configured; sentences quoted from the top "
    "passages):"
)

#: default character budget of the answer prompt's entity and hyperedge listings together
#: (:func:`knowledge_listings`): the source passages stay the main content
LISTING_CHARS = 3000


def _fold(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".")


def _described(text: str, given: dict[str, str], name: str = "") -> tuple[str, list[str]]:
    """``text`` without the sentences already ``given`` (sentence → the ID that gave it,
    which the description names instead: ``see E3``) or the line's own ``name``, cut to
    :data:`~.prompts.DESCRIPTION_CHARS`; and the sentences it holds (to record once it is
    written)."""
    keep: list[str] = []
    refs: list[str] = []
    held: list[str] = []
    for sent in sentences(str(text)):
        key, used = _fold(sent), sum(len(k) + 1 for k in keep)
        if key in given or key == _fold(name):
            refs += [given[key]] if key in given and given[key] not in refs else []
        elif used + min(len(sent), 40) <= DESCRIPTION_CHARS:  # whole, or cut to 40 or more
            keep.append(truncate(sent, DESCRIPTION_CHARS - used))
            held.append(key)
    see = f"see {', '.join(refs[:4])}" if refs else ""
    return " ".join(keep) + (f" ({see})" if keep and see else see), held


def _listing(items: Iterable[tuple[str | None, str, str, str]], given: dict[str, str],
             budget: int) -> tuple[list[str], int]:
    """Lines ``head: description`` of ``items`` (visual ID or None, head, description,
    name) within ``budget`` characters, and the budget left: an item with an ID is always
    named (without its description once the budget is spent), one without is left out
    then (counted on a last line). Descriptions already given refer to their ID."""
    out: list[str] = []
    dropped = 0
    for vid, head, text, name in items:
        desc, held = _described(text, given, name)
        line = f"{head}: {desc}" if desc else head
        if len(line) >= budget:
            if vid is None:
                dropped += 1
                continue
            line = head
        elif vid:
            given.update(dict.fromkeys(held, vid))
        out.append(line)
        budget -= len(line) + 1
    return out + ([f"(+{dropped} more, not listed)"] if dropped else []), budget


def knowledge_listings(result: RetrievalResult, budget: int = LISTING_CHARS
                       ) -> tuple[str, str]:
    """The answer prompt's entity listing (``E3 name (type): description``) and hyperedge
    listing (``H2 [E1, Ada Lovelace]: description``, members without an ID by name) of the
    bottom layer, drawn items (by ID) first. Every item with a visual ID is named; the
    descriptions and the items without an ID share ``budget`` characters (the hyperedges
    up to 2/3 of it first, the entities the rest); a description (sentence) given once is
    not repeated but referred to (``see H2``)."""
    names: dict[str, str] = {}
    for e in result.entities:
        names.setdefault(e.key, e.name)
    bottom = [e for e in result.entities if e.layer == "bottom"]
    bottom.sort(key=lambda e: (e.visual_id is None, id_number(e.visual_id or "E0"), -e.score,
                               e.key))
    ids = {e.key: e.visual_id for e in bottom if e.visual_id}
    edges = [h for h in result.hyperedges if h.kind == "relation"]
    edges.sort(key=lambda h: (h.visual_id is None, id_number(h.visual_id or "H0"), -h.score, h.id))
    given: dict[str, str] = {}
    heads = (" ".join(filter(None, (h.visual_id, "[" + ", ".join(
        ids.get(m) or names.get(m, m) for m in h.members) + "]"))) for h in edges)
    h_lines, left = _listing(((h.visual_id, head, h.description, "")
                              for h, head in zip(edges, heads, strict=True)), given,
                             budget * 2 // 3)
    e_lines, _ = _listing(((e.visual_id, f"{e.visual_id or ''} {e.name} ({e.type})".strip(),
                            e.description, e.name) for e in bottom), given,
                          budget - budget * 2 // 3 + left)
    return "\n".join(e_lines) or "(none)", "\n".join(h_lines) or "(none)"


def check_answer_options(max_sources: int | None, listing_chars: int) -> None:
    """Raise ValueError for an answer setting out of range."""
    if max_sources is not None and (type(max_sources) is not int or max_sources < 1):
        raise ValueError(f"max_sources must be None (every retrieved passage) or an int >= 1, "
                         f"not {max_sources!r}")
    if type(listing_chars) is not int or listing_chars < 0:
        raise ValueError(f"listing_chars must be an int >= 0, not {listing_chars!r}")


def answer_prompt(result: RetrievalResult, prompts: Prompts, *, image: bool,
                  max_sources: int | None = None, listing_chars: int = LISTING_CHARS) -> str:
    """P_answer filled from a retrieval result (IDs as in its bottom rendering): every
    retrieved passage (at most ``max_sources``; None: all, ``top_k``) and the listings of
    :func:`knowledge_listings` within ``listing_chars``. In ``naive`` mode (no entities nor
    hyperedges) the ``answer_passages`` template (passages only) is used, unless only
    ``answer`` was overridden."""
    check_answer_options(max_sources, listing_chars)
    sources = "\n\n".join(
        f"[{c.rank}] {defuse(c.title, one_line=True)}\n{fence(f'SOURCE {c.rank}', c.text)}"
        for c in result.chunks[:max_sources]
    ) or "(none)"
    entities, hyperedges = knowledge_listings(result, listing_chars)
    custom = prompts.model_fields_set
    bare = result.mode == "naive" and ("answer_passages" in custom or "answer" not in custom)
    return prompts.format(
        "answer_passages" if bare else "answer", image=image, query=result.query,
        entities=fence("ENTITIES", entities), hyperedges=fence("HYPEREDGES", hyperedges),
        sources=sources)


#: a passage is quoted when it scores at least this share of the top passage's score
_NEAR_TOP = 0.25


def _words(text: str) -> set[str]:
    """The words of ``text`` the extractive summary matches: its content words, and the
    BM25 pieces of its runs of a script written without spaces (Chinese, Thai, Khmer ...:
    :func:`~.retrieve.lexical.cjk_token`), which have no words to split. Hebrew and
    the Arabic script are read as BM25 reads them (:func:`~.scripts.letters_alike`)."""
    text = letters_alike(text)
    words = set(content_words(text))
    if segmented(text) or marked(text):  # (a word with combining marks: its BM25 token)
        words.update(t for t in tokens(text) if cjk_token(t) or marked(t))
    return words


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
    terms = _words(result.query)
    lines: list[str] = []
    quoted: set[str] = set()
    top = max((c.score for c in result.chunks), default=0.0)
    near = [c for c in result.chunks if c.score > 0 and c.score >= _NEAR_TOP * top]
    for chunk in near:
        if len(lines) == max_sentences:
            break
        names = {w for key in chunk.entities[:3] for w in _words(key)}
        best: tuple[float, int, str] | None = None
        for si, sent in enumerate(sentences(chunk.text)):
            words = _words(sent)
            if not words or sent.casefold() in quoted:
                continue
            score = len(words & terms) + 0.5 * len(words & names) - 0.001 * si
            if best is None or score > best[0]:
                best = (score, si, sent)
        if best is not None and best[0] > 0:  # shares a word with the question or its names
            quoted.add(best[2].casefold())
            lines.append(f"- {truncate(best[2], 300)} [{chunk.rank}]")
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
        # the start held back until a tag shows (reasoning before an unpaired </think> dropped)
        self.lead = ReasoningCut(active=self.hold > 0, limit=self.hold)

    def feed(self, piece: str) -> str:
        """What of ``piece`` (with what was held back) can be shown now."""
        text, out = self.held + self.lead.feed(piece), []
        self.held = ""
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
        tail = self.lead.flush()  # a start held back that no </think> ended: shown as it is
        shown = self.feed(tail) if tail else ""
        held, self.held = self.held, ""
        return shown + ("" if self.inside else held)


def _partial_tag(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that is a beginning of ``tag``."""
    low = text.lower()
    return next((n for n in range(min(len(tag) - 1, len(low)), 0, -1)
                 if tag.startswith(low[-n:])), 0)


class Answerer:
    """Generates answers from a :class:`RetrievalResult` with a chat/vision model."""

    def __init__(self, chat: ChatModel, prompts: Prompts | None = None,
                 max_sources: int | None = None, listing_chars: int = LISTING_CHARS) -> None:
        """``max_sources``: the most passages the prompt carries (None: every retrieved
        one, ``top_k``); ``listing_chars``: the character budget of the entity and hyperedge
        listings (:func:`knowledge_listings`)."""
        check_answer_options(max_sources, listing_chars)
        self.chat = chat
        self.prompts = prompts or Prompts()
        self.max_sources, self.listing_chars = max_sources, listing_chars

    def request(self, result: RetrievalResult) -> tuple[str, list[bytes]]:
        """The answer prompt and the images sent with it (I_bot unless text-only)."""
        visual = bool(result.settings.get("images", True))
        images = [result.bottom_view.png] if visual and result.bottom_view else []
        prompt = answer_prompt(result, self.prompts, image=bool(images),
                               max_sources=self.max_sources, listing_chars=self.listing_chars)
        return prompt, images

    def _record(self, result: RetrievalResult, prompt: str, images: list[bytes],
                answer: str) -> None:
        answer = reply_text(answer)
        result.prompts.append(SentPrompt(
            stage="answer", prompt=prompt, system=self.prompts.system_prompt(),
            images=[image_sha256(p) for p in images], response=answer))
        result.answer = answer_text(answer).strip()  # a reasoning model's <think> left out
        result.answer_kind = "llm"
        result.citations = read_citations(result.answer, result, ids=result.mode != "naive",
                                          carried=len(result.chunks[:self.max_sources]))
        if said := result.citations.warning():
            log.warning("%s", said)
            result.warnings.append(said)

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
