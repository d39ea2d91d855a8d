"""Gates on trust: a run fails when its labelled slice shows the judge below a set agreement.

``min_agreement`` maps a scorer to the least it must agree with the run's human labels, per
figure of :func:`~scorekit.trust.agreement.agreement`::

    {"context-relevance": {"auroc": 0.7}}
    {"faithfulness": {"kappa.low": 0.4, "auroc": 0.7}}  # κ's interval lower bound, AUROC
    {"faithfulness": {"kappa": 0.4, "bound": "low"}}    # "bound": the unsuffixed figures'

A gated scorer fails the verdict when a figure (or, for ``FIGURE.low``, its 95 % interval's
lower bound) is below its minimum, when the figure is undefined on the labels (one
label only), or when the run has fewer labelled items than the minimum: a gate that cannot be
checked is not passed. The figures are stored with the run (its config's ``label_agreement``,
beside ``min_agreement``), so ``show``, the report and the viewer give the verdict's reasons
without recomputing them; :func:`agreement_failures` is the one rule they all apply.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scorekit.errors import ConfigError

__all__ = [
    "AGREEMENT_FIGURES",
    "FIGURES_KEY",
    "GATES_KEY",
    "AgreementGate",
    "agreement_failures",
    "check_min_agreement",
    "gates_to_config",
    "stored_agreement_failures",
]

AGREEMENT_FIGURES = ("balanced_accuracy", "kappa", "auroc", "pearson", "spearman")
"""The figures a gate may set a minimum on."""

_RANGES = {"balanced_accuracy": (0.0, 1.0), "auroc": (0.0, 1.0)}
"""The figures that are shares; κ, Pearson's r and Spearman's ρ lie in [-1, 1]."""

GATES_KEY = "min_agreement"
"""Where a run's config stores its gates (scorer id → ``{figure: minimum, "bound": ...}``)."""

FIGURES_KEY = "label_agreement"
"""Where a run's config stores its gated scorers' figures (``Agreement.to_dict()``)."""


@dataclass(frozen=True)
class AgreementGate:
    """One minimum: ``figure`` (or its interval's lower bound) must be at least ``minimum``."""

    figure: str
    minimum: float
    bound: Literal["value", "low"] = "value"


def check_min_agreement(raw: Any, scorer_ids: Sequence[str]) -> dict[str, list[AgreementGate]]:
    """Validate ``min_agreement`` whose keys are already the run's scorer ids.

    Args:
        raw: scorer id → ``{figure: minimum, ..., "bound": "value" | "low"}``.
        scorer_ids: the run's scorer ids.

    Returns:
        Scorer id → its gates.

    Raises:
        ConfigError: not a mapping, an unknown scorer or figure, a minimum that is not a
            finite number, or a bad ``bound`` (``field="min_agreement"``).
    """
    if not isinstance(raw, Mapping):
        raise ConfigError(
            f"min_agreement must map scorers to figures, not {type(raw).__name__}",
            field="min_agreement",
        )
    gates: dict[str, list[AgreementGate]] = {}
    for scorer_id, spec in raw.items():
        where = f"min_agreement: {scorer_id}"
        if scorer_id not in scorer_ids:
            raise ConfigError(f"{where}: not a scorer of this run", field="min_agreement")
        if not isinstance(spec, Mapping) or not spec:
            raise ConfigError(
                f"{where}: give {{figure: minimum}}, e.g. {{auroc: 0.7}}", field="min_agreement"
            )
        default = spec.get("bound", "value")
        if default not in ("value", "low"):
            raise ConfigError(f"{where}: bound is 'value' or 'low', not {default!r}",
                              field="min_agreement")  # fmt: skip
        found = []
        for key, minimum in spec.items():
            if key == "bound":
                continue
            figure, dot, suffix = str(key).partition(".")
            if figure not in AGREEMENT_FIGURES or (dot and suffix != "low"):
                raise ConfigError(
                    f"{where}: {key!r} is not a figure; figures: {', '.join(AGREEMENT_FIGURES)} "
                    "(FIGURE.low: its interval's lower bound)",
                    field="min_agreement",
                )
            low, high = _RANGES.get(figure, (-1.0, 1.0))
            if (
                isinstance(minimum, bool)
                or not isinstance(minimum, (int, float))
                or not math.isfinite(minimum)
                or not low <= minimum <= high
            ):
                raise ConfigError(
                    f"{where}: {key} needs a number in [{low:g}, {high:g}], not {minimum!r}",
                    field="min_agreement",
                )
            bound: Literal["value", "low"] = "low" if dot else default
            found.append(AgreementGate(figure, float(minimum), bound))
        if not found:
            raise ConfigError(f"{where}: no figure given", field="min_agreement")
        gates[scorer_id] = found
    return gates


def agreement_failures(
    gates: Mapping[str, Sequence[AgreementGate]], figures: Mapping[str, Mapping[str, Any]]
) -> dict[str, list[str]]:
    """Each gated scorer's failed agreement gates, as short reasons.

    Args:
        gates: from :func:`check_min_agreement`.
        figures: scorer id → its ``Agreement.to_dict()`` (a gated scorer left out had no
            labelled item).
    """
    found: dict[str, list[str]] = {}
    for scorer_id, wanted in gates.items():
        reasons: list[str] = []
        data = figures.get(scorer_id)
        if data is None:
            reasons.append("min_agreement: no labelled item scored ok")
        elif data.get("not_enough"):
            reasons.append(f"min_agreement: {data['not_enough']}")
        else:
            for gate in wanted:
                figure = data.get(gate.figure)
                if not isinstance(figure, Mapping):
                    reasons.append(f"{gate.figure} undefined on the labels")
                    continue
                value = float(figure["low" if gate.bound == "low" else "value"])
                if value < gate.minimum:
                    what = f"{gate.figure} lower bound" if gate.bound == "low" else gate.figure
                    reasons.append(f"{what} {value:.3f} < {gate.minimum:g}")
        found[scorer_id] = reasons
    return found


def stored_agreement_failures(config: Any) -> dict[str, list[str]]:
    """The agreement gates' failures of a stored run, read from its config (``{}`` without)."""
    if not isinstance(config, Mapping) or not isinstance(config.get(GATES_KEY), Mapping):
        return {}
    raw = config[GATES_KEY]
    figures = config.get(FIGURES_KEY)
    try:
        gates = check_min_agreement(raw, list(raw))
    except ConfigError:  # a config edited by hand: say so rather than pass
        return {str(sid): ["min_agreement: the stored setting is unreadable"] for sid in raw}
    return agreement_failures(gates, figures if isinstance(figures, Mapping) else {})


def gates_to_config(gates: Mapping[str, Sequence[AgreementGate]]) -> dict[str, dict[str, Any]]:
    """The gates as the JSON a run's config stores (what :func:`check_min_agreement` reads)."""
    return {
        scorer_id: {
            (f"{gate.figure}.low" if gate.bound == "low" else gate.figure): gate.minimum
            for gate in wanted
        }
        for scorer_id, wanted in gates.items()
    }
