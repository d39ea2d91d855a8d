"""A stored run's scorers against its human labels: agreement and the corrected mean.

:func:`align` reads a run's ``ok`` scores and the latest human label of each (item, scorer)
pair (:mod:`scorekit.store.labels`), then per scorer:

* :func:`~scorekit.trust.agreement.agreement` over the items that have both a label and an
  ``ok`` score (a label on an item whose score is ``skipped`` or ``error`` is not used: there
  is nothing to compare it with);
* the mean: with at least :data:`~scorekit.trust.agreement.MIN_LABELS` such items and some
  scored items without a label, the prediction-powered estimate of the human-label mean
  (:func:`~scorekit.trust.estimates.ppi_mean`); with every scored item labelled, the labels'
  own mean (its bootstrap interval, ``method="labels"``); otherwise the judge's raw mean with
  its bootstrap interval (``method="bootstrap"``).

The threshold is the score at or above which an item is predicted positive: 0.5 unless given
per scorer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from scorekit.errors import ConfigError
from scorekit.store.alignments import StoredAlignment
from scorekit.store.labels import current_labels
from scorekit.store.store import Store
from scorekit.trust.agreement import DEFAULT_RESAMPLES, MIN_LABELS, Agreement, agreement
from scorekit.trust.estimates import MeanEstimate, bootstrap_mean, ppi_mean

__all__ = ["DEFAULT_THRESHOLD", "Alignment", "align", "stored_alignment_notes"]

DEFAULT_THRESHOLD = 0.5
"""The score at or above which an item is predicted positive, unless given."""


@dataclass(frozen=True)
class Alignment:
    """One scorer of a run against its human labels.

    Attributes:
        scorer_id: the scorer.
        scored: items scored ``ok``.
        labelled: of those, items with a human label.
        agreement: the figures (:class:`~scorekit.trust.agreement.Agreement`).
        estimate: the mean (see the module docstring), or ``None`` without any ``ok`` score.
    """

    scorer_id: str
    scored: int
    labelled: int
    agreement: Agreement
    estimate: MeanEstimate | None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        return {
            "scorer_id": self.scorer_id,
            "scored": self.scored,
            "labelled": self.labelled,
            "agreement": self.agreement.to_dict(),
            "estimate": None if self.estimate is None else self.estimate.to_dict(),
        }


def align(
    store: Store,
    run: str,
    *,
    scorers: Sequence[str] | None = None,
    thresholds: Mapping[str, float] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    min_labels: int = MIN_LABELS,
) -> dict[str, Alignment]:
    """Each scorer of a stored run against the run's human labels.

    Args:
        store: the results database.
        run: the run (id, prefix, name or ``"latest"``).
        scorers: the scorer ids to align (default: every scorer of the run).
        thresholds: scorer id → the score at or above which an item is predicted positive
            (default :data:`DEFAULT_THRESHOLD`).
        resamples: bootstrap resamples per interval.
        seed: the resamples' seed.
        min_labels: the fewest labelled items a figure is computed on.

    Returns:
        Scorer id → its :class:`Alignment`, in the run's scorer order.

    Raises:
        ConfigError: a scorer or threshold names no scorer of the run (``field`` says which).
        StoreError: no such run, or the read failed.
    """
    record = store.get_run(run)
    run_scorers = [s["id"] for s in record.scorers]
    chosen = list(run_scorers if scorers is None else scorers)
    limits = dict(thresholds or {})
    for field_name, names in (("scorers", chosen), ("thresholds", list(limits))):
        unknown = [name for name in names if name not in run_scorers]
        if unknown:
            raise ConfigError(
                f"{field_name}: {unknown[0]!r} is not a scorer of the run; scorers: "
                f"{', '.join(run_scorers)}",
                field=field_name,
            )
    scores: dict[str, dict[str, float]] = {sid: {} for sid in chosen}
    for result in store.results(record.id, light=True):
        if result.scorer_id in scores and result.status == "ok" and result.score is not None:
            scores[result.scorer_id][result.item_id] = result.score
    found = current_labels(store, record.id)
    aligned = {}
    for scorer_id in chosen:
        scored = scores[scorer_id]
        # in item-id order, so the figures do not depend on the order the rows were written
        pairs = [(scored[i], lab.label) for (i, s), lab in sorted(found.items())
                 if s == scorer_id and i in scored]  # fmt: skip
        labelled_ids = {i for (i, s) in found if s == scorer_id and i in scored}
        figures = agreement(
            [score for score, _ in pairs],
            [label for _, label in pairs],
            threshold=limits.get(scorer_id, DEFAULT_THRESHOLD),
            resamples=resamples,
            seed=seed,
            min_labels=min_labels,
        )
        unlabelled = [score for item, score in sorted(scored.items()) if item not in labelled_ids]
        aligned[scorer_id] = Alignment(
            scorer_id, len(scored), len(pairs), figures,
            _estimate(pairs, unlabelled, resamples, seed, min_labels),
        )  # fmt: skip
    return aligned


def _estimate(
    pairs: list[tuple[float, float]],
    unlabelled: list[float],
    resamples: int,
    seed: int,
    min_labels: int,
) -> MeanEstimate | None:
    if not pairs and not unlabelled:
        return None
    if len(pairs) >= min_labels and unlabelled:
        return ppi_mean(
            [label for _, label in pairs],
            [score for score, _ in pairs],
            unlabelled,
            min_labels=min_labels,
        )
    if len(pairs) >= min_labels:  # every scored item labelled: the humans' own mean
        labels_only = bootstrap_mean([label for _, label in pairs], resamples=resamples, seed=seed)
        raw = sum(score for score, _ in pairs) / len(pairs)
        return replace(labels_only, method="labels", labelled=len(pairs), unlabelled=0,
                       raw_mean=raw)  # fmt: skip
    every = [score for score, _ in pairs] + unlabelled
    return bootstrap_mean(every, resamples=resamples, seed=seed)


def stored_alignment_notes(found: Mapping[str, StoredAlignment], *, own: str) -> list[str]:
    """One sentence per scorer with a stored agreement measured on another run (or stale).

    Args:
        found: from :func:`scorekit.store.alignments.latest_alignments`.
        own: the run shown (an agreement measured on its own labels is in its own table).
    """
    lines = []
    for sid, stored in found.items():
        if stored.measured_on == own and not stored.stale:
            continue
        figures = stored.figures.get("agreement", {})
        parts = [
            f"{name} {figure['value']:.2f} [{figure['low']:.2f}, {figure['high']:.2f}]"
            for name in ("balanced_accuracy", "kappa", "auroc")
            if isinstance(figure := figures.get(name), Mapping)
        ]
        where = f"measured on run {stored.measured_on[:8]} ({figures.get('n', '?')} labels)"
        if stored.stale:
            lines.append(
                f"{sid}: stale agreement ({'; '.join(stored.differences)}), {where}: it does "
                "not carry over to this run; label this run and align it"
            )
        else:
            lines.append(
                f"{sid}: agreement {', '.join(parts) or '—'}, {where}, same judge and prompts"
            )
    return lines
