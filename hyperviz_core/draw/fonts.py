"""Fallback fonts for the characters the bundled DejaVu Sans lacks (Chinese, Japanese, Korean).

DejaVu Sans draws Latin, Greek, Cyrillic, Hebrew, Arabic and many symbols; it has no CJK
glyphs, so before this module a Chinese name came out as a row of boxes. Now a character
DejaVu does not have is drawn from the first installed scalable font that has it, in a fixed
order: known CJK families first (Noto Sans CJK, Source Han Sans, WenQuanYi, Droid Sans
Fallback, ...), then every other font by file path. The font list comes from fontconfig
(``fc-list``, once per process); without fontconfig or such a font the character stays a box,
as before. Characters DejaVu has are never affected, and the choice depends only on the
installed fonts (sorted paths, no set order), so a rendering is byte-identical on machines
with the same fonts. ``HYPERVIZ_FONT_FALLBACK=off`` turns the fallback off.

Install a CJK font on Debian/Ubuntu with ``apt-get install fonts-wqy-microhei`` (1.6 MB) or
``fonts-noto-cjk``.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from functools import lru_cache

from matplotlib.font_manager import get_font

__all__ = ["PREFERRED", "fallback_font", "system_fonts"]

_LOG = logging.getLogger(__name__)

#: substrings of font file names tried first, in this order (then every other font)
PREFERRED: tuple[str, ...] = (
    "notosanscjk", "sourcehansans", "wqy-microhei", "wqy-zenhei", "droidsansfallback",
    "notosans-", "notoserifcjk",
)

_SUFFIXES = (".ttf", ".otf", ".ttc")


def _rank(path: str) -> tuple[int, str]:
    name = os.path.basename(path).lower().replace(" ", "")
    hits = [i for i, key in enumerate(PREFERRED) if key in name]
    return (hits[0] if hits else len(PREFERRED), path)


@lru_cache(maxsize=1)
def system_fonts() -> tuple[str, ...]:
    """Installed scalable font files (fontconfig), preferred ones first; empty without
    ``fc-list`` or with ``HYPERVIZ_FONT_FALLBACK=off``."""
    if os.environ.get("HYPERVIZ_FONT_FALLBACK", "").lower() in ("off", "0", "false", "no"):
        return ()
    exe = shutil.which("fc-list")
    if exe is None:
        return ()
    try:
        out = subprocess.run([exe, "--format", "%{file}\\n", ":scalable=true"],
                             capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        _LOG.warning("fc-list failed (%s): no fallback fonts", exc)
        return ()
    files = sorted({line.strip() for line in out.splitlines()
                    if line.strip().lower().endswith(_SUFFIXES)})
    return tuple(sorted(files, key=_rank))


@lru_cache(maxsize=4096)
def fallback_font(ch: str) -> str | None:
    """The file of the first :func:`system_fonts` font with a glyph for ``ch``, or None."""
    code = ord(ch)
    for path in system_fonts():
        try:
            if get_font(path).get_char_index(code):
                return path
        except Exception:  # an unreadable font file: skip it
            continue
    return None
