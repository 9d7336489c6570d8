"""Running the ``vizrag`` command line in-process, for the CLI tests."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from hyperviz_core.cli import main

#: (exit code, stdout, stderr)
Result = tuple[int, str, str]


def run_cli(argv: list[str]) -> Result:
    """``vizrag ARGV`` in this process: its exit code and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def one_line_error(res: Result, *needles: str) -> str:
    """Assert ``res`` is exit code 2 with one stderr line (no traceback) holding every
    needle; that line."""
    code, _, err = res
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2, res
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]
