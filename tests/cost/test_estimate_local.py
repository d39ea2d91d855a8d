"""The estimate counts a local judge's prompts with its own tokenizer: exactly what it bills."""

from __future__ import annotations

from pathlib import Path

from scorekit._sync import run_sync
from scorekit.cost import estimate_run
from scorekit.evals import run_evals_sync
from scorekit.judge import Judge
from scorekit.scorers import build_scorer
from tests.judge.conftest import needs_smollm2

pytestmark = needs_smollm2

ITEMS = [{"id": "a", "input": "What is the capital of France?", "output": "Paris.",
          "context": ["Paris is the capital of France.", "Bread is baked in ovens."]}]  # fmt: skip


def test_the_local_judges_prompts_are_counted_as_it_bills_them(tmp_path: Path) -> None:
    judge = Judge("local/smollm2", cache=False, max_tokens=128, timeout=120, seed=1)
    scorer = build_scorer("context-relevance", model=judge)
    (only,) = run_sync(estimate_run(ITEMS, [scorer])).scorers
    assert (only.calls, only.exact, only.counted, only.price.source) == (  # type: ignore[union-attr]
        1, True, True, "local model",
    )  # fmt: skip
    assert (only.cost, only.cost_upper) == (0.0, 0.0)
    done = run_evals_sync(ITEMS, [scorer], store=tmp_path / "s.db")
    first = done.judge_usage
    if first.calls == 1:
        assert only.prompt_tokens == first.input_tokens
    else:  # a repair re-sends the prompt with the faulty reply and the errors
        assert first.input_tokens > 2 * only.prompt_tokens
    assert only.prompt_tokens_upper >= first.input_tokens
