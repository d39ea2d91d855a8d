"""The slot coordinator's sharing rules, on the class itself (no cluster needed)."""

from __future__ import annotations

import asyncio

from scorekit.distributed.slots import SlotCoordinator


def test_quotas_split_the_limit_and_a_429_halves_it_once_per_round() -> None:
    slots = SlotCoordinator(64, ["a", "b"])
    assert slots.report("a", "m", 8, 0, False, -1) == (32, 0, False)
    assert slots.report("b", "m", 8, 0, False, -1) == (32, 0, False)
    # a 429 seen by a: the window halves to 32 for both, and while each still counts 32 in
    # flight (until it drains) neither may start more; b's 429 of the same round does not
    # halve it again
    assert slots.report("a", "m", 8, 5, True, 0, active=32) == (0, 1, False)
    assert slots.report("b", "m", 8, 0, True, 0, active=10) == (0, 1, False)
    assert slots.stats()["models"]["m"]["window"] == 32
    # drained, each gets its half of the window again
    assert slots.report("a", "m", 8, 16, False, 1, active=0) == (16, 1, False)
    assert slots.report("b", "m", 8, 0, False, 1, active=0) == (16, 1, False)
    assert slots.stats()["models"]["m"]["quotas"] == [16, 16]


def test_the_window_grows_back_and_never_falls_below_one_slot_per_worker() -> None:
    slots = SlotCoordinator(4, ["a", "b"])
    slots.report("a", "m", 4, 0, False, -1)
    for round_ in range(3):  # halvings: 4 -> 2 -> 2 -> 2 (one slot per worker)
        slots.report("a", "m", 4, 0, True, round_)
    assert slots.stats()["models"]["m"]["window"] == 2
    assert slots.report("a", "m", 4, 4, False, 3)[0] == 2  # 2 + 4/2 = 4: a's share is 2
    assert slots.stats()["models"]["m"]["window"] == 4


def test_without_a_limit_the_judges_concurrency_is_the_clusters() -> None:
    slots = SlotCoordinator(None, ["a", "b", "c"])
    assert [slots.report(w, "m", 7, 0, False, -1)[0] for w in "abc"] == [3, 2, 2]


def test_fewer_slots_than_workers_are_leased_and_a_swapped_worker_frees_its_leases() -> None:
    async def scenario() -> list[object]:
        slots = SlotCoordinator(1, ["a", "b"])
        assert slots.report("a", "m", 8, 0, False, -1) == (0, 0, True)
        await slots.acquire("a", 0, "m", 8)
        waiting = asyncio.ensure_future(slots.acquire("b", 0, "m", 8))
        await asyncio.sleep(0)
        seen = [waiting.done(), slots.stats()["leased"]]
        assert slots.swap("a", "c") == 1  # a was lost holding the slot: b gets it
        await asyncio.wait_for(waiting, 1)
        slots.release("b", 0, "ok")
        slots.abandon("b", 1)  # a wait given up before it began: freed when granted
        await asyncio.wait_for(slots.acquire("b", 1, "m", 8), 1)
        return [*seen, slots.stats()["leased"], slots.stats()["leases_granted"]]

    assert asyncio.run(scenario()) == [False, 1, 0, 2]
