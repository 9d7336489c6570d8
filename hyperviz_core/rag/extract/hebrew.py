"""Names in Hebrew text, which has no capitals: a person named after a title.

A name follows a title (``מר``, ``גב'``, ``ד"ר``, ``פרופ'``, ``הנשיא``, ``ראש הממשלה``,
``שר החוץ``, ``הרב``, ``ח"כ`` ...; also with ``ו``/``ש`` written onto it, ``ל``/``ב``/``כ``
in place of the article: ``והנשיא``, ``לנשיא``), up to the next preposition, pronoun,
conjunction or verb of saying (``על``, ``עם``, ``את``, ``של``, ``אמר`` ...), a word with
``ו`` on a title or on the article (``והשר``: "and the minister") or a punctuation mark:
two words at most, ``בן``/``בר`` inside a name not counted. :data:`HEBREW` holds these cues for
:func:`.titled.titled_names`, which gives each as ``person``.

Limits (honest): a name without a title is not found, nor are places and organisations; a
verb after a one-word name that is not listed joins it (``הנשיא הרצוג סייר`` gives
``הרצוג סייר``; ``ביקר`` is listed), and so does a place with its preposition written onto it
(``המלך חוסיין בוושינגטון`` gives ``חוסיין בוושינגטון``: surnames open with those letters
too, ``כהן``, ``לוי``, ``בגין``); a name of three words is cut to two; Yiddish, also written
in Hebrew letters, has other titles.

Example:
    >>> from hyperviz_core.rag.extract.titled import titled_names
    >>> [s[3] for s in titled_names('ראש הממשלה יצחק רבין נפגש עם ד"ר חיים ויצמן.', HEBREW)]
    ['יצחק רבין', 'חיים ויצמן']
"""

from __future__ import annotations

import re

from .titled import TitleCues

__all__ = ["HEBREW"]

# a word: letters (with points and cantillation marks, not the punctuation among them: paseq
# ׀, sof pasuq ׃, nun hafukha), an abbreviation's geresh or gershayim (ד"ר, גב'), a
# hyphenated name (בן-גוריון, or with a maqaf)
_WORD = re.compile("[\u05d0-\u05ea][\u0591-\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u05d0-\u05ea]*"
                   "(?:[\"'\u05f3\u05f4][\u05d0-\u05ea]+|[-\u05be][\u05d0-\u05ea]+)*"
                   "[\"'\u05f3\u05f4]?")
_CUES = frozenset((
    "מר", "גב'", "גברת", "ד\"ר", "ד״ר", "פרופ'", "פרופ׳", "פרופסור", "הנשיא", "הנשיאה",
    "ראש הממשלה", "ראש העיר", "ראש האופוזיציה", "השר", "השרה", "הרב", "הרבנית", "עו\"ד",
    "עו״ד", "ח\"כ", "ח״כ", "השופט", "השופטת", "המלך", "המלכה", "הנסיך", "האלוף", "הגנרל",
    "הסופר", "הסופרת", "המשורר", "המשוררת", "השחקן", "השחקנית", "הזמר", "הזמרת", "המאמן",
    "שר החוץ", "שר הביטחון", "שר האוצר", "שר הפנים", "שר המשפטים", "שר הבריאות",
    "שר החינוך", "שרת החוץ", "שרת החינוך", "יו\"ר", "יו״ר", "מנכ\"ל", "מנכ״ל"))
_STOPS = frozenset((
    "על", "עם", "את", "של", "אל", "כי", "אשר", "גם", "לא", "הוא", "היא", "הם", "הן", "זה",
    "זו", "זאת", "אך", "אבל", "או", "כאשר", "לאחר", "אחרי", "לפני", "היום", "אתמול", "מחר",
    "ביום", "בשנת", "כבר", "עוד", "רק", "מאוד", "היה", "הייתה", "היו", "יהיה", "אמר",
    "אמרה", "הודיע", "הודיעה", "ציין", "ציינה", "הוסיף", "הוסיפה", "טען", "טענה", "כתב",
    "כתבה", "נפגש", "נפגשה", "ביקר", "ביקרה", "פגש", "פגשה", "אומר", "אומרת", "מסר",
    "מסרה", "השיב", "השיבה", "הסביר", "הסבירה", "הגיע", "הגיעה", "נאם", "נאמה",
    # (stop 65) "all", "this", "that", "these", "himself": a title may stand alone before
    # them (אֶל־הַמֶּלֶךְ כֹּל אֲשֶׁר, "to the king: all that ..."; הַמֶּלֶךְ הַזֶּה)
    "כל", "הזה", "הזאת", "ההוא", "ההיא", "האלה", "עצמו", "עצמה"))
_PARTICLES = frozenset(("בן", "בר", "בת", "אבו"))

#: "and" as the Bible's text and other pointed text write it: vav with sheva, patah or
#: qamats, or as shureq (וְ, וַ, וָ, וּ)
_AND = re.compile("\u05d5[\u05b0\u05b7\u05b8\u05bc]")

HEBREW = TitleCues(word=_WORD, cues=_CUES, stops=_STOPS, most=2, particles=_PARTICLES,
                   prefixes="ושלבכמ", article="ה", elides="לבכ", joiner="\u05be",
                   conjunction=_AND)
"""Hebrew's titles and the words that end a name after one (:mod:`.titled`)."""

