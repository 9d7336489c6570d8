"""Compound files (OLE, MS-CFB version 3) written byte by byte for the tests: olefile reads
them but writes none, and no Outlook is at hand to save an ``.msg`` file. Every stream must
be under 4,096 bytes, so each lives in the mini stream as the format requires."""

from __future__ import annotations

import struct
from pathlib import Path

_SECTOR, _MINI = 512, 64
_FREE, _END, _FAT_SECTOR, _NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def _chain(first: int, count: int) -> list[int]:
    """The FAT entries of ``count`` sectors from ``first`` on, one after the other."""
    return [first + i + 1 for i in range(count - 1)] + [_END] if count else []


def _entry(name: str, kind: int, child: int, right: int, start: int, size: int) -> bytes:
    raw = name.encode("utf-16-le") + b"\x00\x00"
    return (raw.ljust(64, b"\x00") + struct.pack("<HBBIII", len(raw), kind, 1, _NONE, right,
                                                  child)
            + bytes(16 + 4 + 16) + struct.pack("<IQ", start, size))


def write_compound(path: Path, streams: dict[str, bytes]) -> Path:
    """Write a compound file holding ``streams`` (``"storage/name"``: its bytes; storages
    made as named) to ``path``."""
    nodes: dict[str, list[str]] = {"": []}  # storage -> its children's paths
    for full in sorted(streams):
        parts = full.split("/")
        for depth in range(1, len(parts) + 1):
            parent, here = "/".join(parts[:depth - 1]), "/".join(parts[:depth])
            if here not in nodes.get(parent, []):
                nodes.setdefault(parent, []).append(here)
            if depth < len(parts):
                nodes.setdefault(here, [])
    order = ["", *sorted(p for p in {*streams, *nodes} if p)]
    ids = {p: i for i, p in enumerate(order)}
    mini = bytearray()
    mini_fat: list[int] = []
    placed: dict[str, tuple[int, int]] = {}
    for name in sorted(streams):
        data = streams[name]
        assert len(data) < 4096, f"{name}: a test stream must stay in the mini stream"
        count = -(-len(data) // _MINI)
        placed[name] = (len(mini) // _MINI if data else _END, len(data))
        mini_fat += _chain(len(mini) // _MINI, count)
        mini += data.ljust(count * _MINI, b"\x00")
    dir_sectors = -(-len(order) * 128 // _SECTOR)
    minifat_sectors = -(-len(mini_fat) * 4 // _SECTOR)
    mini_sectors = -(-len(mini) // _SECTOR)
    fat_sectors = 1
    while (fat_sectors + dir_sectors + minifat_sectors + mini_sectors) > fat_sectors * 128:
        fat_sectors += 1
    first_dir = fat_sectors
    first_minifat = first_dir + dir_sectors
    first_mini = first_minifat + minifat_sectors
    fat = ([_FAT_SECTOR] * fat_sectors + _chain(first_dir, dir_sectors)
           + _chain(first_minifat, minifat_sectors) + _chain(first_mini, mini_sectors))
    fat += [_FREE] * (fat_sectors * 128 - len(fat))
    entries = bytearray()
    for path_name in order:
        kids = nodes.get(path_name, [])
        child = ids[kids[0]] if kids else _NONE
        if path_name == "":
            entries += _entry("Root Entry", 5, child, _NONE,
                              first_mini if mini else _END, len(mini))
            continue
        parent = path_name.rpartition("/")[0]
        siblings = nodes[parent]
        at = siblings.index(path_name)
        right = ids[siblings[at + 1]] if at + 1 < len(siblings) else _NONE
        start, size = placed.get(path_name, (0, 0))
        kind = 2 if path_name in streams else 1
        entries += _entry(path_name.rpartition("/")[2], kind, child, right, start, size)
    entries = entries.ljust(dir_sectors * _SECTOR, b"\x00")
    header = (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(16)
              + struct.pack("<HHHHH6xIIIIIIIII", 0x3E, 3, 0xFFFE, 9, 6, 0, fat_sectors,
                            first_dir, 0, 4096, first_minifat if mini_fat else _END,
                            minifat_sectors, _END, 0))
    difat = list(range(fat_sectors)) + [_FREE] * (109 - fat_sectors)
    header += struct.pack("<109I", *difat)
    body = (struct.pack(f"<{len(fat)}I", *fat) + bytes(entries)
            + struct.pack(f"<{len(mini_fat)}I", *mini_fat).ljust(minifat_sectors * _SECTOR,
                                                                 b"\xff")
            + bytes(mini).ljust(mini_sectors * _SECTOR, b"\x00"))
    path.write_bytes(header + body)
    return path
