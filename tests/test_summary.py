from __future__ import annotations

import importlib
import inspect
import json
import math
import random

import pytest

from scorekit.cli.correlation import ScorerSummary
from scorekit.errors import ConfigError
from scorekit.results import RunError, ScorerRunResult, Status
from scorekit.summary import DEFAULT_BINS, Histogram, ScoreSummary, bin_scores

# exact in binary, so every statistic below is an exact float
SCORES = [0.25, 0.75, 0.5, 0.125, 1.0, 0.375]


def summary_of(pairs: list[tuple[Status, float | None]], scorer_id: str = "s") -> ScoreSummary:
    summary = ScoreSummary(scorer_id)
    for status, score in pairs:
        summary.add_score(status, score)
    return summary


def mixed(n: int, seed: int = 7) -> list[tuple[Status, float | None]]:
    rng = random.Random(seed)
    pairs: list[tuple[Status, float | None]] = []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.1:
            pairs.append(("error", None))
        elif roll < 0.15:
            pairs.append(("skipped", None))
        else:
            pairs.append(("ok", rng.random()))
    return pairs


def test_counts_and_exact_statistics_of_a_fixed_list() -> None:
    summary = summary_of([*(("ok", s) for s in SCORES), ("skipped", None), ("error", None)])
    assert summary.counts == {"ok": 6, "skipped": 1, "error": 1}
    assert summary.total == 8
    assert summary.scores.tolist() == SCORES
    assert (summary.scores.typecode, summary.scores.itemsize) == ("d", 8)  # packed
    assert summary.mean == 0.5  # 3.0 / 6
    assert summary.median == 0.4375  # (0.375 + 0.5) / 2
    assert (summary.minimum, summary.maximum) == (0.125, 1.0)
    odd = summary_of([("ok", 0.5), ("ok", 0.125), ("ok", 1.0)])
    assert odd.median == 0.5


def test_mean_is_fsum_not_a_running_sum() -> None:
    tenths = summary_of([("ok", 0.1)] * 10)
    assert sum([0.1] * 10) / 10 != 0.1  # the naive mean drifts
    assert tenths.mean == math.fsum([0.1] * 10) / 10 == 0.1


def test_add_takes_scorer_run_results() -> None:
    summary = ScoreSummary("s")
    summary.add(ScorerRunResult(scorer_id="s", run_id="r", status="ok", score=0.25))
    error = RunError(type="E", message="m")
    summary.add(ScorerRunResult(scorer_id="s", run_id="r", status="error", error=error))
    assert summary.counts == {"ok": 1, "skipped": 0, "error": 1}
    assert summary.scores.tolist() == [0.25]


def test_empty_summary_gives_none_never_nan() -> None:
    for summary in (ScoreSummary("s"), summary_of([("error", None), ("skipped", None)])):
        assert summary.mean is None
        assert summary.median is None
        assert summary.minimum is None
        assert summary.maximum is None
        assert summary.histogram().counts == (0,) * DEFAULT_BINS
        data = summary.to_dict()
        assert (data["mean"], data["median"], data["min"], data["max"]) == (None,) * 4
        json.dumps(data, allow_nan=False)  # no NaN anywhere in the stored form


@pytest.mark.parametrize(
    ("status", "score", "field"),
    [
        ("ok", None, "score"),
        ("ok", math.nan, "score"),
        ("ok", math.inf, "score"),
        ("ok", True, "score"),
        ("unknown", None, "status"),
    ],
)
def test_bad_results_are_refused(status: str, score: object, field: str) -> None:
    summary = ScoreSummary("s")
    with pytest.raises(ConfigError) as caught:
        summary.add_score(status, score)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert summary.total == 0


def test_merging_two_halves_equals_the_whole_exactly() -> None:
    pairs = mixed(1001)
    whole = summary_of(pairs)
    first, second = summary_of(pairs[:400]), summary_of(pairs[400:])
    merged = first.merge(second)
    assert merged == whole
    assert merged.counts == whole.counts
    assert (merged.mean, merged.median) == (whole.mean, whole.median)
    assert (merged.minimum, merged.maximum) == (whole.minimum, whole.maximum)
    assert merged.histogram() == whole.histogram()
    # the halves are unchanged
    assert first == summary_of(pairs[:400])
    assert second == summary_of(pairs[400:])


def test_merge_of_any_split_gives_the_same_statistics() -> None:
    pairs = mixed(500, seed=11)
    whole = summary_of(pairs)
    evens, odds = summary_of(pairs[::2]), summary_of(pairs[1::2])
    merged = odds.merge(evens)
    assert merged.counts == whole.counts
    assert sorted(merged.scores) == sorted(whole.scores)
    # fsum is correctly rounded and the median sorts: the order of the parts does not matter
    assert merged.mean == whole.mean
    assert merged.median == whole.median
    assert (merged.minimum, merged.maximum) == (whole.minimum, whole.maximum)
    assert merged.histogram() == whole.histogram()
    assert ScoreSummary("s").merge(whole) == whole == whole.merge(ScoreSummary("s"))


def test_merge_needs_the_same_scorer() -> None:
    with pytest.raises(ConfigError, match="cannot merge summaries of 'a' and 'b'"):
        ScoreSummary("a").merge(ScoreSummary("b"))


def test_histogram_edges_and_counts() -> None:
    found = summary_of([("ok", s) for s in [0.0, 0.09, 0.1, 0.55, 0.99, 1.0]]).histogram()
    assert found.edges == tuple(i / 10 for i in range(11))
    assert found.counts == (2, 1, 0, 0, 0, 1, 0, 0, 0, 2)  # 1.0 == high joins the last bin
    assert (found.low, found.high, found.total) == (0.0, 1.0, 6)
    # a score on an inner edge opens the bin above it, whatever the floating-point quotient
    assert bin_scores([0.3, 0.6, 0.7]).counts == (0, 0, 0, 1, 0, 0, 1, 1, 0, 0)


def test_histogram_range_bins_and_out_of_range_scores() -> None:
    explicit = bin_scores([0.0, 2.0, 4.0, 4.0], bins=2, low=0.0, high=4.0)
    assert explicit == Histogram((0.0, 2.0, 4.0), (1, 3))  # scores equal to high: last bin
    clamped = bin_scores([-1.0, 0.5, 9.0], bins=4, high=2.0)
    assert clamped.counts == (1, 1, 0, 1)  # below low: first bin; above high: last bin
    wide = bin_scores([0.0, 5.0], bins=5)  # high=None: max(1, largest score)
    assert wide.edges == (0.0, 1.0, 2.0, 3.0, 4.0, 5.0)
    assert wide.counts == (1, 0, 0, 0, 1)
    summary = summary_of([("ok", 0.25), ("ok", 0.75)])
    assert summary.histogram(bins=2, low=0.0, high=1.0).counts == (1, 1)
    assert summary.histogram(4).edges == (0.0, 0.25, 0.5, 0.75, 1.0)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"bins": 0}, "bins"),
        ({"bins": 2.5}, "bins"),
        ({"low": 1.0, "high": 1.0}, "high"),
        ({"low": 0.5, "high": 0.0}, "high"),
        ({"high": math.nan}, "high"),
    ],
)
def test_bad_histogram_ranges(kwargs: dict[str, float], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        bin_scores([0.5], **kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_to_dict_keeps_the_old_keys_and_adds_the_histogram() -> None:
    summary = summary_of([*(("ok", s) for s in SCORES), ("error", None)])
    data = summary.to_dict()
    assert data == {
        "counts": {"ok": 6, "skipped": 0, "error": 1},
        "mean": 0.5,
        "median": 0.4375,
        "min": 0.125,
        "max": 1.0,
        "histogram": {
            "edges": [i / 10 for i in range(11)],
            "counts": [0, 1, 1, 1, 0, 1, 0, 1, 0, 1],
        },
    }
    assert "scores" not in data
    assert summary.to_dict(scores=True)["scores"] == SCORES


def test_round_trip_with_scores_is_exact() -> None:
    summary = summary_of(mixed(300))
    again = ScoreSummary.from_dict("s", json.loads(json.dumps(summary.to_dict(scores=True))))
    assert again == summary
    assert again.has_scores
    assert again.merge(summary).counts["ok"] == 2 * summary.counts["ok"]


def test_round_trip_without_scores_keeps_the_statistics() -> None:
    summary = summary_of(mixed(300))
    stored = ScoreSummary.from_dict("s", json.loads(json.dumps(summary.to_dict())))
    assert not stored.has_scores
    assert len(stored.scores) == 0
    assert stored.counts == summary.counts
    assert stored.total == summary.total
    assert (stored.mean, stored.median) == (summary.mean, summary.median)
    assert (stored.minimum, stored.maximum) == (summary.minimum, summary.maximum)
    assert stored.histogram() == summary.histogram()
    assert stored.to_dict() == summary.to_dict()
    # what needs the scores says so
    with pytest.raises(ConfigError, match="read from stored totals"):
        stored.merge(summary)
    with pytest.raises(ConfigError, match="read from stored totals"):
        summary.merge(stored)
    with pytest.raises(ConfigError, match="read from stored totals"):
        stored.add_score("ok", 0.5)
    with pytest.raises(ConfigError, match="only the default histogram"):
        stored.histogram(bins=5)
    with pytest.raises(ConfigError, match="read from stored totals"):
        stored.to_dict(scores=True)


def test_older_rows_without_a_histogram_still_read() -> None:
    old = {"counts": {"ok": 3, "skipped": 0, "error": 1}, "mean": 0.5, "median": 0.5}
    old |= {"min": 0.2, "max": 0.8}
    stored = ScoreSummary.from_dict("length", old)
    assert stored.counts == {"ok": 3, "skipped": 0, "error": 1}
    assert (stored.mean, stored.median, stored.minimum, stored.maximum) == (0.5, 0.5, 0.2, 0.8)
    assert "histogram" not in stored.to_dict()
    with pytest.raises(ConfigError, match="only the default histogram"):
        stored.histogram()


def test_a_stored_summary_without_ok_results_is_whole() -> None:
    data = {"counts": {"ok": 0, "skipped": 2, "error": 1}, "mean": None, "median": None}
    stored = ScoreSummary.from_dict("s", data | {"min": None, "max": None})
    assert stored.has_scores
    assert stored == summary_of([("skipped", None), ("skipped", None), ("error", None)])
    assert stored.merge(summary_of([("ok", 1.0)])).mean == 1.0


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({}, "counts"),
        ({"counts": {"ok": -1}}, "counts"),
        ({"counts": {"ok": "1"}}, "counts"),
        ({"counts": {"ok": True}}, "counts"),
        ({"counts": {"fine": 1}}, "counts"),
        ({"counts": {"ok": 1}, "mean": None, "median": 1, "min": 1, "max": 1}, "mean"),
        ({"counts": {"ok": 1}, "mean": "x", "median": 1, "min": 1, "max": 1}, "mean"),
        ({"counts": {"ok": 2}, "scores": [0.5]}, "scores"),
        ({"counts": {"ok": 1}, "scores": [math.nan]}, "scores"),
        (
            {"counts": {"ok": 1}, "mean": 1, "median": 1, "min": 1, "max": 1, "histogram": {}},
            "histogram",
        ),
    ],
)
def test_malformed_data_is_refused(data: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ScoreSummary.from_dict("s", data)
    assert caught.value.field == field


def test_constructed_summaries_keep_their_shape() -> None:
    summary = ScoreSummary("s", {"ok": 2}, [0.5, 1.0])  # {"ok": 2} stands for the full counts
    assert summary.counts == {"ok": 2, "skipped": 0, "error": 0}
    assert summary.merge(ScoreSummary("s", {"error": 1})).counts == {
        "ok": 2,
        "skipped": 0,
        "error": 1,
    }
    with pytest.raises(ConfigError, match="holds 1 scores for 2 ok results"):
        ScoreSummary("s", {"ok": 2}, [0.5])
    with pytest.raises(ConfigError, match="bad count"):
        ScoreSummary("s", {"maybe": 1})  # type: ignore[dict-item]
    for bad in (["0.5"], [None], [math.nan], [math.inf]):
        with pytest.raises(ConfigError) as caught:
            ScoreSummary("s", {"ok": 1}, bad)  # type: ignore[arg-type]
        assert caught.value.field == "scores"


def test_the_old_name_is_the_same_type() -> None:
    assert ScorerSummary is ScoreSummary


@pytest.mark.parametrize("name", ["scorekit.summary", "scorekit.cli.console"])
def test_all_is_sorted_complete_and_documented(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__all__ == sorted(module.__all__)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == name
    }
    assert public == set(module.__all__) - {"DEFAULT_BINS"}
    for attr in public:
        assert inspect.getdoc(getattr(module, attr)), attr


def test_the_mean_of_scores_near_the_float_maximum_does_not_overflow() -> None:
    summary = ScoreSummary("huge", {"ok": 3}, [1e308, 1e308, 5e307])
    assert summary.mean == pytest.approx(1e308 / 3 + 1e308 / 3 + 5e307 / 3)
    assert summary.to_dict()["mean"] == summary.mean
