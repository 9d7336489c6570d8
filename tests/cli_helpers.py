"""Running the ``vizrag`` command line in-process, for the CLI tests."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from hyperviz_core.cli import main
from hyperviz_core.rag.store import open_store

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


def index_quietly(*args: str) -> int:
    """``vizrag index ARGS --no-progress``: its exit code (output left to capsys)."""
    return main(["index", *args, "--no-progress"])


def stored_ids(store: Path) -> list[str]:
    """The ids of the documents ``store`` holds, sorted."""
    st = open_store(store)
    try:
        return sorted(d.id for d in st.documents())
    finally:
        st.close()
