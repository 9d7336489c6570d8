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
