"""Entity mentions in Chinese and Japanese text, which has no capitals and no spaces to find
names by (and Korean dates and amounts; Korean names: :mod:`.korean`): the offline
extractor's cues for them.

:func:`cjk_candidates` gives :func:`~.spans.find_spans` these mentions of a sentence, each
with the priority the English cues of the same kind have (a quoted title first, then dates
and amounts, then names):

* a title in ``《…》`` or ``〈…〉`` (Chinese) or ``『…』`` (Japanese) → ``work``; a term in
  ``「…」`` → ``entity``, unless the quotative ``と`` follows it (``「はい」と言った``: speech);
* a date: ``2019年3月5日``, ``1990年代``, ``3月5日``, ``2019년 3월`` (ASCII or full-width
  digits) → ``date``;
* an amount: a number with a unit or currency (``300万元``, ``5キロ``, ``45%``, ``3명``) →
  ``quantity``;
* a Japanese name: a run of katakana and kanji holding two katakana or more, between kana of
  grammar or punctuation (``ジョン・スミス``, ``東京タワー``, ``トヨタ自動車``) → ``entity``;
* an organisation or a place named by its last word: kanji from the sentence's start, a
  punctuation mark, hiragana or a Chinese function word (``的``, ``在``, ``了`` ...) up to
  a suffix such as ``公司``, ``大学``, ``银行``, ``株式会社`` (→ ``organization``) or ``省``,
  ``市``, ``県``, ``駅`` (→ ``location``): ``星辰科技公司``, ``愛知県``.

* a person named before a title (since stop 60) → ``person``: in Japanese (a sentence with
  kana), the kanji or katakana run before ``さん``, ``様``, ``氏``, ``君``, ``先生``,
  ``教授``, ``社長``, ``首相`` ... (``田中さん``, ``山田太郎氏``); in Chinese, a common surname
  (``张``, ``欧阳`` ...) and one or two characters before ``先生``, ``女士``, ``教授``,
  ``主席``, ``总统`` ... (``张伟先生``, ``毛泽东主席``), or the surname and title as written
  when nothing else fits (``王教授``);
* Korean names before a title, organisations and places by their last word:
  :mod:`.korean`.

Limits (honest): a name without such a cue (``北京``, ``张伟``, ``東京``) is not found; no
word list says which kanji runs are names, so a function word inside a name cuts it (``和平
饭店`` is no suffix run anyway), and a run up to a suffix may hold words before the name
(``其子公司`` gives ``子公司``). A Chinese name before a title is told by its surname only:
three characters are taken where a surname starts them and no Han character (or a function
word) comes before, so a word ending in a surname joins the name (``周末王先生`` gives
``周末王``); a surname missing from the list is no name.

Example:
    >>> [(s[3], s[4]) for s in cjk_candidates("2019年3月，星辰科技公司出版了《红楼梦》。")]
    [('红楼梦', 'work'), ('2019年3月', 'date'), ('星辰科技公司', 'organization')]
    >>> [(s[3], s[4]) for s in cjk_candidates("東京タワーは「はい」と言った。")]
    [('東京タワー', 'entity')]
"""

from __future__ import annotations

import re

from ..scripts import CJK
from .korean import korean_candidates, suffix_kind

__all__ = ["CJK_CHARS", "cjk_candidates"]

#: a character of the scripts this module reads (kana, kanji, Hangul: :data:`~..scripts.CJK`)
CJK_CHARS = re.compile(f"[{CJK}]")
_D = "0-9\uff10-\uff19"  # ASCII and full-width digits
_HAN = "\u3005\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KATA = "\u30a1-\u30fa"  # katakana letters (not the marks ー and ・)

#: (a bracketed mention, its type)
_TITLES = ((re.compile(r"《([^《》\n]{1,40})》"), "work"),
           (re.compile(r"〈([^〈〉\n]{1,40})〉"), "work"),
           (re.compile(r"『([^『』\n]{1,40})』"), "work"),
           (re.compile(r"「([^「」\n]{1,30})」"), "entity"))
_DATE = re.compile(
    rf"[{_D}]{{1,4}}(?:年代|年(?:[{_D}]{{1,2}}月(?:[{_D}]{{1,2}}日)?)?)"
    rf"|[{_D}]{{1,2}}月[{_D}]{{1,2}}日"
    rf"|[{_D}]{{4}}년(?:\s?[{_D}]{{1,2}}월(?:\s?[{_D}]{{1,2}}일)?)?")
_QUANTITY = re.compile(
    rf"[{_D}][{_D},，.．]*(?:万|亿|億|千|百)?"
    r"(?:美元|人民币|元|円|ドル|ユーロ|公里|千米|公斤|キロ|メートル|トン|吨|人|名|%|％|달러|원|명)")
_KATAKANA_RUN = re.compile(
    rf"[{_KATA}{_HAN}ー・]*[{_KATA}][ー・]?[{_KATA}][{_KATA}{_HAN}ー・]*")
_ORG_SUFFIXES = ("株式会社", "有限公司", "公司", "集团", "大学", "大學", "学院", "银行", "銀行",
                 "医院", "病院", "研究所", "研究院", "委员会", "委員会", "政府", "博物馆", "博物館",
                 "图书馆", "図書館", "出版社", "电视台", "协会", "協会", "基金会", "会社", "党")
_PLACE_SUFFIXES = ("自治区", "省", "市", "县", "県", "府", "区", "町", "村", "镇", "駅", "站")
#: Chinese function words: a kanji name neither holds one nor starts before one
_GRAMMAR = "的在是和与及了于从到由被把对向为也都而并或将等这那其之以给跟同"
#: where a kanji name may start: after a function word, a kana, a punctuation mark, a space
#: or a digit, or at the sentence's start
_BEFORE = _GRAMMAR + "\u3040-\u309f\u30fc\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\\s\\d"
#: single-character Chinese surnames (the commonest, simplified and traditional), and compound
_SURNAMES = ("王李张張刘劉陈陳杨楊黄黃赵趙吴吳周徐孙孫马馬朱胡郭何高林罗羅郑鄭梁谢謝宋唐许許韩"
             "韓冯馮邓鄧曹彭曾肖萧蕭田董袁潘蒋蔣蔡余杜叶葉程苏蘇魏吕呂丁任沈姚卢盧姜崔钟鍾谭譚陆陸"
             "汪范金石廖贾賈夏韦韋付傅方邹鄒孟熊秦邱江尹薛闫閆段雷侯龙龍史陶黎贺賀顾顧毛郝龚龔"
             "邵钱錢严嚴覃武戴莫孔汤湯习習温溫")
_COMPOUND_SURNAMES = ("欧阳", "歐陽", "司马", "司馬", "诸葛", "諸葛", "上官", "东方", "東方")
#: Chinese titles written after a surname or a full name (``张伟先生``, ``王教授``)
_ZH_TITLES = ("先生", "女士", "小姐", "教授", "博士", "老师", "老師", "医生", "醫生", "律师",
              "律師", "主席", "总统", "總統", "总理", "總理", "部长", "部長", "市长", "市長",
              "校长", "校長", "院长", "院長", "董事长", "董事長", "总裁", "總裁", "将军", "將軍")
_ZH_TITLE = re.compile("|".join(sorted(_ZH_TITLES, key=lambda t: -len(t))))
#: Japanese honorifics and titles written after a name (``田中さん``, ``山田太郎氏``)
_JA_NAME = re.compile(
    rf"(?<![{_KATA}{_HAN}ー・])([{_KATA}{_HAN}ー・]{{1,8}}?)"
    r"(?:さん|さま|様(?!々)|氏|君|くん|ちゃん|先生|教授|博士|選手|社長|会長|首相|大統領|監督)")
_KANA = re.compile("[\u3040-\u30ff]")
_HAN_CHAR = re.compile(f"[{_HAN}]")
_KINDS = ((_ORG_SUFFIXES, "organization"), (_PLACE_SUFFIXES, "location"))
_SUFFIX_RUN = re.compile(
    rf"(?:^|(?<=[{_BEFORE}\W]))((?:(?![{_GRAMMAR}])[{_HAN}]){{1,10}}?"
    rf"(?:{'|'.join(_ORG_SUFFIXES)}|{'|'.join(_PLACE_SUFFIXES)}))")


def _titles(sentence: str) -> list[tuple[int, int, int, str, str]]:
    out = []
    for rx, kind in _TITLES:
        for m in rx.finditer(sentence):
            inner = m.group(1).strip()
            if kind == "entity" and (sentence[m.end():m.end() + 1] == "と" or
                                     re.search("[。！？!?]", inner)):
                continue  # quoted speech
            if inner:
                out.append((0, m.start(), m.end(), inner, kind))
    return out


def cjk_candidates(sentence: str) -> list[tuple[int, int, int, str, str]]:
    """The mentions of ``sentence`` (see the module's docs), as (priority, start, end,
    name, type), titles first; overlaps are left to :func:`~.spans.find_spans`."""
    out = _titles(sentence)
    out += [(1, m.start(), m.end(), m.group(), "date") for m in _DATE.finditer(sentence)]
    out += [(1, m.start(), m.end(), m.group(), "quantity")
            for m in _QUANTITY.finditer(sentence)]
    for m in _KATAKANA_RUN.finditer(sentence):
        name = m.group().strip("・").lstrip("ー")
        if name:
            start = m.start() + m.group().index(name)
            out.append((2, start, start + len(name), name, _kind(name) or "entity"))
    for m in _SUFFIX_RUN.finditer(sentence):
        name = m.group(1)
        kind = _kind(name)
        if kind is not None:
            out.append((2, m.start(1), m.end(1), name, kind))
    out += _titled_names(sentence) + korean_candidates(sentence)
    return out


def _chinese_name(sentence: str, end: int) -> int | None:
    """Where the name ending at ``end`` (a title follows) starts: a surname, then one or two
    characters, none a function word: three characters when they follow no Han character
    or a function word, else two, else three (``张伟明``, ``张伟``); None when neither
    fits."""
    def fits(start: int) -> bool:
        name = sentence[start:end]
        return (start >= 0 and all(c not in _GRAMMAR and _HAN_CHAR.match(c) for c in name)
                and (name[0] in _SURNAMES or name.startswith(_COMPOUND_SURNAMES)))

    three, two = fits(end - 3), fits(end - 2)
    bounded = end == 3 or (end > 3 and (not _HAN_CHAR.match(sentence[end - 4])
                                        or sentence[end - 4] in _GRAMMAR))
    if three and bounded:
        return end - 3
    if two:
        return end - 2
    return end - 3 if three else None


def _titled_names(sentence: str) -> list[tuple[int, int, int, str, str]]:
    """People named before a title: Japanese (a sentence with kana: the kanji or katakana
    run before ``さん``, ``氏``, ``先生`` ...) or Chinese (a surname and a given name before
    ``先生``, ``教授``, ``主席`` ..., or the surname and title as written when no given
    name fits: ``王教授``), each ``person``."""
    out = []
    if _KANA.search(sentence):
        for m in _JA_NAME.finditer(sentence):
            name = m.group(1).strip("・")
            if name:
                out.append((2, m.start(1), m.start(1) + len(name), name, "person"))
        return out
    for m in _ZH_TITLE.finditer(sentence):
        start = _chinese_name(sentence, m.start())
        if start is not None:
            out.append((2, start, m.start(), sentence[start:m.start()], "person"))
        elif m.start() > 0 and sentence[m.start() - 1] in _SURNAMES:
            out.append((2, m.start() - 1, m.end(), sentence[m.start() - 1:m.end()], "person"))
    return out


def _kind(name: str) -> str | None:
    """``organization`` or ``location`` when ``name`` ends with such a suffix and holds more
    than it (``公司`` alone is no name), else None (:func:`~.korean.suffix_kind`)."""
    return suffix_kind(name, _KINDS)
