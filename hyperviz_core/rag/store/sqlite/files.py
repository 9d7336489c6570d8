"""The entries a SQLite store file has in its folder: the database, SQLite's write-ahead log
and shared memory, and the folder of persisted ANN indexes (:mod:`.ann_files`).

Example:
    >>> from pathlib import Path
    >>> for p, folder in store_entries(Path("s/vizrag.sqlite")).items():
    ...     print(p.name, "folder" if folder else "file")
    vizrag.sqlite file
    vizrag.sqlite-wal file
    vizrag.sqlite-shm file
    vizrag.ann folder
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ann_dir", "log_files", "store_entries"]


def log_files(path: Path) -> tuple[Path, Path]:
    """The write-ahead log and shared-memory files of the store file ``path``."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def ann_dir(path: Path) -> Path:
    """The folder of the persisted ANN indexes of the store file ``path``."""
    return path.with_name(f"{path.stem}.ann")


def store_entries(path: Path) -> dict[Path, bool]:
    """Every entry the store file ``path`` may have in its folder, each with whether it is
    a folder."""
    return {path: False, **dict.fromkeys(log_files(path), False), ann_dir(path): True}
