"""CJK/RTL/Indic review (session 37), the PNG side: whole glyph strokes, a warning for
characters no font has, and cuts between whole characters.

1. Text paths were snapped to the pixel grid by Agg (a path of only horizontal and vertical
   segments is snapped), so a stroke thinner than a pixel collapsed: 三 came out as 一, a
   Latin ``E`` lost a bar, depending on the label's sub-pixel position.
4. Characters no available font has were drawn as boxes silently.
5. Label cuts fell between a letter and its combining mark ("अंतर…" → "अ…").
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import unicodedata
import warnings

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from hyperviz_core import Hypergraph, HyperViz
from hyperviz_core.draw.fonts import MissingGlyphWarning, fallback_font, script_of
from hyperviz_core.draw.legend import fit_width, wrap_width
from hyperviz_core.draw.raster import _Layer
from hyperviz_core.draw.text import boundary, drawable, truncate
from hyperviz_core.model import Entity, Hyperedge
from hyperviz_core.viewer import render_html

HAS_CJK = fallback_font("三") is not None
HAS_DEVANAGARI = drawable("अ")


def _bands(column: np.ndarray, dark: int = 170) -> int:
    """Separate runs of dark pixels in a column of grey values."""
    ink = column < dark
    return int(np.count_nonzero(ink[1:] & ~ink[:-1]) + int(ink[0]))


def _draw(text: str, ys: list[float], size: float = 8.0) -> np.ndarray:
    """``text`` drawn by the renderer's text layer once per y (sub-pixel offsets), as grey."""
    height = int(max(ys)) + 20
    fig = Figure(figsize=(2.0, height / 100), dpi=100)
    canvas = FigureCanvasAgg(fig)
    fig.patch.set_facecolor("white")
    layer = _Layer(fig, height, 100)
    for y in ys:
        layer.add_text(text, 4.0, y, size, "#000000", ha="left")
    layer.flush_text()
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, 0].astype(int)


def test_latin_e_keeps_its_three_bars_at_every_subpixel_position() -> None:
    ys = [10 + 20 * k + k / 10 for k in range(10)]  # 0.0, 0.1, ... 0.9 px below a pixel
    img = _draw("E", ys)
    for k, y in enumerate(ys):
        bars = img[int(y) - 8:int(y) + 8, 7:9].min(axis=1)  # a column through the bars
        assert _bands(bars) == 3, (k, bars.tolist())  # never an F or a stray dash


@pytest.mark.skipif(not HAS_CJK, reason="no CJK font installed (fonts-wqy-microhei)")
def test_cjk_strokes_survive_every_subpixel_position() -> None:
    ys = [12 + 24 * k + k / 10 for k in range(10)]
    img = _draw("三", ys, size=8.0)
    for k, y in enumerate(ys):
        middle = img[int(y) - 10:int(y) + 10, 6:10].min(axis=1)
        assert _bands(middle) == 3, (k, middle.tolist())  # 三: three strokes, never 一


@pytest.mark.skipif(not HAS_CJK, reason="no CJK font installed (fonts-wqy-microhei)")
def test_cjk_name_labels_in_a_rendering_keep_their_strokes() -> None:
    """The reviewer's graph: 三 drew as 一 at its label position."""
    names = ["王", "三", "丰", "工", "土", "主", "玉", "量", "畫", "書", "言", "曹雪芹", "王芳",
             "三星", "〓", "龍"]
    hg = Hypergraph()
    for n in names:
        hg.add_entity(Entity(name=n, description="d"))
    hg.add_hyperedge(Hyperedge(members=names[:8], description="组一"))
    hg.add_hyperedge(Hyperedge(members=names[8:], description="组二"))
    r = HyperViz().render(hg, layouts=("bi-inc",))
    img = np.asarray(Image.open(io.BytesIO(r.png)).convert("L")).astype(int)
    want = {"三": 3, "王": 3}  # horizontal strokes left of 王's vertical one
    seen = set()
    for lab in r.export()["labels"]:
        if lab["text"] in want:
            x0, y0, x1, y1 = (round(v) for v in lab["bbox"])
            at = x0 + round((x1 - x0) * 0.3)
            col = img[y0:y1 + 1, at:at + 2].min(axis=1)
            assert _bands(col, 200) == want[lab["text"]], (lab["text"], col.tolist())
            seen.add(lab["text"])
    assert seen == set(want)


SEED_SCRIPT = """
import hashlib, warnings
warnings.simplefilter("ignore")
from hyperviz_core import HyperViz, Hypergraph
from hyperviz_core.model import Entity, Hyperedge
names = ["三星", "王芳", "महात्मा गांधी अंतरराष्ट्रीय हिंदी विश्वविद्यालय", "القاهرة", "Paris",
         "ＡＢＣ全角", "ｶﾀｶﾅ", "👨\\u200d👩\\u200d👧 家族"]
hg = Hypergraph()
for n in names:
    hg.add_entity(Entity(name=n, description="d"))
hg.add_hyperedge(Hyperedge(members=names[:5], description="组一 القاهرة"))
hg.add_hyperedge(Hyperedge(members=names[3:], description="二"))
r = HyperViz().render(hg)
print(hashlib.sha256(r.png).hexdigest())
"""


def test_png_bytes_do_not_depend_on_the_hash_seed() -> None:
    digests = set()
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", SEED_SCRIPT], env=env, check=True,
                             capture_output=True, text=True).stdout.split()
        digests.add(out[-1])
    assert len(digests) == 1


# ---------- 4. characters no font has ----------


def _render(names: list[str], desc: str = "group") -> tuple[bytes, list[warnings.WarningMessage]]:
    hg = Hypergraph()
    for n in names:
        hg.add_entity(Entity(name=n, description="d"))
    hg.add_hyperedge(Hyperedge(members=names, description=desc))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = HyperViz().render(hg, layouts=("bi-inc",)).png
    return png, [w for w in caught if issubclass(w.category, MissingGlyphWarning)]


@pytest.mark.skipif(HAS_DEVANAGARI, reason="a Devanagari font is installed")
def test_devanagari_without_a_font_is_one_warning_naming_script_and_package() -> None:
    png, caught = _render(["महात्मा गांधी", "हिंदी", "Paris"], desc="विश्वविद्यालय")
    assert len(caught) == 1  # one per rendering, however many labels
    msg = str(caught[0].message)
    assert "Devanagari" in msg and "fonts-noto-core" in msg and "drawn as boxes" in msg
    assert "म" in msg
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the drawing is the same whether it warns or not
        again = HyperViz().render(_graph(["महात्मा गांधी", "हिंदी", "Paris"], "विश्वविद्यालय"),
                                  layouts=("bi-inc",)).png
    assert again == png


def _graph(names: list[str], desc: str) -> Hypergraph:
    hg = Hypergraph()
    for n in names:
        hg.add_entity(Entity(name=n, description="d"))
    hg.add_hyperedge(Hyperedge(members=names, description=desc))
    return hg


def test_covered_text_does_not_warn() -> None:
    names = ["Paris", "Zürich", "Москва", "Αθήνα", "القاهرة", "e\u0301te\u0301"]
    if HAS_CJK:
        names += ["三星", "カタカナ", "서울"]
    _, caught = _render(names)
    assert caught == []


FALLBACK_OFF = """
import warnings
from hyperviz_core import HyperViz, Hypergraph
from hyperviz_core.model import Entity, Hyperedge
hg = Hypergraph()
for n in ["三星", "王芳", "Paris"]:
    hg.add_entity(Entity(name=n, description="d"))
hg.add_hyperedge(Hyperedge(members=["三星", "王芳", "Paris"], description="组"))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    HyperViz().render(hg, layouts=("bi-inc",))
print(len(caught))
print(caught[0].category.__name__ if caught else "-")
print(caught[0].message if caught else "-")
"""


def test_fallback_off_with_cjk_names_warns_and_says_why() -> None:
    env = {**os.environ, "HYPERVIZ_FONT_FALLBACK": "off"}
    out = subprocess.run([sys.executable, "-c", FALLBACK_OFF], env=env, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    assert out[0] == "1" and out[1] == "MissingGlyphWarning"
    assert "CJK" in out[2] and "fonts-wqy-microhei" in out[2] and "fonts-noto-cjk" in out[2]
    assert "HYPERVIZ_FONT_FALLBACK" in out[2] and "王" in out[2]


def test_script_names_and_packages() -> None:
    assert script_of("अ") == ("Devanagari", "fonts-noto-core")
    assert script_of("ก") == ("Thai", "fonts-noto-core")
    assert script_of("三")[1] == script_of("한")[1] == "fonts-wqy-microhei or fonts-noto-cjk"
    assert script_of("\U000F0000") == ("unassigned/private-use", "")


# ---------- 5. cuts between whole characters ----------

HINDI = "महात्मा गांधी अंतरराष्ट्रीय हिंदी विश्वविद्यालय"


def _old_truncate(text: str, max_chars: int) -> str:
    line = " ".join(str(text).split())
    if max_chars <= 0:
        return ""
    if len(line) <= max_chars:
        return line
    return line[: max(1, max_chars - 1)].rstrip() + "…"


def test_indic_label_is_cut_before_the_whole_syllable() -> None:
    assert truncate(HINDI, 16) == "महात्मा गांधी…"  # was "महात्मा गांधी अ…", anusvara lost
    assert truncate("अंतरराष्ट्रीय", 2) == "अं…"  # the first character whole, never "अ…"
    for n in range(1, len(HINDI) + 1):
        cut = truncate(HINDI, n)
        body = cut.removesuffix("…")
        assert HINDI.startswith(body.rstrip())
        assert boundary(HINDI, len(body)) or HINDI[len(body)] == " "
        last = body[-1]
        assert unicodedata.category(last) not in ("Mn", "Mc") or boundary(HINDI, len(body))


def test_marks_joiners_selectors_and_flags_stay_whole() -> None:
    assert truncate("Cafe\u0301 au lait", 5) == "Caf…"  # the decomposed é is not split
    fam = "👨\u200d👩\u200d👧 ok"
    for n in range(2, 7):
        body = truncate(fam, n).removesuffix("…")
        assert not body.endswith("\u200d") and (body == "" or boundary(fam, len(body)))
    flags = "🇨🇳🇯🇵🇰🇷国旗"
    assert truncate(flags, 4) == "🇨🇳…" and truncate(flags, 5) == "🇨🇳🇯🇵…"
    assert truncate("☺\ufe0f☺\ufe0f!!", 3) == "☺\ufe0f…"


def test_latin_cuts_are_unchanged() -> None:
    texts = ["Marie Curie", "Pierre and Marie Curie discovered polonium and radium",
             "Zürich Hauptbahnhof", "  spaced   out  words ", "Ω-Ω-Ω-Ω", "x", "Ærøskøbing",
             "Москва Ленинградский вокзал", "القاهرة هي عاصمة مصر"]
    for text in texts:
        for n in range(0, 40):
            assert truncate(text, n) == _old_truncate(text, n), (text, n)


def test_width_cuts_and_wraps_keep_whole_characters() -> None:
    for w in range(10, 200, 7):
        out = fit_width(HINDI, float(w), 8.0)
        body = out.removesuffix("…").rstrip()
        assert HINDI.startswith(body) and boundary(HINDI, len(body)), (w, out)
    word = HINDI.replace(" ", "")
    for w in (12.0, 20.0, 30.0):
        start = 0
        for line in wrap_width(word, w, 8.0):
            start += len(line)
            assert boundary(word, start), (w, line)
    assert fit_width("a long description", 40.0, 8.0) == "a lon…"  # Latin as before


def test_html_legend_cut_keeps_marks_and_isolates_the_description() -> None:
    desc = "क" * 138 + "ां" + " tail"  # the cut at 139 falls inside the syllable कां
    hg = _graph(["Paris", "Lyon"], desc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingGlyphWarning)
        page = render_html(HyperViz().render(hg, layouts=("bi-inc",)).export())
    assert "<bdi>" + "क" * 137 + "…</bdi>" in page  # not "कक\u093e…": no lone vowel sign
    assert '<span class="hv-ldesc"><bdi>' in page
