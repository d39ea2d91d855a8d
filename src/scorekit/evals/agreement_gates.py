"""A run's agreement gates (``min_agreement``): checked before it, stored with it.

The rule (:mod:`scorekit.trust.min_agreement`) and the figures (:mod:`scorekit.trust.agreement`) are
the trust package's; this module is the run loop's side: the setting checked and its scorer
names resolved before anything is scored, the gates kept with a resumed run, and the gated
scorers' figures written into the stored run's config when it finishes, so that ``show``, the
report and the viewer give the verdict the run gave.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scorekit.errors import ConfigError
from scorekit.evals.gates import resolve_scorer_keys

if TYPE_CHECKING:
    from scorekit.evals.recorder import RunRecorder
    from scorekit.evals.result import EvalRunResult
    from scorekit.trust.min_agreement import AgreementGate

__all__ = [
    "check_agreement_gates",
    "resumed_agreement_gates",
    "store_label_agreement",
    "with_agreement_gates",
]


def check_agreement_gates(
    raw: Mapping[str, Any] | None, scorer_ids: Sequence[str]
) -> dict[str, list[AgreementGate]]:
    """``min_agreement`` checked, its scorer names (ids or registry names) resolved.

    Raises:
        ConfigError: see :func:`scorekit.trust.min_agreement.check_min_agreement`; a key naming no
            scorer of the run (``field="min_agreement"``).
    """
    if raw is None:
        return {}
    from scorekit.trust.min_agreement import check_min_agreement  # numpy: only for runs with gates

    return check_min_agreement(
        resolve_scorer_keys(raw, scorer_ids, field="min_agreement"), scorer_ids
    )


def with_agreement_gates(
    config: Mapping[str, Any], gates: Mapping[str, Sequence[AgreementGate]]
) -> dict[str, Any]:
    """The run's config with its gates, as the stored run keeps them (none: unchanged)."""
    if not gates:
        return dict(config)
    from scorekit.trust.min_agreement import GATES_KEY, gates_to_config

    return {**config, GATES_KEY: gates_to_config(gates)}


def resumed_agreement_gates(
    given: dict[str, list[AgreementGate]], stored_config: Mapping[str, Any]
) -> dict[str, list[AgreementGate]]:
    """The gates of a resumed run: the stored ones, which a resume may repeat but not change.

    Raises:
        ConfigError: the resume gives other gates than the stored run has
            (``field="min_agreement"``).
    """
    from scorekit.trust.min_agreement import GATES_KEY, check_min_agreement, gates_to_config

    stored_raw = stored_config.get(GATES_KEY)
    if not isinstance(stored_raw, Mapping):
        if given:
            raise ConfigError(
                "the resumed run was started without min_agreement; a resume cannot add it",
                field="min_agreement",
            )
        return {}
    stored = check_min_agreement(stored_raw, list(stored_raw))
    if given and gates_to_config(given) != gates_to_config(stored):
        raise ConfigError(
            f"the resumed run has min_agreement {gates_to_config(stored)}; resume with the "
            "same or none",
            field="min_agreement",
        )
    return stored


def store_label_agreement(recorder: RunRecorder, result: EvalRunResult) -> None:
    """Write the gated scorers' figures into the stored run's config (before its verdict).

    Raises:
        StoreError: the write failed.
    """
    from scorekit.trust.min_agreement import FIGURES_KEY

    recorder.store.update_config(result.run_id, {FIGURES_KEY: result.label_agreement()})
