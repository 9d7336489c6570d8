"""Names in Persian text, which has no capitals: a person named after a title.

A name follows a title (``آقای`` Mr., ``خانم``, ``دکتر``, ``پروفسور``, ``رئیس‌جمهور``,
``نخست‌وزیر``, ``وزیر امور خارجه``, ``آیت‌الله``, ``سرلشکر`` ...; written with the
zero-width non-joiner or with a space), after the words that still belong to the title (a
country, ``سابق`` former: ``رئیس‌جمهور سابق آمریکا باراک اوباما``), up to the next
preposition, conjunction, pronoun, auxiliary or verb of saying (``در``, ``به``, ``از``,
``را``, ``که``, ``گفت`` ...) or a punctuation mark: two words at most, ``سید`` and
``میرزا`` inside a name not counted, and not the sentence's last word when the name has
two (Persian puts its verb last). :data:`PERSIAN` holds these cues for
:func:`.titled.titled_names`, which gives each as ``person``; they are tried only in a
sentence with a letter Persian has and Arabic has not (``پ``, ``چ``, ``ژ``, ``گ``, ``ک``,
``ی``) and none of Urdu's own (``ے``, ``ہ``, ``ٹ`` ...): Urdu writes ``وزیر`` too.

Limits (honest): a name without a title is not found, nor are places and organisations; a
word that is not listed after a one-word name joins it (``آقای روحانی امروز`` is cut at the
listed ``امروز``, but ``آقای روحانی پزشک بود`` gives ``روحانی پزشک``); a name of three words
without ``سید`` is cut to two; titles that Arabic spells the same way (``مهندس``,
``استاد``, ``امام``) are left out, and so are a bare ``وزیر`` and occupations (``شاعر``,
``نویسنده``): Persian puts a ministry or an adjective after them (``وزیر بهداشت``, ``شاعر
بزرگ``), not a name. Text typed with Arabic's ``ي``, ``ى`` and ``ك`` for ``ی`` and ``ک``
(older sites, Arabic keyboards) is read alike (:attr:`.titled.TitleCues.folds`; the name
keeps the letters typed) in a sentence with one of ``پ``, ``چ``, ``ژ``, ``گ``, which Arabic
has not; a sentence so typed without any of them is read as Arabic.

Example:
    >>> from hyperviz_core.rag.extract.titled import titled_names
    >>> [s[3] for s in titled_names("آقای حسن روحانی در تهران با دکتر محمد قریب دیدار کرد.",
    ...                             PERSIAN)]
    ['حسن روحانی', 'محمد قریب']
"""

from __future__ import annotations

import re

from ..scripts import ARABIC_TYPED  # typed for ی and ک (:attr:`.TitleCues.folds`)
from .arabic import LETTERS
from .titled import TitleCues

__all__ = ["ARABIC_TYPED", "PERSIAN"]

# a word: Arabic-script letters and the zero-width non-joiner inside Persian words
# (``رئیس‌جمهور``, ``احمدی‌نژاد``)
_WORD = re.compile(f"[{LETTERS}](?:[{LETTERS}\u200c]*[{LETTERS}])?\\.?")
_CUES = frozenset((
    "آقای", "خانم", "دکتر", "پروفسور", "رئیس‌جمهور", "رئیس جمهور", "رئیس‌جمهوری",
    "رئیس جمهوری", "نخست‌وزیر", "نخست وزیر", "وزیر خارجه", "وزیر امور خارجه", "وزیر کشور",
    "وزیر دفاع", "وزیر اقتصاد", "وزیر نفت", "وزیر بهداشت", "وزیر دادگستری", "آیت‌الله",
    "آیت الله", "حجت‌الاسلام", "حجت الاسلام", "ملکه", "شاهزاده", "پادشاه", "سردار",
    "سرلشکر", "سرتیپ", "ژنرال", "شیخ", "صدراعظم"))
#: countries and words such as "former" that stay with the title before a name
_SKIP = frozenset((
    "سابق", "پیشین", "فقید", "وقت", "کنونی", "جدید", "آمریکا", "امریکا", "ایران", "روسیه",
    "فرانسه", "آلمان", "چین", "ترکیه", "عراق", "سوریه", "مصر", "اسرائیل", "انگلیس",
    "بریتانیا", "ژاپن", "هند", "پاکستان", "افغانستان", "اوکراین", "عربستان", "آمریکایی",
    "ایرانی", "روس", "فرانسوی", "آلمانی", "چینی", "ترک", "عراقی", "انگلیسی", "سعودی",
    "اردن", "انگلستان", "العظمی"))
_STOPS = frozenset((
    "و", "در", "به", "از", "با", "را", "که", "این", "آن", "برای", "تا", "بر", "یا", "هم",
    "نیز", "است", "بود", "شد", "شده", "بودند", "هستند", "نیست", "دارد", "داشت", "خواهد",
    "باید", "می", "گفت", "گفته", "می‌گوید", "کرد", "کرده", "اعلام", "روز", "امروز",
    "دیروز", "پس", "پیش", "بین", "درباره", "وی", "او", "ایشان", "همچنین", "اما", "ولی",
    "چون", "اگر", "هنگام", "سال", "طی", "بعد", "قبل", "نزد", "علیه", "توسط", "هر", "نه",
    "همراه", "دیدار", "گفتگو", "سفر"))
#: words inside names, not counted toward a name's length and never its last word
_PARTICLES = frozenset(("سید", "سیده", "میرزا"))

PERSIAN = TitleCues(word=_WORD, cues=_CUES, stops=_STOPS, most=2, particles=_PARTICLES,
                    skip=_SKIP, verb_last=True, ends=" .!?؟»\"'",
                    needs="پچژگکی", not_with="ےۓہۃھٹڈڑں", folds=ARABIC_TYPED)
"""Persian's titles and the words that end a name after one (:mod:`.titled`)."""
