"""The label probe: label masses, the prompt variants, the figures, and a real llama.cpp run."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from judge_quality import cli
from judge_quality.data import Row
from judge_quality.probe import (
    BASELINE_OPENING,
    PROBE_VARIANTS,
    SCORER_OPENING,
    ProbeRow,
    label_mass,
    probe_figures,
    probe_rows,
)

LEVELS = ["high", "medium", "low", "none"]


def test_label_mass_counts_tokens_that_start_exactly_one_label() -> None:
    alternatives = [
        ("high", math.log(0.5)),
        (" Low", math.log(0.2)),
        ("n", math.log(0.1)),  # starts "none" only
        ("me", math.log(0.05)),
        ("\n", math.log(0.1)),  # starts no label
        ("", math.log(0.05)),  # empty: nothing
    ]
    mass = label_mass(alternatives, LEVELS)
    assert {k: round(v, 6) for k, v in mass.items()} == {
        "high": 0.5,
        "medium": 0.05,
        "low": 0.2,
        "none": 0.1,
    }
    assert label_mass([("n", 0.0)], ["no", "none"]) == {"no": 0.0, "none": 0.0}  # ambiguous


def test_the_variants_rearrange_the_scorers_own_prompt() -> None:
    question, document, answer = "What is X?", "X is a thing.", "X is a thing, it says."
    _, scorer = PROBE_VARIANTS["scorer"].messages(question, document, answer)
    _, hidden = PROBE_VARIANTS["no-response"].messages(question, document, answer)
    _, last = PROBE_VARIANTS["query-last"].messages(question, document, answer)
    system, baseline = PROBE_VARIANTS["baseline"].messages(question, document, answer)
    assert scorer.startswith(f"User query:\n{question}\n\nContext pieces:\n")
    assert f"Response:\n{answer}\n\n" in scorer
    assert hidden == scorer.replace(f"Response:\n{answer}\n\n", "")
    assert answer not in hidden
    assert sorted(last.splitlines()) == sorted(scorer.splitlines())
    assert last.index(document) < last.index(answer) < last.index(question)
    assert last.index(f"User query:\n{question}\n\nFor each piece") > 0
    assert answer not in baseline and document in baseline and "label" in system
    assert PROBE_VARIANTS["scorer"].opening == SCORER_OPENING
    assert PROBE_VARIANTS["baseline"].opening == BASELINE_OPENING


def _row(key: str, label: int, high: float, none: float) -> ProbeRow:
    return ProbeRow(
        key, label, {"high": high, "medium": 0.0, "low": 0.0, "none": none}, 1.0, 10, 2.0
    )


def test_probe_figures_exact() -> None:
    rows = [
        _row("a", 1, 0.9, 0.1),
        _row("b", 1, 0.4, 0.6),
        _row("c", 0, 0.6, 0.4),
        _row("d", 0, 0.2, 0.8),
    ]
    figures = probe_figures(PROBE_VARIANTS["scorer"], rows)
    # expected weights 0.9, 0.4 (positives) and 0.6, 0.2 (negatives): 3 of 4 pairs ordered
    assert figures["auroc"] == 0.75
    # argmax labels high, none, high, none: positives 1 of 2, negatives 1 of 2
    assert figures["ba_label"] == 0.5
    assert figures["ba_expected"] == 0.5
    assert figures["labels"] == {"high": 2, "none": 2}
    assert (figures["rows"], figures["pos"], figures["prompt_tok"], figures["s_row"]) == (
        4,
        2,
        10.0,
        2.0,
    )


def test_probe_on_a_real_llama_cpp_server() -> None:
    pytest.importorskip("xllamacpp")
    from judge_quality.cutting import judge_server

    from scorekit.judge import Judge

    server = judge_server(Judge("local/smollm2", cache=False))
    rows = [
        Row(
            "t:1",
            "What is the capital of France?",
            ("Paris is the capital of France.",),
            "Paris.",
            1,
        ),
        Row("t:2", "What is the capital of France?", ("Bananas are yellow.",), "Paris.", 0),
    ]
    for name in ("scorer", "baseline"):
        variant = PROBE_VARIANTS[name]
        probed = probe_rows(server, variant, rows)
        assert [p.key for p in probed] == ["t:1", "t:2"]
        for p in probed:
            assert set(p.probabilities) == set(variant.weights)
            assert math.isclose(sum(p.probabilities.values()), 1.0)
            assert 0 < p.mass <= 1.0 + 1e-9
            assert p.prompt_tokens > 20
        assert probe_figures(variant, probed)["rows"] == 2


def test_the_probe_needs_a_local_judge(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--model", "openai/gpt-4o-mini", "--probe", "scorer"]) == 2
    assert "local judge" in capsys.readouterr().err
