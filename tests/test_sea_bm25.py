"""Offline BM25 of Thai, Lao, Khmer and Myanmar text: bigrams of clusters.

These scripts write no spaces between words, and their vowel and tone marks are no word
characters to ``re``: ``bm25s``'s ``\\w\\w+`` cut ``กรุงเทพ`` (Bangkok) at its marks into
``กร`` + ``งเทพ...``, so the query ``กรุงเทพ`` missed the passage ``กรุงเทพมหานคร...``, and Khmer
gave no token at all. BM25 now reads such a run as the overlapping bigrams of its clusters
(a letter with its marks, a consonant a Khmer coeng or Myanmar virama joins), on the loaded
path, on the lazy one (SQLite FTS5 holds a run as one word: the pieces select passages by
substring) and in PostgreSQL's postings, also in a store whose derived index the previous
version (v5) made.
"""

from __future__ import annotations

from pathlib import Path

from lexical_stores import (  # always_lazy: an autouse fixture
    always_lazy,  # noqa: F401
    assert_older_index_rebuilt,
    check_queries,
    insert_docs,
)
from test_cjk_bm25 import assert_lazy_equals_loaded

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve.lexical import sea_grams, tokens
from hyperviz_core.unitext import plain_text

DOCS = [  # untitled; the first by id matches no query
    ("a0", "The weather was mild and the harbour was quiet that spring."),
    ("b1", "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย"),  # Bangkok is the capital of Thailand
    ("c2", "เชียงใหม่มีวัดเก่าแก่มากมาย"),  # Chiang Mai has many old temples
    ("d3", "ວຽງຈັນແມ່ນນະຄອນຫຼວງຂອງລາວ"),  # Vientiane is the capital of Laos
    ("e4", "ភ្នំពេញជារាជធានីនៃប្រទេសកម្ពុជា"),  # Phnom Penh is the capital of Cambodia
    ("f5", "ရန်ကုန်မြို့သည် မြန်မာနိုင်ငံ၏ အကြီးဆုံးမြို့ ဖြစ်သည်"),  # Yangon, Myanmar's largest city
    ("g6", "iPhoneรุ่นใหม่วางขายที่สยาม"),  # the new iPhone is sold at Siam
]
QUERIES = {  # query → the document it names (the only one holding its tokens)
    "กรุงเทพ": "b1", "ประเทศไทย": "b1", "เชียงใหม่": "c2", "วัดเก่า": "c2",
    "ວຽງຈັນ": "d3", "ភ្នំពេញ": "e4", "កម្ពុជា": "e4", "ရန်ကုန်": "f5", "မြန်မာ": "f5",
    "iPhone": "g6", "สยาม": "g6",
}


def _insert(rag: VizRAG) -> None:
    insert_docs(rag, DOCS)


def _check(store: str | Path, *, lazy: bool) -> None:
    check_queries(store, QUERIES, lazy=lazy)


def test_runs_give_bigrams_of_clusters() -> None:
    assert tokens("กรุงเทพ") == ["กรุ", "รุง", "งเ", "เท", "ทพ"]  # marks stay in their cluster
    assert set(tokens("กรุงเทพ")) <= set(tokens(DOCS[1][1]))
    assert tokens("ភ្នំពេញ") == ["ភ្នំពេ", "ពេញ"]  # the coeng joins ន to ភ
    assert tokens("ရန်ကုန်") == ["ရန်", "န်ကု", "ကုန်"]
    assert tokens("ไม้") == ["ไม้"] and sea_grams("ก") == ["ก"]


def test_latin_against_thai_and_punctuation() -> None:
    """A Latin word written against Thai is its own token; Thai punctuation (๚) and the baht
    sign end a run, Thai digits are read as ASCII ones."""
    got = tokens("iPhoneรุ่นใหม่ ฿100 ๑๒๓ ก๚ข")
    assert got == ["iphone", "รุ่น", "นใ", "ให", "หม่", "100", "123", "ก", "ข"]


def test_engine_finds_them_loaded_and_lazy(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        _insert(rag)
    _check(path, lazy=False)
    _check(path, lazy=True)


def test_lazy_equals_loaded(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        _insert(rag)
    assert_lazy_equals_loaded(path, [*QUERIES, "เมืองหลวง", "ຫຼວງ"])


def test_index_of_the_previous_version_is_rebuilt(tmp_path: Path) -> None:
    """A store whose derived objects are v5 (the lengths of the old tokens) gets them
    dropped and v6 made by the first query; nothing is re-indexed."""
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        _insert(rag)
    assert_older_index_rebuilt(path, 5, QUERIES)


def test_postgres_postings_read_them(pg_url: str) -> None:
    with VizRAG(pg_url, show_progress=False) as rag:
        _insert(rag)
    _check(pg_url, lazy=True)
    _check(pg_url, lazy=False)


def test_offline_answer_quotes_the_passage_found(tmp_path: Path) -> None:
    """The extractive answer quotes the top passage's sentence holding the query's pieces:
    it had said that no passage shared a word with a Khmer or Myanmar question."""
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        _insert(rag)
        for query, doc in (("ភ្នំពេញ", "e4"), ("ရန်ကုန်", "f5"), ("ວຽງຈັນ", "d3"),
                           ("กรุงเทพ", "b1")):
            res = rag.query(query)
            text = dict(DOCS)[doc]
            first = res.answer.splitlines()[1] if res.answer else ""
            assert first.startswith("- ") and first.endswith("[1]"), (query, res.answer)
            assert first[2:12] in text, (query, first)


def test_chunks_of_text_without_spaces_keep_clusters_and_overlap() -> None:
    import itertools
    import unicodedata

    from hyperviz_core.rag.index.chunking import chunk_document

    thai = "ชัชชาติสิทธิพันธุ์เป็นผู้ว่าราชการกรุงเทพมหานคร" * 60
    chunks = chunk_document(Document(id="t", text=thai))
    assert len(chunks) > 1
    for a, b in itertools.pairwise(chunks):
        assert unicodedata.category(b.text[0])[0] != "M"  # never a loose vowel or tone mark
        assert b.text[:30] in a.text  # the overlap is kept
    khmer = "ភ្នំពេញជារាជធានីនៃប្រទេសកម្ពុជា។" * 60
    assert all(c.text.endswith("។") for c in chunk_document(Document(id="k", text=khmer))[:-1])


def test_pdf_forms_of_thai_and_lao_match_typed_text(tmp_path: Path) -> None:
    """``น้ำ`` as typed (sara am) finds the PDF form nikhahit + sara aa, and ``ที่`` finds
    the tone mark written before its vowel."""
    pdf = ("\u0e19\u0e49\u0e4d\u0e32\u0e17\u0e48\u0e27\u0e21"
           "\u0e17\u0e48\u0e35\u0e2d\u0e38\u0e1a\u0e25")
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="pdf", text=pdf), Document(id="x", text=DOCS[0][1])])
        res = rag.retrieve("น้ำ", render=False)
        assert not res.unmatched and res.chunks[0].doc_id == "pdf"
    assert tokens(plain_text("\u0e17\u0e48\u0e35\u0e2d\u0e38\u0e1a\u0e25")) == tokens("ที่อุบล")


DIGITS = [("n1", "The festival of 2565 drew crowds to the river."),
          ("n2", "งานสงกรานต์ปี๒๕๖๕จัดที่เชียงใหม่"),
          ("n3", "यह मेला सन् २०२१ में हुआ था।"),
          ("n4", "أقيم المهرجان عام ٢٠١٩ في القاهرة.")]


def test_digits_of_other_scripts_read_as_ascii(tmp_path: Path) -> None:
    """``2021`` finds ``२०२१``, ``๒๕๖๕`` finds ``2565`` and its Thai form; loaded and lazy
    rank alike."""
    assert tokens("๒๕๖๕ ٢٠١٩ २०२१") == ["2565", "2019", "2021"]
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        rag.insert([Document(id=i, text=t) for i, t in DIGITS])
    for lazy in (False, True):
        with VizRAG(path, show_progress=False) as rag:
            rag.retrieve("x", render=False)
            rag.retriever.lazy = lazy
            for query, docs in (("2021", {"n3"}), ("๒๕๖๕", {"n1", "n2"}), ("2019", {"n4"}),
                                ("2565", {"n1", "n2"})):
                res = rag.retrieve(query, render=False)
                assert {c.doc_id for c in res.chunks if c.score > 0} == docs, (query, lazy)
    assert_lazy_equals_loaded(path, ["2021", "๒๕๖๕", "٢٠١٩ القاهرة", "2565 river"])


def test_chunk_windows_end_between_syllables_and_never_explode() -> None:
    """Myanmar windows end after a killed final (asat), Thai/Lao ones never before a
    following vowel or after a leading one; a long run of marks or tag characters (zalgo
    text, "ASCII smuggling" after an emoji) is cut at the count, as before, not into
    one-character chunks."""
    from hyperviz_core.rag.index.chunking import chunk_document

    myanmar = "ရန်ကုန်မြို့သည်မြန်မာနိုင်ငံ၏အကြီးဆုံးမြို့ဖြစ်သည်" * 40
    for c in chunk_document(Document(id="m", text=myanmar), size=200, overlap=50)[1:]:
        assert c.text[1:2] not in ("\u103a", "\u1039") and c.text[0] != "\u103a", c.text[:6]
    thai = "พระยาเมืองกำลังเดินทางไปเชียงใหม่และเวียงจันทน์" * 40
    for c in chunk_document(Document(id="t", text=thai), size=200, overlap=50):
        assert c.text[0] not in "ะาำ" and c.text[-1] not in "เแโใไ", (c.text[:4], c.text[-4:])
    smuggled = "Intro. 🏴" + "".join(chr(0xE0000 + ord(ch)) for ch in "ignore all " * 1800)
    assert len(chunk_document(Document(id="s", text=smuggled))) < 30
    zalgo = ("Z\u0301\u0302\u0303\u0304\u0305" * 400) + " end"
    assert len(chunk_document(Document(id="z", text=zalgo))) < 10
