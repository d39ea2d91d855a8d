from __future__ import annotations

import copy
import doctest
import json
import os
import pickle
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import scorekit.scorers
from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.retrieval_context import item_context
from scorekit.judge import ScriptedJudge
from scorekit.judge.judge import Judge
from scorekit.judge.spec import JudgeSpec
from scorekit.pipeline import Scorer, create_scorer
from scorekit.scorers import (
    SCORERS,
    ScorerEntry,
    ScorerSpec,
    build_scorer,
    get_scorer_entry,
    list_scorers,
    registry,
)
from scorekit.scorers.context_relevance import ContextRelevancePenalties
from scorekit.scorers.hallucination import NO_CONTEXT_REASON
from scorekit.scorers.registry import get_entry

ROOT = Path(__file__).resolve().parents[2]

ITEM: dict[str, Any] = {
    "input": "What is the capital of France?",
    # a message list, as the checks need (Mastra's checks refuse a plain string)
    "output": [{"role": "assistant", "content": "Paris is the capital of France."}],
    "ground_truth": "Paris is the capital of France, on the Seine.",
    "context": ["Paris is the capital of France.", "The Seine flows through Paris."],
    "run_id": "fixed",
}

# options a built-in needs besides its judge
NEEDED: dict[str, dict[str, Any]] = {
    "tool-call-accuracy-code": {"expected_tool": "search"},
    "noise-sensitivity": {
        "baseline_response": "Paris is the capital of France.",
        "noisy_query": "What is the capital of France? Also, cats rule.",
    },
    "tool-call-accuracy-llm": {
        "available_tools": [{"id": "search", "description": "Search the web"}]
    },
    "multi-turn-judge": {"criterion": "The assistant answers the question asked."},
    "rubric": {"criteria": [{"description": "Names the capital", "required": True}]},
    "check-includes": {"expected": "Paris"},
    "check-excludes": {"unwanted": "London"},
    "check-equals": {"expected": "Paris is the capital of France."},
    "check-matches": {"pattern": r"\bParis\b"},
    "check-similarity": {"expected": "Paris is the capital."},
    "check-called-tool": {"tool_name": "search"},
    "check-did-not-call": {"tool_name": "delete_user"},
    "check-tool-order": {"expected_order": ["search"]},
    "check-max-tool-calls": {"max_calls": 2},
}

LISTING = [
    # code scorers, then LLM scorers, each by module name; then the checks (their own order)
    "completeness",
    "content-similarity",
    "keyword-coverage",
    "textual-difference",
    "tone",
    "tool-call-accuracy-code",
    "trajectory",
    "trajectory-accuracy-code",
    "answer-relevancy",
    "answer-similarity",
    "bias",
    "context-precision",
    "context-recall",
    "context-relevance",
    "faithfulness",
    "hallucination",
    "multi-turn-judge",
    "noise-sensitivity",
    "prompt-alignment",
    "rubric",
    "summarization",
    "tool-call-accuracy-llm",
    "toxicity",
    "trajectory-accuracy-llm",
    "check-includes",
    "check-excludes",
    "check-equals",
    "check-matches",
    "check-similarity",
    "check-called-tool",
    "check-did-not-call",
    "check-tool-order",
    "check-max-tool-calls",
    "check-used-no-tools",
    "check-no-tool-errors",
]


def built_ins() -> list[Scorer]:
    """Every built-in, judged by the scripted test judge, plus some with options of each shape."""
    scorers = []
    for entry in SCORERS.values():
        options = dict(NEEDED.get(entry.name, {}))
        if entry.kind == "llm":
            options["model"] = "test/judge"
        scorers.append(build_scorer(entry.name, **options))
    scorers += [
        build_scorer(
            "context-relevance-scorer",
            model="test/judge",
            context=["Paris is in France."],
            penalties={"missing_context_per_item": 0.2},
            reason="template",
        ),
        build_scorer("faithfulness", model="test/judge", context=ITEM["context"], scale=10),
        build_scorer("context-precision", model="test/judge", context_extractor=item_context),
        build_scorer("content-similarity", ignore_case=False, compare_to="ground_truth"),
    ]
    return scorers


def outcomes(scorers: list[Scorer]) -> list[list[Any]]:
    """``[scorer id, status, score, reason, analyze prompt]`` of each scorer on the fixed item.

    The prompt shows the options (a fixed context, say) reached the rebuilt scorer.
    """
    found = []
    for scorer in scorers:
        try:
            result = scorer.run_sync(**ITEM)
        except ScorerRunError as exc:
            result = exc.result
        found.append([scorer.id, result.status, result.score, result.reason, result.analyze_prompt])
    return found


def _child_env(*paths: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*(str(p) for p in paths), str(ROOT / "src"), str(ROOT)])
    return env


def test_every_built_in_is_rebuilt_in_another_process_from_its_spec() -> None:
    scorers = built_ins()
    assert all(scorer.spec is not None for scorer in scorers)
    here = outcomes(scorers)
    # the scripted judge's minimal replies list no claims or units, and the item calls no tool:
    # the scorers that then measured nothing say so (skipped with a reason, row 28); for the
    # two context pieces they repeat context_index 0, which the per-piece scorers refuse
    per_piece = {"context-relevance-scorer", "context-precision-scorer"}
    assert all(
        outcome[1] == "ok"
        or (outcome[1] == "skipped" and outcome[3])
        or (outcome[0] in per_piece and outcome[1] == "error")
        for outcome in here
    ), here
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, pickle, sys\n"
            "from tests.scorers.test_registry import outcomes\n"
            "print(json.dumps(outcomes(pickle.load(sys.stdin.buffer))))",
        ],
        input=pickle.dumps(scorers),
        capture_output=True,
        env=_child_env(),
        cwd=ROOT,
        check=True,
    )
    assert json.loads(child.stdout) == here


def test_a_rebuilt_scorer_carries_the_same_spec() -> None:
    for scorer in built_ins():
        twin = pickle.loads(pickle.dumps(scorer))
        assert twin is not scorer
        assert (twin.id, twin.spec) == (scorer.id, scorer.spec)


def test_the_spec_records_the_options_and_judge_as_given() -> None:
    scorer = build_scorer("context-precision", model="test/judge", scale=5)
    assert scorer.spec == ScorerSpec(
        "context-precision",
        {"scale": 5},
        JudgeSpec(model="test/judge", instructions=None, options={}),
    )
    code = build_scorer("tone", reference_tone="calm")
    assert code.spec == ScorerSpec("tone", {"reference_tone": "calm"}, None)


def test_a_judge_object_is_recorded_by_its_spec() -> None:
    judge = Judge("test/judge", timeout=7.5)
    scorer = build_scorer("faithfulness", model=judge, context=["x"])
    assert judge.spec is not None
    assert scorer.spec is not None
    assert scorer.spec.judge == judge.spec
    assert pickle.loads(pickle.dumps(scorer)).spec == scorer.spec


def test_a_judge_spec_is_built_and_recorded() -> None:
    spec = JudgeSpec(model="test/judge", instructions=None, options={"timeout": 9.0})
    scorer = build_scorer("answer-relevancy", model=spec)
    assert scorer.spec == ScorerSpec("answer-relevancy", {}, spec)
    assert scorer.judge is not None
    assert scorer.judge.settings.timeout == 9.0


def test_scorer_specs_are_checked() -> None:
    with pytest.raises(ConfigError, match="non-empty scorer name"):
        ScorerSpec("")
    with pytest.raises(ConfigError, match="judge=") as info:
        ScorerSpec("faithfulness", {"model": "test/judge"})
    assert info.value.field == "model"
    with pytest.raises(ConfigError, match="must be a JudgeSpec"):
        ScorerSpec("faithfulness", {}, "test/judge")  # type: ignore[arg-type]
    given = {"scale": 2}
    spec = ScorerSpec("tone", given)
    given["scale"] = 3
    assert spec.options == {"scale": 2}


def test_a_judge_model_object_gives_no_spec() -> None:
    scorer = build_scorer("faithfulness", model=ScriptedJudge(), context=["x"])
    assert scorer.spec is None
    with pytest.raises(TypeError, match="build_scorer"):
        pickle.dumps(scorer)
    wrapped = build_scorer("faithfulness", model=Judge(ScriptedJudge()), context=["x"])
    assert wrapped.spec is None


def test_context_scorers_default_to_the_item_context() -> None:
    scorer = build_scorer("hallucination", model="test/judge")
    assert scorer.spec is not None
    assert scorer.spec.options == {}  # the rule is applied again when rebuilt
    # the scripted judge lists no claims, so a run that got past the context check is skipped
    # for that (row 28); one without context is skipped before any judge call (row 7)
    found_none = "The judge found no claims in the answer, so there is nothing to check."
    with_context = scorer.run_sync(**ITEM)
    assert (with_context.status, with_context.reason) == ("skipped", found_none)
    without = scorer.run_sync(input=ITEM["input"], output=ITEM["output"])
    assert (without.status, without.reason) == ("skipped", NO_CONTEXT_REASON)
    fixed = build_scorer("hallucination", model="test/judge", context=["Paris."])
    assert fixed.run_sync(input=ITEM["input"], output=ITEM["output"]).reason == found_none


def test_scorers_without_a_spec_refuse_to_pickle() -> None:
    made = create_scorer("mine", description="d").generate_score(lambda ctx: 1.0)
    with pytest.raises(TypeError, match=r"'mine'.*build it with scorekit\.scorers\.build_scorer"):
        pickle.dumps(made)
    # a builder method changes the steps, so the result has no spec
    changed = build_scorer("tone").generate_reason(lambda ctx: "why")
    assert changed.spec is None
    with pytest.raises(TypeError, match="build_scorer"):
        pickle.dumps(changed)


def test_copies_of_a_scorer_are_the_scorer() -> None:
    made = create_scorer("mine", description="d").generate_score(lambda ctx: 1.0)
    assert copy.copy(made) is made
    assert copy.deepcopy([made])[0] is made


def test_spec_to_dict_writes_functions_by_name() -> None:
    scorer = build_scorer(
        "context-relevance",
        model="test/judge",
        context_extractor=item_context,
        penalties=ContextRelevancePenalties(missing_context_per_item=0.2),
        scale=2,
    )
    assert scorer.spec is not None
    data = scorer.spec.to_dict()
    assert data == {
        "name": "context-relevance",
        "options": {
            "context_extractor": "scorekit.inputs.retrieval_context:item_context",
            "penalties": {
                "unused_high_relevance_context": 0.1,
                "missing_context_per_item": 0.2,
                "max_missing_context_penalty": 0.5,
            },
            "scale": 2,
        },
        "judge": JudgeSpec(model="test/judge", instructions=None, options={}).to_dict(),
    }
    json.dumps(data)
    local = build_scorer("faithfulness", model="test/judge", context=("a", "b")).spec
    assert local is not None
    assert local.to_dict()["options"] == {"context": ["a", "b"]}
    lambdas = build_scorer("hallucination", model="test/judge", context_extractor=lambda i, o: [])
    assert lambdas.spec is not None
    with pytest.raises(TypeError, match="context_extractor"):
        lambdas.spec.to_dict()


def test_the_built_ins_are_listed_in_order_with_their_ids() -> None:
    assert list(SCORERS) == LISTING
    assert [entry.name for entry in list_scorers()][: len(LISTING)] == LISTING
    for entry in SCORERS.values():
        module = sys.modules[entry.factory.__module__]
        if hasattr(module, "ENTRY"):
            assert module.ENTRY is entry
            assert entry.scorer_id == module.SCORER_ID
        else:  # a module of several small scorers (the checks) lists them in ENTRIES
            assert entry in sys.modules[module.__package__ or ""].ENTRIES
        assert get_scorer_entry(entry.scorer_id) is entry
        options = dict(NEEDED.get(entry.name, {}))
        if entry.kind == "llm":
            options["model"] = "test/judge"
        assert build_scorer(entry.name, **options).id == entry.scorer_id
    assert get_scorer_entry is registry.get_entry
    assert scorekit.scorers.get_scorer_entry is registry.get_entry


def test_options_are_read_from_the_factory() -> None:
    options = {o.name: o for o in get_scorer_entry("content-similarity").options()}
    assert list(options) == ["ignore_case", "ignore_whitespace", "compare_to", "scale"]
    assert options["scale"].default == 1.0
    assert not options["scale"].required
    assert get_scorer_entry("faithfulness").options()[0].name == "model"
    assert get_scorer_entry("faithfulness").options()[0].required


SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


@pytest.mark.parametrize("entry", list_scorers(), ids=lambda e: e.name)
def test_option_names_are_snake_case(entry: ScorerEntry) -> None:
    # docs/scorers.md, "Conventions for scorer factories"
    for option in entry.options():
        assert SNAKE.match(option.name), f"{entry.name}: option {option.name!r}"


def test_nested_option_keys_are_snake_case() -> None:
    from dataclasses import fields

    for name in (f.name for f in fields(ContextRelevancePenalties)):
        assert SNAKE.match(name), name
    with pytest.raises(ConfigError, match="missing_context_per_item"):
        build_scorer(
            "context-relevance", model="test/judge", penalties={"missingContextPerItem": 1}
        )


def test_unknown_names_suggest_the_closest() -> None:
    with pytest.raises(ConfigError) as info:
        get_scorer_entry("content-similarty")
    assert info.value.field == "scorer"
    assert (
        "unknown scorer 'content-similarty'; known scorers: completeness, content-similarity, "
        in str(info.value)
    )
    assert "Did you mean content-similarity, " in str(info.value)
    with pytest.raises(ConfigError, match="unknown scorer"):
        build_scorer("nothing-like-it")


def test_an_llm_scorer_needs_a_model() -> None:
    for model in ({}, {"model": None}):
        with pytest.raises(ConfigError, match="scorer 'faithfulness' needs a judge") as info:
            build_scorer("faithfulness", **model)
        assert info.value.field == "model"


def test_unknown_options_name_the_scorer_and_the_option() -> None:
    with pytest.raises(ConfigError) as info:
        build_scorer("content-similarity", ignore_cas=True)
    assert info.value.field == "ignore_cas"
    message = str(info.value)
    assert "scorer 'content-similarity' has no option 'ignore_cas'" in message
    assert "Did you mean ignore_case?" in message
    with pytest.raises(ConfigError) as code_model:
        build_scorer("tone", model="test/judge")
    assert code_model.value.field == "model"
    # the factories' own validation still speaks
    with pytest.raises(ConfigError, match="scale must be a finite number > 0"):
        build_scorer("content-similarity", scale=0)


@pytest.fixture
def adhoc_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    name = "scorekit_registry_adhoc"
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent(
            '''
            from scorekit.judge.model_option import to_judge
            from scorekit.pipeline import PromptStep, create_scorer
            from scorekit.scorers.registry import ScorerEntry


            def create_length_scorer(*, limit: int = 10):
                """Whether the output has at most ``limit`` characters.

                More text here.
                """
                return create_scorer("length-scorer", description="d").generate_score(
                    lambda ctx: float(len(ctx.run.output) <= limit)
                )


            def create_judged_scorer(*, model, scale: float = 1.0):
                """Asks the judge for a score."""
                return create_scorer(
                    "judged-scorer", description="d", judge=to_judge(model, "Score it.")
                ).generate_score(PromptStep("score", lambda ctx: "Score: " + ctx.run.output))


            ENTRY = ScorerEntry(
                name="length",
                scorer_id="length-scorer",
                factory=create_length_scorer,
                kind="code",
                summary="Output length under a limit",
            )
            NOT_A_SCORER = 3
            '''
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_module_factory_names(adhoc_module: Path) -> None:
    factory = get_scorer_entry("scorekit_registry_adhoc:create_length_scorer")
    assert factory.name == "scorekit_registry_adhoc:create_length_scorer"
    assert (factory.kind, factory.scorer_id, factory.summary) == (
        "code",
        "",
        "Whether the output has at most ``limit`` characters.",
    )
    assert get_scorer_entry(factory.name) == factory
    entry = get_scorer_entry("scorekit_registry_adhoc:ENTRY")
    assert (entry.name, entry.scorer_id, entry.kind) == (
        "scorekit_registry_adhoc:ENTRY",
        "length-scorer",
        "code",
    )
    assert get_scorer_entry("scorekit_registry_adhoc:create_judged_scorer").kind == "llm"

    short = build_scorer("scorekit_registry_adhoc:create_length_scorer", limit=3)
    assert short.id == "length-scorer"
    assert short.run_sync(output="abcd").score == 0.0
    judged = build_scorer("scorekit_registry_adhoc:create_judged_scorer", model="test/judge")
    with pytest.raises(ConfigError, match="needs a judge"):
        build_scorer("scorekit_registry_adhoc:create_judged_scorer")
    with pytest.raises(ConfigError, match="Did you mean limit"):
        build_scorer("scorekit_registry_adhoc:ENTRY", limt=3)

    scorers = [short, judged, build_scorer("scorekit_registry_adhoc:ENTRY")]
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, pickle, sys\n"
            "scorers = pickle.load(sys.stdin.buffer)\n"
            "print(json.dumps([[s.id, s.spec.name, s.run_sync(output='abcd').score]"
            " for s in scorers]))",
        ],
        input=pickle.dumps(scorers),
        capture_output=True,
        env=_child_env(adhoc_module),
        check=True,
    )
    assert json.loads(child.stdout) == [
        ["length-scorer", "scorekit_registry_adhoc:create_length_scorer", 0.0],
        ["judged-scorer", "scorekit_registry_adhoc:create_judged_scorer", 0.0],
        ["length-scorer", "scorekit_registry_adhoc:ENTRY", 1.0],
    ]


@pytest.mark.usefixtures("adhoc_module")
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("no_such_module_here:factory", "cannot import no_such_module_here"),
        ("scorekit_registry_adhoc:missing", "no 'missing' in scorekit_registry_adhoc"),
        ("scorekit_registry_adhoc:NOT_A_SCORER", "neither a ScorerEntry nor a scorer factory"),
        (":factory", "expected 'module:factory'"),
    ],
)
def test_bad_module_factory_names(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        get_scorer_entry(name)
    assert info.value.field == "scorer"


PLUGIN = '''
from scorekit.pipeline import create_scorer
from scorekit.scorers.registry import ScorerEntry


def create_shout_scorer(*, min_share: float = 0.5):
    """Whether enough of the output's letters are upper case."""

    def score(ctx):
        letters = [c for c in ctx.run.output if c.isalpha()]
        upper = sum(c.isupper() for c in letters)
        return float(bool(letters) and upper / len(letters) >= min_share)

    return create_scorer("shout-scorer", description="d").generate_score(score)


ENTRY = ScorerEntry(
    name="loud",
    scorer_id="shout-scorer",
    factory=create_shout_scorer,
    kind="code",
    summary="Upper-case share of the output",
)
'''

PLUGIN_CHECKS = """
import pickle, sys
import scorekit, scorekit.scorers
from scorekit.errors import ConfigError
from scorekit.scorers import build_scorer, get_scorer_entry, list_scorers

# neither importing scorekit nor built-in lookups load entry points
build_scorer("content-similarity")
get_scorer_entry("faithfulness-scorer")
assert "shout_plugin" not in sys.modules

bare = get_scorer_entry("shout")
assert (bare.name, bare.kind, bare.scorer_id) == ("shout", "code", "")
assert bare.summary == "Whether enough of the output's letters are upper case."
declared = get_scorer_entry("shout-entry")
assert (declared.name, declared.scorer_id) == ("shout-entry", "shout-scorer")
assert get_scorer_entry("shout-scorer") == declared
names = [entry.name for entry in list_scorers()]
assert names[-2:] == ["shout", "shout-entry"], names
assert "content-similarity" in names

scorer = build_scorer("shout", min_share=0.2)
assert scorer.run_sync(output="Hi there").score == 0.0
twin = pickle.loads(pickle.dumps(scorer))
assert twin.spec.name == "shout"
assert twin.spec.options == {"min_share": 0.2}
assert twin.run_sync(output="HI there").score == 1.0
try:
    build_scorer("shuot")
except ConfigError as exc:
    assert "Did you mean shout" in str(exc), exc
else:
    raise AssertionError("no error")
print("ok")
"""

BROKEN_CHECKS = """
from scorekit.errors import ConfigError
from scorekit.scorers import get_scorer_entry

assert get_scorer_entry("shout").name == "shout"
try:
    get_scorer_entry("broken")
except ConfigError as exc:
    assert exc.field == "scorer"
    assert "cannot load entry point 'shout_plugin:missing'" in str(exc), exc
else:
    raise AssertionError("no error")
try:
    get_scorer_entry("shoutt")
except ConfigError as exc:
    assert "unknown scorer 'shoutt'" in str(exc) and "Did you mean shout" in str(exc), exc
print("ok")
"""


def _distribution(folder: Path, name: str, entry_points: str) -> Path:
    info = folder / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[scorekit.scorers]\n{entry_points}")
    return folder


def test_entry_point_scorers(tmp_path: Path) -> None:
    good = _distribution(
        tmp_path / "good",
        "myscorers",
        "shout = shout_plugin:create_shout_scorer\nshout-entry = shout_plugin:ENTRY\n",
    )
    (good / "shout_plugin.py").write_text(PLUGIN)
    broken = _distribution(tmp_path / "broken", "brokenscorers", "broken = shout_plugin:missing\n")
    for paths, checks in (((good,), PLUGIN_CHECKS), ((good, broken), BROKEN_CHECKS)):
        child = subprocess.run(
            [sys.executable, "-c", checks],
            capture_output=True,
            text=True,
            env=_child_env(*paths),
            check=False,
        )
        assert child.returncode == 0, child.stderr
        assert child.stdout.strip() == "ok"


def test_scorer_entry_is_checked() -> None:
    with pytest.raises(ConfigError, match="kind must be"):
        ScorerEntry("x", "x-scorer", build_scorer, "judge", "s")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="non-empty name"):
        ScorerEntry("", "x-scorer", build_scorer, "code", "s")


def test_docstring_examples() -> None:
    result = doctest.testmod(registry)
    assert result.attempted > 0
    assert result.failed == 0


def _factory_that_breaks():  # type: ignore[no-untyped-def]
    raise ValueError("my bug")


def _factory_of_nothing():  # type: ignore[no-untyped-def]
    return "not a scorer"


def test_a_users_factory_that_breaks_is_a_config_error_naming_it() -> None:
    from scorekit import ConfigError

    with pytest.raises(ConfigError, match=r"its factory raised ValueError: my bug") as info:
        build_scorer(f"{__name__}:_factory_that_breaks")
    assert info.value.field == "scorer"
    with pytest.raises(ConfigError, match="returned str, not a Scorer"):
        build_scorer(f"{__name__}:_factory_of_nothing")


def test_a_spec_keeps_its_own_copy_of_the_options() -> None:
    context = ["The sky is blue."]
    scorer = build_scorer("context-precision", model="test/x", context=context)
    context.append("MUTATED")
    assert scorer.spec is not None
    assert scorer.spec.options["context"] == ["The sky is blue."]


def test_options_the_factory_cannot_do_without_are_listed_as_required() -> None:
    required = {
        name: [o.name for o in SCORERS[name].options() if o.required]
        for name in ("noise-sensitivity", "tool-call-accuracy-llm", "multi-turn-judge")
    }
    assert required == {
        "noise-sensitivity": ["model", "baseline_response", "noisy_query"],
        "tool-call-accuracy-llm": ["model", "available_tools"],
        "multi-turn-judge": ["model", "criterion"],
    }


@pytest.mark.parametrize(
    ("old", "new"),
    [("code-tool-call-accuracy", "tool-call-accuracy-code"),
     ("trajectory-accuracy", "trajectory-accuracy-code")],
)  # fmt: skip
def test_renamed_short_names_still_build(old: str, new: str) -> None:
    assert get_entry(old) is get_entry(new)
    assert get_entry(old).name == new
    assert old not in SCORERS and new in SCORERS
    options = NEEDED.get(new, {})
    assert build_scorer(old, **options).id == build_scorer(new, **options).id


def test_every_scorer_module_is_discovered() -> None:
    """A module of scorekit.scorers that defines a create_* factory declares its ENTRY."""
    import importlib
    import pkgutil

    import scorekit.scorers as package
    from scorekit.scorers.registry import builtin_modules

    found = set(builtin_modules())
    for info in pkgutil.iter_modules(package.__path__, prefix="scorekit.scorers."):
        module = importlib.import_module(info.name)
        factories = [n for n in vars(module) if n.startswith("create_") and
                     getattr(vars(module)[n], "__module__", "") == info.name]  # fmt: skip
        if factories:
            assert info.name in found, f"{info.name} defines {factories} but no ENTRY"
    assert "scorekit.checks" in found
    short_names = [name for name in SCORERS if not name.startswith("check-")]
    assert all(not name.startswith(("code-", "llm-")) for name in short_names)
