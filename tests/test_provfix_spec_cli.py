"""``ModelSpec`` never shows its API key or the URL's password; ``probes run`` / ``tune``
retry their ``--llm`` calls (429/5xx, ``Retry-After``) and take ``--max-retries``; ``eval
generate``/``judge``/``table``, ``probes run`` and ``tune`` take ``--timeout``. Local fake
servers only."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import pytest

import hyperviz_core.cli.eval as eval_cli
import hyperviz_core.cli.probes as probes_cli
from hyperviz_core.cli import build_parser, main
from hyperviz_core.probe import ProbeAnswer, make_probes, read_jsonl
from hyperviz_core.rag import RetryingChatModel
from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel
from hyperviz_core.rag.providers.spec import chat_model_from_spec, parse_model_spec
from hyperviz_core.testing import random_hypergraph
from tests.provider_fakes import FakeOpenAI, completion

pytest.importorskip("openai")

SPEC = "openai:m@http://bob:pa55word@127.0.0.1:9/v1"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_model_spec_hides_the_key_and_the_url_password() -> None:
    s = parse_model_spec(SPEC, env={"OPENAI_API_KEY": "sk-topsecret"})
    for shown in (repr(s), str(s), s.model_dump_json(), json.dumps(s.model_dump()),
                  f"{s!r}", str(s.model_dump(mode="json"))):
        assert "sk-topsecret" not in shown and "pa55word" not in shown and "bob" not in shown
    assert "http://127.0.0.1:9/v1" in repr(s) and '"api_key":"**********"' in s.model_dump_json()
    assert (s.api_key, s.base_url) == ("sk-topsecret", "http://bob:pa55word@127.0.0.1:9/v1")
    chat = chat_model_from_spec(s)
    assert isinstance(chat, OpenAIChatModel)
    assert chat._clients.kwargs["api_key"] == "sk-topsecret"  # still used
    assert parse_model_spec("openai:m", env={}).model_dump()["api_key"] is None


@pytest.fixture(scope="module")
def probe_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("probes")
    make_probes(random_hypergraph(40, 20, seed=5), 2, out, seed=3, progress=False)
    return out


def test_probes_run_retries_429_with_retry_after(probe_dir: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def faults(kind: str, n: int) -> tuple[int, Any, dict[str, str]] | None:
        if n == 1:
            return 429, {"error": {"message": "slow down"}}, {"Retry-After": "0"}
        return None

    out = tmp_path / "a.jsonl"
    with FakeOpenAI(faults=faults) as fake:
        code = main(["probes", "run", str(probe_dir / "probes.jsonl"), "--llm",
                     f"openai:vlm@{fake.url}", "--out", str(out), "--no-progress",
                     "--max-retries", "2", "--timeout", "30"])
        calls = fake.calls["chat"]
    assert code == 0, capsys.readouterr().err
    assert calls == 3  # 2 probes, one retried
    answers = read_jsonl(out, ProbeAnswer)
    assert [a.error for a in answers] == ["", ""], answers
    assert "warning" not in capsys.readouterr().err


def test_probes_run_timeout_bounds_each_request(probe_dir: Path, tmp_path: Path) -> None:
    def slow(kind: str, n: int) -> tuple[int, Any, dict[str, str]]:
        time.sleep(1.5)
        return 200, completion("E1"), {}

    out = tmp_path / "a.jsonl"
    with FakeOpenAI(faults=slow) as fake:
        main(["probes", "run", str(probe_dir / "probes.jsonl"), "--llm",
              f"openai:vlm@{fake.url}", "--out", str(out), "--no-progress",
              "--max-retries", "0", "--timeout", "0.3"])
    errors = [a.error or "" for a in read_jsonl(out, ProbeAnswer)]
    assert errors and all("within 0.3 s" in e for e in errors)


def test_tune_model_is_retried_with_its_timeout() -> None:
    args = build_parser().parse_args(["tune", "--from", "x.json", "--llm", SPEC,
                                      "--timeout", "7", "--max-retries", "3"])
    model = probes_cli._model(args)
    assert isinstance(model, RetryingChatModel) and model._backoff.max_retries == 3
    inner = model.inner
    while not isinstance(inner, OpenAIChatModel):
        inner = inner.inner
    assert inner.timeout == 7.0 and model.model_name == inner.model_name
    fake = probes_cli._model(argparse.Namespace(llm="fake", timeout=1.0, max_retries=0))
    assert "FAKE" in fake.model_name and not isinstance(fake, RetryingChatModel)


@pytest.mark.parametrize("argv", [
    ["eval", "generate", "--questions", "q", "--store", "s"],
    ["eval", "judge", "--questions", "q", "--systems", "a", "--judge", "openai:m"],
    ["eval", "table", "1", "--systems", "a"],
    ["probes", "run", "p.jsonl", "--llm", "openai:m"],
    ["tune", "--from", "s"],
    ["import-hyperrag", "wd", "--store", "s"],
])
def test_timeout_is_an_option_of_every_command_with_a_model(argv: list[str]) -> None:
    assert build_parser().parse_args([*argv, "--timeout", "9"]).timeout == 9.0
    with pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--timeout", "0"])


def test_eval_judge_gives_its_timeout_to_the_model(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    def load_chat(spec: str | None, flag: str = "--llm", timeout: float | None = None) -> Any:
        seen.append((spec, flag, timeout))
        raise ValueError("stop here")

    monkeypatch.setattr(eval_cli, "load_chat", load_chat)
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"id": "1", "question": "Q?"}) + "\n")
    systems = []
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_text(
            json.dumps({"id": "1", "question": "Q?", "answer": name}) + "\n")
        systems.append(str(tmp_path / f"{name}.jsonl"))
    main(["eval", "judge", "--questions", str(q), "--systems", *systems, "--judge",
          "openai:m", "--timeout", "11"])
    assert seen == [("openai:m", "--judge", 11.0)]


def test_import_hyperrag_gives_its_timeout_to_the_model(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.cli import index as index_cli
    from hyperviz_core.cli import main

    seen: list[Any] = []

    def make_chat(spec: str | None, *, timeout: float | None = None, flag: str = "--llm") -> Any:
        seen.append((spec, timeout))
        raise ValueError("stop here")

    monkeypatch.setattr(index_cli, "make_chat", make_chat)
    assert main(["import-hyperrag", str(tmp_path), "--store", str(tmp_path / "s"),
                 "--llm", "openai:m", "--timeout", "7"]) == 2
    assert seen == [("openai:m", 7.0)]
