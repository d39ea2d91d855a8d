"""How far a score can be trusted: agreement with human labels, corrected means, paired changes.

* :func:`agreement`: balanced accuracy, Cohen's κ, AUROC, the best threshold and (graded
  labels) Pearson/Spearman between a scorer's scores and human labels, each with a 95 %
  bootstrap interval; nothing below :data:`MIN_LABELS` labelled items.
* :func:`ppi_mean`: the prediction-powered estimate of the human-label mean from a labelled
  slice, with its 95 % interval; :func:`bootstrap_mean`: a raw mean's bootstrap interval.
* :func:`paired_comparison`: run B against run A on their shared items (bootstrap interval,
  sign-flip permutation p-value, McNemar's test at a threshold).
* :func:`scorekit.trust.alignment.align`: a stored run's scorers against its stored human
  labels (imported on use: it needs the store, that is SQLAlchemy).

docs/trust.md says what each figure means, when to trust it, and the formulas' sources.
"""

from scorekit.trust.agreement import MIN_LABELS, Agreement, Interval, agreement
from scorekit.trust.estimates import MeanEstimate, bootstrap_mean, ppi_mean
from scorekit.trust.paired import McNemar, PairedComparison, mcnemar, paired_comparison

__all__ = [
    "MIN_LABELS",
    "Agreement",
    "Interval",
    "McNemar",
    "MeanEstimate",
    "PairedComparison",
    "agreement",
    "bootstrap_mean",
    "mcnemar",
    "paired_comparison",
    "ppi_mean",
]
