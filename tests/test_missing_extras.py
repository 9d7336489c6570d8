"""Without a framework's extra, importing its wrapper package says which extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(("package", "framework", "extra"), [
    ("vizrag_llamaindex", "llama_index", "llamaindex"),
    ("vizrag_langchain", "langchain_core", "langchain"),
])
def test_wrapper_without_its_framework_names_the_extra(package: str, framework: str,
                                                       extra: str) -> None:
    code = (f"import sys; sys.modules[{framework!r}] = None\n"  # as if not installed
            f"try:\n    import {package}\n"
            "except ModuleNotFoundError as exc:\n    print('name', exc.name); print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith(f"name {framework}")  # e.g. llama_index.core
    assert f"pip install 'vizrag[{extra}]'" in out


def test_core_imports_without_any_framework() -> None:
    code = ("import sys\n"
            "for m in ('llama_index', 'langchain_core'): sys.modules[m] = None\n"
            "import hyperviz_core, hyperviz_core.rag, hyperviz_core.cli\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == "ok\n"


def test_a_llamaindex_older_than_the_floor_is_refused_on_import() -> None:
    """llama-index-core 0.14.22/0.14.23 install the query engine without its ``multimodal``
    argument: the image would be dropped silently, so the wrapper refuses them, and its floor
    is the one pyproject declares."""
    import re
    import tomllib
    from pathlib import Path

    from hyperviz_core.extras import require_version

    declared = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    spec = declared["project"]["optional-dependencies"]["llamaindex"][0]
    floor = re.search(r">=([\d.]+)", spec)
    framework = (Path(__file__).parents[1] / "vizrag_llamaindex" / "_framework.py").read_text()
    assert floor and f'"llama-index-core", "{floor.group(1)}"' in framework
    with pytest.raises(ImportError, match=r"llama-index-core >= 0\.14\.24, and 0\.14\.23 is "
                       r"installed \(.*image.*\): pip install 'vizrag\[llamaindex\]'"):
        require_version("llama-index-core", floor.group(1), extra="llamaindex",
                        who="vizrag_llamaindex", why="the image is dropped",
                        installed="0.14.23")
    for fine in ("0.14.24", "0.14.25", "0.14.24.post1", "0.15.0"):
        require_version("llama-index-core", floor.group(1), extra="llamaindex",
                        who="vizrag_llamaindex", why="-", installed=fine)


def test_postgres_and_ann_hints_name_both_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag import ann
    from hyperviz_core.rag.store.postgres import connection

    monkeypatch.setitem(sys.modules, "usearch", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "usearch.index", None)
    with pytest.raises(ImportError, match=r"'ann' extra .*pip install 'vizrag\[ann\]' "
                       r"\(from a checkout: pip install -e '\.\[ann\]'\)"):
        ann.usearch_module()
    err = connection._no_extra(ImportError("No module named 'psycopg'"))
    assert ("pip install 'vizrag[postgres]' (from a checkout: pip install -e '.[postgres]')"
            in str(err))
