"""A run keeps the objects older than it out of the collector's full scans, and only then."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from scorekit.evals import EvalItem, run_evals_sync
from scorekit.evals.heap import FrozenHeap
from scorekit.results import ScorerRunResult

from ..evalkit import length_scorer

ITEMS = [{"id": str(n), "output": "x" * n} for n in range(1, 4)]


def _tracked(obj: object) -> bool:
    """Whether the collector's generations (not the permanent one) hold ``obj``."""
    return any(o is obj for o in gc.get_objects())


@pytest.fixture(autouse=True)
def _thawed() -> Iterator[None]:
    assert gc.get_freeze_count() == 0  # nothing of the test runner's is frozen
    yield
    gc.unfreeze()


def test_a_run_freezes_what_existed_before_it_and_thaws_it_after() -> None:
    older: list[int] = []  # a tracked container made before the run
    seen: list[tuple[bool, bool]] = []

    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        if item.id == "1":
            made_now: list[int] = []
            seen.append((_tracked(older), _tracked(made_now)))

    result = run_evals_sync(ITEMS, [length_scorer()], on_item_complete=on_item)
    assert result.scores == {"length": pytest.approx(0.2)}
    assert seen == [(False, True)]  # older: frozen; made during the run: collected as usual
    assert gc.get_freeze_count() == 0
    assert _tracked(older)


def test_a_caller_who_froze_objects_keeps_exactly_their_freeze() -> None:
    kept: list[int] = []  # a container of the caller's, frozen with the rest
    gc.freeze()
    frozen = gc.get_freeze_count()
    during: list[int] = []

    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        during.append(gc.get_freeze_count())

    run_evals_sync(ITEMS, [length_scorer()], on_item_complete=on_item)
    # the run neither froze more nor thawed the caller's objects: the count can only fall, by
    # frozen objects freed by reference counting meanwhile (an evicted cache entry, say: in the
    # full suite two were), and the caller's container is still out of the collector's scans
    assert len(during) == 3
    assert all(0 < count <= frozen for count in during)
    assert 0 < gc.get_freeze_count() <= frozen
    assert frozen - gc.get_freeze_count() < 1000  # not thawed (thousands are frozen)
    assert not _tracked(kept)


def test_with_the_collector_disabled_nothing_is_frozen() -> None:
    during: list[int] = []

    def on_item(item: EvalItem, output: Any, results: dict[str, ScorerRunResult]) -> None:
        during.append(gc.get_freeze_count())

    gc.disable()
    try:
        run_evals_sync(ITEMS, [length_scorer()], on_item_complete=on_item)
    finally:
        gc.enable()
    assert during == [0, 0, 0]


def test_overlapping_freezes_thaw_when_the_last_one_leaves() -> None:
    first, second = FrozenHeap(), FrozenHeap()
    with first:
        assert gc.get_freeze_count() > 0
        with second:
            first.release()  # an abandoned run releasing early
            assert gc.get_freeze_count() > 0
            first.release()  # idempotent: the second still holds it
            assert gc.get_freeze_count() > 0
        assert gc.get_freeze_count() == 0
    assert gc.get_freeze_count() == 0
