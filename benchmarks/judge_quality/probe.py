"""The label probe: how well a prompt's first label token separates the human labels.

A full context relevance row costs the CPU judge ~50 s (issue 12); most prompt variants can be
told apart for the cost of their prompt alone. For each ARES row and prompt variant
(:mod:`judge_quality.probe_variants`), the probe renders the prompt with the judge's chat
template, appends the reply's opening up to the first label (the scorer's
``{"evaluations": [{"context_index": 0, "relevance_level": "``, the reference's
``{"relevance_level": "``), and asks the local llama.cpp server (``/completion``) for one token
with its ``top_k`` alternatives. Each alternative whose text (stripped, lower-cased) starts
exactly one allowed label adds its probability to that label; the masses are renormalised over
the labels, as :mod:`scorekit.judge.logprobs` does for a real reply. The row's score is the
expected weight, ``Σ p(label) × weight(label)`` (context relevance's weights; 1 for ``yes``).

**Row by row.** The probe walks the rows (in a seeded shuffled order, so that a partial run is
a random subset) and probes every variant on a row before the next row, so the variants stay
paired at any moment. Each probed (variant, row) is appended to a JSON-lines file as soon as it
is measured (:func:`append_probe_row`); a probe started again on the same file skips what it
holds, so an interrupted probe keeps what it measured and resumes. The file's first line holds
the settings (model, cut); a file written with other settings is refused.

**Prompt cache.** Variants are probed in :data:`~judge_quality.probe_variants.PROBE_VARIANTS`
order with llama.cpp's prompt cache on: a variant that shares the previous prompt's beginning
(the scorer's text up to a late point) pays only for its new tail. ``prompt_tokens`` is the
whole prompt (what a hosted judge would bill), ``evaluated`` what llama.cpp computed, and
``seconds`` the wall time (so seconds per row favour the cache-sharing variants; tokens do
not). Reusing a cached prefix changes the label probabilities only by floating-point
rounding; the reference variant is checked against the shared per-row reference
(:func:`reference_check`).

**Timeouts follow the judge.** Each request's deadline is
``TIMEOUT_SLACK_S + SPEED_MARGIN × prompt_tokens × s_prompt``, with ``s_prompt`` the slowest
seconds per evaluated prompt token over the server's recent calls
(:class:`scorekit.judge.local.SpeedMeter`, fed with every probe reply's timings), and
``FIRST_CALLS_TIMEOUT_S`` until a speed is measured: a fixed 30 s failed a probe on a loaded
machine.

Figures per variant: AUROC of the expected weight, balanced accuracy of the argmax label
(positive when its weight is >= 0.5) and of the expected weight at 0.5, the argmax labels'
counts, the label mass before renormalising, prompt tokens and seconds per row, and the AUROC
difference from a paired variant with its paired bootstrap 95 % interval. Only the local judge
(``local/PATH.gguf``) can be probed.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from judge_quality.data import Row
from judge_quality.metrics import auroc, balanced_accuracy, paired_auroc_difference
from judge_quality.probe_variants import ProbeVariant
from scorekit.judge.local import FIRST_CALLS_TIMEOUT_S, SPEED_MARGIN, TIMEOUT_SLACK_S

__all__ = [
    "TOP_K",
    "ProbeFileError",
    "ProbeRow",
    "append_probe_row",
    "label_mass",
    "probe_figures",
    "probe_one",
    "probe_rows",
    "probe_timeout",
    "read_probe_file",
    "reference_check",
]

TOP_K = 30
"""Alternatives asked for at the label's first token."""


class ProbeFileError(ValueError):
    """A probe file holds another run's settings or a line that is not a probe record."""


def label_mass(
    alternatives: Sequence[tuple[str, float]], labels: Sequence[str]
) -> dict[str, float]:
    """Probability mass per label from one position's alternatives.

    Args:
        alternatives: ``(token text, natural-log probability)`` pairs.
        labels: the allowed labels, lower case.

    Returns:
        Each label's summed probability, from the alternatives whose text (stripped and
        lower-cased, not empty) starts that label and no other.

    Example:
        >>> mass = label_mass([("high", math.log(0.5)), (" low", math.log(0.25)),
        ...                    ("\\n", math.log(0.25))], ["high", "medium", "low", "none"])
        >>> {k: round(v, 2) for k, v in mass.items()}
        {'high': 0.5, 'medium': 0.0, 'low': 0.25, 'none': 0.0}
    """
    mass = dict.fromkeys(labels, 0.0)
    for text, logprob in alternatives:
        start = text.strip().lower()
        fitting = [label for label in labels if start and label.startswith(start)]
        if len(fitting) == 1:
            mass[fitting[0]] += math.exp(logprob)
    return mass


@dataclass(frozen=True)
class ProbeRow:
    """One row's probe under one variant: the human label, the label distribution, the cost.

    ``prompt_tokens`` is the whole prompt, ``evaluated`` the tokens llama.cpp computed (less
    when its cache held the prompt's beginning), ``seconds`` the request's wall time.
    """

    variant: str
    key: str
    label: int
    probabilities: dict[str, float]
    mass: float
    prompt_tokens: int
    evaluated: int
    seconds: float


def probe_timeout(server: Any, prompt_tokens: int) -> float:
    """The deadline of one probe request, in seconds (the module docstring's formula).

    Args:
        server: a :class:`~scorekit.judge.local.LocalServer` (its ``speed`` is read).
        prompt_tokens: the request's whole prompt in tokens, ``>= 0``.
    """
    speed = getattr(server, "speed", None)
    s_prompt = getattr(speed, "prompt_s_per_token", None)
    if s_prompt is None:
        return FIRST_CALLS_TIMEOUT_S
    return TIMEOUT_SLACK_S + SPEED_MARGIN * prompt_tokens * float(s_prompt)


def _alternatives(reply: Mapping[str, Any]) -> list[tuple[str, float]]:
    first = reply["completion_probabilities"][0]
    return [(alt["token"], float(alt["logprob"])) for alt in first["top_logprobs"]]


def probe_one(server: Any, variant: ProbeVariant, row: Row) -> ProbeRow:
    """Probe one row (its first context piece, already cut) with one variant."""
    started = time.perf_counter()
    system, user = variant.messages(row.question, row.contexts[0], row.answer)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    prompt = server.post("/apply-template", {"messages": messages})["prompt"] + variant.opening
    size = len(server.post("/tokenize", {"content": prompt, "add_special": True})["tokens"])
    body = {"prompt": prompt, "n_predict": 1, "n_probs": TOP_K, "temperature": 0,
            "cache_prompt": True}  # fmt: skip
    reply = server.post("/completion", body, timeout=probe_timeout(server, size))
    timings = reply.get("timings")
    speed = getattr(server, "speed", None)
    if speed is not None:
        speed.record(timings)
    labels = list(variant.weights)
    mass = label_mass(_alternatives(reply), labels)
    total = sum(mass.values())
    if total <= 0:
        raise ValueError(f"{row.key}: no probability on any of {labels} ({variant.name})")
    evaluated = timings.get("prompt_n", size) if isinstance(timings, dict) else size
    return ProbeRow(variant.name, row.key, row.label, {k: m / total for k, m in mass.items()},
                    total, int(reply.get("tokens_evaluated", size)), int(evaluated),
                    time.perf_counter() - started)  # fmt: skip


def probe_rows(
    server: Any,
    variants: Sequence[ProbeVariant],
    rows: Sequence[Row],
    *,
    done: Iterable[tuple[str, str]] = (),
    out: Path | None = None,
) -> list[ProbeRow]:
    """Probe every row (documents already cut) with every variant, row by row.

    Args:
        server: the local judge's :class:`~scorekit.judge.local.LocalServer`.
        variants: the prompt variants, probed in this order on each row.
        rows: rows with one context piece each, probed in this order.
        done: ``(variant, key)`` pairs already measured: skipped.
        out: a JSON-lines file each new probe row is appended to as soon as it is measured.

    Returns:
        The new probe rows, in the order measured.

    Raises:
        ValueError: the judge put no probability on any label of a row (the prompt is broken).
    """
    skip = set(done)
    probed = []
    for index, row in enumerate(rows):
        for variant in variants:
            if (variant.name, row.key) in skip:
                continue
            measured = probe_one(server, variant, row)
            probed.append(measured)
            if out is not None:
                append_probe_row(out, measured)
        print(f"  probe {index + 1}/{len(rows)} {row.key}", file=sys.stderr)
    return probed


def append_probe_row(path: Path, row: ProbeRow) -> None:
    """Append one probe row to a JSON-lines file (flushed before returning)."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(asdict(row), sort_keys=True) + "\n")
        handle.flush()


def read_probe_file(path: Path, settings: Mapping[str, Any]) -> list[ProbeRow]:
    """The probe rows a file holds, writing its settings line first when it is new or empty.

    Args:
        path: the JSON-lines file (``{"settings": ...}`` first, then one probe row a line).
        settings: this run's settings (model, cut); the file's must be equal.

    Raises:
        ProbeFileError: the file's settings differ, or a line is not a probe record (its line
            number is named). A last line cut short by an interrupted write is dropped.
    """
    if not path.exists() or path.stat().st_size == 0:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"settings": dict(settings)}, sort_keys=True) + "\n")
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0]).get("settings")
    if head != dict(settings):
        raise ProbeFileError(f"{path}: written with other settings {head}, not {dict(settings)}")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            rows.append(ProbeRow(**json.loads(line)))
        except (json.JSONDecodeError, TypeError) as exc:
            if number == len(lines) and not line.endswith("}"):
                break  # the interrupted last write
            raise ProbeFileError(f"{path}:{number}: not a probe row: {exc}") from None
    return rows


def _expected(weights: Mapping[str, float], row: ProbeRow) -> float:
    return sum(row.probabilities[k] * w for k, w in weights.items())


def probe_figures(
    variant: ProbeVariant,
    probed: Sequence[ProbeRow],
    paired: tuple[ProbeVariant, Sequence[ProbeRow]] | None = None,
) -> dict[str, Any]:
    """A variant's figures over its probed rows (the module docstring says which).

    Args:
        variant: the variant.
        probed: its rows.
        paired: another variant and its rows, aligned with ``probed`` (same keys, same
            order): adds ``d_auroc`` (this AUROC minus that one) and its paired bootstrap
            95 % interval ``d_lo``, ``d_hi`` (2,000 resamples, seed 0).
    """
    labels = [p.label for p in probed]
    expected = [_expected(variant.weights, p) for p in probed]
    argmax = [max(p.probabilities, key=p.probabilities.__getitem__) for p in probed]
    n = len(probed) or 1
    figures: dict[str, Any] = {
        "variant": variant.name,
        "rows": len(probed),
        "pos": sum(labels),
        "auroc": auroc(labels, expected),
        "ba_label": balanced_accuracy(labels, [int(variant.weights[a] >= 0.5) for a in argmax]),
        "ba_expected": balanced_accuracy(labels, [int(e >= 0.5) for e in expected]),
        "labels": dict(Counter(argmax)),
        "mass": sum(p.mass for p in probed) / n,
        "prompt_tok": sum(p.prompt_tokens for p in probed) / n,
        "evaluated": sum(p.evaluated for p in probed) / n,
        "s_row": sum(p.seconds for p in probed) / n,
    }
    if paired is not None:
        other, other_rows = paired
        if [p.key for p in other_rows] != [p.key for p in probed]:
            raise ValueError(f"{variant.name} and {other.name} are not aligned row by row")
        theirs = [_expected(other.weights, p) for p in other_rows]
        difference = paired_auroc_difference(labels, expected, theirs)
        if difference is not None:
            figures["d_auroc"], figures["d_lo"], figures["d_hi"] = difference
    return figures


def reference_check(
    probed: Sequence[ProbeRow], reference: Mapping[str, float], weights: Mapping[str, float]
) -> dict[str, float] | None:
    """How closely probe rows reproduce a per-row reference of expected weights.

    Args:
        probed: probe rows (their ``key``, e.g. ``"ares:2"``).
        reference: the reference's expected weight per key.
        weights: the label weights of the probed variant.

    Returns:
        ``rows`` compared, the mean and largest absolute difference of the expected weight,
        or ``None`` when no key is shared.
    """
    pairs = [(_expected(weights, p), reference[p.key]) for p in probed if p.key in reference]
    if not pairs:
        return None
    gaps = [abs(a - b) for a, b in pairs]
    return {"rows": len(pairs), "mean_abs": sum(gaps) / len(gaps), "max_abs": max(gaps)}
