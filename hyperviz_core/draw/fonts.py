"""Fallback fonts for the characters the bundled DejaVu Sans lacks (Chinese, Japanese, Korean).

DejaVu Sans draws Latin, Greek, Cyrillic, Hebrew, Arabic and many symbols; it has no CJK
glyphs, so before this module a Chinese name came out as a row of boxes. Now a character
DejaVu does not have is drawn from the first installed scalable font that has it, in a fixed
order: known CJK families first (Noto Sans CJK, Source Han Sans, WenQuanYi, Droid Sans
Fallback, ...), then every other font by file path, a family's regular style before its
bold, italic ... files. The font list comes from fontconfig
(``fc-list``, once per process); without fontconfig or such a font the character stays a box,
as before. Characters DejaVu has are never affected, and the choice depends only on the
installed fonts (sorted paths, no set order), so a rendering is byte-identical on machines
with the same fonts. ``HYPERVIZ_FONT_FALLBACK=off`` turns the fallback off.

Install a CJK font on Debian/Ubuntu with ``apt-get install fonts-wqy-microhei`` (1.6 MB) or
``fonts-noto-cjk``, and one with Urdu's letters (``ے``, ``ہ``: DejaVu lacks them) with
``fonts-hosny-amiri`` (Amiri, 2.5 MB) or ``fonts-noto-core``.

A character no font has is drawn as a box; a rendering with such characters says so once, as
a :class:`MissingGlyphWarning` naming their scripts and a Debian package that covers them
(:func:`warn_missing`). The drawing itself is the same with or without the warning.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import unicodedata
import warnings
from collections.abc import Iterable
from functools import lru_cache

from matplotlib.font_manager import get_font

__all__ = ["PREFERRED", "MissingGlyphWarning", "RightToLeftWarning", "fallback_font",
           "fallback_off", "system_fonts", "warn_missing", "warn_right_to_left"]

_LOG = logging.getLogger(__name__)

#: substrings of font file names tried first, in this order (then every other font)
PREFERRED: tuple[str, ...] = (
    "notosanscjk", "sourcehansans", "wqy-microhei", "wqy-zenhei", "droidsansfallback",
    "notosans-", "notoserifcjk",
)

_SUFFIXES = (".ttf", ".otf", ".ttc")


#: words of a font file's name that say it is no family's regular style
_STYLED = ("bold", "italic", "oblique", "slanted", "light", "thin", "black", "heavy",
           "medium", "condensed", "narrow")


def _rank(path: str) -> tuple[int, bool, str]:
    """Preferred families first, then a family's regular style before its bold, italic ...
    files (``Amiri-Regular.ttf`` before ``Amiri-Bold.ttf``), then the path.

    >>> sorted(["/f/Amiri-Bold.ttf", "/f/Amiri-Regular.ttf", "/f/wqy-microhei.ttc"], key=_rank)
    ['/f/wqy-microhei.ttc', '/f/Amiri-Regular.ttf', '/f/Amiri-Bold.ttf']
    """
    name = os.path.basename(path).lower().replace(" ", "")
    hits = [i for i, key in enumerate(PREFERRED) if key in name]
    return (hits[0] if hits else len(PREFERRED), any(w in name for w in _STYLED), path)


def fallback_off() -> bool:
    """Whether ``HYPERVIZ_FONT_FALLBACK`` turns the fallback fonts off."""
    return os.environ.get("HYPERVIZ_FONT_FALLBACK", "").lower() in ("off", "0", "false", "no")


@lru_cache(maxsize=1)
def system_fonts() -> tuple[str, ...]:
    """Installed scalable font files (fontconfig), preferred ones first; empty without
    ``fc-list`` or with ``HYPERVIZ_FONT_FALLBACK=off``."""
    if fallback_off():
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


class MissingGlyphWarning(UserWarning):
    """Characters of a rendering that no available font has: the PNG draws them as boxes."""


class RightToLeftWarning(UserWarning):
    """Right-to-left text (Arabic, Hebrew ...) in a rendering that the PNG draws left to
    right and unjoined: no one font has every character of its label (Urdu's ``ے`` without
    a font such as Amiri, Hebrew beside Syriac), or matplotlib is older than 3.11 (its text
    layout does not shape). The HTML viewer shows it as written."""


def warn_right_to_left(chars: Iterable[str], stacklevel: int = 2) -> None:
    """One :class:`RightToLeftWarning` when ``chars`` (those drawn unshaped:
    :func:`~.text.unshaped`) hold right-to-left letters (bidi classes R and AL), naming
    their scripts; nothing otherwise.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     warn_right_to_left("Cairo القاهرة")
    >>> str(seen[0].message)[:60]
    '6 right-to-left characters (Arabic) are drawn left to right '
    """
    rtl = sorted({ch for ch in chars if unicodedata.bidirectional(ch) in ("R", "AL")})
    if not rtl:
        return
    scripts = sorted({script_of(ch)[0] for ch in rtl})
    warnings.warn(
        f"{len(rtl)} right-to-left character{'' if len(rtl) == 1 else 's'} "
        f"({', '.join(scripts)}) {'is' if len(rtl) == 1 else 'are'} drawn left to right and "
        "unjoined in this PNG (no one font has every character of their label, or matplotlib "
        "before 3.11 does not shape text); the HTML viewer shows them as written",
        RightToLeftWarning, stacklevel=stacklevel + 1)


_CJK_FONTS = "fonts-wqy-microhei or fonts-noto-cjk"
#: (first, last code point, script, Debian package with a font for it); other scripts are
#: named from the characters' Unicode names and fonts-noto-core covers most of them
_BLOCKS: tuple[tuple[int, int, str, str], ...] = (
    (0x1100, 0x11FF, "Hangul", _CJK_FONTS), (0x2600, 0x27BF, "symbols/emoji", "fonts-symbola"),
    (0x2E80, 0x2FDF, "CJK", _CJK_FONTS), (0x3000, 0x303F, "CJK", _CJK_FONTS),
    (0x3040, 0x309F, "Hiragana", _CJK_FONTS), (0x30A0, 0x30FF, "Katakana", _CJK_FONTS),
    (0x3100, 0x318F, "CJK", _CJK_FONTS), (0x3190, 0x9FFF, "CJK", _CJK_FONTS),
    (0xA960, 0xA97F, "Hangul", _CJK_FONTS), (0xAC00, 0xD7FF, "Hangul", _CJK_FONTS),
    (0xF900, 0xFAFF, "CJK", _CJK_FONTS), (0xFE30, 0xFE4F, "CJK", _CJK_FONTS),
    (0xFF00, 0xFFEF, "full-width/half-width forms", _CJK_FONTS),
    (0x1F000, 0x1FAFF, "symbols/emoji", "fonts-symbola"),
    (0x20000, 0x3FFFF, "CJK", _CJK_FONTS),
)


def script_of(ch: str) -> tuple[str, str]:
    """(script, Debian font package) of a character no font has: CJK, kana and Hangul by
    block; other letters and marks by the first word of their Unicode name ("DEVANAGARI
    LETTER A"); other symbols and punctuation together; ``""`` as the package of unassigned
    and private-use code points, which no font draws.

    >>> script_of("\u0905"), script_of("\u4e09")[0], script_of("\ue000")
    (('Devanagari', 'fonts-noto-core'), 'CJK', ('unassigned/private-use', ''))
    """
    cp = ord(ch)
    for lo, hi, script, package in _BLOCKS:
        if lo <= cp <= hi:
            return script, package
    name, cat = unicodedata.name(ch, ""), unicodedata.category(ch)
    if not name or cat in ("Cn", "Co"):
        return "unassigned/private-use", ""
    if cat[0] in "LM" or cat == "Nd":
        return name.split()[0].title(), "fonts-noto-core"
    return "symbols/punctuation", "fonts-noto-core"


def _why() -> str:
    if fallback_off():
        return " (HYPERVIZ_FONT_FALLBACK turns the installed fonts off: unset it)"
    if shutil.which("fc-list") is None:
        return " (fontconfig's fc-list is missing: installed fonts cannot be found)"
    return ""


def warn_missing(chars: Iterable[str], stacklevel: int = 2) -> None:
    """One :class:`MissingGlyphWarning` naming ``chars`` (characters that no font has: drawn
    as boxes) by script, with a Debian package to install; nothing when ``chars`` is
    empty. The message depends only on the set of characters, so Python's default warning
    filter shows it once per process for the same text."""
    by_script: dict[tuple[str, str], list[str]] = {}
    for ch in sorted(set(chars)):
        by_script.setdefault(script_of(ch), []).append(ch)
    if not by_script:
        return
    total = sum(len(v) for v in by_script.values())
    parts = []
    for (script, _), chs in sorted(by_script.items()):
        shown = " ".join(chs[:8]) + (f" … (+{len(chs) - 8})" if len(chs) > 8 else "")
        parts.append(f"{script} ({shown})")
    packages: dict[str, list[str]] = {}
    for script, pkg in sorted(by_script):
        if pkg:
            packages.setdefault(pkg, []).append(script)
    install = "; ".join(f"{pkg} ({', '.join(scripts)})" for pkg, scripts in
                        sorted(packages.items()))
    advice = (f" Install a font that has them, e.g. on Debian/Ubuntu with apt-get install: "
              f"{install}" if install else "")
    warnings.warn(
        f"{total} character{'' if total == 1 else 's'} in this rendering "
        f"{'has' if total == 1 else 'have'} no glyph in any available font and "
        f"{'is drawn as a box' if total == 1 else 'are drawn as boxes'}: "
        f"{'; '.join(parts)}{_why()}.{advice}", MissingGlyphWarning, stacklevel=stacklevel + 1)
