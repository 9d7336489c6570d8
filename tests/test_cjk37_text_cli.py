"""``vizrag delete`` finds a document by its decomposed (NFD) id, as pasted from a macOS file
name; a question whose UTF-8 bytes a C locale decoded says the locale is the problem."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from cli_helpers import index_quietly, run_cli, stored_ids

import hyperviz_core.surrogates as surrogates
from hyperviz_core.cli.query import _check_text

NFC = "Müller"
NFD = unicodedata.normalize("NFD", NFC)


def test_delete_by_a_decomposed_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": NFC, "text": "Herr Müller wohnt in Zürich."}) + "\n"
                      + json.dumps({"id": "other", "text": "Basel liegt am Rhein."}) + "\n")
    store = tmp_path / "store"
    assert index_quietly(str(corpus), "--store", str(store)) == 0
    capsys.readouterr()
    code, out, err = run_cli(["delete", NFD, "--store", str(store)])
    assert (code, err) == (0, ""), err
    assert out.startswith("deleted 1 document:")
    assert stored_ids(store) == ["other"]
    code, _, err = run_cli(["delete", NFD, "--store", str(store)])  # gone: named as given
    assert code == 1 and "no document 'Müller'" in err


def test_a_c_locale_question_says_the_locale_is_not_utf8(
        monkeypatch: pytest.MonkeyPatch) -> None:
    arg = "清华大学".encode().decode("ascii", "surrogateescape")  # sys.argv under LC_ALL=C
    monkeypatch.setattr(surrogates.sys, "getfilesystemencoding", lambda: "ascii")
    monkeypatch.setenv("LC_ALL", "C")
    with pytest.raises(ValueError) as caught:
        _check_text(arg, argv=True)
    assert str(caught.value) == (
        "the question is not valid Unicode text (character 1: '\\udce6'); its bytes are UTF-8 "
        "but the locale's encoding is ascii (LC_ALL=C): run with a UTF-8 locale "
        "(LC_ALL=C.UTF-8) or PYTHONUTF8=1")
    bad = b"caf\xe9".decode("ascii", "surrogateescape")  # not UTF-8 either: no locale hint
    with pytest.raises(ValueError, match=r"\(character 4: '\\udce9'\)$"):
        _check_text(bad, argv=True)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX locales")
def test_a_c_locale_question_end_to_end(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUTF8": "0", "LC_ALL": "C"}
    env.pop("PYTHONIOENCODING", None)
    res = subprocess.run(
        [sys.executable, "-c", "import sys; from hyperviz_core.cli import main; "
         "sys.exit(main(sys.argv[1:]))", "query", "清华大学", "--store", str(tmp_path / "s")],
        env=env, capture_output=True, timeout=120, check=False)
    err = res.stderr.decode("utf-8", "replace")
    assert res.returncode == 2, err
    assert "its bytes are UTF-8 but the locale's encoding is ascii (LC_ALL=C)" in err
