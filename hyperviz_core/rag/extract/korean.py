"""Names in Korean text, which has no capitals to find them by: the offline extractor's cues
(dates and amounts are :mod:`.cjk`'s).

A Korean word takes its particles (``삼성전자는``, ``서울대학교에서``); :func:`stem` drops
them. :func:`korean_candidates` gives :func:`~.spans.find_spans` these mentions:

* a name before a title written as a word of its own: ``김철수 씨``, ``박지성 선수``,
  ``이영희 교수`` (→ ``person``); ``문재인 대통령``, ``이재용 회장`` (→ ``entity``: an
  office's title may follow a country or a company too, ``미국 대통령``). The name is a word
  of two to four syllables without a particle, not a modifier such as ``현직`` (incumbent);
* an organisation named by its last word: ``삼성전자``, ``현대자동차``, ``서울대학교``,
  ``국민은행`` (→ ``organization``); a place: ``부산광역시``, ``인천국제공항`` (→
  ``location``). The word must hold more than the suffix.

Limits (honest): a name without such a cue (``김철수`` alone, ``서울``) is not found; a
one-syllable place suffix (``시``, ``도``, ``역``, ``산``) is no cue (``당시``, ``지역``,
``생산`` are everyday words), so ``서울시`` and ``한라산`` are not found; a title fused to the
name (``김철수씨``) is not read.

Example:
    >>> [(s[3], s[4]) for s in korean_candidates("이영희 교수는 삼성전자에서 일했다.")]
    [('이영희', 'person'), ('삼성전자', 'organization')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["korean_candidates", "stem", "suffix_kind"]

_WORD = re.compile("[\uac00-\ud7a3]+")
#: particles a word may end with, longest first (``에서는`` before ``는``)
_PARTICLES = tuple(sorted(
    ("은", "는", "이", "가", "을", "를", "의", "에", "와", "과", "로", "으로", "도", "만",
     "에서", "에게", "부터", "까지", "처럼", "보다", "이나", "하고", "에서는", "으로는",
     "에게서", "에서의", "과의", "와의", "이라는", "라는"), key=lambda p: (-len(p), p)))
#: titles of a person, written after the name as words of their own
_PERSONAL = ("씨", "선수", "교수", "박사", "기자", "작가", "변호사", "선생님", "감독", "시인",
             "화백", "여사")
#: titles of an office, which may follow a country or a company too
_OFFICES = ("대통령", "총리", "장관", "의원", "회장", "사장", "대표", "위원장", "총장",
            "지사", "국왕", "여왕")
#: words that modify a title and are no name
_MODIFIERS = frozenset(("현직", "전직", "신임", "차기", "역대", "당시", "우리", "그의", "이번",
                        "다음", "초대", "명예", "담당", "부장", "수석", "정치", "외국"))
_ORGS = ("주식회사", "대학교", "대학원", "연구소", "위원회", "자동차", "은행", "그룹", "전자",
         "병원", "재단", "협회", "증권", "대학")
_PLACES = ("특별자치도", "특별자치시", "특별시", "광역시", "국제공항", "공항")
_KINDS = ((_ORGS, "organization"), (_PLACES, "location"))
#: every title a name is read before, longest first
_TITLES = tuple(sorted(_PERSONAL + _OFFICES, key=lambda t: -len(t)))
_TITLED = re.compile(rf"(?<![\uac00-\ud7a3])([\uac00-\ud7a3]{{2,4}})\s+"
                     rf"({'|'.join(_TITLES)})"
                     rf"(?:{'|'.join(_PARTICLES)})?(?![\uac00-\ud7a3])")


def stem(word: str) -> str:
    """``word`` without the particle it ends with, if what is left has two syllables or
    more (``삼성전자는`` → ``삼성전자``; ``나이`` stays).

    >>> stem("서울대학교에서"), stem("나이")
    ('서울대학교', '나이')
    """
    for particle in _PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= 2:
            return word[:-len(particle)]
    return word


def suffix_kind(name: str, kinds: Sequence[tuple[Sequence[str], str]]) -> str | None:
    """The kind (of ``kinds``: suffixes, kind) whose suffix ``name`` ends with and holds
    more than (``公司`` or ``은행`` alone is no name), the first that fits; else None.

    >>> banks = [(("은행",), "organization")]
    >>> suffix_kind("국민은행", banks), suffix_kind("은행", banks)
    ('organization', None)
    """
    for suffixes, kind in kinds:
        if any(name.endswith(s) and len(name) > len(s) for s in suffixes):
            return kind
    return None


def korean_candidates(sentence: str) -> list[tuple[int, int, int, str, str]]:
    """The mentions of ``sentence`` (see the module's docs), as (priority, start, end,
    name, type): the priority of the English cues' names."""
    out: list[tuple[int, int, int, str, str]] = []
    for m in _TITLED.finditer(sentence):
        name = m.group(1)
        if name not in _MODIFIERS and name not in _TITLES:
            kind = "person" if m.group(2) in _PERSONAL else "entity"
            out.append((2, m.start(1), m.end(1), name, kind))
    for m in _WORD.finditer(sentence):
        for word in dict.fromkeys((m.group(), stem(m.group()))):
            if (place := suffix_kind(word, _KINDS)) is not None:
                out.append((2, m.start(), m.start() + len(word), word, place))
                break
    return out
