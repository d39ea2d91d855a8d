"""The label probe: label masses, the prompt variants, row-by-row output and resume, the
figures, and a real llama.cpp run."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from judge_quality import cli
from judge_quality.data import Row
from judge_quality.metrics import auroc, paired_auroc_difference
from judge_quality.probe import (
    ProbeFileError,
    ProbeRow,
    label_mass,
    probe_figures,
    probe_rows,
    probe_timeout,
    read_probe_file,
    reference_check,
)
from judge_quality.probe_variants import (
    BASELINE_OPENING,
    DEFAULT_PROBE,
    LEVEL_FIRST_OPENING,
    PROBE_VARIANTS,
    REFERENCE_OPENING,
    SCORER_OPENING,
    WAS_SHIPPED_OPENING,
)

from scorekit.scorers.context_relevance_prompts import INSTRUCTIONS, analyze_prompt

LEVELS = ["high", "medium", "low", "none"]
QUESTION, DOCUMENT, ANSWER = "What is X?", "X is a thing.", "X is a thing, it says."


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


def _messages(name: str) -> tuple[str, str]:
    return PROBE_VARIANTS[name].messages(QUESTION, DOCUMENT, ANSWER)


def test_the_scorer_variant_is_the_shipped_prompt() -> None:
    assert _messages("scorer") == (
        INSTRUCTIONS,
        analyze_prompt(QUESTION, ANSWER, [DOCUMENT]),
    )
    assert (
        PROBE_VARIANTS["scorer"].opening
        == SCORER_OPENING
        == '{"evaluations": [{"relevance_level": "'
    )


def test_each_variant_changes_one_factor_of_the_prompt_before_the_redesign() -> None:
    system, scorer = _messages("was-shipped")
    assert system.startswith("You rate how relevant retrieved context is")
    assert scorer.startswith(f"User query:\n{QUESTION}\n\nContext pieces:\n")
    assert f"Response:\n{ANSWER}\n\n" in scorer
    # the response not shown
    assert _messages("no-response") == (system, scorer.replace(f"Response:\n{ANSWER}\n\n", ""))
    # the query after the pieces and the response: the same lines, another order
    _, last = _messages("query-last")
    assert sorted(last.splitlines()) == sorted(scorer.splitlines())
    assert last.index(DOCUMENT) < last.index(ANSWER) < last.index(QUESTION)
    # a closing question
    assert _messages("question-last") == (
        system,
        f"{scorer}\n\nHow relevant is context piece 0 to the user query?",
    )
    # the definitions moved to the system prompt, the user prompt points to them
    defs_system, defs_user = _messages("defs-system")
    assert defs_system.startswith(system) and '"high" = the piece holds' in defs_system
    assert '"high" = the piece holds' not in defs_user
    assert "one of the relevance levels defined." in defs_user
    # the reference's wording, in the same place
    _, wording = _messages("defs-wording")
    assert '"high" = it directly addresses the query' in wording
    assert wording.split("relevance_level")[0] == scorer.split("relevance_level")[0]
    # relevance only: the scorer's text cut after the level line
    _, one = _messages("one-task")
    assert scorer.startswith(one) and "was_used" in scorer and "was_used" not in one
    assert "missing_context" not in one
    # the same prompt, the level as the reply's first key
    assert _messages("level-first") == (system, scorer)
    assert PROBE_VARIANTS["level-first"].opening == LEVEL_FIRST_OPENING
    assert PROBE_VARIANTS["was-shipped"].opening == WAS_SHIPPED_OPENING


def test_the_reference_and_baseline_prompts() -> None:
    system, user = _messages("reference")
    assert '"high"' in system and '"none"' in system and "relevance_level" in system
    assert ANSWER not in user  # the reference never shows the answer
    assert user.index(QUESTION) < user.index(DOCUMENT)
    assert user.rstrip().endswith("Answer with the JSON only.")
    assert "How relevant is the context to the user's query?" in user
    assert PROBE_VARIANTS["reference"].opening == REFERENCE_OPENING
    system, baseline = _messages("baseline")
    assert ANSWER not in baseline and DOCUMENT in baseline and "label" in system
    assert PROBE_VARIANTS["baseline"].opening == BASELINE_OPENING
    assert set(DEFAULT_PROBE) == set(PROBE_VARIANTS) - {"baseline"}


def _row(key: str, label: int, high: float, none: float, variant: str = "scorer") -> ProbeRow:
    probabilities = {"high": high, "medium": 0.0, "low": 0.0, "none": none}
    return ProbeRow(variant, key, label, probabilities, 1.0, 10, 4, 2.0)


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
    assert (figures["rows"], figures["pos"], figures["prompt_tok"], figures["evaluated"]) == (
        4,
        2,
        10.0,
        4.0,
    )
    assert "d_auroc" not in figures
    # paired with a variant that orders every pair: 0.75 - 1.0
    perfect = [_row(k, y, h, 1 - h, "reference") for k, y, h in
               [("a", 1, 0.9), ("b", 1, 0.8), ("c", 0, 0.3), ("d", 0, 0.1)]]  # fmt: skip
    paired = probe_figures(PROBE_VARIANTS["scorer"], rows, (PROBE_VARIANTS["reference"], perfect))
    assert paired["d_auroc"] == -0.25
    assert paired["d_lo"] <= -0.25 <= paired["d_hi"] <= 0.0
    with pytest.raises(ValueError, match="not aligned"):
        probe_figures(PROBE_VARIANTS["scorer"], rows, (PROBE_VARIANTS["reference"], perfect[::-1]))


def test_paired_auroc_difference_is_seeded_and_brackets_the_difference() -> None:
    import random

    rng = random.Random(7)
    labels = [i % 2 for i in range(200)]
    good = [y + rng.gauss(0, 0.7) for y in labels]
    noise = [rng.gauss(0, 1) for _ in labels]
    first = paired_auroc_difference(labels, good, noise, resamples=400, seed=3)
    assert first == paired_auroc_difference(labels, good, noise, resamples=400, seed=3)
    assert first is not None
    difference, low, high = first
    assert difference == pytest.approx(auroc(labels, good) - auroc(labels, noise))  # type: ignore[operator]
    assert 0 < low < difference < high
    same = paired_auroc_difference(labels, good, good, resamples=50)
    assert same == (0.0, 0.0, 0.0)
    assert paired_auroc_difference([1, 1], [0.1, 0.2], [0.3, 0.4]) is None


class _FakeServer:
    """A stand-in for the llama.cpp server's four endpoints (the real one is tested below)."""

    def __init__(self) -> None:
        self.completions: list[dict[str, Any]] = []
        self.timeouts: list[float] = []

    def post(self, path: str, body: dict[str, Any], *, timeout: float = 30.0) -> Any:
        if path == "/apply-template":
            return {"prompt": " ".join(m["content"] for m in body["messages"])}
        if path == "/tokenize":
            return {"tokens": body["content"].split()}
        assert path == "/completion"
        self.completions.append(body)
        self.timeouts.append(timeout)
        likely = "high" if "Paris" in body["prompt"] else "none"
        alternatives = [{"token": likely, "logprob": math.log(0.8)},
                        {"token": "medium", "logprob": math.log(0.2)}]  # fmt: skip
        return {"completion_probabilities": [{"top_logprobs": alternatives}],
                "tokens_evaluated": 99, "timings": {"prompt_n": 7, "prompt_ms": 70.0}}  # fmt: skip


ROWS = [
    Row("t:1", "Capital of France?", ("Paris is the capital of France.",), "Paris.", 1),
    Row("t:2", "Capital of France?", ("Bananas are yellow.",), "Paris.", 0),
]


def test_rows_are_written_as_measured_and_a_second_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "probe.jsonl"
    settings = {"model": "local/x.gguf", "cut": "first 512 tokens"}
    assert read_probe_file(out, settings) == []
    variants = [PROBE_VARIANTS["reference"], PROBE_VARIANTS["scorer"]]
    server = _FakeServer()
    first = probe_rows(server, variants, ROWS[:1], out=out)
    # row by row: both variants of the first row, one line each after the settings line
    lines = out.read_text().splitlines()
    assert json.loads(lines[0]) == {"settings": settings}
    assert [(json.loads(x)["variant"], json.loads(x)["key"]) for x in lines[1:]] == [
        ("reference", "t:1"),
        ("scorer", "t:1"),
    ]
    assert first[0].probabilities == pytest.approx({"high": 0.8, "medium": 0.2, "low": 0.0,
                                                    "none": 0.0})  # fmt: skip
    assert (first[0].prompt_tokens, first[0].evaluated) == (99, 7)
    assert all(c["cache_prompt"] is True and c["n_predict"] == 1 for c in server.completions)
    # an interrupted write leaves half a line: dropped on reading
    with out.open("a") as handle:
        handle.write('{"variant": "scorer", "key": "t:2", "lab')
    kept = read_probe_file(out, settings)
    assert [(p.variant, p.key) for p in kept] == [("reference", "t:1"), ("scorer", "t:1")]
    assert kept == first
    out.write_text("\n".join(out.read_text().splitlines()[:3]) + "\n")
    # resume: only the missing row is asked for
    server = _FakeServer()
    more = probe_rows(server, variants, ROWS, done={(p.variant, p.key) for p in kept}, out=out)
    assert [(p.variant, p.key) for p in more] == [("reference", "t:2"), ("scorer", "t:2")]
    assert len(server.completions) == 2
    assert len(read_probe_file(out, settings)) == 4
    # another run's settings are refused
    with pytest.raises(ProbeFileError, match="other settings"):
        read_probe_file(out, {**settings, "model": "local/y.gguf"})
    out.write_text(out.read_text() + "not json\n" + '{"a": 1}\n')
    with pytest.raises(ProbeFileError, match=r"probe.jsonl:6: not a probe row"):
        read_probe_file(out, settings)


class _Speed:
    def __init__(self, s_prompt: float | None) -> None:
        self.prompt_s_per_token = s_prompt


class _Timed:
    def __init__(self, s_prompt: float | None) -> None:
        self.speed = _Speed(s_prompt)


def test_the_timeout_follows_the_measured_prompt_speed() -> None:
    assert probe_timeout(_Timed(None), 800) == 600.0  # nothing measured yet
    assert probe_timeout(_Timed(0.02), 800) == pytest.approx(30 + 3 * 800 * 0.02)  # 78 s
    assert probe_timeout(_Timed(0.2), 800) == pytest.approx(30 + 3 * 800 * 0.2)  # a slow machine
    assert probe_timeout(object(), 800) == 600.0


def test_the_table_pairs_every_variant_with_the_first_on_shared_rows() -> None:
    variants = [PROBE_VARIANTS["reference"], PROBE_VARIANTS["scorer"]]
    measured = [
        _row("a", 1, 0.9, 0.1, "reference"),
        _row("b", 0, 0.2, 0.8, "reference"),
        _row("c", 1, 0.9, 0.1, "reference"),  # no scorer row: left out
        _row("a", 1, 0.6, 0.4),
        _row("b", 0, 0.7, 0.3),
    ]
    table = cli.probe_table(variants, measured, ["a", "b", "c"])
    assert [(t["variant"], t["rows"], t["auroc"]) for t in table] == [
        ("reference", 2, 1.0),
        ("scorer", 2, 0.0),
    ]
    assert table[1]["d_auroc"] == -1.0
    assert table[0]["factor"] == "the shared README's plain prompt"
    check = reference_check(
        measured[:2], {"a": 0.85, "z": 0.1}, PROBE_VARIANTS["reference"].weights
    )
    assert check == {"rows": 1, "mean_abs": pytest.approx(0.05), "max_abs": pytest.approx(0.05)}
    assert reference_check(measured[:2], {}, PROBE_VARIANTS["reference"].weights) is None


def test_probe_on_a_real_llama_cpp_server(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    from judge_quality.cutting import judge_server

    from scorekit.judge import Judge

    server = judge_server(Judge("local/smollm2", cache=False))
    variants = [PROBE_VARIANTS[n] for n in ("reference", "was-shipped", "level-first", "baseline")]
    probed = probe_rows(server, variants, ROWS, out=tmp_path / "p.jsonl")
    assert [(p.variant, p.key) for p in probed] == [(v.name, r.key) for r in ROWS for v in variants]
    for p in probed:
        weights = PROBE_VARIANTS[p.variant].weights
        assert set(p.probabilities) == set(weights)
        assert math.isclose(sum(p.probabilities.values()), 1.0)
        assert 0 < p.mass <= 1.0 + 1e-9
        assert p.prompt_tokens > 20
        assert 0 < p.evaluated <= p.prompt_tokens
    # level-first repeats was-shipped's prompt with another opening: the cache holds the prompt
    scorer, level_first = probed[1], probed[2]
    assert level_first.evaluated < scorer.evaluated / 4
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == len(probed)


def test_the_probe_needs_a_local_judge(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--model", "openai/gpt-4o-mini", "--probe", "scorer"]) == 2
    assert "local judge" in capsys.readouterr().err
