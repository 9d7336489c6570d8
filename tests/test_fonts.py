"""Characters DejaVu Sans lacks (CJK) are drawn from an installed fallback font; everything
DejaVu has is drawn exactly as before."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.draw import fonts, text
from hyperviz_core.render import HyperViz


def _cjk_fonts() -> set[str]:
    """The font files fontconfig lists for Chinese."""
    exe = shutil.which("fc-list")
    if exe is None:
        return set()
    out = subprocess.run([exe, "--format", "%{file}\\n", ":lang=zh"], capture_output=True,
                         text=True, check=False)
    return {line.strip() for line in out.stdout.splitlines() if line.strip()}


needs_cjk = pytest.mark.skipif(not _cjk_fonts(),
                               reason="no CJK font (make setup installs fonts-wqy-microhei)")


def _clear() -> None:
    for cached in (text._glyph, text._shape, fonts.fallback_font, fonts.system_fonts):
        cached.cache_clear()


@pytest.fixture
def no_fallback(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("HYPERVIZ_FONT_FALLBACK", "off")
    _clear()
    yield
    _clear()  # the environment is restored by monkeypatch; the caches are read again


def _graph(names: list[str]) -> Hypergraph:
    return Hypergraph(entities=[Entity(name=n) for n in names],
                      hyperedges=[Hyperedge(id="h1", members=names[:2], description=names[0]),
                                  Hyperedge(id="h2", members=names[1:], description=names[2])])


@needs_cjk
def test_a_cjk_character_is_drawn_from_a_fallback_font(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HYPERVIZ_FONT_FALLBACK", raising=False)
    _clear()
    path = fonts.fallback_font("東")
    assert path is not None and path in fonts.system_fonts()
    assert path in _cjk_fonts()  # a font fontconfig lists for Chinese
    verts, _codes, advance = text._glyph("東", False)
    assert len(verts) > 20 and abs(advance - 100.0) < 10  # an outline, full width


@needs_cjk
def test_only_the_characters_dejavu_lacks_change(no_fallback: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    latin, cjk = _graph(["Tokyo", "Japan", "Osaka"]), _graph(["東京", "日本", "大阪"])
    boxes = HyperViz().render(cjk).png
    latin_before = HyperViz().render(latin).png
    monkeypatch.delenv("HYPERVIZ_FONT_FALLBACK")
    _clear()
    assert HyperViz().render(latin).png == latin_before  # DejaVu's glyphs as before
    drawn = HyperViz().render(cjk).png
    assert drawn != boxes
    assert HyperViz().render(cjk).png == drawn  # deterministic


def test_fallback_can_be_turned_off(no_fallback: None) -> None:
    assert fonts.system_fonts() == () and fonts.fallback_font("東") is None
    assert len(text._glyph("a", False)[0]) > 0  # DejaVu still draws


def test_preferred_fonts_come_first() -> None:
    paths = ["/f/z/Other.ttf", "/f/wqy/wqy-microhei.ttc", "/f/a/Another.otf",
             "/f/noto/NotoSansCJK-Regular.ttc"]
    ranked = sorted(paths, key=fonts._rank)
    assert ranked == ["/f/noto/NotoSansCJK-Regular.ttc", "/f/wqy/wqy-microhei.ttc",
                      "/f/a/Another.otf", "/f/z/Other.ttf"]
