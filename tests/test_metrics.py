from __future__ import annotations

import pytest

from scorekit.cli.correlation import ScorerSummary, pearson, rank, spearman
from scorekit.errors import ConfigError
from scorekit.pipeline import RunError, ScorerRunResult


def result(status: str, score: float | None = None) -> ScorerRunResult:
    error = RunError(type="E", message="m") if status == "error" else None
    return ScorerRunResult(scorer_id="s", run_id="r", status=status, score=score, error=error)


def test_summary_counts_and_statistics() -> None:
    summary = ScorerSummary("s")
    for r in [
        result("ok", 0.2),
        result("ok", 0.8),
        result("ok", 0.5),
        result("skipped"),
        result("error"),
    ]:
        summary.add(r)
    assert summary.counts == {"ok": 3, "skipped": 1, "error": 1}
    assert summary.total == 5
    assert summary.mean == pytest.approx(0.5)
    assert summary.median == 0.5
    assert (summary.minimum, summary.maximum) == (0.2, 0.8)


def test_empty_summary_has_no_statistics() -> None:
    summary = ScorerSummary("s")
    summary.add(result("error"))
    assert summary.mean is None and summary.median is None and summary.minimum is None


def test_pearson_and_spearman_by_hand() -> None:
    x = [1.0, 2.0, 3.0, 4.0]
    y = [2.0, 4.0, 5.0, 4.0]
    # mean x 2.5, mean y 3.75; sxy = 3.5, sxx = 5, syy = 4.75
    assert pearson(x, y) == pytest.approx(3.5 / (5 * 4.75) ** 0.5)
    assert rank(y) == [1.0, 2.5, 4.0, 2.5]
    assert spearman(x, y) == pytest.approx(pearson([1, 2, 3, 4], [1, 2.5, 4, 2.5]))
    assert pearson([1, 1, 1], [1, 2, 3]) is None


def test_correlation_input_errors() -> None:
    with pytest.raises(ConfigError):
        pearson([1.0], [1.0])
    with pytest.raises(ConfigError):
        spearman([1.0, 2.0], [1.0])
