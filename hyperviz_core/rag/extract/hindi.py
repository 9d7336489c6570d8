"""Names in Hindi text, which Devanagari writes without capitals: a person named after an
honorific or a title, the offline extractor's cue for them.

Hindi writes its postpositions as words of their own (``नरेंद्र मोदी ने कहा``: ``ने`` marks
who said it), so a name after ``श्री``, ``श्रीमती``, ``डॉ.``, ``प्रोफेसर``, ``पंडित``,
``महात्मा`` ... or a title such as ``प्रधानमंत्री``, ``राष्ट्रपति``, ``मंत्री`` is the words up to
the next postposition, auxiliary or conjunction (``ने``, ``का``, ``में``, ``है``, ``और``,
the honorific ``जी`` ...), three at most, with nothing but spaces between them, and not
the sentence's last word when the name has two (Hindi puts its verb last):
:data:`HINDI` holds these cues for :func:`.titled.titled_names`, which gives each as
``person``.

A country or city after a name's first word ends it (``श्री रामनाथ कोविंद भारत के राष्ट्रपति
थे`` gives ``रामनाथ कोविंद``; a given name may be one: ``श्री भारत भूषण``).

Limits (honest): a name without such a cue (``नरेंद्र मोदी ने``) is not found, nor are places
and organisations; another word between the name and its postposition joins a name of fewer
than three words (``श्री रामनाथ कोविंद वकील थे`` gives ``रामनाथ कोविंद वकील``).
Marathi and Nepali, also written in Devanagari, attach their postpositions to the word, so a
name there takes its postposition with it.

Example:
    >>> from hyperviz_core.rag.extract.titled import titled_names
    >>> [(s[3], s[4]) for s in titled_names("प्रधानमंत्री नरेंद्र मोदी ने भाषण दिया।", HINDI)]
    [('नरेंद्र मोदी', 'person')]
"""

from __future__ import annotations

import re

from .titled import TitleCues

__all__ = ["HINDI"]

_WORD = re.compile("[\u0900-\u0963\u0966-\u097f]+\\.?")
#: honorifics and titles a name follows
_CUES = frozenset((
    "श्री", "श्रीमती", "श्रीमान", "सुश्री", "कुमारी", "डॉ.", "डॉ", "डॉक्टर", "प्रोफेसर", "प्रो.",
    "पंडित", "महात्मा", "स्वामी", "राष्ट्रपति", "प्रधानमंत्री", "मुख्यमंत्री", "मंत्री", "राजा",
    "रानी", "सम्राट", "महाराजा", "सांसद", "विधायक", "न्यायमूर्ति", "जनरल", "कप्तान"))
#: postpositions, auxiliaries, conjunctions and particles: where a name ends
_STOPS = frozenset((
    "ने", "को", "से", "का", "की", "के", "में", "पर", "तक", "और", "है", "हैं", "था", "थी", "थे",
    "तथा", "एवं", "व", "भी", "ही", "तो", "जी", "या", "लिए", "द्वारा", "साथ", "बाद", "पहले",
    "कि", "यह", "वह", "ये", "वे", "एक", "नहीं", "कहा", "गया", "गई", "गए", "हुआ", "हुई", "हुए",
    "आया", "आई", "आए", "रहा", "रही", "रहे", "होगा", "होगी", "होंगे"))
#: countries and cities: after a name's first word, one ends it
_PLACES = frozenset((
    "भारत", "पाकिस्तान", "अमेरिका", "अमरीका", "चीन", "रूस", "जापान", "नेपाल", "बांग्लादेश",
    "श्रीलंका", "ब्रिटेन", "इंग्लैंड", "फ्रांस", "जर्मनी", "इटली", "कनाडा", "ऑस्ट्रेलिया",
    "अफगानिस्तान", "ईरान", "इराक", "इजराइल", "इज़राइल", "यूक्रेन", "दिल्ली", "मुंबई",
    "कोलकाता", "चेन्नई", "बेंगलुरु", "हैदराबाद", "लखनऊ", "पटना", "जयपुर", "बिहार", "गुजरात",
    "महाराष्ट्र", "पंजाब", "केरल", "राजस्थान", "कश्मीर"))
HINDI = TitleCues(word=_WORD, cues=_CUES, stops=_STOPS, most=3, verb_last=True,
                  ends=" ।॥!?\"'", places=_PLACES)
"""Hindi's titles and the words that end a name after one (:mod:`.titled`)."""

