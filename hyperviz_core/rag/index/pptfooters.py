"""The footers and dates of a PowerPoint 97-2003 deck's slides (MS-PPT), which a slide shows
from its headers-and-footers container (``SlideHeadersFootersContainer``: its own, else the
document's for slides), not from its text: :class:`SlideFurniture`.

The container's atom says what a slide shows (``fHasFooter``; ``fHasDate`` with
``fHasUserDate`` for a fixed date, not ``fHasTodayDate``, the day the deck is opened), and
its strings the footer's and the date's text. A footer or a date is shown on the first slide
it is on and not again, as a ``.pptx`` deck's (:mod:`.slides`); a slide number gives no text.
"""

from __future__ import annotations

import struct

from .furniture import Once
from .pptrecords import Record, children

__all__ = ["SlideFurniture"]

_CONTAINER, _ATOM, _STRING = 0x0FD9, 0x0FDA, 0x0FBA
_SLIDES = 3  # the instance of the document's container for slides
_HAS_DATE, _USER_DATE, _HAS_FOOTER = 0x01, 0x04, 0x20
_DATE_TEXT, _FOOTER_TEXT = 0, 2  # the instances of the strings


def _container(data: bytes, parent: Record, instance: int | None = None) -> Record | None:
    """The headers-and-footers container directly in ``parent`` (of ``instance``), if any."""
    return next((rec for rec in children(data, parent) if rec.type == _CONTAINER
                 and rec.container and instance in (None, rec.instance)), None)


def _texts(data: bytes, container: Record) -> list[str]:
    """The footer's and the fixed date's text a container shows, in that order."""
    flags = 0
    strings: dict[int, str] = {}
    for rec in children(data, container):
        if rec.type == _ATOM and rec.end - rec.start >= 4:
            flags = struct.unpack_from("<H", data, rec.start + 2)[0]
        elif rec.type == _STRING:
            strings[rec.instance] = data[rec.start:rec.end].decode("utf-16-le", "replace")
    shown = [strings.get(_FOOTER_TEXT, "") if flags & _HAS_FOOTER else "",
             strings.get(_DATE_TEXT, "") if flags & _HAS_DATE and flags & _USER_DATE else ""]
    return [" ".join(text.split()) for text in shown if text.strip()]


class SlideFurniture:
    """The footers and dates of a deck's slides, each shown once: ``data`` the
    ``PowerPoint Document`` stream, ``document`` its document container."""

    def __init__(self, data: bytes, document: Record) -> None:
        self._data = data
        self._default = _container(data, document, _SLIDES)
        self._once = Once()

    def of(self, slide: Record) -> list[str]:
        """The footer and date of the slide container ``slide`` not shown before."""
        container = _container(self._data, slide) or self._default
        texts = _texts(self._data, container) if container is not None else []
        return [shown for text in texts for shown in self._once(text)]
