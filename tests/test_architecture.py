"""Package layout rules, checked with ``ast`` over the source (nothing is imported):

* no import cycle among ``hyperviz_core`` modules (every import statement counts, including
  ones inside functions and ``if TYPE_CHECKING:`` blocks);
* only ``hyperviz_core/rag/store/`` imports ``sqlite3``;
* in ``hyperviz_core/rag/``: no module over 400 lines, no function over 60 lines (its
  docstring not counted).
"""

from __future__ import annotations

import ast
from pathlib import Path

import hyperviz_core

ROOT = Path(hyperviz_core.__file__).resolve().parent
PACKAGE = "hyperviz_core"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if _is_package(module) else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _targets(module: str, tree: ast.AST) -> set[str]:
    """Modules of the package that ``module`` imports (any import statement)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        for name in names:
            while name and name not in MODULES and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in MODULES and name != module:
                out.add(name)
    return out


def _graph() -> dict[str, set[str]]:
    return {m: _targets(m, ast.parse(p.read_text(encoding="utf-8"))) for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_graph_sees_imports_of_every_kind() -> None:
    graph = _graph()
    assert len(graph) > 60
    assert "hyperviz_core.rag.store.sqlite.schema" in graph["hyperviz_core.rag.store.sqlite.store"]
    assert "hyperviz_core.hif" in graph["hyperviz_core.model"]  # the model uses the codec
    assert "hyperviz_core.render" in graph["hyperviz_core.rag.retrieve.retriever"]  # lazy import


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == [], "modules importing each other (directly or not)"


def test_the_cycle_finder_finds_every_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d", "a"}, "f": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"], ["d", "e"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_only_the_store_imports_sqlite3() -> None:
    store = ROOT / "rag" / "store"
    offenders = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(m.split(".")[0] == "sqlite3" for m in mods) and store not in path.parents:
                offenders.append(name)
    assert offenders == []


def _function_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    assert node.end_lineno is not None
    lines = node.end_lineno - node.lineno + 1
    first = node.body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and first.end_lineno is not None):
        lines -= first.end_lineno - first.lineno + 1
    return lines


def test_rag_module_and_function_sizes() -> None:
    too_long = []
    for name, path in MODULES.items():
        if not name.startswith(f"{PACKAGE}.rag"):
            continue
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            too_long.append(f"{name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = _function_lines(node)
                if n > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}.{node.name}: {n} lines")
    assert too_long == []
