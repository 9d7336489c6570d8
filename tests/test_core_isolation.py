"""``hyperviz_core`` must import (every module) without LlamaIndex or LangChain installed."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_core_imports_without_frameworks() -> None:
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("llama_index", "langchain", "langchain_core",
                                          "vizrag_llamaindex", "vizrag_langchain"):
                    raise ImportError(f"blocked framework import: {name}")
                return None

        sys.meta_path.insert(0, Block())
        import hyperviz_core
        names = [m.name for m in pkgutil.walk_packages(hyperviz_core.__path__, "hyperviz_core.")]
        for name in sorted(names):
            if name == "hyperviz_core.__main__":
                continue
            importlib.import_module(name)
        leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("llama_index", "langchain",
                                                                      "langchain_core"))
        assert not leaked, leaked
        print(len(names))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert int(proc.stdout.strip().splitlines()[-1]) >= 5
