import random
import time

import pytest

from scorekit.text.lcs import lcs_length, lcs_ratio


def naive_lcs(a: str, b: str) -> int:
    previous = [0] * (len(b) + 1)
    for ca in a:
        current = [0]
        for j, cb in enumerate(b, 1):
            current.append(previous[j - 1] + 1 if ca == cb else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def test_equals_naive_dp_on_random_strings() -> None:
    rng = random.Random(1234)
    for _ in range(300):
        alphabet = rng.choice(["ab", "abc", "abcdefgh ", "αβγ東京"])
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 150)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 150)))
        assert lcs_length(a, b) == naive_lcs(a, b)


@pytest.mark.parametrize(
    ("a", "b", "ratio"),
    [
        ("The quick brown fox", "The quick brown fox", 1.0),
        ("The quick brown fox", "The quick brown cat", 0.8421052631578947),
        ("The quick brown fox", "The very quick brown fox", 0.8837209302325582),
        ("The quick brown fox jumps", "The quick fox jumps", 0.8636363636363636),
        (
            "The quick brown fox jumps over the lazy dog",
            "The slow black fox runs under the active cat",
            0.5287356321839081,
        ),
        ("The quick brown fox", "Lorem ipsum dolor sit amet", 0.26666666666666666),
        ("", "", 1.0),
        ("The quick brown fox", "", 0.0),
        ("", "x", 0.0),
        ("The Quick Brown Fox", "the quick brown fox", 0.7894736842105263),
        ("abcd", "bcda", 0.75),
        ("kitten", "sitting", 0.6153846153846154),
        ("\U0001f600a", "a", 2 / 3),  # code points, not UTF-16 units
    ],
)
def test_ratio_vectors(a: str, b: str, ratio: float) -> None:
    assert lcs_ratio(a, b) == ratio


def test_hundred_thousand_characters_well_under_a_second() -> None:
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    a = " ".join(rng.choice(words) for _ in range(17_000))[:100_000]
    b = " ".join(rng.choice(words) for _ in range(17_000))[:100_000]
    start = time.perf_counter()
    length = lcs_length(a, b)
    elapsed = time.perf_counter() - start
    assert 0 < length <= 100_000
    assert elapsed < 1.0
