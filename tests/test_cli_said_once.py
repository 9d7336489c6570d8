"""``vizrag query`` says each retrieval warning once: a model that failed (keywords, locate)
or passages nothing matched are logged by the core as they happen, and the CLI prints the
result's warnings itself, so it holds the log lines back (and prints them alone when the
question fails before a result comes). Run in a subprocess: pytest's log capture would hide
the duplicate the logging module's last-resort handler printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "musique_sample.json"
SCRIPT = """
import sys
from hyperviz_core.cli import main, query
from hyperviz_core.rag import ProviderError

class Flaky:
    model_name = "flaky"
    calls = 0
    def complete(self, prompt, **kw):
        Flaky.calls += 1
        if Flaky.calls <= int(sys.argv[2]):
            raise ProviderError("server on fire")
        return "Ada founded it [1]."

query.make_chat = lambda spec, timeout=None, flag="--llm": Flaky()
sys.exit(main(["query", "Who founded the company?", "--store", sys.argv[1], "--llm", "x:y",
               "--max-retries", "0"]))
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from hyperviz_core.cli import main

    path = tmp_path_factory.mktemp("said") / "store"
    assert main(["index", str(DATA), "--store", str(path), "--no-progress"]) == 0
    return path


def _run(store: Path, failures: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT, str(store), str(failures)],
                          capture_output=True, text=True, timeout=120)


def test_model_failures_are_said_once_with_the_answer(store: Path) -> None:
    done = _run(store, 2)  # the keyword and locate calls fail, the answer comes
    assert done.returncode == 0, done.stderr
    assert "Ada founded it [1]." in done.stdout
    for stage in ("keyword model failed", "locate model failed"):
        assert done.stderr.count(stage) == 1, done.stderr


def test_model_failures_are_said_once_when_the_question_fails(store: Path) -> None:
    done = _run(store, 3)  # the answer fails too: no result to say them
    assert done.returncode != 0
    for stage in ("keyword model failed", "locate model failed"):
        assert done.stderr.count(stage) == 1, done.stderr
    assert "vizrag query: error: ProviderError: server on fire" in done.stderr


def test_an_unmatched_query_is_said_once(store: Path) -> None:
    code = ("import sys; from hyperviz_core.cli import main; "
            "sys.exit(main(['query', 'zzqx blorf quux', '--store', sys.argv[1]]))")
    done = subprocess.run([sys.executable, "-c", code, str(store)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("passages returned are arbitrary") == 1, done.stderr


def test_the_engine_logs_an_unmatched_retrieval_once(store: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """The core says it (the wrappers used to, each in its own words)."""
    from hyperviz_core.rag import VizRAG
    from hyperviz_core.rag.result import UNMATCHED_WARNING

    with VizRAG(store, show_progress=False) as rag, caplog.at_level("WARNING",
                                                                    logger="hyperviz_core"):
        result = rag.retrieve("zzqx blorf quux")
        matched = rag.retrieve("Who founded the company?")
    assert result.unmatched and not matched.unmatched
    said = [r.getMessage() for r in caplog.records if r.name.startswith("hyperviz_core")]
    assert said == [f"retrieval of 'zzqx blorf quux': {UNMATCHED_WARNING}"]


def test_the_clis_own_warnings_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A warning of VizRAG's own (the renderer's MissingGlyphWarning) is printed as
    ``vizrag COMMAND: warning: ...``, not with Python's file name and source line; others as
    Python prints them."""
    import warnings

    from hyperviz_core.cli import own_warnings
    from hyperviz_core.draw.fonts import MissingGlyphWarning

    with warnings.catch_warnings(), own_warnings("render"):
        warnings.simplefilter("always")
        warnings.warn(MissingGlyphWarning("3 characters\nare drawn as boxes"), stacklevel=1)
        warnings.warn("someone else's", DeprecationWarning, stacklevel=1)
    err = capsys.readouterr().err
    assert "vizrag render: warning: 3 characters are drawn as boxes\n" in err
    assert "someone else's" not in err  # Python's own printing (pytest records it here)


def test_a_warning_of_vizrags_own_is_printed_once_per_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A batch drawing the same missing glyphs in every view says so once."""
    import warnings

    from hyperviz_core.cli import own_warnings
    from hyperviz_core.draw.fonts import MissingGlyphWarning

    with warnings.catch_warnings(), own_warnings("query"):
        warnings.simplefilter("always")
        for _ in range(6):
            warnings.warn(MissingGlyphWarning("2 characters are drawn as boxes"), stacklevel=1)
        warnings.warn(MissingGlyphWarning("3 other characters"), stacklevel=1)
    err = capsys.readouterr().err
    assert err.count("vizrag query: warning: 2 characters are drawn as boxes") == 1
    assert err.count("vizrag query: warning: 3 other characters") == 1
