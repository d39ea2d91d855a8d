"""SeenIds: the run's set of item ids read, kept as digests, counts repeats exactly."""

from __future__ import annotations

import random

from scorekit.evals.seen_ids import SeenIds


def test_counts_repeats_as_a_dict_of_the_ids_would_across_growth() -> None:
    rng = random.Random(3)
    ids = [f"item-{rng.randrange(6000)}" for _ in range(20_000)]  # many repeats
    seen, expected = SeenIds(capacity=1), {}
    for item_id in ids:
        expected[item_id] = expected.get(item_id, 0) + 1
        assert seen.add(item_id) == expected[item_id]
    assert len(seen) == len(expected)
    assert all(item_id in seen for item_id in expected)
    assert not any(f"item-{n}" in seen for n in range(6000, 6100))


def test_ids_that_differ_only_in_form_are_different_ids() -> None:
    seen = SeenIds()
    for item_id in ["1", "01", " 1", "1 ", "é", "e\u0301", "\ud800", "", "a#2"]:
        assert seen.add(item_id) == 1, item_id
    assert len(seen) == 9
    assert seen.add("\ud800") == 2  # a lone surrogate (from JSON) is an id like any other


def test_membership_of_what_is_not_a_string_is_false() -> None:
    seen = SeenIds()
    seen.add("1")
    assert 1 not in seen and None not in seen
