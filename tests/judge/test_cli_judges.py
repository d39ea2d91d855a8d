from __future__ import annotations

from typer.testing import CliRunner

from scorekit.cli import app
from scorekit.judge import list_providers

runner = CliRunner(env={"COLUMNS": "250"})


def test_judges_lists_every_provider_with_its_key_variable() -> None:
    result = runner.invoke(app, ["judges"])
    assert result.exit_code == 0, result.output
    for row in list_providers():
        assert row.name in result.output
    assert "OPENAI_API_KEY" in result.output
    assert "http://localhost:11434/v1" in result.output
    assert "VLLM_BASE_URL" in result.output
    assert 'pip install "scorekit[anthropic]"' in result.output.replace("\n", " ")
