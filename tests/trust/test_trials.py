"""Repeated trials: the judge against itself, from the statistics to the stored run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from scorekit import PromptStep, create_scorer
from scorekit.cli import app
from scorekit.errors import ConfigError
from scorekit.evals.run import run_evals_sync
from scorekit.judge import Judge, JudgeRequest
from scorekit.judge.scripted import ScriptedJudge
from scorekit.pipeline import Scorer
from scorekit.scorers import create_content_similarity_scorer
from scorekit.store import Store
from scorekit.store.repeats import trial_scores
from scorekit.trust.trials import trial_summary


class Verdict(BaseModel):
    verdict: str


def _flaky(request: JudgeRequest) -> Any:
    """Items 'q0'..'q3' are always 'yes'; the others flip with the request's seed (its trial)."""
    steady = any(f"item q{i} " in request.prompt for i in range(4))
    seed = request.seed or 0
    return {"verdict": "yes" if steady or seed % 2 == 0 else "no"}


def _judged(judge: ScriptedJudge) -> Scorer:
    return (
        create_scorer("yes-judge", description="asks the judge", judge=Judge(judge))
        .analyze(PromptStep("verdict", lambda ctx: f"Is item {ctx.run.input} fine?", Verdict))
        .generate_score(lambda ctx: 1.0 if ctx.results.analyze_step_result.verdict == "yes" else 0)
    )


ITEMS = [{"id": f"q{i}", "input": f"q{i} ", "output": "x"} for i in range(8)]


def test_the_summary_of_a_small_table_by_hand() -> None:
    found = trial_summary({"a": [1.0, 1.0, 1.0], "b": [0.0, 1.0, 0.0], "c": [0.2, None, 0.2]},
                          resamples=200)  # fmt: skip
    assert found is not None
    assert (found.trials, found.items) == (3, 2)  # c has a trial that is not ok
    assert found.mean_spread == pytest.approx(np.std([0.0, 1.0, 0.0]) / 2)
    assert found.self_consistency == 0.5
    assert found.mean.value == pytest.approx(4 / 6)
    with pytest.raises(ConfigError, match="same number of trials"):
        trial_summary({"a": [1.0, 1.0], "b": [1.0]})
    assert trial_summary({"a": [None, 1.0]}) is None


def test_the_interval_covers_the_true_mean_under_judge_noise() -> None:
    # 60 items with true means uniform on [0, 1]; the judge adds noise of sd 0.2 per trial
    covered = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        truth = rng.random(60)
        scores = {str(i): list(truth[i] + rng.normal(0, 0.2, 3)) for i in range(60)}
        found = trial_summary(scores, resamples=300, seed=seed)
        assert found is not None
        covered += found.mean.low <= 0.5 <= found.mean.high
    assert 180 <= covered <= 198


def test_trials_repeat_the_judge_with_new_seeds_and_are_stored(tmp_path: Path) -> None:
    judge = ScriptedJudge(_flaky)
    db = tmp_path / "x.db"
    result = run_evals_sync(ITEMS, [_judged(judge)], trials=3, store=db)
    assert [call.seed for call in judge.calls].count(None) == 8  # trial 0 as without trials
    assert sorted({call.seed for call in judge.calls} - {None}) == [1, 2]
    summary = result.trial_summaries()["yes-judge"]
    # q0..q3 say yes every time; q4..q7 say yes (trial 0, seed None), no (1), yes (2)
    assert (summary.trials, summary.items, summary.self_consistency) == (3, 8, 0.5)
    assert summary.mean.value == pytest.approx((4 * 3 + 4 * 2) / 24)
    assert result.summaries["yes-judge"].mean == 1.0  # the run's result is trial 0
    with Store(db) as store:
        stored = trial_scores(store, result.run_id)
        assert stored["yes-judge"]["q5"] == [1.0, 0.0, 1.0]
        assert store.get_run(result.run_id).config["trials"] == 3
    shown = CliRunner().invoke(app, ["show", result.run_id, "--db", str(db)])
    text = " ".join(shown.output.split())
    assert "the judge against itself" in text and "50.0%" in text


def test_a_code_scorer_agrees_with_itself_and_bad_trials_are_refused(tmp_path: Path) -> None:
    result = run_evals_sync(ITEMS, [create_content_similarity_scorer()], trials=2)
    found = result.trial_summaries()["content-similarity-scorer"]
    assert (found.self_consistency, found.max_spread) == (1.0, 0.0)
    for bad in (0, 1.5, True):
        with pytest.raises(ConfigError, match="trials must be an integer from 1 to 100") as caught:
            run_evals_sync(ITEMS, [create_content_similarity_scorer()], trials=bad)
        assert caught.value.field == "trials"


def test_the_command_line_flag(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    done = CliRunner().invoke(app, ["run", str(data), "-s", "content-similarity", "--trials", "2",
                                    "--db", str(tmp_path / "x.db")])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "the judge against itself" in " ".join(done.output.split())


def test_the_repeats_count_in_the_judge_usage_and_a_resume_keeps_its_trials(
    tmp_path: Path,
) -> None:
    judge = ScriptedJudge(_flaky)
    db = tmp_path / "x.db"
    result = run_evals_sync(ITEMS, [_judged(judge)], trials=3, store=db)
    assert result.judge_usage.calls == len(judge.calls) == 24
    with Store(db) as store:
        assert store.get_run(result.run_id).judge_usage["calls"] == 24
    with pytest.raises(ConfigError, match="was scored with trials=3") as caught:
        run_evals_sync(ITEMS, [_judged(judge)], trials=2, store=db, resume=result.run_id)
    assert caught.value.field == "trials"


def test_a_resume_replaces_the_trials_of_the_items_it_scores_again(tmp_path: Path) -> None:
    calls = {"n": 0}

    def once_broken(request: JudgeRequest) -> Any:
        calls["n"] += 1
        if "item q3 " in request.prompt and calls["n"] < 20:
            raise RuntimeError("the judge fell over")
        return {"verdict": "yes"}

    db = tmp_path / "x.db"
    first = run_evals_sync(ITEMS, [_judged(ScriptedJudge(once_broken))], trials=3, store=db)
    assert first.summaries["yes-judge"].counts["error"] == 1
    calls["n"] = 100
    again = run_evals_sync(ITEMS, [_judged(ScriptedJudge(once_broken))], store=db,
                           resume=first.run_id)  # fmt: skip
    assert again.summaries["yes-judge"].counts["error"] == 0
    with Store(db) as store:
        assert trial_scores(store, first.run_id)["yes-judge"]["q3"] == [1.0, 1.0, 1.0]
    shown = CliRunner().invoke(app, ["show", first.run_id, "--db", str(db)])
    assert shown.exit_code == 0, shown.output


def test_too_many_trials_and_non_finite_scores_are_refused() -> None:
    with pytest.raises(ConfigError, match="from 1 to 100"):
        run_evals_sync(ITEMS, [create_content_similarity_scorer()], trials=101)
    with pytest.raises(ConfigError, match="finite"):
        trial_summary({"a": [float("nan"), 1.0], "b": [1.0, 1.0]})
    # the figures do not depend on the order the items came in
    rows = {str(i): [i / 10, (i + 1) / 10] for i in range(8)}
    assert trial_summary(rows) == trial_summary(dict(reversed(list(rows.items()))))
