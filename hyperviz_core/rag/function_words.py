"""Function words of the languages without an English-style stop list here: Arabic,
Hebrew, Persian, Urdu and Hindi.

The offline keywords (a chunk's theme keywords, a clause's, a query's:
:func:`~hyperviz_core.rag.providers.offline.content_words`) drop English's stop words; in
these languages the most frequent words were their prepositions, conjunctions and pronouns,
so an Arabic chunk's theme read ``في, من, على`` and a Hebrew question's keywords held
``מתי`` ("when"). These are the closed classes only — prepositions, postpositions,
conjunctions, particles, pronouns, demonstratives, relatives, interrogatives, auxiliaries and
copulas — never a noun or a verb of content, so nothing a question asks about is lost. They
are compared as retrieval reads the script (:func:`~hyperviz_core.rag.scripts.letters_alike`:
``إلى`` and ``الى``, Arabic's ``ي`` and Persian's ``ی`` alike, points dropped).

BM25 and the hashed embedder keep reading these words (their tokens are versioned with the
stores); only the keywords leave them out.

Example:
    >>> function_word("على"), function_word("عَلَى"), function_word("القاهرة")
    (True, True, False)
    >>> function_word("מתי"), function_word("में"), function_word("است")
    (True, True, True)
"""

from __future__ import annotations

from .scripts import letters_alike

__all__ = ["FUNCTION_WORDS", "function_word"]

_ARABIC = (
    # prepositions
    "في", "من", "إلى", "على", "عن", "مع", "حتى", "منذ", "عند", "لدى", "بين", "حول", "خلال",
    "ضد", "نحو", "دون", "تحت", "فوق", "أمام", "خلف", "بعد", "قبل", "عبر", "ضمن", "لدي",
    # conjunctions and particles
    "ثم", "أو", "أم", "بل", "لكن", "إن", "أن", "كأن", "لأن", "إذ", "إذا", "لو", "لولا", "كي",
    "لكي", "قد", "لقد", "سوف", "لم", "لن", "لا", "ليس", "ليست", "هل", "كما", "أيضا", "فقط",
    "حيث", "إلا", "عندما", "بينما", "وفي", "ومن", "وهو", "وهي", "وقد", "ولم", "ولا", "فقد",
    "فإن", "وأن", "بأن", "كل", "بعض", "غير", "أي",
    # pronouns, demonstratives, relatives, interrogatives
    "هو", "هي", "هم", "هن", "هما", "أنا", "نحن", "أنت", "أنتم", "هذا", "هذه", "ذلك", "تلك",
    "هؤلاء", "أولئك", "هنا", "هناك", "الذي", "التي", "الذين", "اللذان", "اللتان", "اللواتي",
    "اللاتي", "والتي", "والذي", "ما", "متى", "أين", "كيف", "لماذا", "ماذا", "كم",
    # the copula and its auxiliary
    "كان", "كانت", "كانوا", "يكون", "تكون",
)
_HEBREW = (
    # prepositions, with their pronoun endings most written
    "של", "את", "על", "עם", "אל", "מן", "בין", "עד", "אצל", "לפני", "אחרי", "לאחר", "בלי",
    "לו", "לה", "להם", "להן", "בו", "בה", "בהם", "אותו", "אותה", "אותם", "עליו", "עליה",
    "אליו", "אליה", "ממנו", "ממנה", "שלו", "שלה", "שלהם",
    # conjunctions and particles
    "כי", "אם", "או", "גם", "לא", "אין", "יש", "אשר", "כאשר", "כמו", "רק", "עוד", "כבר",
    "מאוד", "אבל", "אך", "לכן", "כך", "כן", "ואת", "וגם", "כל", "ולא", "שלא",
    # pronouns, demonstratives, interrogatives
    "הוא", "היא", "הם", "הן", "אני", "אנחנו", "אתה", "אתם", "זה", "זו", "זאת", "אלה",
    "שהוא", "שהיא", "הזה", "הזאת", "ההוא", "ההיא", "האלה", "מי", "מה", "איך", "למה",
    "מתי", "איפה", "היכן", "מדוע",
    # the copula
    "היה", "הייתה", "היתה", "היו", "יהיה", "יהיו", "תהיה", "להיות",
)
_PERSIAN = (
    "و", "در", "به", "از", "با", "را", "که", "این", "آن", "برای", "تا", "بر", "یا", "هم",
    "نیز", "اما", "ولی", "اگر", "چون", "پس", "هر", "همه", "بی", "بین", "درباره", "روی",
    "زیر", "پیش", "میان",
    "او", "وی", "ما", "شما", "آنها", "ایشان", "من", "تو", "خود", "آنان", "اینها",
    "چه", "چرا", "کجا", "کی", "چگونه", "چطور", "کدام", "چند",
    "است", "بود", "شد", "هست", "نیست", "بودند", "هستند", "شده", "می", "ها", "های", "ای",
)
_URDU = (
    "نے", "کو", "سے", "کا", "کی", "کے", "میں", "پر", "تک", "اور", "بھی", "ہی", "تو", "یا",
    "لیے", "لئے", "ساتھ", "کہ", "مگر", "لیکن", "اگر", "بعد", "پہلے",
    "یہ", "وہ", "ان", "اس", "جو", "جس", "جن", "انہوں", "اپنے", "اپنی", "اپنا",
    "کیا", "کیوں", "کب", "کہاں", "کون", "کیسے",
    "ہے", "ہیں", "تھا", "تھی", "تھے", "ہو", "ہوا", "ہوئی", "ہوئے", "نہیں", "گیا", "گئی",
    "گئے", "رہا", "رہی", "رہے",
)
_HINDI = (
    "ने", "को", "से", "का", "की", "के", "में", "पर", "तक", "और", "भी", "ही", "तो", "या",
    "लिए", "द्वारा", "साथ", "कि", "लेकिन", "परंतु", "परन्तु", "अगर", "यदि", "तथा", "एवं", "व",
    "बाद", "पहले",
    "यह", "वह", "ये", "वे", "इस", "उस", "इन", "उन", "जो", "जिस", "जिन", "अपने", "अपना",
    "अपनी", "एक",
    "क्या", "क्यों", "कब", "कहाँ", "कहां", "कौन", "कैसे",
    "है", "हैं", "था", "थी", "थे", "हो", "हुआ", "हुई", "हुए", "नहीं", "गया", "गई", "गए",
    "रहा", "रही", "रहे",
)

FUNCTION_WORDS: frozenset[str] = frozenset(
    letters_alike(w) for w in (*_ARABIC, *_HEBREW, *_PERSIAN, *_URDU, *_HINDI))
"""Every function word above, as :func:`~hyperviz_core.rag.scripts.letters_alike` reads it."""


def function_word(word: str) -> bool:
    """Whether ``word`` (one word, lower-cased as keywords are) is one of
    :data:`FUNCTION_WORDS`, read as retrieval reads its script; False for ASCII words
    (English's stop words are :data:`~hyperviz_core.rag.providers.offline.STOPWORDS`)."""
    return not word.isascii() and letters_alike(word) in FUNCTION_WORDS
