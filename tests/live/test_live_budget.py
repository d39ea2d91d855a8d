"""A live service's judge budget per UTC day, on the scripted judge server and the real store:
calls past it are not scored (counted, never stored), the day's run says so, a new day starts
afresh."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from scorekit.errors import ConfigError
from scorekit.judge.spending import stored_budget_text
from scorekit.live import LiveScoring
from scorekit.scorers import build_scorer
from scorekit.store import Store
from tests.live.child_scorers import MODULE, create_judged_scorer
from tests.servers.scripted_openai import Reply, ScriptedServer

TOKENS = 11 + 7  # the scripted server's prompt and completion tokens per call


class _Clock(dt.datetime):
    """``datetime`` whose ``now`` is the day the test sets."""

    day = dt.date(2026, 3, 14)

    @classmethod
    def now(cls, tz: Any = None) -> _Clock:  # type: ignore[override]
        return cls(cls.day.year, cls.day.month, cls.day.day, 12, tzinfo=tz)


def _runs(path: Path) -> list[tuple[Any, list[Any]]]:
    with Store(path) as store:
        found = store.list_runs(None, source="LIVE")
        return [(run, list(store.results(run.id))) for run in reversed(found)]


def test_a_days_budget_stops_scoring_and_the_next_day_starts_afresh(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("scorekit.live.scoring.datetime", _Clock)
    server.default = Reply('{"verdict": "yes"}')
    db = tmp_path / "live.db"
    live = LiveScoring(db, service="rag-api", worker="thread", concurrency=1, max_judge_calls=3)
    answer = live.wrap(lambda q: f"answer to {q}", [create_judged_scorer(server.base_url)])
    for n in range(5):
        answer(f"q{n}")
        assert live.flush(10)
    stats = live.stats()
    assert (stats.scored, stats.over_budget, len(server.requests)) == (3, 2, 3)
    _Clock.day = dt.date(2026, 3, 15)
    try:
        answer("tomorrow")
        live.close(10)
    finally:
        _Clock.day = dt.date(2026, 3, 14)
    assert (live.stats().scored, len(server.requests)) == (4, 4)
    (first, first_rows), (second, second_rows) = _runs(db)
    assert (first.name, len(first_rows), second.name, len(second_rows)) == (
        "rag-api 2026-03-14", 3, "rag-api 2026-03-15", 1,
    )  # fmt: skip
    stop = first.config["budget_stop"]
    assert (stop["limit"], stop["budget"], stop["calls"], stop["tokens"], stop["unscored"]) == (
        "max_judge_calls", {"max_judge_calls": 3}, 3, 3 * TOKENS, 2,
    )  # fmt: skip
    assert stored_budget_text(first.config) == (
        f"stopped by its judge budget: max_judge_calls 3 (3 calls, {3 * TOKENS} tokens spent); "
        "2 items not scored"
    )
    assert second.config.get("budget_stop") is None


def test_the_scoring_process_keeps_the_budget_too(server: ScriptedServer, tmp_path: Path) -> None:
    server.default = Reply('{"verdict": "yes"}')
    db = tmp_path / "live.db"
    scorer = build_scorer(f"{MODULE}:create_judged_scorer", base_url=server.base_url)
    live = LiveScoring(db, service="svc", worker="process", concurrency=1, max_judge_calls=2)
    answer = live.wrap(lambda q: q, [scorer])
    for n in range(4):
        answer(f"q{n}")
        assert live.flush(30)
    live.close(30)
    stats = live.stats()
    assert (stats.scored, stats.over_budget, len(server.requests)) == (2, 2, 2)
    ((run, rows),) = _runs(db)
    assert len(rows) == 2 and run.config["budget_stop"]["limit"] == "max_judge_calls"


def test_a_bad_limit_names_its_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        LiveScoring(tmp_path / "x.db", service="s", max_judge_calls=0)
    assert caught.value.field == "max_judge_calls"


def test_a_money_budget_needs_the_price_of_every_judge(
    server: ScriptedServer, tmp_path: Path
) -> None:
    live = LiveScoring(tmp_path / "m.db", service="s", worker="thread", max_cost=0.5)
    with pytest.raises(ConfigError) as caught:
        live.wrap(lambda q: q, [create_judged_scorer(server.base_url)])
    assert "openai-compatible/live-budget" in str(caught.value)
    priced = LiveScoring(tmp_path / "p.db", service="s", worker="thread", max_cost=0.5,
                         prices={"openai-compatible/live-budget": [1.0, 2.0]})  # fmt: skip
    priced.wrap(lambda q: q, [create_judged_scorer(server.base_url)])
    live.close(1)
    priced.close(1)


def test_the_services_prices_are_stored_with_its_runs(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.default = Reply('{"verdict": "yes"}')
    db = tmp_path / "p.db"
    live = LiveScoring(db, service="s", worker="thread", concurrency=1,
                       prices={"openai-compatible/live-budget": [2.0, 4.0]})  # fmt: skip
    answer = live.wrap(lambda q: q, [create_judged_scorer(server.base_url)])
    answer("q")
    live.close(10)
    ((run, rows),) = _runs(db)
    assert len(rows) == 1
    price = run.config["prices"]["openai-compatible/live-budget"]
    assert (price["input_per_mtok"], price["output_per_mtok"]) == (2.0, 4.0)
