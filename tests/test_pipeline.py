from __future__ import annotations

import asyncio
import pickle
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from scorekit import (
    ConfigError,
    Judge,
    JudgeOutputError,
    PromptStep,
    ScorerRunError,
    StepContext,
    create_scorer,
    local_result,
    not_scorable,
)
from scorekit.judge import ScriptedJudge


class Verdicts(BaseModel):
    verdicts: list[Literal["yes", "no"]]


def length_scorer():
    return create_scorer("length", description="len").generate_score(
        lambda ctx: len(ctx.run.output) / 10
    )


def test_minimal_scorer_runs_sync_and_async() -> None:
    scorer = length_scorer()
    assert scorer.run_sync(output="abcde").score == 0.5
    assert asyncio.run(scorer.run(output="ab")).score == 0.2


def test_builder_is_immutable() -> None:
    base = create_scorer("x", description="d")
    with_score = base.generate_score(lambda ctx: 1)
    assert base.get_steps() == []
    assert [s.name for s in with_score.get_steps()] == ["generate_score"]


def test_name_defaults_to_id() -> None:
    assert create_scorer("x", description="d").name == "x"
    assert create_scorer("x", description="d", name="X").name == "X"


def test_out_of_order_step_is_refused_at_build() -> None:
    scorer = create_scorer("x", description="d").generate_score(lambda ctx: 1)
    with pytest.raises(ConfigError, match="analyze must be added before generate_score"):
        scorer.analyze(lambda ctx: 1)


def test_duplicate_step_is_refused() -> None:
    scorer = create_scorer("x", description="d").preprocess(lambda ctx: 1)
    with pytest.raises(ConfigError, match="already has a preprocess step"):
        scorer.preprocess(lambda ctx: 2)


def test_missing_generate_score_fails_at_run() -> None:
    scorer = create_scorer("x", description="d").preprocess(lambda ctx: 1)
    with pytest.raises(ConfigError, match="without a generate_score step"):
        scorer.run_sync(output="o")


def test_empty_id_is_refused() -> None:
    with pytest.raises(ConfigError) as info:
        create_scorer("  ", description="d")
    assert info.value.field == "id"


def test_steps_see_earlier_results_and_score() -> None:
    seen: dict[str, object] = {}

    async def analyze(ctx: StepContext) -> dict[str, int]:
        await asyncio.sleep(0)
        return {"n": ctx.results.preprocess_step_result["n"] * 2}

    def reason(ctx: StepContext) -> str:
        seen["score"] = ctx.score
        return f"score {ctx.score} from {ctx.results.analyze_step_result}"

    scorer = (
        create_scorer("x", description="d")
        .preprocess(lambda ctx: {"n": len(ctx.run.input)})
        .analyze(analyze)
        .generate_score(lambda ctx: ctx.results.analyze_step_result["n"] / 10)
        .generate_reason(reason)
    )
    result = scorer.run_sync(input="abc", output="o", ground_truth="g", run_id="r1")
    assert result.score == 0.6
    assert result.reason == "score 0.6 from {'n': 6}"
    assert result.preprocess_step_result == {"n": 3}
    assert result.analyze_step_result == {"n": 6}
    assert result.run_id == "r1"
    assert result.ground_truth == "g"
    assert seen["score"] == 0.6


def test_prompt_steps_call_the_judge() -> None:
    model = ScriptedJudge([{"verdicts": ["yes", "no", "yes"]}, {"score": 0.25}, "Because."])
    judge = Judge(model, "Be strict.")
    scorer = (
        create_scorer("p", description="d", judge=judge)
        .analyze(
            PromptStep(
                description="verdicts",
                create_prompt=lambda ctx: f"Judge: {ctx.run.output}",
                output_schema=Verdicts,
            )
        )
        .generate_score(PromptStep(description="score", create_prompt=lambda ctx: "score it"))
        .generate_reason(
            PromptStep(description="reason", create_prompt=lambda ctx: f"why {ctx.score}?")
        )
    )
    result = scorer.run_sync(output="the answer")
    assert result.analyze_step_result == Verdicts(verdicts=["yes", "no", "yes"])
    assert result.score == 0.25
    assert result.reason == "Because."
    assert result.analyze_prompt == "Judge: the answer"
    assert result.generate_score_prompt == "score it"
    assert result.generate_reason_prompt == "why 0.25?"
    assert [c.step for c in model.calls] == ["analyze", "generate_score", "generate_reason"]
    assert model.calls[0].messages[0].content == "Be strict."
    assert model.calls[0].output_schema == Verdicts.model_json_schema()
    assert model.calls[2].output_schema is None
    # usage: ScriptedJudge counts whitespace-separated words
    assert result.judge_usage.calls == 3
    assert result.judge_usage.input_tokens == (2 + 3) + (2 + 2) + (2 + 2)
    assert result.judge_usage.output_tokens == 4 + 2 + 1
    assert result.to_dict()["analyze_step_result"] == {"verdicts": ["yes", "no", "yes"]}


def test_json_schema_dict_is_accepted() -> None:
    schema = {
        "title": "Label",
        "type": "object",
        "properties": {"label": {"enum": ["a", "b"]}},
        "required": ["label"],
    }
    judge = Judge(ScriptedJudge(['```json\n{"label": "b"}\n```']))
    scorer = (
        create_scorer("j", description="d", judge=judge)
        .analyze(PromptStep("label", lambda ctx: "label it", schema))
        .generate_score(lambda ctx: 1.0 if ctx.results.analyze_step_result["label"] == "b" else 0)
    )
    assert scorer.run_sync(output="o").score == 1.0


def test_invalid_judge_output_is_repaired_once_then_fails_with_raw_text() -> None:
    model = ScriptedJudge(['{"verdicts": ["maybe"]}', "not json at all"])
    scorer = (
        create_scorer("p", description="d", judge=Judge(model))
        .preprocess(lambda ctx: "pre")
        .analyze(PromptStep("v", lambda ctx: "go", Verdicts))
        .generate_score(lambda ctx: 1)
    )
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(output="o")
    err = info.value
    assert str(err).startswith("Scorer Run Failed: ")
    assert err.failed_step == "analyze"
    assert err.completed_steps == ("preprocess",)
    assert isinstance(err.__cause__, JudgeOutputError)
    partial = err.result
    assert partial is not None
    assert partial.status == "error"
    assert partial.score is None
    assert partial.preprocess_step_result == "pre"
    assert partial.analyze_prompt == "go"
    assert partial.error is not None
    assert partial.error.step == "analyze"
    assert partial.error.raw_output == "not json at all"
    assert partial.judge_usage.calls == 2
    # the repair request shows the validation problem
    assert "verdicts.0" in model.calls[1].messages[-1].content


def test_repair_succeeds() -> None:
    model = ScriptedJudge(['{"verdicts": ["maybe"]}', '{"verdicts": ["no"]}'])
    scorer = (
        create_scorer("p", description="d", judge=Judge(model))
        .analyze(PromptStep("v", lambda ctx: "go", Verdicts))
        .generate_score(lambda ctx: len(ctx.results.analyze_step_result.verdicts))
    )
    result = scorer.run_sync(output="o")
    assert result.score == 1.0
    assert result.judge_usage.calls == 2


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "0.5", None, True])
def test_score_must_be_a_finite_number(bad: object) -> None:
    scorer = create_scorer("x", description="d").generate_score(lambda ctx: bad)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(output="o")
    assert info.value.failed_step == "generate_score"
    assert info.value.result is not None
    assert info.value.result.score is None


def test_not_scorable_skips_with_reason() -> None:
    scorer = (
        create_scorer("x", description="d")
        .preprocess(lambda ctx: {"k": 1})
        .analyze(lambda ctx: not_scorable("no context"))
        .generate_score(lambda ctx: 1 / 0)
    )
    result = scorer.run_sync(output="o")
    assert result.status == "skipped"
    assert result.score is None
    assert result.reason == "no context"
    assert result.preprocess_step_result == {"k": 1}


def test_prompt_step_settled_locally_makes_no_judge_call() -> None:
    model = ScriptedJudge([])  # any judge call would exhaust the script

    def prompt(ctx: StepContext) -> object:
        if not ctx.run.output:
            return local_result(Verdicts(verdicts=[]))
        return "judge this"

    scorer = (
        create_scorer("x", description="d", judge=Judge(model))
        .analyze(PromptStep("v", prompt, Verdicts))
        .generate_score(lambda ctx: len(ctx.results.analyze_step_result.verdicts))
        .generate_reason(PromptStep("r", lambda ctx: local_result("nothing to judge")))
    )
    result = scorer.run_sync(output="")
    assert result.status == "ok"
    assert result.score == 0.0
    assert result.analyze_step_result == Verdicts(verdicts=[])
    assert result.reason == "nothing to judge"
    assert result.analyze_prompt is None
    assert result.judge_usage.calls == 0
    assert model.calls == []


async def test_prompt_step_may_return_not_scorable() -> None:
    model = ScriptedJudge([])

    async def prompt(ctx: StepContext) -> object:
        return not_scorable("empty context")

    scorer = (
        create_scorer("x", description="d", judge=Judge(model))
        .analyze(PromptStep("v", prompt, Verdicts))
        .generate_score(lambda ctx: 1)
    )
    result = await scorer.run(output="o")
    assert (result.status, result.score, result.reason) == ("skipped", None, "empty context")
    assert model.calls == []


def test_prompt_step_without_judge_is_refused_at_build() -> None:
    with pytest.raises(ConfigError, match="needs a judge"):
        create_scorer("x", description="d").analyze(PromptStep("v", lambda ctx: "p", Verdicts))


def test_prompt_step_without_schema_is_refused_at_build() -> None:
    judge = Judge(ScriptedJudge())
    with pytest.raises(ConfigError, match="needs an output_schema"):
        create_scorer("x", description="d", judge=judge).analyze(PromptStep("v", lambda ctx: "p"))


def test_step_judge_overrides_scorer_judge() -> None:
    scorer_model, step_model = ScriptedJudge(name="a"), ScriptedJudge(name="b")
    scorer = (
        create_scorer("x", description="d", judge=Judge(scorer_model))
        .analyze(PromptStep("v", lambda ctx: "p", Verdicts, judge=Judge(step_model)))
        .generate_score(PromptStep("s", lambda ctx: "p"))
    )
    result = scorer.run_sync(output="o")
    assert result.analyze_step_result == Verdicts(verdicts=[])  # minimal valid instance
    assert result.score == 0.0
    assert len(scorer_model.calls) == 1
    assert len(step_model.calls) == 1


def test_run_sync_inside_a_running_loop_twice() -> None:
    scorer = length_scorer()

    async def main() -> list[float | None]:
        first = scorer.run_sync(output="abc")
        second = scorer.run_sync(output="abcd")
        return [first.score, second.score]

    assert asyncio.run(main()) == [0.3, 0.4]


def test_concurrent_runs_share_one_scorer() -> None:
    async def slow(ctx: StepContext) -> float:
        await asyncio.sleep(0.01)
        return len(ctx.run.output) / 100

    scorer = create_scorer("x", description="d").generate_score(slow)

    async def main() -> list[float | None]:
        results = await asyncio.gather(*(scorer.run(output="a" * n) for n in range(20)))
        return [r.score for r in results]

    assert asyncio.run(main()) == [n / 100 for n in range(20)]


def test_run_error_pickles_with_its_partial_result() -> None:
    scorer = create_scorer("x", description="d").generate_score(lambda ctx: 1 / 0)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(output="o")
    copy = pickle.loads(pickle.dumps(info.value))
    assert copy.failed_step == "generate_score"
    assert copy.result.error.type == "ZeroDivisionError"


def test_exhausted_script_names_the_call() -> None:
    scorer = create_scorer("x", description="d", judge=Judge(ScriptedJudge([]))).generate_score(
        PromptStep("s", lambda ctx: "p")
    )
    with pytest.raises(ScorerRunError, match="call 1"):
        scorer.run_sync(output="o")


def score_scorer(*replies: object):
    judge = Judge(ScriptedJudge(list(replies)))
    return create_scorer("s", description="d", judge=judge).generate_score(
        PromptStep("s", lambda ctx: "score it")
    )


def test_score_reply_may_carry_extra_keys() -> None:
    result = score_scorer({"score": 0.7, "reason": "because"}).run_sync(output="o")
    assert result.score == 0.7
    assert result.judge_usage.calls == 1


@pytest.mark.parametrize("bad", ['{"score": true}', '{"score": "0.5"}', '{"score": NaN}'])
def test_score_reply_must_be_a_finite_json_number(bad: str) -> None:
    with pytest.raises(ScorerRunError) as info:
        score_scorer(bad, bad).run_sync(output="o")
    assert info.value.result is not None
    assert info.value.result.error is not None
    assert info.value.result.error.raw_output == bad


def test_numpy_scalar_scores_are_plain_floats() -> None:
    import numpy as np

    for value in (np.float32(0.5), np.int64(1), np.float64(0.25)):
        result = create_scorer("n", description="d").generate_score(lambda ctx, v=value: v)
        score = result.run_sync(output="x").score
        assert type(score) is float
        assert score == float(value)


def test_prompt_step_is_checked_when_made() -> None:
    with pytest.raises(ConfigError) as info:
        PromptStep("d", lambda ctx: "p", {"type": "no-such-type"})
    assert info.value.field == "output_schema"
    with pytest.raises(ConfigError):
        PromptStep("d", lambda ctx: "p", "not a schema")  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as judge_info:
        PromptStep("d", lambda ctx: "p", Verdicts, judge=ScriptedJudge())  # type: ignore[arg-type]
    assert judge_info.value.field == "judge"
    with pytest.raises(ConfigError):
        create_scorer("x", description=None)  # type: ignore[arg-type]


def test_to_dict_never_raises() -> None:
    import json

    import numpy as np

    scorer = (
        create_scorer("x", description="d")
        .analyze(lambda ctx: np.array([1, 2]))
        .generate_score(lambda ctx: 1)
    )
    result = scorer.run_sync(output="o", request_context={"obj": object(), "raw": b"\xff"})
    data = result.to_dict()
    json.dumps(data, allow_nan=False)
    assert data["analyze_step_result"] == "array([1, 2])"
    assert data["request_context"]["raw"] == "_w=="  # base64 (URL-safe) of b"\xff"


def test_run_arguments_are_checked() -> None:
    scorer = length_scorer()
    with pytest.raises(ConfigError) as info:
        scorer.run_sync(output=None)
    assert info.value.field == "output"
    with pytest.raises(ConfigError) as run_id:
        scorer.run_sync(output="x", run_id=5)  # type: ignore[arg-type]
    assert run_id.value.field == "run_id"


def test_run_sync_in_a_loop_keeps_context_variables() -> None:
    import contextvars

    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    scorer = create_scorer("x", description="d").generate_score(lambda ctx: len(var.get()))

    async def main() -> float | None:
        var.set("four")
        return scorer.run_sync(output="o").score

    assert asyncio.run(main()) == 4.0


def test_private_loops_are_closed_when_their_thread_ends() -> None:
    import gc
    import threading
    import warnings

    from scorekit import _sync

    loops = []

    def work() -> None:
        length_scorer().run_sync(output="abc")
        loops.append(_sync._local.holder.loop)

    thread = threading.Thread(target=work)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        thread.start()
        thread.join()
        gc.collect()
    assert loops[0].is_closed()


def test_output_schema_may_depend_on_the_run() -> None:
    model = ScriptedJudge([{"verdicts": ["yes"]}, {"verdicts": ["yes", "no"]}])
    seen: list[str] = []

    async def schema(ctx: StepContext) -> dict[str, object]:
        seen.append(ctx.run.output)
        n = len(ctx.run.output.split())
        return {
            "type": "object",
            "properties": {"verdicts": {"type": "array", "minItems": n, "maxItems": n}},
            "required": ["verdicts"],
        }

    scorer = (
        create_scorer("p", description="d", judge=Judge(model, "x"))
        .analyze(PromptStep("verdicts", lambda ctx: "judge", schema))
        .generate_score(lambda ctx: len(ctx.results.analyze_step_result["verdicts"]))
    )
    assert scorer.run_sync(output="one").score == 1.0
    # the second run asks for two items; the scripted reply holds two
    assert scorer.run_sync(output="one two").score == 2.0
    assert seen == ["one", "one two"]
    assert [c.output_schema["properties"]["verdicts"]["maxItems"] for c in model.calls] == [1, 2]


def test_schema_function_runs_after_the_prompt_and_only_for_a_judge_call() -> None:
    order: list[str] = []

    def prompt(ctx: StepContext) -> object:
        order.append("prompt")
        return local_result(Verdicts(verdicts=[])) if ctx.run.output == "" else "judge"

    def schema(ctx: StepContext) -> type[Verdicts]:
        order.append("schema")
        return Verdicts

    scorer = (
        create_scorer("p", description="d", judge=Judge(ScriptedJudge(), "x"))
        .analyze(PromptStep("v", prompt, schema))  # type: ignore[arg-type]
        .generate_score(lambda ctx: 1.0)
    )
    scorer.run_sync(output="")
    assert order == ["prompt"]
    scorer.run_sync(output="x")
    assert order == ["prompt", "prompt", "schema"]


def test_a_bad_schema_from_a_schema_function_fails_the_run() -> None:
    scorer = (
        create_scorer("p", description="d", judge=Judge(ScriptedJudge(), "x"))
        .analyze(PromptStep("v", lambda ctx: "judge", lambda ctx: {"type": "no-such-type"}))
        .generate_score(lambda ctx: 1.0)
    )
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(output="x")
    assert info.value.failed_step == "analyze"
    error = info.value.result.error
    assert error is not None
    assert error.type == "ConfigError"
    assert "output_schema is not a usable schema" in error.message


# --- a generate_score prompt step's range (row 81) -------------------------------------


def score_prompt_scorer(model: ScriptedJudge, schema: object = None) -> object:
    step = PromptStep("score", lambda ctx: "score it", schema)  # type: ignore[arg-type]
    return create_scorer("s", description="d", judge=Judge(model)).generate_score(step)


def test_a_score_outside_zero_to_one_is_repaired_then_an_error() -> None:
    model = ScriptedJudge([{"score": 7}, {"score": 7}])
    with pytest.raises(ScorerRunError) as info:
        score_prompt_scorer(model).run_sync(output="o")  # type: ignore[attr-defined]
    result = info.value.result
    assert (result.status, result.score, result.error.step) == ("error", None, "generate_score")
    assert "less than or equal to 1" in result.error.message
    assert result.error.raw_output == '{"score": 7}'
    assert len(model.calls) == 2  # the reply and one repair request
    schema = model.calls[0].output_schema
    assert (schema["properties"]["score"]["minimum"], schema["properties"]["score"]["maximum"]) == (
        0,
        1,
    )


def test_a_score_in_range_after_repair_is_the_score() -> None:
    model = ScriptedJudge([{"score": -0.5}, {"score": 0.75, "reason": "extra keys ignored"}])
    result = score_prompt_scorer(model).run_sync(output="o")  # type: ignore[attr-defined]
    assert (result.status, result.score) == ("ok", 0.75)


class TenPoints(BaseModel):
    score: float = Field(ge=0, le=10)


@pytest.mark.parametrize(
    "schema",
    [
        TenPoints,
        {"type": "object", "properties": {"score": {"type": "number", "maximum": 10}}},
    ],
)
def test_the_steps_own_schema_sets_the_range(schema: object) -> None:
    model = ScriptedJudge([{"score": 7}])
    result = score_prompt_scorer(model, schema).run_sync(output="o")  # type: ignore[attr-defined]
    assert (result.status, result.score) == ("ok", 7.0)
    assert model.calls[0].output_schema["properties"]["score"]["maximum"] == 10
    model = ScriptedJudge([{"score": 11}, {"score": 12}])
    with pytest.raises(ScorerRunError) as info:
        score_prompt_scorer(model, schema).run_sync(output="o")  # type: ignore[attr-defined]
    assert info.value.result.error.step == "generate_score"
    assert len(model.calls) == 2


def test_a_score_schema_needs_a_score_property() -> None:
    with pytest.raises(ConfigError, match="needs a 'score' property") as info:
        score_prompt_scorer(ScriptedJudge([]), {"type": "object", "properties": {"x": {}}})
    assert info.value.field == "output_schema"


def test_a_schema_function_without_a_score_is_an_error() -> None:
    model = ScriptedJudge([{"x": 1}])
    schema = {"type": "object", "properties": {"x": {"type": "number"}}}
    scorer = score_prompt_scorer(model, lambda ctx: schema)
    with pytest.raises(ScorerRunError) as info:
        scorer.run_sync(output="o")  # type: ignore[attr-defined]
    assert "generate_score returned None; a score must be a finite number" in str(info.value)


def test_run_sync_of_function_steps_runs_eagerly_and_still_waits_when_a_step_does() -> None:
    # issue 35: a scorer without judge steps runs its first stretch at once (run_sync eager);
    # a step that does wait is finished by a task on the same loop, in the same context
    import asyncio
    import contextvars

    from scorekit import _sync

    seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="outside")
    loops: list[object] = []

    def plain(ctx: Any) -> float:
        loops.append(asyncio.get_running_loop())
        seen.set("set by a step")
        return 0.5

    async def waiting(ctx: Any) -> float:
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0.01)  # a real wait: the task finishes it
        assert asyncio.current_task() is not None
        return float(len(ctx.run.output))

    def failing(ctx: Any) -> float:
        raise ValueError("bad step")

    quick = create_scorer("q", description="d").generate_score(plain)
    slow = create_scorer("s", description="d").generate_score(waiting)
    broken = create_scorer("b", description="d").generate_score(failing)
    assert quick.run_sync(output="x").score == 0.5
    assert slow.run_sync(output="four").score == 4.0
    with pytest.raises(ScorerRunError) as info:
        broken.run_sync(output="x")
    assert "bad step" in str(info.value)
    assert seen.get() == "outside"  # the steps ran in a copy of the caller's context
    assert loops[0] is loops[1] is _sync._thread_loop()
    assert not _sync._thread_loop().is_running()
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()  # the loop is not left marked running
