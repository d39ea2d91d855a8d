from __future__ import annotations

import json
from typing import Any

import pytest

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.messages import get_assistant_message
from scorekit.inputs.retrieval_context import ALL_BLANK_REASON
from scorekit.judge import ScriptedJudge
from scorekit.scorers import create_hallucination_scorer
from scorekit.scorers.hallucination import HallucinationVerdict, hallucination_score
from tests.conformance import CATALOG, cases_for, catalog_run_args, options
from tests.scorers.recipe_rules import Outcome, assert_as_mastra, outcome

SPACEX = [
    "SpaceX was founded by Elon Musk in 2002.",
    "Its Falcon 9 rocket first flew in 2010.",
]


def verdicts(*labels: str) -> dict[str, Any]:
    return {"verdicts": [{"verdict": label, "reason": "r"} for label in labels]}


@pytest.mark.parametrize(
    ("labels", "scale", "score"),
    [(["yes", "no", "no"], 1.0, 0.33), ([], 1.0, 0.0), (["yes", "yes", "no", "yes"], 1.0, 0.75)],
)
def test_spec_vectors(labels: list[str], scale: float, score: float) -> None:
    assert hallucination_score(labels, scale=scale) == score


def test_scores_the_share_of_hallucinated_claims() -> None:
    judge = ScriptedJudge(
        [
            {"claims": ["a", "b", "c", "d"]},
            verdicts("Yes", "yes", "no", " YES "),
            "The score is 0.75 because ...",
        ]
    )
    scorer = create_hallucination_scorer(model=judge, context=SPACEX, scale=2)
    result = scorer.run_sync(input="Tell me about SpaceX", output="a. b. c. d.")
    assert result.score == 1.5
    assert [v.verdict for v in result.analyze_step_result.verdicts] == ["yes", "yes", "no", "yes"]
    assert result.reason == "The score is 0.75 because ..."
    assert "SpaceX was founded by Elon Musk in 2002." in judge.calls[1].prompt
    assert "1. a\n2. b\n3. c\n4. d" in judge.calls[1].prompt


async def test_extractor_is_called_once_per_run() -> None:
    calls: list[Any] = []

    async def extractor(input: Any, output: Any) -> list[str]:
        calls.append(input)
        return SPACEX

    judge = ScriptedJudge([{"claims": ["a"]}, verdicts("no"), "why"])
    scorer = create_hallucination_scorer(model=judge, context_extractor=extractor)
    result = await scorer.run(input="q", output="a")
    assert result.score == 0.0
    assert calls == ["q"]


def test_empty_context_is_skipped_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    scorer = create_hallucination_scorer(model=judge, context_extractor=lambda i, o: [])
    result = scorer.run_sync(input="q", output="a")
    assert (result.status, result.score, judge.calls) == ("skipped", None, [])


def test_empty_answer_scores_zero_without_a_judge_call() -> None:
    judge = ScriptedJudge([])
    result = create_hallucination_scorer(model=judge, context=SPACEX).run_sync(input="q", output="")
    assert (result.status, result.score, judge.calls) == ("ok", 0.0, [])
    assert result.reason == "The score is 0 because the answer makes no claims."


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({}, "context"), ({"context": []}, "context"), ({"context": ["a"], "scale": -2}, "scale")],
)
def test_construction_errors(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        create_hallucination_scorer(model=ScriptedJudge([]), **kwargs)
    assert info.value.field == field


CATALOG_CASES = cases_for("hallucination", corpus=CATALOG)


def repaired_for_the_echo_only(case: dict[str, Any]) -> bool:
    """Whether Mastra sent its first verdicts reply back only because it lacked ``statement``.

    scorekit does not ask the judge to copy the claims back (row 79), so it accepts that
    reply: one judge call fewer, the reply's own labels and reasons, the claims as statements.
    """
    replies = case["judgeResponses"]
    claims = replies[0].get("claims") if isinstance(replies[0], dict) else None
    first = replies[1] if len(replies) > 2 and isinstance(replies[1], dict) else {}
    found = first.get("verdicts", [])
    return (
        bool(claims)
        and len(found) == len(claims)
        and all({"verdict", "reason"} <= set(v) and "statement" not in v for v in found)
        and all(str(v["verdict"]).strip().lower() in ("yes", "no") for v in found)
    )


def support_dropped(step_result: dict[str, Any]) -> dict[str, Any]:
    """Row 107: each verdict also holds what the judge was asked, ``supported``, the opposite
    of Mastra's ``verdict``; Mastra's step result has no such key."""
    held = []
    for verdict in step_result["verdicts"]:
        ours = dict(verdict)
        assert ours.pop("supported") == {"yes": "no", "no": "yes"}[ours["verdict"]]
        held.append(ours)
    return {**step_result, "verdicts": held}


def test_catalog_corpus_is_present() -> None:
    assert CATALOG_CASES  # present (its size is the corpus's, no rule)


@pytest.mark.parametrize(
    ("case", "expected"), CATALOG_CASES, ids=[c["id"] for c, _ in CATALOG_CASES]
)
def test_catalog_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    args = catalog_run_args(case)
    blank = (
        Outcome("zero", 20) if not (get_assistant_message(args["output"]) or "").strip() else None
    )
    rule = outcome(
        case,
        expected,
        blank=blank,
        required=frozenset({"context"}),
        source=get_assistant_message(args["output"]) or "",
    )
    if rule.kind == "mastra" and repaired_for_the_echo_only(case):
        replies = case["judgeResponses"]
        judge = ScriptedJudge([replies[0], replies[1], *replies[3:]])
        result = create_hallucination_scorer(model=judge, **options(case)).run_sync(**args)
        claims = replies[0]["claims"]
        labels = [str(v["verdict"]).strip().lower() for v in replies[1]["verdicts"]]
        assert (result.status, result.reason) == ("ok", expected["reason"])
        assert result.score == hallucination_score(labels)
        assert support_dropped(result.analyze_step_result.model_dump()) == {
            "verdicts": [
                {"statement": claim, "verdict": label, "reason": v["reason"]}
                for claim, label, v in zip(claims, labels, replies[1]["verdicts"], strict=True)
            ]
        }
        assert len(judge.calls) == len(expected["judgeCalls"]) - 1
        return
    judge = ScriptedJudge(case["judgeResponses"])
    if rule.kind == "config":
        with pytest.raises(ConfigError):
            create_hallucination_scorer(model=judge, **options(case))
        return
    scorer = create_hallucination_scorer(model=judge, **options(case))
    if rule.kind == "error":
        with pytest.raises(ScorerRunError):
            scorer.run_sync(**args)
        return
    result = scorer.run_sync(**args)
    if rule.kind == "zero":
        assert (result.status, result.score, judge.calls) == ("ok", 0.0, [])
        assert result.score == expected["score"]
        return
    if rule.kind == "skipped":
        assert (result.status, result.score) == ("skipped", None)
        assert (
            result.reason
            == "The judge found no claims in the answer, so there is nothing to check."
        )
        return
    assert_as_mastra(result, expected, calls=len(judge.calls), as_mastra_holds_it=support_dropped)


def test_statements_are_the_claims_not_the_judges_echo() -> None:
    # row 79: the judge is asked for labels only; a judge that copies other text back
    # (the prompt's example) does not change what the step result names
    judge = ScriptedJudge(
        [
            {"claims": ["SpaceX was founded in 2002.", "It is based on Mars."]},
            {
                "verdicts": [
                    {"statement": "The Model S is built by Tesla.", "verdict": "no", "reason": "r"},
                    {"verdict": "yes", "reason": "r"},
                ]
            },
            "why",
        ]
    )
    result = create_hallucination_scorer(model=judge, context=SPACEX).run_sync(
        input="Tell me about SpaceX", output="SpaceX was founded in 2002. It is based on Mars."
    )
    assert result.score == 0.5
    assert [v.statement for v in result.analyze_step_result.verdicts] == [
        "SpaceX was founded in 2002.",
        "It is based on Mars.",
    ]
    asked = judge.calls[1]
    assert "statement" not in json.dumps(asked.output_schema)
    assert '{"verdicts": [{"supported": "yes", "reason": "..."}]}' in asked.prompt
    assert "(do not copy the claims)" in asked.prompt
    assert "- SpaceX was founded in 2002.: no (r)" in judge.calls[2].prompt


def test_the_judge_is_asked_whether_the_context_supports_each_claim() -> None:
    # row 107: asked as support, counted as Mastra's verdict (yes = hallucination)
    judge = ScriptedJudge(
        [
            {"claims": ["SpaceX was founded in 2002.", "It is based on Mars.", "It flies."]},
            {
                "verdicts": [
                    {"supported": "Yes", "reason": "r1"},
                    {"supported": "no", "reason": "r2"},
                    {"supported": "no", "verdict": "yes", "reason": "r3"},
                ]
            },
        ]
    )
    scorer = create_hallucination_scorer(model=judge, context=SPACEX, reason="template")
    result = scorer.run_sync(input="Tell me about SpaceX", output="Founded 2002. Mars. Flies.")
    assert result.score == 0.67
    assert [(v.supported, v.verdict) for v in result.analyze_step_result.verdicts] == [
        ("yes", "no"),
        ("no", "yes"),
        ("no", "yes"),  # a verdict given beside it that says the same is kept
    ]
    item = HallucinationVerdict.model_json_schema()
    assert (list(item["properties"]), item["required"]) == (["supported", "reason"],) * 2
    assert '"verdict"' not in json.dumps(judge.calls[1].output_schema)
    assert '"supported": "yes" when the context supports the claim' in judge.calls[1].prompt
    assert result.reason is not None and "yes 2" in result.reason  # the reason counts verdicts


def test_support_and_a_verdict_that_disagree_are_repaired_a_null_verdict_is_none() -> None:
    judge = ScriptedJudge(
        [
            {"claims": ["a"]},
            {"verdicts": [{"supported": "yes", "verdict": "yes", "reason": "r"}]},
            {"verdicts": [{"supported": "yes", "verdict": None, "reason": "r"}]},
        ]
    )
    scorer = create_hallucination_scorer(model=judge, context=SPACEX, reason="none")
    result = scorer.run_sync(input="q", output="a")
    assert (result.status, result.score) == ("ok", 0.0)
    repair = judge.calls[2].messages[-1].content
    assert '"supported": "yes" and "verdict": "yes" disagree; give "supported" only' in repair


def test_a_verdict_outside_yes_and_no_is_refused_by_its_own_name() -> None:
    judge = ScriptedJudge([{"claims": ["a"]}, verdicts("unsure"), verdicts("maybe")])
    scorer = create_hallucination_scorer(model=judge, context=SPACEX)
    with pytest.raises(ScorerRunError) as caught:
        scorer.run_sync(input="q", output="a")
    error = caught.value.result.error
    assert error is not None
    assert "verdict" in error.message and '"maybe"' in (error.raw_output or "")


def test_blank_context_pieces_are_dropped() -> None:
    # row 78: blank pieces never reach the judge; all blank is skipped
    judge = ScriptedJudge([{"claims": ["a"]}, verdicts("no"), "why"])
    scorer = create_hallucination_scorer(model=judge, context_extractor=lambda i, o: ["", *SPACEX])
    assert scorer.run_sync(input="q", output="a").score == 0.0
    assert "Context:\n" + "\n".join(SPACEX) + "\n\nClaims" in judge.calls[1].prompt
    blank = create_hallucination_scorer(
        model=ScriptedJudge([]), context_extractor=lambda i, o: [" "]
    )
    result = blank.run_sync(input="q", output="a")
    assert (result.status, result.reason) == ("skipped", ALL_BLANK_REASON)


def test_mastras_get_context_option_is_our_context_extractor() -> None:
    # row 21, as the parity tests translate a case: getContext becomes context_extractor, and
    # a case with neither a context nor an extractor is a construction error
    from tests.conformance import options as case_options

    case = {"options": {"getContext": {"$fn": "returns", "value": ["Paris is in France."]}}}
    given = case_options(case)
    assert set(given) == {"context_extractor"}
    judge = ScriptedJudge(
        [{"claims": ["Paris is in France."]}, {"verdicts": [{"verdict": "no", "reason": "r"}]}]
    )
    result = create_hallucination_scorer(model=judge, reason="none", **given).run_sync(
        input="Where is Paris?", output="Paris is in France."
    )
    assert result.score == 0.0
    assert "Paris is in France." in judge.calls[1].prompt
    assert outcome({"options": {}}, {}, blank=None, required=frozenset({"context"})).row == 21
