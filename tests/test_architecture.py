"""The package's shape: no import cycle (type-only and function-level imports included) and no
module over 600 lines. The import graph is built from the source with ``ast``, not by importing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "scorekit"
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, level: int, current: str, is_package: bool) -> str:
    if level == 0:
        return module
    base = current.split(".")
    if not is_package:
        base.pop()
    for _ in range(level - 1):
        base.pop()
    return ".".join([*base, module] if module else base)


def import_graph() -> dict[str, set[str]]:
    """Module → the modules of ours it imports anywhere in its file."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(node.module or "", node.level, name, path.name == "__init__.py")
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    targets.append(submodule if submodule in modules else base)
            for target in targets:
                while target and target not in modules:  # `import a.b.c` of a name in a.b
                    target = target.rpartition(".")[0]
                if target.startswith("scorekit") and target != name:
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path ``[a, b, ..., a]``, or ``None`` (iterative DFS)."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    for root in sorted(graph):
        if root in state:
            continue
        stack: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        path = [root]
        state[root] = 1
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            child = todo.pop()
            if state.get(child) == 1:
                return [*path[path.index(child) :], child]
            if child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, sorted(graph[child])))
    return None


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"a.b"}, "a.b": {"a"}}) == ["a", "a.b", "a"]


def test_the_graph_sees_type_only_and_lazy_imports(tmp_path: Path) -> None:
    graph = import_graph()
    # errors.py names ScorerRunResult and JudgeUsage under TYPE_CHECKING only
    assert {"scorekit.results", "scorekit.usage"} <= graph["scorekit.errors"]
    assert "scorekit.evals.run" in graph["scorekit.evals"]


def test_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_ground_floor_modules_import_nothing_above_them() -> None:
    graph = import_graph()
    assert graph["scorekit.errors"] <= {"scorekit.results", "scorekit.usage"}
    assert graph["scorekit.usage"] == set()
    assert graph["scorekit.results"] <= {"scorekit.usage", "scorekit.notebook"}
    assert graph["scorekit.notebook"] == set()
    assert graph["scorekit.items"] <= {"scorekit.errors", "scorekit.results"}


def test_the_store_knows_nothing_of_the_run_loop() -> None:
    graph = import_graph()
    for name, imports in graph.items():
        if name.startswith("scorekit.store"):
            assert not {m for m in imports if m.startswith("scorekit.evals")}, name


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: _module_name(p))
def test_no_module_is_over_600_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{_module_name(path)} has {lines} lines"
