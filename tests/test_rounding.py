from __future__ import annotations

import pytest

from scorekit.rounding import js_round, round_to_two_decimals


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.005, 1.01),
        (0.985, 0.99),
        (0.125, 0.13),
        (2.675, 2.68),
        (0.575, 0.58),
        (0.835, 0.84),
        (2 / 3, 0.67),
        (1 / 3, 0.33),
        (1 / 7, 0.14),
        (0.0, 0.0),
        (1.0, 1.0),
        (0.74 - 0.1, 0.64),
        (3.7 / 5 - 0.05, 0.69),
        (1.3 / 5, 0.26),
        (100 * 0.855, 85.5),
    ],
)
def test_matches_mastra(value: float, expected: float) -> None:
    assert round_to_two_decimals(value) == expected


def test_differs_from_python_round() -> None:
    assert round(0.125, 2) == 0.12
    assert round_to_two_decimals(0.125) == 0.13


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2.5, 3.0), (-2.5, -2.0), (0.49999999999999994, 0.0), (-0.5, 0.0), (1.4, 1.0), (-1.6, -2.0)],
)
def test_js_round_half_up(value: float, expected: float) -> None:
    assert js_round(value) == expected


def test_js_round_passes_non_finite_through() -> None:
    assert js_round(float("inf")) == float("inf")


@pytest.mark.parametrize(
    ("value", "text"), [(1.0, "1"), (0.64, "0.64"), (85, "85"), (1.33, "1.33"), (0.0, "0")]
)
def test_format_score_like_javascript(value: float, text: str) -> None:
    from scorekit.rounding import js_number_text

    assert js_number_text(value) == text
