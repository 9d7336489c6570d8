"""What to tell a user whose text file is not UTF-8: the encoding it most likely is.

:func:`convert_hint` reads a sample of the bytes in the legacy encodings people still meet
(GBK/GB18030, Big5, Shift_JIS, EUC-JP, EUC-KR, Johab, Windows-874/TIS-620, Windows-1251,
1253, 1255 and 1256, ISO-8859-6, KOI8-R) and names the one whose reading looks like text of
its script (common characters, words of one script and case, final letters at word ends,
Thai marks after consonants), or a variant of it (ISO-8859-7 Greek, Mac Cyrillic, KOI8-U); else the
8-bit Latin one whose accented letters one language writes (Windows-1252, Windows-1250,
ISO-8859-2, Windows-1254: :mod:`.latin_guess`); else the DOS, ISO or Mac Cyrillic one
(CP866, CP855, ISO-8859-5, Mac Cyrillic) whose reading has the most Cyrillic words with as
many vowels as such text has. It names none when nothing fits, rather than a wrong guess
whose ``iconv`` would make mojibake. A short sample can fool any such guess: it is said as
a guess. Either way the hint ends with the other way out: reading such files in that
encoding (``--encoding``, ``encoding=``: :mod:`.legacy`).

Example:
    >>> print(convert_hint("清华大学位于北京市海淀区。".encode("gbk")).replace(", or", ",\\nor"))
    it reads as GBK/GB18030 text: convert it to UTF-8, e.g. iconv -f GB18030 -t UTF-8,
    or read such files so: --encoding GB18030 (encoding= in Python)
    >>> convert_hint("Größe und Straße".encode("cp1252"))[:40]
    'it reads as Windows-1252 (Latin-1) text:'
"""

from __future__ import annotations

import codecs
import re

from .latin_guess import LATIN, latin_encoding

__all__ = ["convert_hint", "guessed_encoding", "looks_like_text"]

_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def looks_like_text(text: str) -> bool:
    """Whether ``text`` holds no control character but tab, line breaks and form feed (text
    decoded in a wrong encoding from binary data almost always does)."""
    return _CONTROLS.search(text) is None


#: Legacy encodings :func:`convert_hint` can name: (Python codec, name said, iconv name).
_LEGACY = (("cp949", "EUC-KR", "CP949"), ("euc_jp", "EUC-JP", "EUC-JP"),
           ("cp932", "Shift_JIS", "CP932"), ("johab", "Johab (Korean)", "JOHAB"),
           ("cp874", "Windows-874/TIS-620 (Thai)", "CP874"),
           ("big5", "Big5", "BIG5"),
           ("gb18030", "GBK/GB18030", "GB18030"), ("cp1251", "Windows-1251 (Cyrillic)",
           "WINDOWS-1251"), ("cp1253", "Windows-1253 (Greek)", "WINDOWS-1253"),
           ("cp1255", "Windows-1255 (Hebrew)", "WINDOWS-1255"),
           ("cp1256", "Windows-1256 (Arabic)", "WINDOWS-1256"),
           ("koi8_r", "KOI8-R (Cyrillic)", "KOI8-R"),
           ("iso8859_6", "ISO-8859-6 (Arabic)", "ISO-8859-6"))
#: the fewest good letters a guess needs (2): Johab, rare today, 20, so that a few
#: characters of a common encoding (``上海`` in GBK reads as Johab hangul) stay with it
_LEAST = {"johab": 20}
#: the encodings of Korean and Japanese, whose hangul and kana Chinese does not write
_PHONETIC = ("CP949", "JOHAB", "EUC-JP", "CP932")
#: Cyrillic encodings guessed only when nothing above reads the text (:func:`_cyrillic`)
_CYRILLIC = (("cp866", "CP866 (DOS Cyrillic)", "CP866"),
             ("cp855", "CP855 (DOS Cyrillic)", "CP855"),
             ("iso8859_5", "ISO-8859-5 (Cyrillic)", "ISO-8859-5"),
             ("mac_cyrillic", "Mac Cyrillic", "MACCYRILLIC"))
_CYRILLIC_CODECS = ("cp1251", "koi8_r", "koi8_u", *(c for c, _, _ in _CYRILLIC))
_CYRILLIC_LETTER = re.compile(r"[\u0400-\u04ff]")
_VOWELS = frozenset("аеёиоуыэюяіїє")
#: the share of vowels among a Cyrillic text's letters (Russian, Bulgarian, Ukrainian text
#: ~0.42; chardet's test files read in their own encoding: 0.41-0.44)
_VOWEL_SHARE = (0.35, 0.5)
_KANA = re.compile(r"[\u3041-\u30fa\u30fc-\u30fe]")
_IDEOGRAPH = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_SCRIPT = {"cp1253": re.compile(r"[\u0370-\u03ff]"),
           "cp1255": re.compile(r"[\u05b0-\u05f4]"), "cp1256": re.compile(r"[\u0600-\u06ff]"),
           "iso8859_6": re.compile(r"[\u0600-\u06ff]"),
           **dict.fromkeys(_CYRILLIC_CODECS, _CYRILLIC_LETTER)}
_WORD = re.compile(r"[^\W\d_]+")
_RUN = re.compile(r"[^\W\d_\x00-\x7f]+")  # non-ASCII letters
_C1_BYTES = re.compile(rb"[\x80-\x9f]")
_ISO_ALPHA = re.compile(rb"\xb6[\xc1-\xfe]")  # ISO-8859-7's Ά before a Greek letter
_WIN_ALPHA = re.compile(rb"\xa2[\xc1-\xfe]")  # Windows-1253's Ά before a Greek letter
_THAI_RUN = re.compile(r"[\u0e01-\u0e3a\u0e40-\u0e4e]+")
#: a Thai vowel or tone mark not after a consonant or mark, or a leading vowel not before a
#: consonant: what Thai spelling never writes
_THAI_MISPLACED = re.compile(
    r"(?<![\u0e01-\u0e2e\u0e31\u0e34-\u0e3a\u0e47-\u0e4e])[\u0e31\u0e34-\u0e3a\u0e47-\u0e4e]"
    r"|[\u0e40-\u0e44](?![\u0e01-\u0e2e])")
_LOOSE_POINT = re.compile(r"(?<![\u05b0-\u05c7\u05d0-\u05ea])[\u05b0-\u05c7]")


def _lead(ch: str, codec: str) -> int:
    try:
        return ch.encode(codec)[0]
    except UnicodeEncodeError:
        return 0


def _cjk_good(ch: str, codec: str) -> bool:
    """Whether ``ch`` (a letter) is common in text written in the CJK ``codec``."""
    if codec in ("cp949", "johab"):
        return bool(_HANGUL.match(ch))
    if codec in ("euc_jp", "cp932"):
        return bool(_KANA.match(ch)) or (bool(_IDEOGRAPH.match(ch))
                                         and 0xB0 <= _lead(ch, "euc_jp") <= 0xCF)
    if not _IDEOGRAPH.match(ch):
        return False
    if codec == "big5":
        return 0xA4 <= _lead(ch, "big5") <= 0xC6  # the 5,401 frequent characters
    return _lead(ch, "gb2312") >= 0xB0  # GB2312's hanzi


def _cjk_score(text: str, codec: str) -> tuple[int, int]:
    """(common letters, uncommon letters) of ``text`` read as ``codec``: the non-ASCII letters
    in runs of two or more (a lone one is as likely an accented Latin letter misread)."""
    good = bad = 0
    for run in _RUN.findall(text):
        if len(run) < 2:
            continue
        for ch in run:
            if _cjk_good(ch, codec):
                good += 1
            else:
                bad += 1
    if codec in ("euc_jp", "cp932") and len(_KANA.findall(text)) * 10 < good:
        return 0, good + bad  # Japanese text without kana: rather Chinese or not text
    return good, bad


def _one_case(word: str) -> bool:
    """Whether ``word`` is all lower case, all upper case, capitalised or caseless."""
    return word.islower() or word.isupper() or word.istitle() or word.lower() == word.upper()


def _misplaced_final(word: str, codec: str) -> bool:
    """Whether ``word`` has a final letter form inside it (Greek ς, Hebrew ך ם ן ף ץ) or,
    Greek, ends in a non-final σ."""
    if codec == "cp1253":
        return "ς" in word[:-1] or word.endswith("σ")
    return codec == "cp1255" and any(c in "ךםןףץ" for c in word[:-1])


def _script_score(text: str, codec: str) -> tuple[int, int]:
    """(letters, odd letters) of the single-byte ``codec``'s script in ``text``: a letter is
    odd in a word mixing scripts or cases or with a misplaced final letter."""
    script = _SCRIPT[codec]
    good = bad = caps = 0
    for word in _WORD.findall(text):
        if word.isascii() or len(word) < 2:
            continue
        ours = len(script.findall(word))
        if ours == len(word) and _one_case(word) and not _misplaced_final(word, codec):
            good += ours
            caps += len(word) > 1 and word.isupper()
        else:
            bad += len(word) - sum(c.isascii() for c in word)
    if codec == "cp1255":  # vowel points belong after letters (Cyrillic capitals read so)
        bad += len(_LOOSE_POINT.findall(text))
    if codec in _CYRILLIC_CODECS and (text.count("й") + text.count("ъ")) * 12 > good:
        return 0, good + bad  # Hebrew read as Cyrillic: й and ъ everywhere
    if caps * 20 > good:  # capitals everywhere: the other case of another encoding
        return 0, good + bad
    return good, bad


def _thai_score(text: str, codec: str) -> tuple[int, int]:
    """(Thai letters in runs of two or more, odd ones) of ``text``: odd are misplaced vowel
    and tone marks (:data:`_THAI_MISPLACED`), lone Thai letters (a Latin ``£`` reads as
    ``ฃ``) and the obsolete ``ฃ`` and ``ฅ`` (``codec`` unused: one signature with the other
    scores)."""
    runs = _THAI_RUN.findall(text)
    bad = len(_THAI_MISPLACED.findall(text)) + sum(len(r) == 1 for r in runs) + \
        text.count("ฃ") + text.count("ฅ")
    return sum(len(r) for r in runs if len(r) > 1) - bad, bad


def _decoded(data: bytes, codec: str) -> str | None:
    """``data`` decoded strictly, but for a character cut at its end (a sample); None when
    it is not ``codec`` text."""
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        if exc.start < len(data) - 3:
            return None
        try:
            return data[:exc.start].decode(codec)
        except UnicodeDecodeError:
            return None


def _legacy_guesses(data: bytes) -> list[tuple[str, str]]:
    """(name, iconv name) of the legacy encodings ``data`` reads as plausible text in,
    the likeliest first: a Korean or Japanese reading before a Chinese one."""
    found: list[tuple[float, int, str, str]] = []
    for rank, (codec, name, iconv) in enumerate(_LEGACY):
        text = _decoded(data, codec)
        if text is None or not looks_like_text(text):
            continue
        score = _script_score if codec in _SCRIPT else \
            _thai_score if codec == "cp874" else _cjk_score
        good, bad = score(text, codec)
        if good >= _LEAST.get(codec, 2) and good >= 9 * bad:
            found.append((bad / good, rank, name, iconv))
    if any(iconv in _PHONETIC for _, _, _, iconv in found):  # kana or hangul: not Chinese
        found = [f for f in found if f[3] in _PHONETIC]
    return [(name, iconv) for _, _, name, iconv in sorted(found)]


def _cyrillic(data: bytes) -> list[tuple[str, str]]:
    """(name, iconv name) of the DOS, ISO or Mac Cyrillic encoding (:data:`_CYRILLIC`)
    ``data`` reads as the most Cyrillic letters in, in words as :func:`_script_score` wants
    them and with as many vowels as such text has (:data:`_VOWEL_SHARE`: Thai or Arabic
    read as Cyrillic has few); none when none does.

    >>> _cyrillic("Москва - столица России, город на реке.".encode("cp866"))
    [('CP866 (DOS Cyrillic)', 'CP866')]
    """
    best: tuple[int, str, str] | None = None
    for codec, name, iconv in _CYRILLIC:
        text = _decoded(data, codec)
        if text is None or not looks_like_text(text):
            continue
        good, bad = _script_score(text, codec)
        letters = [c.lower() for c in _CYRILLIC_LETTER.findall(text)]
        vowels = sum(c in _VOWELS for c in letters) / max(1, len(letters))
        low, high = _VOWEL_SHARE
        if good >= 2 and good >= 9 * bad and low <= vowels <= high and \
                (best is None or good > best[0]):
            best = (good, name, iconv)
    return [best[1:]] if best is not None else []


#: a Cyrillic guess (its iconv name) → (the codec of a variant of it, its name said, its
#: iconv name): Mac Cyrillic's capitals read in Windows-1251 as signs and Serbian letters
#: (``‚ городе`` for ``В городе``), KOI8-U's Ukrainian letters in KOI8-R as box lines
#: (``Ки╖в`` for ``Київ``)
_VARIANTS = {"WINDOWS-1251": ("mac_cyrillic", "Mac Cyrillic", "MACCYRILLIC"),
             "KOI8-R": ("koi8_u", "KOI8-U (Ukrainian)", "KOI8-U")}


def _variant(data: bytes, iconv: str) -> tuple[str, str] | None:
    """(name, iconv name) of the variant of the Cyrillic guess ``iconv``
    (:data:`_VARIANTS`) whose reading of ``data`` makes more letters Cyrillic words, else
    None.

    >>> _variant("Москва. В городе живёт Иван.".encode("mac_cyrillic"), "WINDOWS-1251")
    ('Mac Cyrillic', 'MACCYRILLIC')
    >>> _variant("Москва. В городе живёт Иван.".encode("cp1251"), "WINDOWS-1251") is None
    True
    >>> _variant("Київ - столиця України.".encode("koi8_u"), "KOI8-R")
    ('KOI8-U (Ukrainian)', 'KOI8-U')
    """
    codec, name, variant_iconv = _VARIANTS[iconv]
    text = _decoded(data, codec)
    if text is None or not looks_like_text(text):
        return None
    guessed = _decoded(data, codecs.lookup(iconv).name) or ""
    if _script_score(text, codec)[0] > _script_score(guessed, codec)[0]:  # (both Cyrillic)
        return name, variant_iconv
    return None


def _iso_greek(data: bytes) -> bool:
    """Whether Greek ``data`` read as Windows-1253 is rather ISO-8859-7: none of the bytes
    0x80-0x9F (control codes there, signs in Windows-1253), and more Greek letters after
    0xB6 (``Ά`` there, ``¶`` in Windows-1253) than after 0xA2 (``Ά`` in Windows-1253).

    >>> _iso_greek("Άρης και Άννα".encode("iso8859-7")), _iso_greek("Άρης".encode("cp1253"))
    (True, False)
    """
    if _C1_BYTES.search(data):
        return False
    return len(_ISO_ALPHA.findall(data)) > len(_WIN_ALPHA.findall(data))


def _latin(data: bytes) -> str | None:
    """The 8-bit Latin encoding (:func:`~.latin_guess.latin_encoding`: Windows-1252,
    Windows-1250, ISO-8859-2, Windows-1254) ``data`` reads as text in whose accented letters
    sit in words with plain letters (or alone: French à), as in European text; else None:
    when more than one in four of the words with accented letters has no plain letter,
    the text is in another script read as accented letters (Cyrillic in ISO-8859-5 or DOS's
    CP855 reads as Turkish or Western words: ``Москва`` in ISO-8859-5 as ``¼ŞáÚÒĞ``).

    >>> _latin("Москва - столица России".encode("iso8859-5")) is None
    True
    """
    codec = latin_encoding(data)
    if codec is None:
        return None
    text = data.decode(codec)
    if not looks_like_text(text):
        return None
    accented = [w for w in _WORD.findall(text) if len(w) > 1 and not w.isascii()]
    odd = sum(1 for w in accented if not any(c.isascii() for c in w))
    return codec if odd * 4 <= len(accented) else None


def convert_hint(data: bytes) -> str:
    """What to do about ``data`` that is not UTF-8: convert it to UTF-8, naming the encoding
    it reads as plausible text in (a guess said as one): a CJK, Thai, Cyrillic, Greek, Hebrew
    or Arabic legacy encoding (GBK, Big5, Shift_JIS, EUC-JP, EUC-KR, Windows-874,
    Windows-125x, KOI8-R, ISO-8859-7, Mac Cyrillic) when its letters read as that script's
    common ones, else Windows-1252 (a superset of Latin-1's printable characters) for Western
    European text, Windows-1250 or ISO-8859-2 for Central European, Windows-1254 for
    Turkish, else a DOS or ISO Cyrillic one; none when nothing fits. The
    encoding's name is one both ``iconv`` and Python know."""
    guesses = _guesses(data)
    if guesses:
        names = " or ".join(name for name, _ in guesses[:2])
        return (f"it reads as {names} text: convert it to UTF-8, e.g. "
                f"iconv -f {guesses[0][1]} -t UTF-8, {_READ_SO.format(guesses[0][1])}")
    return ("convert it to UTF-8 from the encoding it was written in, e.g. "
            "iconv -f ENCODING -t UTF-8 (iconv -l lists the encodings), "
            f"{_READ_SO.format('ENCODING')}")


def guessed_encoding(data: bytes) -> str | None:
    """Python's name of the encoding :func:`convert_hint` names for ``data`` (its first
    64 KiB), None when it names none (what ``--encoding auto`` reads such bytes in).

    >>> guessed_encoding("Größe und Straße".encode("cp1252"))
    'cp1252'
    >>> guessed_encoding("Привет, как дела? Хорошо.".encode("cp1251"))
    'cp1251'
    """
    guesses = _guesses(data)
    return codecs.lookup(guesses[0][1]).name if guesses else None


def _guesses(data: bytes) -> list[tuple[str, str]]:
    """(name, iconv name) of the encodings ``data``'s first 64 KiB read as plausible text
    in, the likeliest first: the legacy ones of :func:`_legacy_guesses` (the first turned
    into its variant where that reads better: :func:`_iso_greek`, :func:`_variant`), else
    the 8-bit Latin one of :func:`_latin`, else the Cyrillic one of :func:`_cyrillic`, else
    none."""
    sample = data[:1 << 16]
    if guesses := _legacy_guesses(sample):
        if guesses[0][1] == "WINDOWS-1253" and _iso_greek(sample):
            guesses[0] = ("ISO-8859-7 (Greek)", "ISO-8859-7")
        if guesses[0][1] in _VARIANTS and (variant := _variant(sample, guesses[0][1])):
            guesses[0] = variant
        return guesses
    codec = _latin(sample)
    return [(name, iconv) for c, name, iconv in LATIN if c == codec] or _cyrillic(sample)


#: the end of every hint: the other way out, reading such files in the encoding
_READ_SO = "or read such files so: --encoding {0} (encoding= in Python)"
