"""The prediction-powered mean against ppi-python and against the known truth of simulations."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scorekit.errors import ConfigError
from scorekit.trust import bootstrap_mean, ppi_mean
from tests.trust.simulated import POSITIVE_RATE, case_data

REFERENCE = json.loads((Path(__file__).parent / "ppi_reference.json").read_text())
"""ppi-python 0.2.3's figures (benchmarks/trust/ppi_reference.py writes them)."""


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: f"seed{c['seed']}-{c['kind']}")
def test_the_estimate_and_interval_are_ppi_pythons(case: dict[str, float]) -> None:
    y, judged, unlabelled = case_data(int(case["seed"]), int(case["n"]), int(case["N"]),
                                      str(case["kind"]))  # fmt: skip
    ours = ppi_mean(y, judged, unlabelled)
    assert ours.mean == pytest.approx(case["mean"], rel=1e-12, abs=1e-12)
    assert ours.low == pytest.approx(case["low"], rel=1e-12, abs=1e-12)
    assert ours.high == pytest.approx(case["high"], rel=1e-12, abs=1e-12)
    assert ours.labelled == case["n"] and ours.unlabelled == case["N"]


def test_the_interval_covers_the_true_mean_as_promised_and_the_raw_mean_does_not() -> None:
    # a judge that flips 10 % of positives and 30 % of negatives: its mean is 0.66, not 0.6
    runs, ppi_covers, raw_covers = 1000, 0, 0
    for seed in range(runs):
        y, judged, unlabelled = case_data(1000 + seed, 200, 2000, "binary")
        corrected = ppi_mean(y, judged, unlabelled)
        ppi_covers += corrected.low <= POSITIVE_RATE <= corrected.high
        raw = bootstrap_mean(np.concatenate([judged, unlabelled]), resamples=1000, seed=seed)
        raw_covers += raw.low <= POSITIVE_RATE <= raw.high
    assert 930 <= ppi_covers <= 970
    assert ppi_covers == 947  # the seeded figure itself
    assert raw_covers == 0  # biased by +0.06 with an interval of about ±0.02


def test_a_judge_that_tells_nothing_falls_back_to_the_labels_mean() -> None:
    labels = [1.0, 0.0] * 15
    estimate = ppi_mean(labels, [1.0] * 30, [1.0] * 100)
    assert estimate.power == 0.0
    assert estimate.mean == 0.5
    assert estimate.raw_mean == 1.0
    half_width = 1.959963984540054 * 0.5 / np.sqrt(30)
    assert estimate.low == pytest.approx(0.5 - half_width)
    assert estimate.high == pytest.approx(0.5 + half_width)


def test_a_perfect_judge_gives_power_near_one_and_a_narrow_interval() -> None:
    rng = np.random.default_rng(7)
    truth = (rng.random(1100) < 0.3).astype(float)
    estimate = ppi_mean(truth[:100], truth[:100], truth[100:])
    assert estimate.power == pytest.approx(1 / (1 + 100 / 1000) * (1100 - 1) / 1100, rel=0.05)
    labels_only = ppi_mean(truth[:100], np.zeros(100), np.zeros(1000))
    assert estimate.high - estimate.low < (labels_only.high - labels_only.low) / 2


@pytest.mark.parametrize(
    ("args", "field", "message"),
    [
        (([1, 0], [1], [1]), "judged", "differ in length"),
        (([1.0] * 25, [float("nan")] * 25, [1.0]), "judged", "value 0 is nan"),
        (([1.0] * 5, [1.0] * 5, [1.0]), "labels", r"not enough labels \(n = 5, need 20\)"),
        (([1.0] * 25, [1.0] * 25, []), "judged_unlabelled", "no unlabelled item"),
        ((["yes"] * 25, [1.0] * 25, [1.0]), "labels", "must be a number"),
    ],
)
def test_bad_input_is_refused_by_name(args: tuple[list[object], ...], field: str,
                                      message: str) -> None:  # fmt: skip
    with pytest.raises(ConfigError, match=message) as caught:
        ppi_mean(*args)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_the_bootstrap_mean_is_seeded_and_honours_its_data() -> None:
    values = np.random.default_rng(3).random(500)
    first = bootstrap_mean(values, seed=1)
    assert first == bootstrap_mean(values, seed=1)
    assert first != bootstrap_mean(values, seed=2)
    assert first.mean == pytest.approx(values.mean())
    assert first.low < first.mean < first.high
    # the interval's half width is about 1.96 standard errors
    assert (first.high - first.low) / 2 == pytest.approx(
        1.96 * values.std() / np.sqrt(500), rel=0.1
    )
    with pytest.raises(ConfigError, match="no value") as caught:
        bootstrap_mean([])
    assert caught.value.field == "values"


def test_a_million_distinct_values_keep_the_mean_exactly_on_the_grid() -> None:
    values = np.random.default_rng(5).random(1_000_000)
    estimate = bootstrap_mean(values, resamples=200)
    assert estimate.mean == pytest.approx(values.mean(), abs=1e-12)
    assert estimate.low < estimate.mean < estimate.high
    assert (estimate.high - estimate.low) / 2 == pytest.approx(1.96 * values.std() / 1000, rel=0.15)
