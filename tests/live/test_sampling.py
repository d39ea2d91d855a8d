"""Sampling reproduces Mastra's deterministic rule on fixed SHA-256 examples."""

from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.live import Sampling, read_sampling, sample_fraction

# key -> the first 6 bytes of sha256(key), computed by hand (hashlib) for these literal values
FIXED = {
    "abc": (0xBA7816BF8F01, 0.7283949105903993),
    "": (0xE3B0C44298FC, 0.8894159948913369),
    "4bf92f3577b34da6a3ce929d0e0e4736": (0x398ACAEE65C4, 0.22477405853511812),
    "0af7651916cd43dd8448eb211c80319c": (0x15F774F039EC, 0.08580714096926556),
    "run-1": (0x4E65D3FBE8AD, 0.30624127292746905),
}


@pytest.mark.parametrize(("key", "expected"), FIXED.items())
def test_fraction_is_the_first_six_digest_bytes_over_2_48(key: str, expected: tuple) -> None:
    prefix, fraction = expected
    assert prefix / 2**48 == fraction
    assert sample_fraction(key) == fraction


@pytest.mark.parametrize(
    ("key", "rate", "sampled"),
    [
        ("0af7651916cd43dd8448eb211c80319c", 0.1, True),  # 0.0858 < 0.1
        ("4bf92f3577b34da6a3ce929d0e0e4736", 0.1, False),  # 0.2248
        ("4bf92f3577b34da6a3ce929d0e0e4736", 0.25, True),
        ("run-1", 0.3, False),  # 0.3062
        ("run-1", 0.31, True),
        ("abc", 0.7283949105903993, False),  # strictly below the rate
        ("abc", 0.7283949105903994, True),
        ("", 1.0, True),
        ("", 0.0, False),
    ],
)
def test_ratio_samples_below_the_rate(key: str, rate: float, sampled: bool) -> None:
    assert read_sampling({"type": "ratio", "rate": rate}).samples(key) is sampled


def test_none_samples_every_call() -> None:
    assert read_sampling(None) == Sampling()
    assert read_sampling({"type": "none"}).samples("abc") is True
    assert Sampling().to_dict() == {"type": "none"}
    assert Sampling(0.25).to_dict() == {"type": "ratio", "rate": 0.25}


def test_rate_one_in_ten_over_many_keys_is_near_a_tenth() -> None:
    sampling = Sampling(0.1)
    chosen = sum(sampling.samples(f"trace-{i}") for i in range(10_000))
    assert 900 <= chosen <= 1100


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"type": "random", "rate": 0.5}, "sampling.type"),
        ({"type": "ratio", "rate": 1.5}, "sampling.rate"),
        ({"type": "ratio", "rate": -0.1}, "sampling.rate"),
        ({"type": "ratio", "rate": True}, "sampling.rate"),
        ({"type": "ratio", "rate": float("nan")}, "sampling.rate"),
        ({"type": "ratio"}, "sampling.rate"),
        ({"type": "ratio", "rate": 0.1, "seed": 1}, "sampling"),
        (0.1, "sampling"),
    ],
)
def test_bad_settings_name_the_field(value: object, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read_sampling(value)
    assert caught.value.field == field
