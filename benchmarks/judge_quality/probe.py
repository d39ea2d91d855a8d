"""The label probe: how well a prompt's first label token separates the human labels.

A full context relevance row costs the CPU judge ~50 s (issue 12); most prompt variants can be
told apart for the cost of their prompt alone. For each ARES row and prompt variant, the probe
renders the prompt with the judge's chat template, appends the reply's opening up to the first
label (the scorer's ``{"evaluations": [{"context_index": 0, "relevance_level": "``, the
baseline's ``{"label": "``), and asks the local llama.cpp server (``/completion``) for one token
with its ``top_k`` alternatives. Each alternative whose text (stripped, lower-cased) starts
exactly one allowed label adds its probability to that label; the masses are renormalised over
the labels, as :mod:`scorekit.judge.logprobs` does for a real reply. The row's score is the
expected weight, ``Σ p(label) × weight(label)`` (context relevance's weights; 1 for ``yes``).

The reply opening is fixed here, while a real reply's whitespace is the model's choice under
the grammar, so a variant's probe figures approximate its scorer figures; the chosen variant is
then measured with the full harness. Figures per variant: AUROC of the expected weight,
balanced accuracy of the argmax label (positive when its weight is >= 0.5) and of the expected
weight at 0.5, the argmax labels' counts, the label mass before renormalising, prompt tokens
and seconds per row. Only the local judge (``local/PATH.gguf``) can be probed.

Variants (the scorer's prompts are :mod:`scorekit.scorers.context_relevance_prompts`, used as
the scorer builds them, then rearranged where the variant says):

* ``scorer``: the scorer's analyze prompt as shipped;
* ``no-response``: the same without its response section;
* ``query-last``: the same with the user query moved after the pieces and the response;
* ``baseline``: the plain yes/no question (:data:`judge_quality.baselines.context_relevance`).
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judge_quality import baselines
from judge_quality.data import Row
from judge_quality.metrics import auroc, balanced_accuracy
from scorekit.scorers import context_relevance_prompts as prompts
from scorekit.scorers.context_relevance import RELEVANCE_WEIGHTS

__all__ = ["PROBE_VARIANTS", "ProbeVariant", "label_mass", "probe_figures", "probe_rows"]

SCORER_OPENING = '{"evaluations": [{"context_index": 0, "relevance_level": "'
"""The scorer's reply up to its first label (one piece: index 0)."""
BASELINE_OPENING = '{"label": "'
"""The baseline's reply up to its label."""
TOP_K = 30
"""Alternatives asked for at the label's first token."""

Messages = tuple[str, str]
"""(system, user)."""


@dataclass(frozen=True)
class ProbeVariant:
    """One prompt variant.

    Attributes:
        name: the variant's name on the command line and in the table.
        messages: ``(question, document, answer) -> (system, user)``.
        opening: the reply's text before the label.
        weights: each allowed label's weight (its order is the table's).
    """

    name: str
    messages: Callable[[str, str, str], Messages]
    opening: str
    weights: Mapping[str, float]


def _scorer(question: str, document: str, answer: str) -> Messages:
    return prompts.INSTRUCTIONS, prompts.analyze_prompt(question, answer, [document])


def _no_response(question: str, document: str, answer: str) -> Messages:
    system, user = _scorer(question, document, answer)
    return system, user.replace(f"Response:\n{answer}\n\n", "", 1)


def _query_last(question: str, document: str, answer: str) -> Messages:
    system, user = _scorer(question, document, answer)
    head = f"User query:\n{question}\n\n"
    rest = user.removeprefix(head)
    body, marker, tail = rest.partition("\n\nFor each piece")
    return system, f"{body}\n\n{head}{marker.lstrip()}{tail}"


def _baseline(question: str, document: str, answer: str) -> Messages:
    user = baselines.context_relevance.prompt(question, (document,), answer, None, None)
    return baselines.BASELINE_INSTRUCTIONS, user


PROBE_VARIANTS: dict[str, ProbeVariant] = {
    v.name: v
    for v in (
        ProbeVariant("scorer", _scorer, SCORER_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("no-response", _no_response, SCORER_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("query-last", _query_last, SCORER_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("baseline", _baseline, BASELINE_OPENING, {"yes": 1.0, "no": 0.0}),
    )
}
"""The variants by name."""


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
    """One row's probe: its human label, the label distribution and what it cost."""

    key: str
    label: int
    probabilities: dict[str, float]
    mass: float
    prompt_tokens: int
    seconds: float


def _alternatives(reply: Mapping[str, Any]) -> list[tuple[str, float]]:
    first = reply["completion_probabilities"][0]
    return [(alt["token"], float(alt["logprob"])) for alt in first["top_logprobs"]]


def probe_rows(server: Any, variant: ProbeVariant, rows: Sequence[Row]) -> list[ProbeRow]:
    """Probe every row (documents already cut) with one variant, one request each.

    Args:
        server: the local judge's :class:`~scorekit.judge.local.LocalServer`.
        variant: the prompt variant.
        rows: rows with one context piece each.

    Raises:
        ValueError: the judge put no probability on any label of a row (the prompt is broken).
    """
    labels = list(variant.weights)
    probed = []
    for index, row in enumerate(rows):
        started = time.perf_counter()
        system, user = variant.messages(row.question, row.contexts[0], row.answer)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        prompt = server.post("/apply-template", {"messages": messages})["prompt"]
        body = {"prompt": prompt + variant.opening, "n_predict": 1, "n_probs": TOP_K,
                "temperature": 0, "cache_prompt": False}  # fmt: skip
        reply = server.post("/completion", body)
        mass = label_mass(_alternatives(reply), labels)
        total = sum(mass.values())
        if total <= 0:
            raise ValueError(f"{row.key}: no probability on any of {labels} ({variant.name})")
        probed.append(
            ProbeRow(row.key, row.label, {k: m / total for k, m in mass.items()}, total,
                     int(reply.get("tokens_evaluated", 0)), time.perf_counter() - started)
        )  # fmt: skip
        print(f"  {variant.name} {index + 1}/{len(rows)} {row.key}", file=sys.stderr)
    return probed


def probe_figures(variant: ProbeVariant, probed: Sequence[ProbeRow]) -> dict[str, Any]:
    """A variant's figures over its probed rows (the module docstring says which)."""
    labels = [p.label for p in probed]
    expected = [sum(p.probabilities[k] * w for k, w in variant.weights.items()) for p in probed]
    argmax = [max(p.probabilities, key=p.probabilities.__getitem__) for p in probed]
    n = len(probed) or 1
    return {
        "variant": variant.name,
        "rows": len(probed),
        "pos": sum(labels),
        "auroc": auroc(labels, expected),
        "ba_label": balanced_accuracy(labels, [int(variant.weights[a] >= 0.5) for a in argmax]),
        "ba_expected": balanced_accuracy(labels, [int(e >= 0.5) for e in expected]),
        "labels": dict(Counter(argmax)),
        "mass": sum(p.mass for p in probed) / n,
        "prompt_tok": sum(p.prompt_tokens for p in probed) / n,
        "s_row": sum(p.seconds for p in probed) / n,
    }
