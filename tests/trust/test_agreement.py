"""Agreement with human labels: exact figures, brute-force cross-checks, intervals, refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scorekit.errors import ConfigError
from scorekit.trust import MIN_LABELS, agreement
from tests.trust.simulated import case_data

# 24 items: 10 positives scored 0.9 ×6, 0.6 ×2, 0.3 ×2; 14 negatives 0.8 ×3, 0.4 ×4, 0.1 ×7
SCORES = [0.9] * 6 + [0.6] * 2 + [0.3] * 2 + [0.8] * 3 + [0.4] * 4 + [0.1] * 7
LABELS = [1] * 10 + [0] * 14


def test_the_figures_of_a_small_table_by_hand() -> None:
    result = agreement(SCORES, LABELS, resamples=500)
    assert (result.n, result.positives, result.graded) == (24, 10, False)
    # at 0.5: TP 8, FN 2, FP 3, TN 11
    assert result.confusion == {"tp": 8, "fp": 3, "fn": 2, "tn": 11}
    assert result.balanced_accuracy is not None
    assert result.balanced_accuracy.value == pytest.approx((8 / 10 + 11 / 14) / 2)
    observed, expected = 19 / 24, (11 * 10 + 13 * 14) / 24**2
    assert result.kappa is not None
    assert result.kappa.value == pytest.approx((observed - expected) / (1 - expected))
    # AUROC: pairs won by the positive, ties one half
    wins = sum(
        1.0 if p > q else 0.5 if p == q else 0.0
        for p, q in itertools.product(SCORES[:10], SCORES[10:])
    )
    assert result.auroc is not None
    assert result.auroc.value == pytest.approx(wins / 140)
    # the best threshold among the scores seen: 0.6 gives (8/10 + 11/14) / 2, 0.9 gives
    # (6/10 + 14/14) / 2 = 0.8, the best
    assert result.best_threshold is not None and result.best_threshold.value == 0.9
    assert result.pearson is None and result.spearman is None and result.notes == ()
    for figure in (result.balanced_accuracy, result.kappa, result.auroc):
        assert figure.low <= figure.value <= figure.high


def test_auroc_and_the_rank_figures_match_brute_force_on_random_ties() -> None:
    rng = np.random.default_rng(11)
    scores = np.round(rng.random(300), 1)  # many ties
    labels = np.round(np.clip(scores * 0.5 + rng.random(300) * 0.5, 0, 1), 1)
    result = agreement(scores, labels, threshold=0.4, resamples=200)
    positive = labels >= 0.5
    pos, neg = scores[positive], scores[~positive]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    assert result.auroc is not None and result.auroc.value == pytest.approx(
        wins / pos.size / neg.size
    )
    assert result.graded and result.pearson is not None and result.spearman is not None
    assert result.pearson.value == pytest.approx(np.corrcoef(scores, labels)[0, 1])

    def midranks(values: np.ndarray) -> np.ndarray:
        return np.array([(values < v).sum() + ((values == v).sum() + 1) / 2 for v in values])

    expected = np.corrcoef(midranks(scores), midranks(labels))[0, 1]
    assert result.spearman.value == pytest.approx(expected)
    predicted = scores >= 0.4
    tp, tn = int((predicted & positive).sum()), int((~predicted & ~positive).sum())
    assert result.balanced_accuracy is not None
    assert result.balanced_accuracy.value == pytest.approx(
        (tp / positive.sum() + tn / (~positive).sum()) / 2
    )


def test_the_interval_is_seeded_and_its_spread_is_the_items_bootstrap() -> None:
    y, judged, _ = case_data(21, 400, 0, "binary")
    first = agreement(judged, y, seed=3)
    assert first == agreement(judged, y, seed=3)
    assert first.balanced_accuracy != agreement(judged, y, seed=4).balanced_accuracy
    # the same spread as drawing the items themselves, 2,000 times
    rng = np.random.default_rng(0)
    draws = rng.integers(0, y.size, size=(2000, y.size))
    ba = []
    for rows in draws:
        yy, jj = y[rows], judged[rows]
        ba.append((((jj >= 0.5) & (yy == 1)).sum() / (yy == 1).sum()
                   + ((jj < 0.5) & (yy == 0)).sum() / (yy == 0).sum()) / 2)  # fmt: skip
    low, high = np.percentile(ba, [2.5, 97.5])
    assert first.balanced_accuracy is not None
    assert first.balanced_accuracy.low == pytest.approx(low, abs=0.01)
    assert first.balanced_accuracy.high == pytest.approx(high, abs=0.01)


def test_the_interval_covers_the_true_balanced_accuracy() -> None:
    # the simulated judge: recall 0.9 on positives, 0.7 on negatives, so BA = 0.8
    covered = 0
    for seed in range(200):
        y, judged, _ = case_data(5000 + seed, 150, 0, "binary")
        figure = agreement(judged, y, resamples=500, seed=seed).balanced_accuracy
        assert figure is not None
        covered += figure.low <= 0.8 <= figure.high
    assert 180 <= covered <= 198


def test_too_few_labels_gives_a_sentence_not_a_number() -> None:
    result = agreement([0.5] * 7, [1] * 7)
    assert result.not_enough == f"not enough labels (n = 7, need {MIN_LABELS})"
    assert result.balanced_accuracy is None and result.auroc is None and result.confusion == {}
    assert agreement([0.5] * 7, [1] * 7, min_labels=5).not_enough is None


def test_one_label_only_leaves_the_two_class_figures_out_with_a_note() -> None:
    result = agreement([0.2, 0.9] * 15, [1] * 30)
    assert result.balanced_accuracy is None and result.kappa is None and result.auroc is None
    assert result.notes == (
        "balanced accuracy, κ, AUROC and the best threshold need both labels; all 30 are positive",
    )
    assert result.confusion == {"tp": 15, "fp": 0, "fn": 15, "tn": 0}


@pytest.mark.parametrize(
    ("scores", "labels", "field", "message"),
    [
        ([0.1] * 20, [1] * 19, "labels", r"differ in length \(20 vs 19\)"),
        ([0.1] * 20, [1.5] + [1] * 19, "labels", r"value 0 is 1.5, outside \[0, 1\]"),
        ([float("inf")] + [0.1] * 19, [1] * 20, "scores", "value 0 is inf, not a finite"),
        ([[0.1]] * 20, [1] * 20, "scores", "flat list"),
    ],
)
def test_bad_input_is_refused_by_name(scores: list[object], labels: list[object], field: str,
                                      message: str) -> None:  # fmt: skip
    with pytest.raises(ConfigError, match=message) as caught:
        agreement(scores, labels)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_to_dict_is_plain_json() -> None:
    data = agreement(SCORES, LABELS, resamples=200).to_dict()
    assert data["confusion"] == {"tp": 8, "fp": 3, "fn": 2, "tn": 11}
    assert set(data["auroc"]) == {"value", "low", "high"}  # type: ignore[arg-type]
    assert data["pearson"] is None and data["not_enough"] is None
