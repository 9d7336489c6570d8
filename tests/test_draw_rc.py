"""Pictures do not follow the host's matplotlib settings, and leave them as they were.

A ``matplotlibrc`` in the working directory, ``plt.style.use("classic")`` or ``plt.xkcd()``
(``path.sketch``) in the host application used to change the PNG (up to a quarter of its
pixels) and the SVG.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import matplotlib.style
import pytest

from hyperviz_core import HyperViz
from hyperviz_core.testing import random_hypergraph

HOSTILE = {"path.sketch": (1.0, 100.0, 2.0), "patch.antialiased": False,
           "lines.antialiased": False, "lines.scale_dashes": False, "font.stretch": "condensed",
           "lines.linewidth": 7.0, "patch.linewidth": 5.0, "text.antialiased": False,
           "font.style": "italic", "font.weight": "bold", "font.variant": "small-caps"}


def _pictures() -> tuple[bytes, bytes]:
    r = HyperViz().render(random_hypergraph(10, 5, seed=3))
    return r.png, r.to_svg()


def test_host_settings_change_no_byte_and_are_restored() -> None:
    import hyperviz_core.draw.text as text

    png, svg = _pictures()
    text.font.cache_clear()  # fonts and glyphs first made under the host's italic were
    text._glyph.cache_clear()  # italic, and cached so for the rest of the process
    with matplotlib.rc_context({"font.style": "italic"}):
        assert _pictures() == (png, svg)
    assert _pictures() == (png, svg)
    for settings in (HOSTILE, "classic"):
        with (matplotlib.rc_context(settings) if isinstance(settings, dict)
              else matplotlib.style.context(settings)):
            before = dict(matplotlib.rcParams)
            assert _pictures() == (png, svg), settings
            assert dict(matplotlib.rcParams) == before  # the host's settings stay


def test_a_matplotlibrc_in_the_working_directory_changes_nothing(tmp_path: Path) -> None:
    code = ("import sys\nfrom hyperviz_core import HyperViz\n"
            "from hyperviz_core.testing import random_hypergraph\n"
            "sys.stdout.buffer.write(HyperViz().render(random_hypergraph(10, 5, seed=3)).png)\n")
    plain, rc = tmp_path / "plain", tmp_path / "rc"
    plain.mkdir()
    rc.mkdir()
    (rc / "matplotlibrc").write_text("path.sketch: 1, 100, 2\npatch.antialiased: False\n"
                                     "lines.linewidth: 9\n", encoding="utf-8")
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    outs = [subprocess.run([sys.executable, "-c", code], cwd=d, capture_output=True,
                           check=True, env=env, timeout=120).stdout for d in (plain, rc)]
    assert outs[0][:8] == b"\x89PNG\r\n\x1a\n" and outs[0] == outs[1]


def test_default_settings_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """With matplotlib's defaults (the common case) a drawing touches no global setting and
    takes no lock, so a host thread plotting meanwhile is never disturbed."""
    import hyperviz_core.draw.rc as rc

    swaps: list[object] = []
    real = matplotlib.rc_context
    with matplotlib.style.context("default"):  # (another test may have left a setting)
        monkeypatch.setattr(rc.matplotlib, "rc_context",
                            lambda settings=None: swaps.append(settings) or real(settings))
        _pictures()
    assert [s for s in swaps if s and set(s) - {"svg.hashsalt", "svg.id", "svg.fonttype",
                                                  "svg.image_inline"}] == []
    with matplotlib.rc_context({"lines.linewidth": 3.0}):
        _pictures()
    # only what differs is set, for the drawing (another test's HyperNetX drawing may have
    # left figure.figsize behind)
    assert any(s and s.get("lines.linewidth") == 1.5 and "lines.antialiased" not in s
               for s in swaps)
