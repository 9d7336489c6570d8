"""Evaluation harness: answer metrics, LLM-as-judge protocols and the paper's tables.

- :mod:`~hyperviz_core.eval.metrics`: exact match, token F1, answer containment and
  answer-in-context recall (offline, no model).
- :mod:`~hyperviz_core.eval.extraction`: extraction recall of gold entities and facts.
- :mod:`~hyperviz_core.eval.judge`: the selection-based win rate (both answer orders,
  position bias reported) and the 0–100 score protocol of App. E, with robust parsing, one
  repair retry and the engine's middleware (cache, retries, usage, concurrency).
- :mod:`~hyperviz_core.eval.generate`: one answers file per retrieval mode or ablation.
- :mod:`~hyperviz_core.eval.tables`: Tables 1, 2 and 4 of the paper;
  :mod:`~hyperviz_core.eval.probe_tables`: Table 5 and Fig. 2c (structural probes);
  :mod:`~hyperviz_core.eval.disambiguation`: Table 3 (positive vs lexically similar distractor).

Command line: ``vizrag eval generate``, ``vizrag eval judge``, ``vizrag eval table N``.
"""

from __future__ import annotations

from .cache import SqliteCache
from .data import (
    AnswerRecord,
    Question,
    answers_by_id,
    load_answers,
    load_questions,
    refuse_other_questions,
    system_name,
    write_answers,
)
from .disambiguation import (
    CaptionReaderTextModel,
    ask_text_probes,
    make_disambiguation_probes,
    table3,
)
from .extraction import extraction_hits, match_entity
from .generate import (
    GeneratedAnswer,
    agenerate_answers,
    generate_answers,
    open_engine,
    write_generated,
)
from .judge import Judge, JudgeReport
from .judge_parse import JudgeParseError, parse_score_reply, parse_winrate_reply
from .judge_prompts import DIMENSIONS, LEVELS, OVERALL, score_prompt, winrate_prompt
from .metrics import (
    answer_in_context,
    contains_answer,
    exact_match,
    normalize_answer,
    normalize_gold,
    strip_citations,
    token_f1,
)
from .probe_tables import layout_bias, table5
from .scoring import AnswerScores, GroupScore, QuestionScore, score_answers
from .tables import ABLATIONS, PaperTable, table1, table2, table4

__all__ = [
    "ABLATIONS",
    "DIMENSIONS",
    "LEVELS",
    "OVERALL",
    "AnswerRecord",
    "AnswerScores",
    "CaptionReaderTextModel",
    "GeneratedAnswer",
    "GroupScore",
    "Judge",
    "JudgeParseError",
    "JudgeReport",
    "PaperTable",
    "Question",
    "QuestionScore",
    "SqliteCache",
    "agenerate_answers",
    "answer_in_context",
    "answers_by_id",
    "ask_text_probes",
    "contains_answer",
    "exact_match",
    "extraction_hits",
    "generate_answers",
    "layout_bias",
    "load_answers",
    "load_questions",
    "make_disambiguation_probes",
    "match_entity",
    "normalize_answer",
    "normalize_gold",
    "open_engine",
    "parse_score_reply",
    "parse_winrate_reply",
    "refuse_other_questions",
    "score_answers",
    "score_prompt",
    "strip_citations",
    "system_name",
    "table1",
    "table2",
    "table3",
    "table4",
    "table5",
    "token_f1",
    "winrate_prompt",
    "write_answers",
    "write_generated",
]
