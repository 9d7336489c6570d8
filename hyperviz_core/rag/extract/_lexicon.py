"""Word lists and patterns of the heuristic extractor (:mod:`hyperviz_core.rag.extract.heuristic`).

Small hand-written English lexicons: honorifics, common first names, role nouns, and
suffix words that hint at organisations, places, events and works. Deliberately short;
they are cues, not a gazetteer.
"""

from __future__ import annotations

import re

from ..scripts import CJK


def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


_ABBREV = _words(
    "mr mrs ms dr st jr sr prof gen col lt sgt capt cpt rev hon inc ltd co corp vs etc "
    "no nos mt ft fig approx dept est univ bros jan feb mar apr jun jul aug sep sept oct nov "
    "dec e.g i.e u.s u.k a.d b.c ph.d डॉ प्रो"
)
_HONORIFICS = _words(
    "Mr Mrs Ms Miss Dr Sir Dame Lord Lady King Queen Prince Princess President Senator "
    "Governor General Colonel Captain Professor Prof Saint St Pope Emperor Empress Duke "
    "Duchess Count Countess Baron Chancellor Minister Judge Justice Reverend Rev Bishop"
)
_FIRST_NAMES = _words(
    "john james robert michael william david richard joseph thomas charles christopher "
    "daniel matthew anthony mark donald steven paul andrew joshua kenneth kevin brian george "
    "edward ronald timothy jason jeffrey ryan jacob gary nicholas eric jonathan stephen larry "
    "justin scott brandon benjamin samuel frank gregory raymond alexander patrick jack dennis "
    "jerry tyler aaron henry peter adam nathan douglas zachary walter harold carl arthur "
    "roger albert louis lewis jean pierre jacques hans karl johann friedrich wolfgang giuseppe "
    "giovanni carlos juan jose luis antonio francisco pedro ivan vladimir sergei dmitri "
    "mary patricia jennifer linda elizabeth barbara susan jessica sarah karen nancy lisa "
    "margaret betty sandra ashley dorothy kimberly emily donna michelle carol amanda melissa "
    "deborah stephanie rebecca laura sharon cynthia kathleen amy shirley angela helen anna "
    "brenda pamela nicole emma samantha katherine christine debra rachel catherine carolyn "
    "janet ruth maria heather diane virginia julie joyce victoria kelly christina joan evelyn "
    "lauren judith olivia martha cheryl megan andrea hannah jacqueline ann jane alice julia "
    "marie sophie charlotte grace rose frances eleanor ellen lucy clara louise"
)
_ROLE_NOUNS = _words(
    "actor actress singer songwriter rapper writer author poet novelist playwright "
    "psychologist philosopher physicist chemist biologist scientist mathematician economist "
    "politician president senator governor mayor king queen emperor prince princess director "
    "producer composer conductor painter sculptor artist architect musician guitarist "
    "drummer bassist pianist player footballer cricketer golfer boxer wrestler coach manager "
    "founder journalist editor publisher lawyer judge bishop priest pope general admiral "
    "officer soldier explorer inventor engineer entrepreneur businessman businesswoman "
    "chef model comedian dancer host presenter historian sociologist son daughter wife "
    "husband brother sister father mother uncle aunt nephew niece cousin grandson "
    "granddaughter widow professor dr mr mrs ms"
)
_ORG_WORDS = _words(
    "University College Institute Institution School Academy Association Society Council "
    "Committee Commission Agency Bureau Bank Party Club Foundation Fund Records Press "
    "Airlines Airways Ministry Department Army Navy Corps Police League Union Federation "
    "Organization Organisation Church Company Corporation Group Holdings Industries "
    "Entertainment Studios Pictures Network Broadcasting Laboratory Laboratories Hospital "
    "Trust Board Office Court Parliament Congress Senate Assembly Government Administration "
    "Inc Inc. Corp Corp. Ltd Ltd. LLC plc PLC GmbH AG Co. Team Band Orchestra Choir FC"
)
_LOC_WORDS = _words(
    "River Mountain Mountains Mount Mt Lake Island Islands Isle Sea Ocean Bay Gulf Valley "
    "County Province City Town Village Street Avenue Road Square Desert Peninsula Canyon "
    "Falls Coast Beach District Region Territory Prefecture Oblast Borough Parish Township "
    "Airport Station Bridge Castle Palace Park Forest Hills Hill Creek Harbor Harbour Strait "
    "Cape Glacier Reservoir Canal Highway Kingdom Republic Empire State States"
)
_EVENT_WORDS = _words(
    "War Wars Battle Siege Revolution Olympics Olympic Championship Championships Cup "
    "Festival Election Elections Awards Award Prize Games Tournament Crisis Massacre Treaty "
    "Conference Expedition Summit Prix Bowl Series Rebellion Uprising Movement Campaign "
    "Invasion Earthquake Hurricane Fire Marathon Open Contest"
)
_WORK_WORDS = _words(
    "Journal Magazine Gazette Review Times Tribune Herald Post Chronicle Album Symphony "
    "Opera Show Saga Trilogy Chronicles Manual"
)
_WORK_CUES = _words(
    "film movie album song single novel book series show play opera poem game episode "
    "painting musical sitcom documentary magazine newspaper journal"
)
_LOC_PREPS = _words("in at near from to across into outside inside")
_PLACES = _words(
    "Africa Asia Europe America Antarctica Australia Oceania Arctic Atlantic Pacific "
    "England Scotland Wales Ireland Britain France Germany Italy Spain Portugal Netherlands "
    "Belgium Switzerland Austria Poland Russia Ukraine Sweden Norway Denmark Finland Greece "
    "Turkey Egypt Israel Iran Iraq India Pakistan China Japan Korea Vietnam Thailand "
    "Indonesia Philippines Canada Mexico Brazil Argentina Chile Peru Colombia Cuba Nigeria "
    "Kenya Ethiopia London Paris Berlin Rome Madrid Moscow Tokyo Beijing Delhi Sydney "
    "Chicago Boston Toronto Vienna Prague Dublin Amsterdam Copenhagen Stockholm California "
    "Texas Florida Ohio Virginia Massachusetts Pennsylvania Michigan Georgia Washington "
    "Hollywood Manhattan Brooklyn"
)
_DEMONYMS = _words(
    "American British English Scottish Welsh Irish French German Italian Spanish Portuguese "
    "Dutch Belgian Swiss Austrian Polish Russian Ukrainian Swedish Norwegian Danish Finnish "
    "Greek Turkish Egyptian Israeli Iranian Indian Pakistani Chinese Japanese Korean "
    "Vietnamese Thai Canadian Mexican Brazilian Argentine Australian African European Asian "
    "Roman Christian Muslim Jewish Catholic Protestant Hindu Buddhist Latin Arab Arabic "
    "Persian Soviet Nigerian Kenyan Cuban Chilean Peruvian Colombian"
)
#: French and Italian elided articles and particles: before a word, a token of their own
#: (:data:`_TOKEN`), so "l'École", "d'Alembert", "qu'Einstein" and "dell'Arte" give the name
#: after the apostrophe (before, a lower-case start hid the name); capitalised only the
#: article "L'" ("L'Oréal" gives "Oréal" as "The Hague" gives "Hague") and the conjunctions
#: ("Qu'Einstein"): "D'Angelo" keeps its "D'"
_ELIDED = "l d j m n s t c qu jusqu lorsqu puisqu dell dall nell sull all"
_ELISION = (rf"(?<![\w'’])(?:{'|'.join(_ELIDED.split())}|L|Qu|Jusqu|Lorsqu|Puisqu)['’]"
            r"(?=[^\W\d_])")
_ELISIONS = frozenset(f"{w}{a}" for w in _ELIDED.split() for a in "'’")
_CONNECTORS = _words("of the de da del della di du des la le von van der den al bin y and for "
                     "on") | _ELISIONS
_NAME_CONNECTORS = _words("of the de da del della di du des la le von van der den al bin y "
                          "for") | _ELISIONS
_CALENDAR = _words(
    "January February March April May June July August September October November December "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
)
_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept?\.?|Oct\.?|Nov\.?|Dec\.?)"
)
_DATE_RES = [
    re.compile(rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?{_MONTHS}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?,?\s+\d{{3,4}}\b"),
    re.compile(rf"\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"),
    re.compile(r"\b\d{1,2}(?:st|nd|rd|th)[\s-]century\b", re.I),
    re.compile(r"\b(?:1\d|20)\d0s\b"),
    re.compile(r"(?<![\d.,$£€¥])\b(?:1[0-9]|20)\d{2}\b(?![.,]?\d)(?!\s?(?:%|percent))"),
]
_UNITS = (
    r"%|percent|per\s?cent|km|kilometres|kilometers|miles|mi|metres|meters|m|cm|mm|kg|"
    r"tonnes|tons|pounds|lb|lbs|feet|ft|inches|acres|hectares|ha|sq\s?mi|"
    r"square\s(?:miles|kilometres|kilometers|metres|meters|feet)|million|billion|trillion|"
    r"thousand|people|inhabitants|residents|employees|students|members|episodes|seasons|"
    r"copies|votes|points|goals|games|matches|years|months|weeks|days|hours|minutes|"
    r"seconds|mph|km/h|°C|°F|MW|GW|kW|kWh|GB|MB|TB|BPM"
)
_QUANTITY_RES = [
    re.compile(r"[$£€¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|trillion|thousand|bn|m|k)\b)?"),
    # a number starts its run of digits and commas: no start after "1," or ",," (each such
    # start scanned the rest of the run again: quadratic in a long "1,1,1,..." list)
    re.compile(rf"(?<!\d,)(?<!,,)\b\d[\d,]*(?:\.\d+)?\s?(?:{_UNITS})(?![\w])"),
]
_QUOTE_RES = [
    re.compile(r"“([^”\n]{2,150})”"),
    re.compile(r'"([^"\n]{2,150})"'),
    re.compile(r"``\s*([^`'\n]{2,150}?)\s*''"),
]
_TOKEN = re.compile(rf"{_ELISION}|[^\W_](?:[\w'’.\-]*[^\W_])?\.?|&")
#: a sentence's end: its first stop (a match from a later stop of the same run would fail as
#: the first did: trying each made a long run of dots quadratic), a Chinese or Japanese stop
#: (no space follows it), or a line break
_SENT_END = re.compile(r"(?<![.!?])[.!?؟۔।॥׃]+[\"'”’)\]]*\s+|[。！？]+[」』）”’]*|\n+")
#: a name's word, in a sentence holding Chinese, Japanese or Korean: as :data:`_TOKEN`, but
#: ending where such a script starts ("Apple" of "Apple公司")
_CJK_STOP = f"(?![{CJK}])"
_TOKEN_BESIDE_CJK = re.compile(
    rf"{_ELISION}|{_CJK_STOP}[^\W_](?:(?:{_CJK_STOP}[\w'’.\-])*{_CJK_STOP}[^\W_])?\.?|&")
#: sentence-initial imperatives of questions ("Name the ...", "List all ...")
_IMPERATIVES = _words(
    "name list give tell describe explain find identify compare show define summarize "
    "summarise state mention"
)
#: closed-class words that are never a name on their own, however capitalised: sentence
#: adverbs and connectives ("According", "Indeed"), interjections ("Oh", "Yes"),
#: quantifiers and indefinite pronouns ("Several", "Nothing"), number words ("Two",
#: "Third") and imperatives of prose ("See", "Let"). Stop words are trimmed elsewhere.
_NOT_NAMES = _words(
    "according although though however moreover furthermore nevertheless nonetheless "
    "notwithstanding besides hence therefore thus indeed perhaps probably possibly "
    "certainly surely undoubtedly doubtless meanwhile afterwards afterward subsequently "
    "finally lastly firstly secondly later earlier still yet even instead otherwise "
    "accordingly consequently likewise similarly namely altogether anyway somehow sometimes "
    "often usually always never already almost nearly quite rather really simply merely "
    "else presently suddenly immediately soon today yesterday tomorrow tonight thereupon "
    "wherefore whereupon oh ah alas yes nay aye hey hello hallo hurrah hush pshaw bah "
    "o well why another several many much few none nothing nobody everyone "
    "everybody everything something somebody someone anything anyone anybody whatever "
    "whoever two three four five six seven eight nine ten eleven twelve twenty hundred "
    "thousand second third fourth fifth sixth seventh eighth ninth tenth see look come let "
    "pray"
)
#: endings of English sentence adverbs ("Originally", "Additionally", "Reportedly"): a
#: sentence's capitalised opening word of 7 letters or more ending in one is no name (the
#: names the words "ly" close, "Italy", "Sicily", "Kelly", "Beverly", end otherwise)
_ADVERB_ENDS = (
    "ally", "ably", "ibly", "arly", "ctly", "edly", "ently", "antly", "ately", "fully",
    "ingly", "ively", "ously", "ually", "ially",
)
#: participles that open a sentence's clause and are no name there ("Following the war",
#: "Born in Vienna", "Known as"); a name's "Born" (Max Born) rarely opens a sentence alone
_OPENING_PARTICIPLES = _words(
    "following including regarding concerning excluding considering born known written "
    "located situated named nicknamed dubbed"
)
#: irregular past participles, taken for one before a preposition like those in "-ed"
#: ("Built in 1888", "Held at", "Set in"; "Led Zeppelin" and the film "Frozen" stay names)
_IRREGULAR_PARTICIPLES = _words(
    "built made held sold won led set given taken seen found brought bought caught taught "
    "told left kept sent spent lost paid put shown drawn grown thrown chosen spoken broken "
    "hidden driven begun struck hung fought laid bred fed cast shot"
)
#: words after a sentence-initial past participle that make it one ("Founded in",
#: "Directed by"), not a name ending in "-ed" ("Alfred", "Mildred")
_AFTER_PARTICIPLE = _words(
    "in on at by as near from for with under after into between along during off to "
    "alongside within outside throughout across"
)
#: words after a sentence-initial "-ing" word that make it a participle ("Using the",
#: "Featuring a"), not a name ending in "-ing" ("Beijing", "Wyoming", "Reading")
_AFTER_GERUND = _words("the a an his her its their this these those that some several")
#: words a title leaves lower-case (English, and the articles and particles of German,
#: French, Latin, Spanish and Italian titles)
_TITLE_LOWER = _words(
    "a an the and but or nor for of in on at to by with from as into onto upon over via vs "
    "und der die das des dem den von zu im am auf mit ein eine einer le la les du de et en "
    "au aux el los las del y e di della il lo"
)
#: words of English speech: personal pronouns, auxiliaries, negation and answers
_SPEECH_WORDS = _words(
    "i me my mine you your yours ye we us our he him his she her it its they them their "
    "am is are was were be been do does did don't can't won't isn't ain't will shall would "
    "should could can may might must have has had not no yes"
)
