"""Names in Arabic text, which has no capitals: a person named after a title.

A name follows a title (``الرئيس`` the president, ``الملك``, ``الشيخ``, ``الدكتور``, ``د.``,
``السيد``, ``رئيس الوزراء``, ``وزير الخارجية`` ...; also with ``و``/``ب``/``ل``/``ف``
written onto it: ``والرئيس``, ``للرئيس``), after the words that still belong to the title
(a nationality, ``السابق`` former: ``الرئيس الأمريكي السابق باراك أوباما``), up to the next
preposition, particle, pronoun or verb of saying (``في``, ``إن``, ``قال`` ...), a word with
``و`` on a title or on the article (``ووزير``, ``والوزير``: "and the minister") or a
punctuation mark: two words at most, the particles of names (``بن``, ``عبد``, ``آل``,
``أبو`` ...) not counted. :data:`ARABIC` holds these cues for
:func:`.titled.titled_names`, which gives each as ``person``.

Limits (honest): a name without a title (``قال محمد``) is not found, nor are places and
organisations; a verb after a one-word name that is not listed joins it (``الرئيس بايدن
يزور`` gives ``بايدن يزور``); a name of three words without a particle is cut to two
(``محمد حسني مبارك`` gives ``محمد حسني``). Persian and Urdu, also written in Arabic letters,
have their own titles (:mod:`.persian`, :mod:`.urdu`).

Example:
    >>> from hyperviz_core.rag.extract.titled import titled_names
    >>> [s[3] for s in titled_names("التقى الرئيس عبد الفتاح السيسي مع الملك عبدالله.", ARABIC)]
    ['عبد الفتاح السيسي', 'عبدالله']
"""

from __future__ import annotations

import re

from .titled import TitleCues

__all__ = ["ARABIC", "LETTERS", "WORD"]

#: the letters (and marks) of the Arabic script, which Persian and Urdu write in too
LETTERS = "\u0621-\u065f\u0670-\u06d3\u06fa-\u06ff"
#: a word of the Arabic script, with an abbreviation's dot (``د.``)
WORD = re.compile(f"[{LETTERS}]+\\.?")
_CUES = frozenset((
    "الرئيس", "الملك", "الملكة", "الأمير", "الأميرة", "الشيخ", "الشيخة", "السلطان", "الإمام",
    "الدكتور", "الدكتورة", "د.", "الأستاذ", "الأستاذة", "البروفيسور", "السيد", "السيدة",
    "الآنسة", "المهندس", "المستشار", "المستشارة", "الوزير", "الوزيرة", "النائب", "النائبة",
    "الجنرال", "اللواء", "العميد", "العقيد", "الفريق", "المشير", "القاضي", "البابا", "الكاتب",
    "الكاتبة", "الشاعر", "الشاعرة", "الفنان", "الفنانة", "اللاعب", "اللاعبة", "المدرب",
    "رئيس الوزراء", "رئيسة الوزراء", "ولي العهد", "الأمين العام", "رئيس الحكومة",
    "وزير الخارجية", "وزير الدفاع", "وزير المالية", "وزير الداخلية", "وزير الصحة",
    "وزير التعليم", "وزير العدل", "وزير الاقتصاد", "وزيرة الخارجية"))
#: nationalities and words such as "former" that stay with the title before a name
_SKIP = frozenset((
    "الأمريكي", "الأميركي", "الروسي", "الفرنسي", "البريطاني", "الألماني", "الصيني", "المصري",
    "السعودي", "التركي", "الإيراني", "السوري", "العراقي", "الأردني", "اللبناني", "الفلسطيني",
    "الإسرائيلي", "الياباني", "الهندي", "الأوكراني", "الإماراتي", "القطري", "الكويتي",
    "المغربي", "الجزائري", "التونسي", "الليبي", "السوداني", "اليمني", "العماني", "البحريني",
    "الإسباني", "الإيطالي", "الكندي", "الباكستاني", "الأفغاني", "السابق", "السابقة",
    "الأسبق", "الراحل", "الراحلة", "الحالي", "الجديد", "الجديدة", "المصرية", "الأمريكية"))
_STOPS = frozenset((
    "في", "من", "إلى", "الى", "على", "عن", "مع", "إن", "أن", "أنّ", "إنّ", "بأن", "لأن", "الذي",
    "التي", "الذين", "و", "ثم", "أو", "قد", "لقد", "كان", "كانت", "هو", "هي", "هم", "يوم",
    "خلال", "بعد", "قبل", "حيث", "أمس", "اليوم", "عند", "لدى", "منذ", "حتى", "بين", "حول",
    "ضد", "نحو", "لم", "لن", "لا", "ما", "كما", "إذ", "إذا", "أي", "هذا", "هذه", "ذلك", "تلك",
    "قال", "قالت", "أعلن", "أعلنت", "أكد", "أكدت", "صرح", "صرحت", "ذكر", "ذكرت", "أشار",
    "أشارت", "أضاف", "أضافت", "دعا", "دعت", "التقى", "التقت", "زار", "زارت", "استقبل",
    "استقبلت", "يقول", "تقول", "وقال", "وقالت", "وأضاف", "وأضافت", "أيضا", "أيضاً"))
#: words inside names, not counted toward a name's length and never its last word
_PARTICLES = frozenset(("بن", "ابن", "بنت", "عبد", "أبو", "ابو", "أبي", "آل", "أم", "ولد"))

ARABIC = TitleCues(word=WORD, cues=_CUES, stops=_STOPS, most=2, particles=_PARTICLES,
                   skip=_SKIP, prefixes="وبلف", article="ال", elides="ل")
"""Arabic's titles and the words that end a name after one (:mod:`.titled`)."""

