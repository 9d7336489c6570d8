"""Names in Urdu text, which has no capitals: a person named after a title.

Urdu, like Hindi, writes its postpositions as words of their own (``عمران خان نے کہا``:
``نے`` marks who said it), so a name after ``جناب``, ``محترمہ``, ``ڈاکٹر``, ``پروفیسر``,
``مولانا``, ``علامہ`` ... or a title such as ``وزیر اعظم``, ``صدر``, ``وزیر خارجہ``,
``چیف جسٹس`` is the words up to the next postposition, auxiliary or conjunction (``نے``,
``کا``, ``میں``, ``ہے``, ``اور``, the honorific ``صاحب`` ...), after the words that still
belong to the title (a country: ``وزیر اعظم پاکستان نواز شریف``), three at most, and not
the sentence's last word when the name has two (Urdu puts its verb last). :data:`URDU`
holds these cues for :func:`.titled.titled_names`, which gives each as ``person``; they are
tried only in a sentence with a letter of Urdu's own (``ے``, ``ہ``, ``ھ``, ``ٹ``, ``ڈ``,
``ڑ``, ``ں``), which Arabic and Persian have not. Arabic's ``ي``, ``ى`` and ``ك`` typed for
``ی`` and ``ک`` are read alike, as in Persian (:data:`.persian.ARABIC_TYPED`).

Limits (honest): a name without a title is not found, nor are places and organisations; a
bare ``وزیر`` is no title (a ministry follows it: ``وزیر تعلیم``), only the ministers listed; a
word between the name and its postposition that is no listed country or city joins a name
of fewer than three words (``صدر عارف علوی وکیل تھے`` gives ``عارف علوی وکیل``), as in Hindi.

Example:
    >>> from hyperviz_core.rag.extract.titled import titled_names
    >>> [s[3] for s in titled_names("وزیر اعظم عمران خان نے جناب آصف زرداری سے ملاقات کی۔",
    ...                             URDU)]
    ['عمران خان', 'آصف زرداری']
"""

from __future__ import annotations

from .arabic import WORD
from .persian import ARABIC_TYPED
from .titled import TitleCues

__all__ = ["URDU"]

_CUES = frozenset((
    "جناب", "محترم", "محترمہ", "ڈاکٹر", "پروفیسر", "مولانا", "علامہ", "حضرت", "بیگم",
    "مسٹر", "وزیر اعظم", "وزیراعظم", "صدر", "وزیر اعلیٰ", "وزیراعلیٰ", "وزیر خارجہ",
    "وزیر داخلہ", "وزیر خزانہ", "وزیر دفاع", "وزیر اطلاعات", "وزیر تعلیم", "وزیر صحت",
    "وزیر قانون", "چیف جسٹس", "جسٹس", "جنرل",
    "سینیٹر", "گورنر", "میئر", "اسپیکر", "سپیکر", "چیئرمین", "شہزادہ", "شہزادی", "ملکہ",
    "بادشاہ", "کپتان", "شیخ", "نواب", "شاعر", "مصنف", "اداکار", "اداکارہ", "کوچ"))
#: countries and words such as "former" that stay with the title before a name
_SKIP = frozenset((
    "سابق", "مرحوم", "مرحومہ", "موجودہ", "نئے", "مملکت", "پاکستان", "بھارت", "امریکہ",
    "چین", "روس", "ایران", "افغانستان", "برطانیہ", "سعودی", "ترکی", "پنجاب", "سندھ",
    "پاکستانی", "بھارتی", "امریکی", "چینی", "روسی", "ایرانی", "افغان", "برطانوی"))
#: postpositions, auxiliaries, conjunctions and particles: where a name ends
_STOPS = frozenset((
    "نے", "کو", "سے", "کا", "کی", "کے", "میں", "پر", "تک", "اور", "ہے", "ہیں", "تھا", "تھی",
    "تھے", "بھی", "ہی", "تو", "جی", "یا", "لیے", "لئے", "ساتھ", "بعد", "پہلے", "کہ", "یہ",
    "وہ", "ایک", "نہیں", "کہا", "گیا", "گئی", "گئے", "ہوا", "ہوئی", "ہوئے", "رہا", "رہی",
    "رہے", "گا", "گی", "گے", "صاحب", "نیز", "جبکہ", "لیکن", "مگر", "آج", "کل", "والے",
    "والی", "والا", "دوران", "خلاف", "بارے", "طرف", "پاس", "سمیت", "جو", "جس", "جن"))
_PARTICLES = frozenset(("بن", "بنت", "عبد"))
#: countries and cities: after a name's first word, one ends it
_PLACES = frozenset((
    "پاکستان", "بھارت", "ہندوستان", "امریکہ", "چین", "روس", "جاپان", "ایران", "افغانستان",
    "برطانیہ", "ترکی", "نیپال", "لاہور", "کراچی", "پشاور", "کوئٹہ", "ملتان", "دہلی", "ممبئی",
    "پنجاب", "سندھ", "بلوچستان", "کشمیر"))

URDU = TitleCues(word=WORD, cues=_CUES, stops=_STOPS, most=3, particles=_PARTICLES,
                 skip=_SKIP, verb_last=True, ends=" ۔.!?؟\"'", needs="ےۓہۃھٹڈڑں",
                 places=_PLACES, folds=ARABIC_TYPED)
"""Urdu's titles and the words that end a name after one (:mod:`.titled`)."""
