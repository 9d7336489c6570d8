"""``atomic_write_bytes`` (every export, rendering and probe file): links are followed and
special files written through, never replaced; errors name the user's path."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from hyperviz_core.atomic import atomic_write_bytes


def test_a_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "real" / "target.json"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    atomic_write_bytes(link, b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"


def test_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    atomic_write_bytes(fifo, b'{"a": 1}')
    reader.join(timeout=10)
    assert got == [b'{"a": 1}'] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_device_is_written_through_not_replaced() -> None:
    atomic_write_bytes("/dev/null", b"x" * 1000)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_directory_and_an_unwritable_folder_are_named(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(IsADirectoryError, match=str(tmp_path)):
        atomic_write_bytes(tmp_path, b"x")
    real = os.open

    def refuse(path: str, flags: int, mode: int = 0o777) -> int:
        if str(path).endswith(".tmp"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, flags, mode)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(PermissionError) as info:
        atomic_write_bytes(tmp_path / "a.json", b"x")
    assert info.value.filename == str(tmp_path / "a.json") and ".tmp" not in str(info.value)


def test_a_rendering_s_pair_is_kept_when_its_json_cannot_be_written(tmp_path: Path) -> None:
    """save() replaced the PNG and then failed on the JSON: a mismatched pair."""
    from hyperviz_core import HyperViz
    from hyperviz_core.testing import random_hypergraph

    first = HyperViz().render(random_hypergraph(8, 4, seed=1))
    first.save(tmp_path / "v.png")
    png = (tmp_path / "v.png").read_bytes()
    (tmp_path / "v.json").unlink()
    (tmp_path / "v.json" / "sub").mkdir(parents=True)  # a folder where the JSON goes
    second = HyperViz().render(random_hypergraph(9, 4, seed=2))
    with pytest.raises(IsADirectoryError, match=r"v\.json"):
        second.save(tmp_path / "v.png")
    assert (tmp_path / "v.png").read_bytes() == png
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    with pytest.raises(ValueError, match=r"writes a PNG: give a path ending in .png"):
        second.save(tmp_path / "v.jpg")
    second.save(tmp_path / "w.PNG")
    assert (tmp_path / "w.json").is_file()


def test_a_full_disk_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails for want of space (``os.write`` names no file) names the user's
    path: ``vizrag render --out v.png`` said only "[Errno 28] No space left on device"."""
    import errno
    import io

    class Full(io.BufferedWriter):
        def write(self, data: object) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r", *a, **k: Full(real(fd, "wb", 0)))
    target = tmp_path / "view.png"
    with pytest.raises(OSError) as err:
        atomic_write_bytes(target, b"png")
    assert err.value.errno == errno.ENOSPC and err.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []  # the temporary file is gone
