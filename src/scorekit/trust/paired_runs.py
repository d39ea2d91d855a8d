"""Two stored runs compared item by item, per scorer (:func:`compare_runs`)."""

from __future__ import annotations

from collections.abc import Mapping

from scorekit.store.pairs import paired_scores
from scorekit.store.store import Store
from scorekit.trust.alignment import DEFAULT_THRESHOLD
from scorekit.trust.paired import DEFAULT_PAIRED_RESAMPLES, PairedComparison, paired_comparison

__all__ = ["compare_runs"]


def compare_runs(
    store: Store,
    run_a: str,
    run_b: str,
    *,
    thresholds: Mapping[str, float] | None = None,
    resamples: int = DEFAULT_PAIRED_RESAMPLES,
    seed: int = 0,
) -> dict[str, PairedComparison]:
    """Each scorer's paired comparison of run B with run A over the items both scored ``ok``.

    Args:
        store: the results database.
        run_a: the baseline run (id, prefix, name or ``"latest"``).
        run_b: the run compared with it.
        thresholds: scorer id → the pass threshold of McNemar's test (default 0.5).
        resamples: bootstrap resamples and sign flips per scorer.
        seed: their seed.

    Returns:
        Scorer id → :class:`~scorekit.trust.paired.PairedComparison`; a scorer without a paired
        item is absent.

    Raises:
        StoreError: a run does not exist, or the read failed.
    """
    a, b = store.get_run(run_a), store.get_run(run_b)
    limits = dict(thresholds or {})
    return {
        scorer_id: paired_comparison(
            scores_a,
            scores_b,
            threshold=limits.get(scorer_id, DEFAULT_THRESHOLD),
            resamples=resamples,
            seed=seed,
        )
        for scorer_id, (scores_a, scores_b) in paired_scores(store, a.id, b.id).items()
    }
