"""``@pytest.mark.scorekit(min_agreement=..., trials=...)`` in real pytest sessions."""

from __future__ import annotations

import pytest

from scorekit.store import Store
from scorekit.store.labels import current_labels
from scorekit.store.repeats import trial_scores

pytest_plugins = ["pytester"]

SCORERS = """
from scorekit import create_scorer
from scorekit.judge.trial import JUDGE_TRIAL

length = create_scorer("length", description="len / 10").generate_score(
    lambda ctx: len(ctx.run.output) / 10
)

def _wobble(ctx):
    # trial 0 and 2 give len / 10; trial 1 adds 0.4 to the outputs of 4 letters or more
    text = ctx.run.output
    return min(1.0, len(text) / 10 + (0.4 if JUDGE_TRIAL.get() == 1 and len(text) >= 4 else 0.0))

wobbly = create_scorer("wobbly", description="a judge that changes its mind").generate_score(
    _wobble
)
"""

# 24 cases: outputs of 1 to 8 letters (score 0.1 .. 0.8), labelled 1 from 5 letters up, except
# that the 3 cases of 8 letters are labelled 0: balanced accuracy at 0.5 is known exactly
LABELLED = """
import pytest
from scorers import length
from scorekit.testing import assert_score

CASES = [("x" * n, int(5 <= n < 8)) for n in range(1, 9) for _ in range(3)]

@pytest.mark.scorekit(min_agreement={"length": {"balanced_accuracy": 0.9}})
@pytest.mark.parametrize(("text", "label"), CASES)
def test_strict(text, label):
    assert_score(length, output=text, human_label=label)

@pytest.mark.scorekit(min_agreement={"length": {"balanced_accuracy": 0.8}})
@pytest.mark.parametrize(("text", "label"), CASES)
def test_lenient(text, label):
    assert_score(length, output=text, human_label=label)

@pytest.mark.scorekit(min_agreement={"length": {"auroc": 0.5}})
@pytest.mark.parametrize(("text", "label"), CASES[:6])
def test_few(text, label):
    assert_score(length, output=text, human_label=label)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(scorers=SCORERS)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_agreement_gates_read_the_cases_human_labels(
    project: pytest.Pytester, workers: list[str]
) -> None:
    project.makepyfile(test_labelled=LABELLED)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", *workers)
    result.assert_outcomes(passed=54)
    assert result.ret == 1
    out = " ".join(result.stdout.str().split())
    # positives 5..7 letters (9 cases) all score >= 0.5: recall 1; negatives: 1..4 letters
    # (12) below 0.5 and 8 letters (3) above: recall 12/15; balanced accuracy 0.9 exactly
    assert "gates of test_labelled.py::test_strict" not in out
    assert "gates of test_labelled.py::test_lenient" not in out
    assert (
        "FAILED gates of test_labelled.py::test_few: length: min_agreement: not enough labels "
        "(n = 6, need 20) (6 labelled)" in out
    )
    with Store(project.path / ".scorekit" / "scorekit.db", create=False) as store:
        (run,) = store.list_runs()
        labels = current_labels(store, run.id)
    assert len(labels) == 54
    assert labels[("test_labelled.py::test_strict[xxxxx-1_0]", "length")].label == 1.0


def test_a_missed_agreement_gate_says_the_figure(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_labelled=LABELLED.replace('"balanced_accuracy": 0.9}', '"balanced_accuracy": 0.95}')
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-k", "strict")
    assert result.ret == 1
    out = " ".join(result.stdout.str().split())
    assert (
        "FAILED gates of test_labelled.py::test_strict: length: balanced_accuracy 0.900 < 0.95 "
        "(24 labelled)" in out
    )


TRIALS = """
import pytest
from scorers import wobbly
from scorekit.testing import assert_score

@pytest.mark.scorekit(trials=3)
@pytest.mark.parametrize("text", ["ab", "abc", "abcd", "abcdefg"])
def test_repeated(text):
    assert_score(wobbly, output=text, max=1.0)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_trials_score_each_case_k_times_and_report_self_consistency(
    project: pytest.Pytester, workers: list[str]
) -> None:
    project.makepyfile(test_trials=TRIALS)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", *workers)
    result.assert_outcomes(passed=4)
    assert result.ret == 0
    out = result.stdout.str()
    assert "trials of test_trials.py::test_repeated:" in out
    after = out[out.index("trials of test_trials.py::test_repeated:") :]
    row = next(line for line in after.splitlines() if line.startswith("│ wobbly"))
    cells = [cell.strip() for cell in row.split("│")[1:-1]]
    # "abcd": 0.4, 0.8, 0.4 (fails, passes, fails at 0.5); the other three keep their label
    # (0.2 and 0.3 stay below, "abcdefg" 0.7 -> 1.0 stays above): 3 of 4 consistent
    assert cells[:4] == ["wobbly", "3", "4", "75.0%"]
    # spread, each item's standard deviation over its trials: 0, 0, 0.1886 ("abcd") and
    # 0.1414 ("abcdefg": 0.7, 1.0, 0.7); their mean and largest
    assert cells[4] == "0.0825, 0.1886"
    with Store(project.path / ".scorekit" / "scorekit.db", create=False) as store:
        (run,) = store.list_runs()
        assert run.config["trials"] == 3
        stored = trial_scores(store, run.id)
    assert stored["wobbly"]["test_trials.py::test_repeated[abcd]"] == [0.4, 0.8, 0.4]


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("trials=0", "trials=...) takes an integer from 1 to 100, not 0"),
        ("trails=3", "takes thresholds, min_agreement, trials (at least one); unknown: trails"),
        ('min_agreement={"length": {"auroc": 2}}', "auroc needs a number in [0, 1], not 2"),
        ("min_agreement={}", "takes a mapping of scorer to {figure: minimum}, not {}"),
        ('{"length": 0.9}, trials=2', "give @pytest.mark.scorekit once, with keywords only"),
        (
            'trials=2)\n@pytest.mark.scorekit(thresholds={"length": 0.9}',
            "give @pytest.mark.scorekit once, with keywords only",
        ),
    ],
)
def test_a_bad_marker_setting_fails_the_test_naming_it(
    project: pytest.Pytester, marker: str, message: str
) -> None:
    project.makepyfile(
        test_bad=f"""
import pytest
from scorers import length
from scorekit.testing import assert_score

@pytest.mark.scorekit({marker})
def test_it():
    assert_score(length, output="abcde")
"""
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    assert message in result.stdout.str()


JUDGED = """
import pytest
from pydantic import BaseModel
from scorekit import create_scorer
from scorekit.prompt_step import PromptStep
from scorekit.testing import assert_score

class Verdict(BaseModel):
    verdict: str

def judged(scorekit_judge):
    step = PromptStep(description="v", create_prompt=lambda ctx: f"Fine? {ctx.run.output}",
                      output_schema=Verdict)
    return create_scorer("judged", description="asks", judge=scorekit_judge).analyze(
        step).generate_score(lambda ctx: 1.0)

@pytest.mark.parametrize("n", range(6))
def test_judged(n, scorekit_judge):
    assert_score(judged(scorekit_judge), output=f"answer {n}", min=0.5)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_judge_budget_skips_the_tests_past_it_and_fails_the_session(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    from tests.servers.scripted_openai import Reply, ScriptedServer

    with ScriptedServer(Reply('{"verdict": "yes"}')) as server:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
        project.makepyfile(test_judged=JUDGED)
        result = project.runpytest_subprocess(
            "-p", "no:cacheprovider", "--scorekit-model", "openai-compatible/budget",
            "--scorekit-max-judge-calls", "4", *workers,
        )  # fmt: skip
        sent = len(server.requests)
    result.assert_outcomes(passed=4, skipped=2)
    assert sent == 4  # under xdist each of the 2 workers holds 2 of the 4 calls
    assert result.ret == 1
    out = " ".join(result.stdout.str().split())
    assert "FAILED judge budget: stopped by its judge budget: max_judge_calls" in out
    assert "4 calls" in out and "2 items not scored" in out
    with Store(project.path / ".scorekit" / "scorekit.db", create=False) as store:
        (run,) = store.list_runs()
    assert run.verdict == "failed" and run.config["budget_stop"]["unscored"] == 2


@pytest.mark.parametrize("where", ["option", "pyproject"])
def test_a_money_budget_reads_the_pyproject_prices_and_stops_the_session(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    from tests.servers.scripted_openai import Reply, ScriptedServer

    # no max_tokens: a call reserves 1,024 reply tokens at $1,000 a million ($1.024; its prompt
    # is free here) and spends 7 ($0.007): 1.0485 admits 4 calls, not a fifth
    table = '[tool.scorekit]\nprices = {"openai-compatible/budget" = [0, 1000]}\n'
    given = ["--scorekit-max-cost", "1.0485"]
    if where == "pyproject":
        table, given = table + "max_cost = 1.0485\n", []
    (project.path / "pyproject.toml").write_text(table)
    with ScriptedServer(Reply('{"verdict": "yes"}')) as server:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
        project.makepyfile(test_judged=JUDGED)
        result = project.runpytest_subprocess(
            "-p", "no:cacheprovider", "--scorekit-model", "openai-compatible/budget", *given
        )
        sent = len(server.requests)
    result.assert_outcomes(passed=4, skipped=2)
    assert sent == 4 and result.ret == 1
    out = " ".join(result.stdout.str().split())
    assert (
        "FAILED judge budget: stopped by its judge budget: max_cost 1.0485 (4 calls, 72 tokens, "
        "$0.0280 spent); 2 items not scored" in out
    )
    with Store(project.path / ".scorekit" / "scorekit.db", create=False) as store:
        (run,) = store.list_runs()
    assert run.config["prices"] == {
        "openai-compatible/budget": {
            "input_per_mtok": 0, "output_per_mtok": 1000, "source": "[tool.scorekit] prices"
        }
    }  # fmt: skip
    assert run.scorers[0]["judge"] == "openai-compatible/budget"


def test_an_odd_budget_is_shared_so_that_the_workers_never_spend_more(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.servers.scripted_openai import Reply, ScriptedServer

    with ScriptedServer(Reply('{"verdict": "yes"}')) as server:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
        project.makepyfile(test_judged=JUDGED)
        result = project.runpytest_subprocess(
            "-p", "no:cacheprovider", "--scorekit-model", "openai-compatible/budget",
            "--scorekit-max-judge-calls", "1", "-n", "2",
        )  # fmt: skip
        sent = len(server.requests)
    result.assert_outcomes(passed=1, skipped=5)
    assert sent == 1  # one worker holds the call, the other starts spent
    out = " ".join(result.stdout.str().split())
    assert "max_judge_calls 1 (1 calls" in out and "5 items not scored" in out


def test_trials_with_none_given_score_once(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_once="""
import pytest
from scorers import length
from scorekit.testing import assert_score

@pytest.mark.scorekit(trials=None, thresholds={"length": 0.1})
def test_it():
    assert_score(length, output="abcde")
"""
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "trials of" not in result.stdout.str()


def test_a_budget_refusing_a_repeat_skips_the_case_and_stores_none_of_it(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.servers.scripted_openai import Reply, ScriptedServer

    marked = JUDGED.replace(
        '@pytest.mark.parametrize("n", range(6))',
        '@pytest.mark.scorekit(trials=2)\n@pytest.mark.parametrize("n", range(6))',
    )
    with ScriptedServer(Reply('{"verdict": "yes"}')) as server:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
        project.makepyfile(test_judged=marked)
        result = project.runpytest_subprocess(
            "-p", "no:cacheprovider", "--scorekit-model", "openai-compatible/budget",
            "--scorekit-max-judge-calls", "3",
        )  # fmt: skip
        sent = len(server.requests)
    # case 0: 2 calls; case 1: its first trial is sent, its repeat refused: skipped
    result.assert_outcomes(passed=1, skipped=5)
    assert sent == 3
    with Store(project.path / ".scorekit" / "scorekit.db", create=False) as store:
        (run,) = store.list_runs()
        stored = trial_scores(store, run.id)
    assert list(stored["judged"]) == ["test_judged.py::test_judged[0]"]
