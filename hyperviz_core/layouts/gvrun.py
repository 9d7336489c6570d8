"""Run a Graphviz layout engine and read back node positions, without loading unused plugins.

Every Graphviz process reads the installation's plugin configuration and, at start-up, loads
its text-layout plugin (pango, cairo, fontconfig): ~25 ms of a ~35 ms ``fdp`` run on a small
graph, spent on fonts for labels that our DOT source never has (nodes carry ``label=""`` and
no user text ever reaches Graphviz). :func:`run_layout` therefore points ``GVBINDIR`` at a
private directory that links only the plugins a layout needs (``core`` for the ``json0``
output, ``dot_layout``, ``neato_layout`` for ``fdp``/``sfdp``/``twopi``) and holds their
configuration (written by ``dot -c``). Positions are the same as with every plugin loaded
(the layouts never measure text). The directory is made once per process and removed at
exit. When it cannot be made (no ``dot`` on ``PATH``, an unknown installation layout, no
symlinks, ``GVBINDIR`` already set by the user) or a run with it fails, the run falls back to
Graphviz's own configuration, for the rest of the process.

Example:
    >>> pos = run_layout("graph { a -- b }", "fdp")
    >>> sorted(pos)
    ['a', 'b']
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import graphviz

__all__ = ["LEAN_PLUGINS", "GraphvizMissing", "lean_env", "require_dot", "run_layout"]

LEAN_PLUGINS = ("core", "dot_layout", "neato_layout")
"""The Graphviz plugins a layout run needs: JSON output and the layout engines."""

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {}


def _plugin_dir(dot: str) -> Path | None:
    """The installation's plugin directory (``config6*`` beside ``libgvplugin_core*``)."""
    prefix = Path(dot).resolve().parent.parent
    candidates = [prefix / "lib" / "graphviz", prefix / "lib64" / "graphviz",
                  *sorted(prefix.glob("lib/*/graphviz"))]
    for cand in candidates:
        if any(cand.glob("config*")) and any(cand.glob("*gvplugin_core*")):
            return cand
    return None


def _make_lean_dir() -> Path | None:
    """A temporary ``GVBINDIR`` with only :data:`LEAN_PLUGINS` (``None`` when not possible)."""
    dot = shutil.which("dot")
    if dot is None or os.name != "posix" or "GVBINDIR" in os.environ:
        return None
    src = _plugin_dir(dot)
    if src is None:
        return None
    tmp = Path(tempfile.mkdtemp(prefix="hyperviz-gv-"))
    atexit.register(shutil.rmtree, tmp, True)
    try:
        for name in LEAN_PLUGINS:
            libs = sorted(src.glob(f"*gvplugin_{name}.*"))
            if not libs:
                return None
            for lib in libs:
                (tmp / lib.name).symlink_to(lib)
        proc = subprocess.run([dot, "-c"], env={**os.environ, "GVBINDIR": str(tmp)},
                              capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0 or not any(tmp.glob("config*")):
        return None
    return tmp


def lean_env() -> dict[str, str] | None:
    """The environment for lean Graphviz runs (the current environment plus ``GVBINDIR``;
    the directory is made on first use), or ``None`` to use Graphviz's own configuration."""
    with _LOCK:
        if "dir" not in _STATE:
            _STATE["dir"] = _make_lean_dir()
        lean: Path | None = _STATE["dir"]
    return None if lean is None else {**os.environ, "GVBINDIR": str(lean)}


def _disable_lean() -> None:
    with _LOCK:
        _STATE["dir"] = None


class GraphvizMissing(graphviz.ExecutableNotFound):
    """The Graphviz binaries (``dot``) are not on ``PATH``: rendering needs them. A
    :class:`graphviz.ExecutableNotFound` whose message says what to install."""

    def __init__(self, args: Any) -> None:
        super().__init__(args)
        self.args = ("rendering needs the Graphviz binaries, and `dot` is not on PATH: "
                     "install Graphviz (apt-get install graphviz, brew install graphviz, "
                     "conda install graphviz) and check with `vizrag info`",)


def require_dot() -> None:
    """Raise :class:`GraphvizMissing` when ``dot`` is not on ``PATH`` (before long work
    whose rendering would fail at the end)."""
    if shutil.which("dot") is None:
        raise GraphvizMissing(["dot"])


def _pipe(source: bytes, engine: str, env: dict[str, str] | None) -> subprocess.CompletedProcess[
        bytes]:
    cmd = ["dot", f"-K{engine}", "-Tjson0"]
    try:
        return subprocess.run(cmd, input=source, capture_output=True, env=env, check=False)
    except FileNotFoundError as exc:
        raise GraphvizMissing(cmd) from exc


def run_layout(source: str, engine: str) -> dict[str, tuple[float, float]]:
    """Lay out DOT ``source`` with ``engine``; positions (points) by node name.

    Raises :class:`graphviz.ExecutableNotFound` without Graphviz and
    :class:`graphviz.CalledProcessError` when the engine fails (as ``graphviz.pipe`` does).
    """
    data = source.encode("utf-8")
    env = lean_env()
    proc = _pipe(data, engine, env)
    if env is not None and proc.returncode != 0:
        full = _pipe(data, engine, None)
        if full.returncode == 0:  # the lean set misses something here: stop using it
            _disable_lean()
        proc = full
    if proc.stderr:
        sys.stderr.write(proc.stderr.decode(getattr(sys.stderr, "encoding", None) or "utf-8",
                                            "replace"))
    if proc.returncode != 0:
        raise graphviz.CalledProcessError(proc.returncode, proc.args, proc.stdout, proc.stderr)
    doc: dict[str, Any] = json.loads(proc.stdout)
    out: dict[str, tuple[float, float]] = {}
    for obj in doc.get("objects", []):
        pos = obj.get("pos")
        if pos and "name" in obj:
            x, y = pos.split(",")[:2]
            out[str(obj["name"])] = (float(x), float(y))
    return out
