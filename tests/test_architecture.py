"""The package's shape: no import cycle (type-only, function-level and by-name imports
included), the layering rules of architecture.md, and no module over 600 lines. The import
graph is built from the source with ``ast``, not by importing.

Modules loaded by name count as imports: ``importlib.import_module("a.literal.name")``, the
registry's discovery (every module of ``BUILTIN_PACKAGES``), and the old-path table of
``scorekit._moved`` (every new path it may load).
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
    """Every module: the Python sources, and the C kernels by their type stubs (``.pyi``)."""
    sources = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    stubs = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.pyi"))}
    return {**stubs, **sources}


def _resolve(module: str, level: int, current: str, is_package: bool) -> str:
    if level == 0:
        return module
    base = current.split(".")
    if not is_package:
        base.pop()
    for _ in range(level - 1):
        base.pop()
    return ".".join([*base, module] if module else base)


def _literal_strings(node: ast.AST) -> list[str]:
    return [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _by_name(tree: ast.Module, modules: dict[str, Path]) -> list[str]:
    """The modules of ours a file loads by name (the module docstring says which)."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            found += [a.value for a in node.args[:1] if isinstance(a, ast.Constant)]
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            names = [t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                     if isinstance(t, ast.Name)]  # fmt: skip
            if "BUILTIN_PACKAGES" in names and node.value is not None:
                for package in _literal_strings(node.value):
                    found += [m for m in modules if m.startswith(f"{package}.")]
                    found.append(package)
            if "MOVED_MODULES" in names and node.value is not None:
                found += [m for m in _literal_strings(node.value) if m in modules]
    return found


def import_graph() -> dict[str, set[str]]:
    """Module → the modules of ours it imports anywhere in its file."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for target in _by_name(tree, modules):
            # a module's own package is loaded before it anyway: not an edge of its own
            if target in modules and not name.startswith(f"{target}.") and target != name:
                graph[name].add(target)
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


GROUND_FLOOR = {
    "scorekit._sync", "scorekit.errors", "scorekit.import_path", "scorekit.items",
    "scorekit.judge_grade", "scorekit.notebook", "scorekit.results", "scorekit.rounding",
    "scorekit.steps", "scorekit.summary", "scorekit.usage", "scorekit.verdict",
}  # fmt: skip
"""The ground floor: values every part reads; they import only each other."""


def test_ground_floor_modules_import_nothing_above_them() -> None:
    graph = import_graph()
    assert graph["scorekit.errors"] <= {"scorekit.results", "scorekit.usage"}
    assert graph["scorekit.usage"] == set()
    assert graph["scorekit.results"] <= {"scorekit.usage", "scorekit.notebook"}
    assert graph["scorekit.notebook"] == set()
    assert graph["scorekit.steps"] == set()  # the item record's declaration
    assert graph["scorekit.items"] <= {"scorekit.errors", "scorekit.results", "scorekit.steps"}
    for name in GROUND_FLOOR:
        assert graph[name] <= GROUND_FLOOR, f"{name} imports {graph[name] - GROUND_FLOOR}"


def test_the_top_level_holds_only_the_ground_floor_and_the_public_face() -> None:
    top = {m for m in _modules() if m.count(".") == 1 and not (PACKAGE / m.split(".")[1]).is_dir()}
    assert top == GROUND_FLOOR | {"scorekit.pipeline", "scorekit.prompt_step", "scorekit._moved"}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(f"{p}.") for p in prefixes)


LAYERS = [
    # (who, what it must not import, why)
    (("scorekit.view", "scorekit.report", "scorekit.cli.console", "scorekit.notebook"),
     ("scorekit.evals", "scorekit.distributed", "scorekit.live", "scorekit.traces"),
     "the views read only the store"),
    (("scorekit.scorers", "scorekit.checks"),
     ("scorekit.store", "scorekit.evals", "scorekit.distributed", "scorekit.live",
      "scorekit.traces", "scorekit.cli", "scorekit.testing", "scorekit.view", "scorekit.report"),
     "scorers know nothing of the store or the run loop"),
    (("scorekit.judge",),
     ("scorekit.pipeline", "scorekit.scorers", "scorekit.checks", "scorekit.evals",
      "scorekit.store", "scorekit.cli", "scorekit.inputs"),
     "the judge knows nothing of scorers"),
    (("scorekit.store",),
     ("scorekit.evals", "scorekit.pipeline", "scorekit.scorers", "scorekit.judge",
      "scorekit.cli", "scorekit.view", "scorekit.report"),
     "the store builds its rows from the item record, not from the run loop"),
    (("scorekit.inputs",),
     ("scorekit.pipeline", "scorekit.judge", "scorekit.scorers", "scorekit.evals",
      "scorekit.store", "scorekit.cli"),
     "input shapes sit below the scorers that read them"),
    (("scorekit.trust",),
     ("scorekit.evals", "scorekit.distributed", "scorekit.live", "scorekit.traces",
      "scorekit.pipeline", "scorekit.scorers", "scorekit.judge", "scorekit.cli",
      "scorekit.view", "scorekit.report"),
     "the trust statistics read stored scores and labels, never the run loop"),
]  # fmt: skip


@pytest.mark.parametrize(("who", "banned", "why"), LAYERS, ids=[rule[2] for rule in LAYERS])
def test_layering(who: tuple[str, ...], banned: tuple[str, ...], why: str) -> None:
    graph = import_graph()
    broken = {
        name: sorted(m for m in imports if _within(m, banned))
        for name, imports in graph.items()
        if _within(name, who)
    }
    assert not {k: v for k, v in broken.items() if v}, why


def test_by_name_imports_are_counted() -> None:
    graph = import_graph()
    # the registry discovers the scorer modules: edges the import statements do not show
    assert "scorekit.scorers.faithfulness" in graph["scorekit.scorers.registry"]
    assert "scorekit.checks.text_checks" in graph["scorekit.scorers.registry"]
    # the old-path table loads the new paths
    assert "scorekit.inputs.messages" in graph["scorekit._moved"]
    # a scorer module no longer imports the registry (its entry type has its own module)
    assert "scorekit.scorers.registry" not in graph["scorekit.scorers.faithfulness"]


def test_no_two_modules_share_a_name_across_concerns() -> None:
    """A name means one thing: the same stem in two concerns (top-level packages) is refused;
    a package's main module may share its package's name (``store.store``)."""
    concerns: dict[str, set[str]] = {}
    for name in _modules():
        parts = name.split(".")
        if len(parts) >= 2:
            concerns.setdefault(parts[-1], set()).add(parts[1])
    clashes = {stem: sorted(found) for stem, found in concerns.items() if len(found) > 1}
    assert not clashes


def test_the_store_knows_nothing_of_the_run_loop() -> None:
    graph = import_graph()
    for name, imports in graph.items():
        if name.startswith("scorekit.store"):
            assert not {m for m in imports if m.startswith("scorekit.evals")}, name


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: _module_name(p))
def test_no_module_is_over_600_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{_module_name(path)} has {lines} lines"
