"""Asking a vision model (the engine's ``ChatModel`` protocol) the probe questions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..rag import as_provider_error
from .types import Probe, ProbeAnswer

__all__ = ["SYSTEM", "answer_or_error", "ask_probes", "ask_probes_inline", "probe_prompt"]

SYSTEM = (
    "You read hypergraph drawings. Entities are circles labelled E# (their names may be "
    "printed beside them). Hyperedges are labelled H#: in set views a coloured region around "
    "exactly its member entities, in induced views a square node joined to each member by a "
    "dashed line. When there are two panels, both show the same hypergraph."
)


def probe_prompt(probe: Probe) -> str:
    """The user prompt of a probe (the question and the reply format)."""
    return (f"{probe.question}\nLook at the image only. Reply with a JSON object "
            '{"answer": ["ID", ...]} listing the IDs, nothing else.')


def ask_probes(
    probes: Sequence[Probe], base: str | Path, model: Any, *, progress: bool = True,
) -> list[ProbeAnswer]:
    """One ``model.complete(prompt, images=[png], system=..., json_mode=True)`` per probe
    (paths relative to ``base``). A provider failure is recorded as an answer with an
    ``error`` (not graded); any other exception propagates."""
    root = Path(base)
    items: Any = probes
    if progress:
        from tqdm import tqdm

        items = tqdm(probes, desc="asking", unit="probe")
    return [_ask_one(p, (root / p.image).read_bytes(), model) for p in items]


def ask_probes_inline(
    probes: Sequence[Probe], images: dict[str, tuple[bytes, Any]], model: Any,
) -> list[ProbeAnswer]:
    """:func:`ask_probes` on in-memory images (``images[probe.id] = (png, export)``)."""
    return [_ask_one(p, images[p.id][0], model) for p in probes]


def answer_or_error(probe: Probe, model: Any, call: Callable[[], Any]) -> ProbeAnswer:
    """The answer to ``probe`` ``call()`` returns, or one with ``error`` set when it raised a
    provider error (:class:`~hyperviz_core.rag.ProviderError`, or an SDK/framework exception
    that :func:`~hyperviz_core.rag.as_provider_error` maps to one); other exceptions
    propagate. Either records the probe's question (grading checks it)."""
    name = str(getattr(model, "model_name", type(model).__name__))
    try:
        raw = str(call())
    except Exception as exc:
        err = as_provider_error(exc)
        if err is None:  # a bug, not a failed call
            raise
        return ProbeAnswer(id=probe.id, answer=[], model=name, question=probe.question,
                           error=" ".join(str(err).split())[:300] or type(exc).__name__)
    return ProbeAnswer(id=probe.id, answer=raw, model=name, raw=raw, question=probe.question)


def _ask_one(p: Probe, png: bytes, model: Any) -> ProbeAnswer:
    return answer_or_error(p, model, lambda: model.complete(
        probe_prompt(p), images=[png], system=SYSTEM, json_mode=True))
