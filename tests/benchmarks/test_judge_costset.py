"""The ExpertQA cost set (benchmarks/judge_quality/costset.py): selection, verdicts, command."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.servers.scripted_openai import Reply, ScriptedServer

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from judge_quality import cli, costset, data  # noqa: E402
from judge_quality.data import Row  # noqa: E402
from judge_quality.runner import Outcome, VariantRun  # noqa: E402


def _evidence(number: int, text: str = "") -> str:
    return f"[{number}] https://example.org/{number}" + (f"\n\n{text}" if text else "")


def _record(question: str, answer: str, claims: list[dict[str, Any]]) -> dict[str, Any]:
    return {"question": question, "answers": {"sys": {"answer_string": answer, "claims": claims}}}


def _claim(*evidence: str, support: str = "Complete") -> dict[str, Any]:
    return {"claim_string": "c [1]", "evidence": list(evidence), "support": support}


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# line 1's answer is 1,000 characters once its 4 markers (" [1]" etc., 16 characters) go
LONG_OK = "a" * 500 + " [1]" + " [2]" + "b" * 500 + " [3] [4]"
RECORDS = [
    # 0: the answer is 1,001 characters: out
    _record("q0", "x" * 1001, [_claim(_evidence(1, "p1"), _evidence(2, "p2"))]),
    # 1: 1,000 characters without the markers, 1,016 with them; 2 passages: in
    _record("q1", LONG_OK, [_claim(_evidence(1, "one")), _claim(_evidence(2, "two"))]),
    # 2: 1 passage: out
    _record("q2", "short", [_claim(_evidence(1, "only"))]),
    # 3: 4 passages with text (cited out of order) and one URL-only evidence: in
    _record(
        "q3",
        "four [3] [1]",
        [
            _claim(_evidence(3, "three"), _evidence(1, "uno"), support="Partial"),
            _claim(_evidence(5), _evidence(4, "four")),
            _claim(_evidence(2, " dos \n"), _evidence(1, "uno")),
        ],
    ),
    # 4: 5 passages: out
    _record("q4", "five", [_claim(*(_evidence(n, f"t{n}") for n in range(1, 6)))]),
    # 5: 2 passages, one of them only a URL: 1 passage with text: out
    _record("q5", "one text", [_claim(_evidence(1, "text"), _evidence(2))]),
    # 6: 3 numbers, two with the same text: 2 distinct passages: in
    _record("q6", "dup", [_claim(_evidence(2, "same"), _evidence(1, "same"), _evidence(3, "b"))]),
    # 7: fits, but comes after the first 3 that fit
    _record("q7", "late", [_claim(_evidence(1, "l1"), _evidence(2, "l2"))]),
]

EXPECTED = [
    Row("expertqa-cost:1", "q1", ("one", "two"), "a" * 500 + "b" * 500, 1),
    Row("expertqa-cost:3", "q3", ("uno", "dos", "three", "four"), "four", 0),
    Row("expertqa-cost:6", "q6", ("same", "b"), "dup", 1),
]


def test_the_selection_takes_the_first_rows_that_fit(tmp_path: Path) -> None:
    path = _write(tmp_path / "rand_test.jsonl", RECORDS)
    assert len(EXPECTED[0].answer) == costset.MAX_ANSWER_CHARS
    assert costset.load_cost_set(path, rows=3) == EXPECTED
    assert costset.load_cost_set(path, rows=1) == EXPECTED[:1]
    assert [r.key for r in costset.load_cost_set(path)] == [
        "expertqa-cost:1",
        "expertqa-cost:3",
        "expertqa-cost:6",
        "expertqa-cost:7",
    ]


def test_a_record_without_answers_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.jsonl", [RECORDS[1], {"question": "q"}])
    with pytest.raises(ValueError, match=r"line 2: no 'question' or 'answers' field"):
        costset.load_cost_set(path)


def test_the_shared_file_gives_the_ten_documented_rows() -> None:
    path = data.DATA / "expertqa_lfqa" / "rand_test.jsonl"
    if not path.is_file():
        pytest.skip(f"ExpertQA is not at {path} (../shared/data or SCOREKIT_SHARED)")
    rows = costset.load_cost_set()
    assert [r.key for r in rows] == [
        f"expertqa-cost:{n}" for n in (8, 16, 21, 24, 30, 35, 42, 48, 51, 56)
    ]
    assert [len(r.contexts) for r in rows] == [4, 4, 3, 4, 4, 3, 3, 3, 4, 3]
    assert [len(r.answer) for r in rows] == [725, 715, 565, 665, 606, 771, 477, 802, 392, 714]


def test_the_lowest_peer_takes_each_minimum_on_its_own() -> None:
    assert costset.lowest_peer(costset.PEERS["context-relevance"]) == costset.Peer(
        "lowest peer", 2.0, 2542, 24
    )
    assert costset.lowest_peer(costset.PEERS["faithfulness"]) == costset.Peer(
        "lowest peer", 2.0, 2278, 478
    )
    with pytest.raises(ValueError, match="no peers"):
        costset.lowest_peer([])


def _figures(calls: float, prompt: float, completion: float, failed: int) -> dict[str, Any]:
    return {"rows": 10, "failed": failed, "calls": calls, "prompt_tok": prompt,
            "compl_tok": completion}  # fmt: skip


def test_verdicts_against_the_lowest_peer() -> None:
    peers = costset.PEERS["faithfulness"]  # lowest: 2.0 calls, 2,278 / 478 tokens
    assert costset.verdicts(_figures(2.0, 2278, 478, 0), peers) == {
        "calls": "met",
        "prompt_tok": "met",
        "compl_tok": "met",
        "failed": "met",
    }
    assert costset.verdicts(_figures(2.1, 2278.5, 477.9, 1), peers) == {
        "calls": "missed",
        "prompt_tok": "missed",
        "compl_tok": "met",
        "failed": "missed",
    }
    nothing = {**_figures(0, 0, 0, 0), "rows": 0}
    assert set(costset.verdicts(nothing, peers).values()) == {"n/a"}


def test_cost_figures_count_failed_rows_in_the_means() -> None:
    run = VariantRun("t", "scorer:label")
    run.outcomes = [
        Outcome("k:1", 1, "ok", 1.0, 1, calls=3, input_tokens=900, output_tokens=100,
                wall_s=10.0, cpu_s=4.0),
        Outcome("k:2", 0, "error", calls=2, input_tokens=600, output_tokens=50, wall_s=6.0,
                cpu_s=2.0, error="JudgeOutputError at analyze"),
    ]  # fmt: skip
    assert costset.cost_figures(run) == {
        "rows": 2,
        "failed": 1,
        "skipped": 0,
        "errors": [["k:2", "JudgeOutputError at analyze"]],
        "calls": 2.5,
        "prompt_tok": 750.0,
        "compl_tok": 75.0,
        "s_row": 8.0,
        "cpu_row": 3.0,
    }


# -- end to end: the command on the scripted judge server -----------------------------------


def _scripted(body: Any) -> Reply:
    """A valid reply to each prompt of the two scorers; q3's claims reply (its answer is
    "four") stays invalid after the repair."""
    spec = (body.get("response_format") or {}).get("json_schema") or {}
    schema, prompt = spec.get("schema", {}), json.dumps(body["messages"])
    if spec.get("name") == "ContextRelevanceAnalysis":
        count = schema["properties"]["evaluations"]["minItems"]
        evaluations = [
            {"context_index": i, "relevance_level": "high", "was_used": True, "reasoning": "on"}
            for i in range(count)
        ]
        reply = {"evaluations": evaluations, "overall_assessment": "relevant"}
        return Reply(json.dumps(reply), prompt_tokens=500, completion_tokens=30)
    if spec.get("name") == "Claims":
        if "four" in prompt:
            return Reply('{"claim": 1}', prompt_tokens=300, completion_tokens=9)
        # two claims taken from the answer, as the unit rule wants (divergences.md row 108)
        asked = next(m["content"] for m in body["messages"] if "Text:\n" in str(m["content"]))
        text = asked.split("Text:\n")[1].split("\n\nAnswer with")[0]
        halves = [text, text[: len(text) // 2]] if len(text) > 100 else [text]
        claims = halves[: schema["properties"]["claims"]["maxItems"]]
        return Reply(json.dumps({"claims": claims}), prompt_tokens=300, completion_tokens=20)
    if spec.get("name") == "FaithfulnessVerdicts":
        count = schema["properties"]["verdicts"]["minItems"]
        verdicts = [{"verdict": "yes", "reason": "stated"}, {"verdict": "no", "reason": "not"}]
        reply = {"verdicts": verdicts[:count]}
        return Reply(json.dumps(reply), prompt_tokens=700, completion_tokens=40)
    return Reply("The score is 0.5 because one claim is unsupported.", prompt_tokens=400)


@pytest.fixture
def shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    folder = tmp_path / "data" / "expertqa_lfqa"
    folder.mkdir(parents=True)
    _write(folder / "rand_test.jsonl", RECORDS)
    monkeypatch.setattr(data, "DATA", tmp_path / "data")
    with ScriptedServer(_scripted) as server:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
        yield server


def test_the_cost_set_command_reports_figures_and_verdicts(
    shared: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cost.json"
    argv = ["--model", "openai-compatible/costset", "--cost-set", "expertqa", "--json", str(out)]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["meta"]["rows"] == [f"expertqa-cost:{n}" for n in (1, 3, 6, 7)]
    # context relevance: 1 call per row, 500 / 30 tokens; every row ok
    assert result["figures"]["context-relevance"] | {"s_row": 0, "cpu_row": 0} == {
        "rows": 4, "failed": 0, "skipped": 0, "errors": [], "calls": 1.0,
        "prompt_tok": 500.0, "compl_tok": 30.0, "s_row": 0, "cpu_row": 0,
    }  # fmt: skip
    assert result["verdicts"]["context-relevance"] == {
        "calls": "met", "prompt_tok": "met", "compl_tok": "missed", "failed": "met",
    }  # fmt: skip
    # faithfulness: claims + verdicts = 2 calls (300+700 / 20+40 tokens; the reason is a
    # template, divergences.md row 102); q3's claims reply is invalid, repaired once, still
    # invalid: 2 calls, 600 / 18, error
    faith = result["figures"]["faithfulness"]
    assert (faith["rows"], faith["failed"], faith["skipped"]) == (4, 1, 0)
    assert faith["errors"] == [["expertqa-cost:3", "JudgeOutputError at preprocess"]]
    assert (faith["calls"], faith["prompt_tok"], faith["compl_tok"]) == (2.0, 900.0, 49.5)
    assert result["verdicts"]["faithfulness"] == {
        "calls": "met", "prompt_tok": "met", "compl_tok": "met", "failed": "missed",
    }  # fmt: skip
    assert [o["status"] for o in result["outcomes"]["faithfulness"]] == ["ok", "error", "ok", "ok"]
    assert [o["calls"] for o in result["outcomes"]["faithfulness"]] == [2, 2, 2, 2]
    lines = printed.splitlines()
    assert (
        "context-relevance (reason='template'): 4 rows, 0 failed, 0 skipped; "
        "0 failed rows: met" in lines
    )
    assert "faithfulness (defaults): 4 rows, 1 failed, 0 skipped; 0 failed rows: missed" in lines
    assert "  failed expertqa-cost:3: JudgeOutputError at preprocess" in lines
    assert "| Ragas ContextRelevance | 2.00 | 2,542 | 24 | | |" in lines
    assert "| lowest peer | 2.00 | 2,278 | 478 | | |" in lines
    assert "| verdict | met | met | missed | | |" in lines
    assert lines.count("| verdict | met | met | missed | | |") == 1
    assert "| verdict | met | met | met | | |" in lines
    assert len(shared.requests) == 4 + 3 * 2 + 2


def test_the_cost_set_command_without_fitting_rows_exits_2(
    shared: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(data.DATA / "expertqa_lfqa" / "rand_test.jsonl", [RECORDS[0], RECORDS[2]])
    argv = ["--model", "openai-compatible/costset", "--cost-set", "expertqa"]
    assert cli.main(argv) == 2
    assert "no ExpertQA question fits the selection rule" in capsys.readouterr().err
    assert shared.requests == []
