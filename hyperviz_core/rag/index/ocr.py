"""Reading scanned pages (OCR): the text in a PDF page's images, with the ``ocr`` extra
(`pytesseract <https://pypi.org/project/pytesseract/>`_) and the Tesseract program
(``apt-get install tesseract-ocr``; other languages: ``tesseract-ocr-deu`` ...).

:mod:`.pdfs` asks :func:`ocr_languages` once per file and, for each page without a text
layer, :func:`scanned_text`. OCR runs by itself when both are installed; the environment
variable ``VIZRAG_OCR`` turns it off (``0``) or names the languages to read
(``eng+deu``: Tesseract's names, ``tesseract --list-langs``; the default is ``eng``).
A picture stored as JBIG2 (as many scanners store a black-and-white page) is decoded by
pypdf with the ``jbig2dec`` program (``apt-get install jbig2dec``; ``make ocr-deps``
installs both); without it such a page gives no text, and the file's reading logs a warning
saying so.

Tesseract's threads are bounded by the cores this process may use (``OMP_THREAD_LIMIT`` for
its process while any thread reads a page, unless the variable is set): unbounded, its
nested thread pools made a page six times slower on two cores (``benchmarks/ocr_bench.py``).

Example:
    >>> import os
    >>> os.environ["VIZRAG_OCR"] = "0"
    >>> ocr_languages() is None
    True
    >>> del os.environ["VIZRAG_OCR"]
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...extras import install_hint
from .errors import LoaderError
from .guards import printable

__all__ = ["OCR_ENV", "jbig2_missing", "ocr_languages", "ocr_missing", "scanned_text"]

#: the environment variable that turns OCR off (``0``) or names its languages
OCR_ENV = "VIZRAG_OCR"
#: the OpenMP variable that bounds Tesseract's threads
THREADS_ENV = "OMP_THREAD_LIMIT"
_OFF = frozenset({"0", "off", "no", "false"})
_ON = frozenset({"", "1", "on", "yes", "true", "auto"})
#: an image narrower or lower than this many pixels is no scanned page (an icon, a rule)
MIN_SIDE = 200


def ocr_missing() -> str | None:
    """What OCR needs that is not installed here, with how to install it, or None."""
    if importlib.util.find_spec("pytesseract") is None:
        return f"the 'ocr' extra ({install_hint('ocr')}) and the tesseract program"
    if shutil.which("tesseract") is None:
        return "the tesseract program (apt-get install tesseract-ocr)"
    return None


def ocr_languages() -> str | None:
    """The languages scanned pages are read in (``eng``, ``eng+deu``), or None when OCR
    is turned off (``VIZRAG_OCR=0``) or cannot run here (:func:`ocr_missing`)."""
    wanted = os.environ.get(OCR_ENV, "").strip()
    if wanted.lower() in _OFF or ocr_missing() is not None:
        return None
    return "eng" if wanted.lower() in _ON else wanted


def jbig2_missing() -> str | None:
    """How to install the JBIG2 decoder pypdf runs for such pictures (many scanners store a
    black-and-white page as one), when it is missing; else None."""
    return None if shutil.which("jbig2dec") else "apt-get install jbig2dec"


def _skipped(exc: Exception, skipped: set[str]) -> None:
    """Add ``"jbig2dec"`` to ``skipped`` when ``exc`` is pypdf's missing JBIG2 decoder."""
    if type(exc).__name__ == "DependencyError" and "jbig2dec" in str(exc):
        skipped.add("jbig2dec")


def _images(page: Any, skipped: set[str]) -> Iterator[Any]:
    """The page's images (PIL images) large enough to be a scan, in order; an image pypdf
    cannot decode (JBIG2 without its decoder: ``"jbig2dec"`` added to ``skipped``, a
    damaged stream) is skipped."""
    try:
        found = list(page.images)
    except Exception as exc:  # an untrusted file: a page whose images cannot be listed
        _skipped(exc, skipped)
        return
    for item in found:
        try:
            image = item.image
        except Exception as exc:  # an untrusted file: one undecodable image is skipped
            _skipped(exc, skipped)
            continue
        if image is not None and min(image.size) >= MIN_SIDE:
            yield image


def scanned_text(page: Any, languages: str, path: Path, skipped: set[str] | None = None
                 ) -> str:
    """The text Tesseract reads in the images of a PDF ``page`` (pypdf's), in order, a blank
    line between two images; a :class:`LoaderError` naming ``path`` when Tesseract fails
    (a language it does not have). What kept a picture from being read is added to
    ``skipped`` (``"jbig2dec"``: the JBIG2 decoder is missing)."""
    pytesseract: Any = importlib.import_module("pytesseract")
    texts = []
    for image in _images(page, set() if skipped is None else skipped):
        try:
            with _BOUND.held():
                texts.append(pytesseract.image_to_string(image, lang=languages).strip())
        except pytesseract.TesseractError as exc:
            raise LoaderError(f"{printable(str(path))}: OCR in {languages!r} failed "
                              f"({printable(str(exc.message))[:200]}); {OCR_ENV} names "
                              "languages tesseract --list-langs lists") from None
    return "\n\n".join(t for t in texts if t)


class _ThreadBound:
    """``OMP_THREAD_LIMIT`` = the cores this process may use, in the environment pytesseract
    starts Tesseract with, while any thread reads a page (:meth:`held`), unless it was set
    already; given back when the last such read ends. Counted under a lock, so a read in one
    thread never gives the variable back while another thread's read still needs it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reading = 0
        self._ours = False

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._reading == 0 and THREADS_ENV not in os.environ:
                os.environ[THREADS_ENV] = str(_usable_cores())
                self._ours = True
            self._reading += 1
        try:
            yield
        finally:
            with self._lock:
                self._reading -= 1
                if self._reading == 0 and self._ours:
                    os.environ.pop(THREADS_ENV, None)
                    self._ours = False


def _usable_cores() -> int:
    """The cores this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_BOUND = _ThreadBound()
