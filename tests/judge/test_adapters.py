"""The adapter table, the request guard's module, and the judge package's import graph."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

import scorekit.judge.scripted as testing
from scorekit import JudgeUnavailableError
from scorekit.judge import JudgeModel, ScriptedJudge, forbid_remote_requests
from scorekit.judge import guard as guard_module
from scorekit.judge.adapters import ADAPTERS, build_model
from scorekit.judge.openai_compat import OpenAICompatibleModel
from scorekit.judge.providers import Protocol, Provider, ResolvedModel, resolve_model

JUDGE_DIR = Path(__file__).parents[2] / "src" / "scorekit" / "judge"
PACKAGE = "scorekit.judge"


def test_every_protocol_has_an_adapter() -> None:
    assert set(ADAPTERS) == set(get_args(Protocol))


def test_build_model_returns_the_protocols_adapter() -> None:
    scripted = build_model(resolve_model("test/x", env={}), timeout=5.0)
    assert isinstance(scripted, ScriptedJudge)
    assert scripted.model_id == "test/x"
    resolved = resolve_model("openai-compatible/m", base_url="http://127.0.0.1:9/v1", env={})
    remote = build_model(resolved, timeout=5.0)
    assert isinstance(remote, OpenAICompatibleModel)
    assert isinstance(remote, JudgeModel)
    assert remote.model_id == "openai-compatible/m"


def test_build_model_refuses_a_protocol_without_adapter() -> None:
    odd = ResolvedModel(Provider("odd", "carrier-pigeon", None), "m", None)  # type: ignore[arg-type]
    with pytest.raises(JudgeUnavailableError, match="no adapter for protocol 'carrier-pigeon'"):
        build_model(odd, timeout=5.0)


def test_the_guard_lives_in_its_own_module_and_testing_re_exports_it() -> None:
    assert testing.forbid_remote_requests is guard_module.forbid_remote_requests
    assert forbid_remote_requests is guard_module.forbid_remote_requests
    assert testing.check_request_allowed is guard_module.check_request_allowed


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("api.openai.com", False),
        ("10.0.0.1", False),
        ("", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert guard_module.is_loopback_host(host) is loopback


def test_the_guard_refuses_remote_hosts_and_nests() -> None:
    # the suite's autouse fixture holds one block open; a nested one changes nothing
    with forbid_remote_requests():
        guard_module.check_request_allowed("http://127.0.0.1:8000/v1", "openai/x")
        with pytest.raises(JudgeUnavailableError, match=r"forbidden.*openai/x at api\.x\.ai"):
            guard_module.check_request_allowed("https://api.x.ai/v1", "openai/x")
    with pytest.raises(JudgeUnavailableError, match="forbidden"):
        guard_module.check_request_allowed("https://api.x.ai/v1", "openai/x")


def _imports() -> dict[str, set[str]]:
    """Each judge module's imports of other judge modules (lazy and type-only ones too)."""
    names = {path.stem for path in JUDGE_DIR.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in JUDGE_DIR.glob("*.py"):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                if node.module == PACKAGE:
                    targets.append(f"{PACKAGE}.__init__")
            for target in targets:
                parts = target.split(".")
                if target.startswith(PACKAGE + ".") and parts[2] in names:
                    found.add(parts[2])
        found.discard(path.stem)
        graph[path.stem] = found
    return graph


def test_the_judge_package_has_no_import_cycle() -> None:
    graph = _imports()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        if module in path:
            cycle = " -> ".join((*path[path.index(module) :], module))
            pytest.fail(f"import cycle: {cycle}")
        if module in done:
            return
        for dep in sorted(graph[module]):
            visit(dep, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())


def test_arrows_run_down_from_the_adapter_table() -> None:
    graph = _imports()
    adapters = {"openai_compat", "anthropic", "local", "scripted"}
    assert graph["providers"].isdisjoint({"adapters", *adapters})  # rows and resolver only
    assert adapters <= graph["adapters"]
    for production in ("openai_compat", "anthropic", "local"):
        assert "scripted" not in graph[production]  # the guard has its own module
    assert "guard" in graph["openai_compat"]
    assert "guard" in graph["anthropic"]
