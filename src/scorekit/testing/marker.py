"""``@pytest.mark.scorekit(...)``: what a marked test's cases must reach together.

The marker takes up to three settings, each over all the cases of one (parametrised) test,
checked when the session ends (:meth:`scorekit.testing.session.SessionScores.marker_failures`):

- ``thresholds={"faithfulness": 0.8}``: scorer (id or registry name) → minimum mean;
- ``min_agreement={"faithfulness": {"auroc": 0.7, "kappa.low": 0.2}}``: the least agreement of
  each scorer with the human labels the cases carry (``assert_score(..., human_labels={...})``),
  the same rule and figures as ``run_evals(min_agreement=...)``
  (:mod:`scorekit.trust.min_agreement`; at least 20 labelled ``ok`` cases, or the gate fails
  saying so);
- ``trials=3``: every ``assert_score`` of the test scores its item that many times (the first
  trial is the one the bounds check; the repeats sample the judge anew, as
  ``run_evals(trials=k)`` does), and the session's summary gives each scorer's
  self-consistency and a mean interval that includes the judge's own noise
  (:func:`scorekit.trust.trials.trial_summary`).

Nothing here imports pytest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorekit.errors import ConfigError

__all__ = ["MARKER_SETTINGS", "MarkerSpec", "check_marker"]

MARKER_SETTINGS = ("thresholds", "min_agreement", "trials")
"""The keywords ``@pytest.mark.scorekit`` takes."""


@dataclass(frozen=True)
class MarkerSpec:
    """One marked test's settings, checked.

    Attributes:
        thresholds: scorer (id or registry name) → minimum mean over the test's cases.
        min_agreement: scorer (id or registry name) → ``{figure: minimum, ...}`` as given
            (figures and ranges checked; the names are resolved against the scorers the cases
            recorded when the session ends).
        trials: how many times each case's scorers score its item, ``1`` to
            :data:`~scorekit.evals.per_item.MAX_TRIALS`.
    """

    thresholds: dict[str, float] = field(default_factory=dict)
    min_agreement: dict[str, dict[str, Any]] = field(default_factory=dict)
    trials: int = 1

    def to_dict(self) -> dict[str, Any]:
        """JSON data (what an xdist worker sends and the stored run's config keeps)."""
        data: dict[str, Any] = {}
        if self.thresholds:
            data["thresholds"] = dict(self.thresholds)
        if self.min_agreement:
            data["min_agreement"] = {k: dict(v) for k, v in self.min_agreement.items()}
        if self.trials > 1:
            data["trials"] = self.trials
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MarkerSpec:
        """Read what :meth:`to_dict` wrote.

        Raises:
            ConfigError: as :func:`check_marker`.
        """
        return check_marker(data, "a worker's marker")


def _thresholds(raw: Any, where: str) -> dict[str, float]:
    if not isinstance(raw, Mapping) or not raw:
        raise ConfigError(
            f"{where}: @pytest.mark.scorekit(thresholds=...) takes a mapping of scorer to "
            f"minimum mean, not {raw!r}",
            field="thresholds",
        )
    found = {}
    for key, value in raw.items():
        if (
            not isinstance(key, str)
            or isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise ConfigError(
                f"{where}: threshold {key!r}: {value!r} is not a finite number",
                field="thresholds",
            )
        found[key] = float(value)
    return found


def _agreement(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    from scorekit.trust.min_agreement import check_min_agreement  # numpy: only when asked

    if not isinstance(raw, Mapping) or not raw or not all(isinstance(key, str) for key in raw):
        raise ConfigError(
            f"{where}: @pytest.mark.scorekit(min_agreement=...) takes a mapping of scorer to "
            f"{{figure: minimum}}, not {raw!r}",
            field="min_agreement",
        )
    try:
        check_min_agreement(raw, list(raw))  # the figures and ranges; names resolved later
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}", field="min_agreement") from None
    return {key: dict(value) for key, value in raw.items()}


def _trials(raw: Any, where: str) -> int:
    from scorekit.evals.per_item import MAX_TRIALS

    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= MAX_TRIALS:
        raise ConfigError(
            f"{where}: @pytest.mark.scorekit(trials=...) takes an integer from 1 to "
            f"{MAX_TRIALS}, not {raw!r}",
            field="trials",
        )
    return raw


def check_marker(
    kwargs: Mapping[str, Any], where: str, *, args: tuple[Any, ...] = (), markers: int = 1
) -> MarkerSpec:
    """Validate a ``@pytest.mark.scorekit`` marker's keywords.

    Args:
        kwargs: the marker's keywords (:data:`MARKER_SETTINGS`; at least one; ``None`` is
            "not given").
        where: the test, for the message.
        args: the marker's positional arguments (none is taken).
        markers: how many ``scorekit`` markers the test carries (one is taken: a second
            would be silently shadowed).

    Raises:
        ConfigError: an unknown keyword or none (``field="scorekit"``); thresholds that are
            not a non-empty mapping of names to finite numbers (``field="thresholds"``);
            ``min_agreement`` that :func:`~scorekit.trust.min_agreement.check_min_agreement`
            refuses (``field="min_agreement"``); ``trials`` not an integer in range
            (``field="trials"``).
    """
    if args or markers > 1:
        raise ConfigError(
            f"{where}: give @pytest.mark.scorekit once, with keywords only "
            f"({', '.join(MARKER_SETTINGS)})",
            field="scorekit",
        )
    unknown = sorted(set(kwargs) - set(MARKER_SETTINGS))
    if unknown or not any(kwargs.get(name) is not None for name in MARKER_SETTINGS):
        raise ConfigError(
            f"{where}: @pytest.mark.scorekit takes {', '.join(MARKER_SETTINGS)} "
            f"(at least one){'; unknown: ' + ', '.join(unknown) if unknown else ''}",
            field="scorekit",
        )
    thresholds = kwargs.get("thresholds")
    agreement = kwargs.get("min_agreement")
    return MarkerSpec(
        thresholds={} if thresholds is None else _thresholds(thresholds, where),
        min_agreement={} if agreement is None else _agreement(agreement, where),
        trials=1 if kwargs.get("trials") is None else _trials(kwargs["trials"], where),
    )
