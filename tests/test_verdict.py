"""Issue 11: the verdict's gates in the Python API, and runs stopped by Ctrl-C."""

from __future__ import annotations

import asyncio
import re
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from scorekit import ConfigError, create_scorer
from scorekit.evals import EvalInterrupted, run_evals_sync
from scorekit.pipeline import Scorer, StepContext
from scorekit.scorers import create_content_similarity_scorer
from scorekit.store import Store
from scorekit.summary import ScoreSummary
from scorekit.verdict import format_rate, run_verdict, scorer_failures

from .evalkit import failing_on, length_scorer

ITEMS = [
    {"id": "a", "input": "q1", "output": "abcde"},
    {"id": "b", "input": "q2", "output": "ab"},
    {"id": "c", "input": "q3", "output": "abcdefgh"},
    {"id": "d", "input": "q4", "output": "abcd"},
]


def test_thresholds_take_the_short_names_the_command_line_takes() -> None:
    items = [{"input": "night", "output": "nacht"}]
    result = run_evals_sync(
        items,
        [create_content_similarity_scorer()],
        thresholds={"content-similarity": 0.5},
        max_error_rate={"content-similarity": 0.25},
    )
    assert result.thresholds == {"content-similarity-scorer": 0.5}
    assert result.max_error_rates == {"content-similarity-scorer": 0.25}
    assert result.failures == {"content-similarity-scorer": ["mean 0.2500 < 0.5"]}
    assert result.verdict == "failed"
    with pytest.raises(ConfigError, match="'content-similarity-scorer' is named twice") as info:
        run_evals_sync(
            items,
            [create_content_similarity_scorer()],
            thresholds={"content-similarity": 0.5, "content-similarity-scorer": 0.4},
        )
    assert info.value.field == "thresholds"


def test_any_error_fails_the_verdict_by_default() -> None:
    picky = failing_on({"ab"})  # one error in four
    result = run_evals_sync(ITEMS, [length_scorer(), picky])
    assert result.failures == {"length": [], "picky": ["error rate 25% > 0%"]}
    assert result.verdict == "failed"
    assert result.unmeasured == []


@pytest.mark.parametrize(
    ("limit", "verdict"),
    [(0.25, "passed"), (0.2, "failed"), ({"picky": 0.25}, "passed"), ({"length": 1.0}, "failed")],
)
def test_max_error_rate_for_all_or_per_scorer(limit: Any, verdict: str) -> None:
    result = run_evals_sync(ITEMS, [length_scorer(), failing_on({"ab"})], max_error_rate=limit)
    assert result.verdict == verdict


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        (1.5, "max_error_rate for 'length' is a share of results, from 0 to 1, not 1.5"),
        (-0.1, "from 0 to 1, not -0.1"),
        (True, "max_error_rate for 'length' must be a finite number, got True"),
        (float("nan"), "must be a finite number, got nan"),
        ({"nope": 0.1}, "max_error_rate: 'nope' is not a scorer of this run; scorers: length"),
        ("0.1", "max_error_rate for 'length' must be a finite number, got '0.1'"),
    ],
)
def test_bad_max_error_rate_names_the_field(limit: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        run_evals_sync(ITEMS, [length_scorer()], max_error_rate=limit)
    assert info.value.field == "max_error_rate"


def test_the_gates_in_one_function() -> None:
    summary = ScoreSummary("s")
    assert scorer_failures({"s": summary}, {"s": 0.5}, {}) == {"s": ["no ok result"]}
    assert run_verdict({"s": summary}, {}) == "failed"
    assert [format_rate(v) for v in (0.0, 0.25, 1 / 3, 1e-5, 1.0, None)] == [
        "0%",
        "25%",
        "33.3%",
        "0.001%",
        "100%",
        "—",
    ]


def test_a_resumed_run_keeps_its_stored_error_limits(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    scorers = [length_scorer(), failing_on({"ab"})]
    first = run_evals_sync(ITEMS, scorers, store=db, max_error_rate=0.25)
    assert first.verdict == "passed"
    again = run_evals_sync(ITEMS, scorers, store=db, resume=first.run_id)
    assert again.max_error_rates == {"length": 0.25, "picky": 0.25}
    assert again.verdict == "passed"
    with pytest.raises(ConfigError, match="error-rate limits") as info:
        run_evals_sync(ITEMS, scorers, store=db, resume=first.run_id, max_error_rate=0.0)
    assert info.value.field == "max_error_rate"
    with Store(db) as store:
        assert store.get_run(first.run_id).verdict == "passed"


def test_run_id_names_the_new_run(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    result = run_evals_sync(ITEMS, [length_scorer()], store=db, run_id="nightly-42")
    assert result.run_id == "nightly-42"
    with Store(db) as store:
        assert store.get_run("nightly-42").status == "finished"
    with pytest.raises(ConfigError, match="run_id must be a non-empty string") as info:
        run_evals_sync(ITEMS, [length_scorer()], run_id="  ")
    assert info.value.field == "run_id"


# -- Ctrl-C ------------------------------------------------------------------------------------


class _Store(Store):
    """A store that can press Ctrl-C while the run writes its ending."""

    ctrl_c_on_finish = False

    def finish_run(self, *args: Any, **kwargs: Any) -> None:
        if self.ctrl_c_on_finish:
            signal.raise_signal(signal.SIGINT)  # the second Ctrl-C, during the last write
        super().finish_run(*args, **kwargs)


def _ctrl_c_scorer(*, again_on_cancel: bool) -> Scorer:
    async def score(ctx: StepContext) -> float:
        if ctx.run.output == "stop":
            signal.raise_signal(signal.SIGINT)  # the first Ctrl-C
        try:
            await asyncio.sleep(30 if ctx.run.output == "slow" else 0)
        except asyncio.CancelledError:
            if again_on_cancel:
                signal.raise_signal(signal.SIGINT)  # the second, while items in flight stop
            raise
        return 1.0

    return create_scorer("ctrl-c", description="presses Ctrl-C").generate_score(score)


STOPPING = [{"id": "1", "output": "slow"}, {"id": "2", "output": "stop"}]


def _stored(db: Path) -> list[tuple[str, str | None]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("select status, verdict from runs").fetchall()


@pytest.mark.parametrize("second", [None, "cleanup", "finish"])
def test_an_interrupted_run_has_no_verdict_and_is_never_left_running(
    tmp_path: Path, second: str | None
) -> None:
    db = tmp_path / "r.db"
    store = _Store(db)
    store.ctrl_c_on_finish = second == "finish"
    try:
        with pytest.raises(EvalInterrupted) as info:
            run_evals_sync(
                STOPPING,
                [_ctrl_c_scorer(again_on_cancel=second == "cleanup")],
                store=store,
                concurrency=2,
            )
    finally:
        store.close()
    partial = info.value.result
    assert (partial.status, partial.verdict) == ("interrupted", None)
    assert _stored(db) == [("interrupted", None)]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.parametrize(
    ("options", "threshold", "refused"),
    [({}, 5.0, "[0, 1]"), ({}, -0.1, "[0, 1]"), ({"scale": 10}, 5.0, None),
     ({"scale": 10}, 10.5, "[0, 10]"), ({}, 1.0, None)],
)  # fmt: skip
def test_a_threshold_outside_the_score_range_is_refused(
    options: dict[str, float], threshold: float, refused: str | None
) -> None:
    # issue 34: a threshold of 5 on a 0-1 scorer made a verdict that could never pass
    from scorekit.errors import ConfigError
    from scorekit.evals import run_evals_sync
    from scorekit.scorers import build_scorer

    scorer = build_scorer("content-similarity", **options)
    data = [{"input": "a", "output": "a"}]
    if refused is None:
        run_evals_sync(data, [scorer], thresholds={"content-similarity": threshold})
        return
    with pytest.raises(ConfigError, match=re.escape(f"outside its score range {refused}")) as info:
        run_evals_sync(data, [scorer], thresholds={"content-similarity": threshold})
    assert info.value.field == "thresholds"


def test_a_scorer_of_unknown_range_takes_any_threshold() -> None:
    from scorekit import create_scorer
    from scorekit.evals import run_evals_sync

    custom = create_scorer("ten", description="d").generate_score(lambda ctx: 10.0)
    done = run_evals_sync([{"input": "a", "output": "a"}], [custom], thresholds={"ten": 5})
    assert done.verdict == "passed"
