"""Issue 10, item 11: without Chromium the browser tests skip locally but fail under CI=true.

Before the fix ``tests/test_viewer_browser.py`` always skipped when Chromium was missing, so
``test_ci_turns_a_missing_browser_into_a_failure`` saw exit code 0 and "skipped" and failed.
Each run is a child pytest limited to the first test (``-x``) and to 120 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run_browser_tests(ci: str | None, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["VIZRAG_CHROMIUM"] = str(tmp_path / "no-such-chromium")  # the only candidate
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
         "tests/test_viewer_browser.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def test_ci_turns_a_missing_browser_into_a_failure(tmp_path: Path) -> None:
    proc = _run_browser_tests("true", tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "Chromium not found" in out and "CI is set" in out
    assert " skipped" not in out.splitlines()[-1]


def test_without_ci_a_missing_browser_is_a_skip(tmp_path: Path) -> None:
    proc = _run_browser_tests(None, tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "skipped" in out.splitlines()[-1] and "failed" not in out.splitlines()[-1]
