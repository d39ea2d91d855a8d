"""Without Ray installed: the error names the extra (runs whether or not Ray is installed)."""

from __future__ import annotations

import sys

import pytest

from scorekit.distributed import RayExecutor
from scorekit.errors import ConfigError


def test_without_ray_the_executor_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    with pytest.raises(ConfigError, match=r"pip install 'scorekit\[ray\]'") as caught:
        RayExecutor(workers=2)
    assert caught.value.field == "executor"


def test_without_ray_the_run_command_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pytest.TempPathFactory
) -> None:
    from typer.testing import CliRunner

    from scorekit.cli import app

    monkeypatch.setitem(sys.modules, "ray", None)
    data = tmp_path / "data.jsonl"  # type: ignore[operator]
    data.write_text('{"input": "a", "output": "a"}\n', encoding="utf-8")
    outcome = CliRunner().invoke(
        app, ["run", str(data), "-s", "content-similarity", "--no-store", "--executor", "ray"]
    )
    assert outcome.exit_code == 2
    assert "pip install 'scorekit[ray]'" in outcome.output
