"""The wheel carries every file the packages read at run time: each non-Python file under
the three import packages is named by a ``[tool.setuptools.package-data]`` pattern; every
package is typed; the framework wrappers do not load the renderer (matplotlib) on import."""

from __future__ import annotations

import fnmatch
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("hyperviz_core", "vizrag_llamaindex", "vizrag_langchain")


def test_every_data_file_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]
    missing = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*")):
            if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT / package).as_posix()
            if not any(fnmatch.fnmatch(rel, p) for p in patterns.get(package, [])):
                missing.append(f"{package}/{rel}")
    assert not missing, f"not in [tool.setuptools.package-data], so not in the wheel: {missing}"
    for package in PACKAGES:
        assert (ROOT / package / "py.typed").is_file(), package


def test_importing_the_wrappers_loads_no_renderer() -> None:
    code = ("import sys, vizrag_langchain, vizrag_llamaindex, hyperviz_core.rag; "
            "print(sorted(m for m in ('matplotlib', 'hyperviz_core.render', 'torch') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.strip()
    assert out == "[]"


def test_the_version_is_written_once() -> None:
    """pyproject.toml reads the version from ``hyperviz_core.__version__`` (no second copy
    to forget), and the installed distribution reports that version."""
    import importlib.metadata

    import hyperviz_core

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "hyperviz_core.__version__"}
    assert importlib.metadata.version("vizrag") == hyperviz_core.__version__


def test_the_licence_metadata_names_the_bundled_data() -> None:
    """The wheel ships the demo corpus (MuSiQue, CC BY 4.0; Wikipedia text, CC BY-SA 4.0)
    and the HIF and HippoRAG licences: the metadata says so, and each licence file is there."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert set(project["license"].split(" AND ")) == {"MIT", "CC-BY-4.0", "CC-BY-SA-4.0"}
    licences = {p.relative_to(ROOT).as_posix() for p in ROOT.glob("hyperviz_core/**/LICENSE*")}
    assert licences <= set(project["license-files"])
    assert all((ROOT / f).is_file() for f in project["license-files"])
