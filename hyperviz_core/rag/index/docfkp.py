"""The property pages of a Word 97-2003 document (``.doc``): what :mod:`.docparas`
(paragraph properties) and :mod:`.docchars` (character properties) read.

MS-DOC stores properties in 512-byte pages of the ``WordDocument`` stream (``FKP``\\ s),
which a ``PlcBte`` of the table stream names; each page lists runs of stream offsets (its
last byte their count), each run with its properties: a list of ``sprm``\\ s, each an id and
an operand whose size the id's top three bits give (:func:`sprms`). :func:`fkp_runs` walks
the pages and gives each run's (start, end, properties). :func:`plc_cps` reads the
character positions of the other lists of the table stream (``PLC``\\ s: notes, sections,
headers).

Example:
    >>> list(sprms(bytes([0x16, 0x24, 0x01, 0x00, 0x08, 0x81])))
    [(9238, b'\\x01'), (2048, b'\\x81')]
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

__all__ = ["fkp_runs", "plc_cps", "sprms"]

PAGE = 512
_TABLE_DEF = 0xD608  # sprmTDefTable: a two-byte size
#: the operand's size by the sprm's ``spra`` (its top three bits); 6: the size comes first
_OPERAND = {0: 1, 1: 1, 2: 2, 3: 4, 4: 2, 5: 2, 7: 3}


def sprms(grpprl: bytes) -> Iterator[tuple[int, bytes]]:
    """(id, operand) of each property in ``grpprl``, in order (an operand cut short by the
    list's end as far as it goes)."""
    at = 0
    while at + 2 <= len(grpprl):
        sprm = int.from_bytes(grpprl[at:at + 2], "little")
        at += 2
        size = _OPERAND.get(sprm >> 13)
        if size is None:  # variable: the size comes first
            if sprm == _TABLE_DEF:
                size = 2 + int.from_bytes(grpprl[at:at + 2], "little") - 1
            else:
                size = 1 + (grpprl[at] if at < len(grpprl) else 0)
        yield sprm, grpprl[at:at + size]
        at += size


def fkp_runs(word: bytes, plc: bytes, entry: int) -> Iterator[tuple[int, int, bytes, int]]:
    """(start, end, page, offset of the run's properties in the page: 0 for none) of each
    run of the pages the ``PlcBte`` ``plc`` names, page by page; ``entry``: the size of a
    run's entry after the offsets (1 for character pages, 13 for paragraph pages). A page
    past the stream's end is a :class:`ValueError`."""
    count = (len(plc) - 4) // 8
    pages = struct.unpack_from(f"<{count}I", plc, 4 * (count + 1)) if count > 0 else ()
    for pn in pages:
        start = (pn & 0x3FFFFF) * PAGE
        page = word[start:start + PAGE]
        if len(page) < PAGE:
            raise ValueError("a page past the stream's end")
        crun = page[-1]
        fcs = struct.unpack_from(f"<{crun + 1}I", page, 0)
        for i in range(crun):
            yield fcs[i], fcs[i + 1], page, page[4 * (crun + 1) + entry * i] * 2


def plc_cps(table: bytes, pair: tuple[int, int], data: int) -> list[int]:
    """The character positions of the PLC at ``pair`` (offset, size) in ``table``, each
    entry ``data`` bytes of data after them, which start at the offset plus four bytes a
    position ([] when the pair is empty or past the end)."""
    at, size = pair
    if size < 4 or at + size > len(table):
        return []
    count = (size - 4) // (4 + data)
    return list(struct.unpack_from(f"<{count + 1}i", table, at))
