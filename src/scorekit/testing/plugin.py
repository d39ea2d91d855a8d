"""scorekit's pytest plugin: judge and scorer fixtures, the ``scorekit`` marker, one stored run.

Registered through the ``pytest11`` entry point, so installing scorekit makes it available;
it is inert unless used: registering it imports nothing of scorekit's heavy parts and opens
no store, and a session in which no test scored anything stores, prints and changes nothing.
``-p no:scorekit`` turns it off altogether.

What it adds:

- fixtures: ``scorekit_model`` (the configured judge model string), ``scorekit_judge`` (a
  :class:`~scorekit.judge.Judge` on it) and ``scorekit_scorer`` (a factory: ``name, **options
  → Scorer``, given the judge when the scorer needs one). The model comes from
  ``--scorekit-model``, else ``SCOREKIT_MODEL``, else the ini option ``scorekit_model``, else
  ``model`` in ``[tool.scorekit]`` of pyproject.toml; with none, a test that asks for the
  judge is skipped, the reason naming the three ways;
- every :func:`~scorekit.testing.assert_score` / ``assert_scores`` call in a test is
  recorded: each score becomes a JUnit XML property of the test (``scorekit:<scorer id>``),
  and the session's scores are summarised at its end (per scorer: counts by status, mean,
  minimum, and the failing items with their reasons);
- ``@pytest.mark.scorekit(thresholds={"faithfulness": 0.8})`` on a (parametrised) test: at
  the end of the session the mean of each named scorer over all the test's cases must reach
  its threshold, or the session fails (exit code 1) with the reason in the summary;
  ``min_agreement={"faithfulness": {"auroc": 0.7}}`` gates the judge's agreement with the
  cases' human labels (``assert_score(..., human_label=1)``) the same way, and ``trials=3``
  scores each case three times and prints each scorer's self-consistency
  (:mod:`scorekit.testing.marker`);
- one stored run per session (source ``TEST``, item ids the tests' node ids), when at least
  one score was recorded: in ``--scorekit-db`` / ``SCOREKIT_DB`` / ini ``scorekit_db`` /
  ``[tool.scorekit] db``, default the CLI's ``.scorekit/scorekit.db``; ``--scorekit-no-store``
  (or ini ``scorekit_store = false``, or ``store = false`` in ``[tool.scorekit]``) stores
  nothing. ``--scorekit-run-name`` names the run (default ``pytest``).

Under pytest-xdist (``pytest -n 2``) each worker keeps its own scores and sends them, as JSON
text, to the controller through xdist's ``workeroutput`` (read in ``pytest_testnodedown``).
The controller alone checks the markers, prints the summary and writes the run: the markers'
means need every case wherever it ran, one writer never races another for the run's row,
and the summary is printed once. State lives on the config object (``config.stash``).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from scorekit.judge.judge import Judge
    from scorekit.judge.prices import PriceTable
    from scorekit.judge.spending import SpendingLedger
    from scorekit.pipeline import Scorer
    from scorekit.testing import ScoreCheck
    from scorekit.testing.marker import MarkerSpec
    from scorekit.testing.session import SessionScores

__all__ = [
    "pytest_addoption",
    "pytest_configure",
    "pytest_runtest_call",
    "pytest_runtest_protocol",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "pytest_testnodedown",
    "scorekit_judge",
    "scorekit_model",
    "scorekit_scorer",
]

NO_MODEL_REASON = (
    "no scorekit judge model is configured: pass --scorekit-model provider/model, set "
    "SCOREKIT_MODEL, or set scorekit_model in the pytest ini options (or model in "
    "[tool.scorekit] of pyproject.toml)"
)
"""Why a test that needs the judge is skipped when none is configured."""

_OUTPUT_KEY = "scorekit"  # the key of a worker's scores in xdist's workeroutput
_MAX_REASON = 300  # characters of a reason in the terminal summary


class _State:
    """What the plugin keeps for one session, on ``config.stash``."""

    def __init__(self) -> None:
        self.scores: SessionScores | None = None
        self.run: tuple[str, str] | None = None
        self.store_error: str | None = None
        self.marker_failures: dict[str, list[str]] = {}
        self.ledger: SpendingLedger | None = None  # the session's judge budget, if any
        self.budget_skipped = 0  # tests the budget stopped

    def session_scores(self) -> SessionScores:
        if self.scores is None:
            from scorekit.testing.session import SessionScores

            self.scores = SessionScores()
        return self.scores


_STATE = pytest.StashKey[_State]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--scorekit-*`` options and their ini twins."""
    group = parser.getgroup("scorekit", "scorekit (LLM evaluations)")
    group.addoption(
        "--scorekit-model",
        default=None,
        metavar="PROVIDER/MODEL",
        help="judge model of the scorekit_judge fixture [SCOREKIT_MODEL, ini scorekit_model]",
    )
    group.addoption(
        "--scorekit-db",
        default=None,
        metavar="DB",
        help="where the session's run is stored: a SQLite file or SQLAlchemy URL "
        "[SCOREKIT_DB, ini scorekit_db, else .scorekit/scorekit.db]",
    )
    group.addoption(
        "--scorekit-no-store",
        action="store_true",
        default=False,
        help="do not store the session's scores as a run",
    )
    group.addoption(
        "--scorekit-run-name", default=None, metavar="NAME", help="name of the stored run [pytest]"
    )
    for kind, what in (("calls", "judge calls"), ("tokens", "judge tokens (prompt + completion)")):
        group.addoption(
            f"--scorekit-max-judge-{kind}",
            default=None,
            type=int,
            metavar="N",
            help=f"hard budget of the session's {what}: once spent, tests that would call the "
            f"judge are skipped and the session fails [ini scorekit_max_judge_{kind}]",
        )
        parser.addini(f"scorekit_max_judge_{kind}", f"hard budget of {what}", default=None)
    group.addoption(
        "--scorekit-max-cost",
        default=None,
        type=float,
        metavar="DOLLARS",
        help="hard budget of the session's judge money (US dollars, at the price table's or "
        "[tool.scorekit] prices): once spent, tests that would call the judge are skipped and "
        "the session fails [ini scorekit_max_cost]",
    )
    parser.addini("scorekit_max_cost", "hard budget of judge money (US dollars)", default=None)
    parser.addini("scorekit_model", "judge model of the scorekit_judge fixture", default=None)
    parser.addini("scorekit_db", "database of the session's stored run", default=None)
    parser.addini(
        "scorekit_store", "store the session's scores as a run", type="bool", default=True
    )
    parser.addini("scorekit_run_name", "name of the session's stored run", default=None)


def _pyproject(config: pytest.Config) -> dict[str, Any]:
    """``[tool.scorekit]`` of the rootdir's pyproject.toml (empty when absent)."""
    path = Path(config.rootpath) / "pyproject.toml"
    if not path.is_file():
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pytest depends on tomli before Python 3.11
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise pytest.UsageError(f"scorekit: cannot read {path}: {exc}") from exc
    table = data.get("tool", {}).get("scorekit", {})
    return table if isinstance(table, dict) else {}


def _setting(config: pytest.Config, option: str, env: str | None, ini: str, key: str) -> Any:
    """An option's value: the command line, else the variable, else the ini, else pyproject."""
    value = config.getoption(option)
    if value is None and env is not None:
        value = os.environ.get(env) or None
    if value is None:
        value = config.getini(ini) or None
    if value is None:
        value = _pyproject(config).get(key)
    return value


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker and the session's (empty) state."""
    config.addinivalue_line(
        "markers",
        "scorekit(thresholds, min_agreement, trials): over all the cases of this "
        "(parametrised) test: scorer → minimum mean; scorer → least agreement with the cases' "
        "human labels; how many times each case is scored. Checked at the end of the session",
    )
    config.stash[_STATE] = state = _State()
    state.ledger = _ledger(config)


def _ledger(config: pytest.Config) -> SpendingLedger | None:
    """The session's judge budget; under xdist each worker holds an equal share of it.

    A money budget (``--scorekit-max-cost``) reads the price table and ``prices`` of
    ``[tool.scorekit]`` (model → ``[IN, OUT]`` dollars per million tokens).
    """
    limits = {
        name: _setting(config, f"scorekit_{name}", None, f"scorekit_{name}", name)
        for name in ("max_judge_calls", "max_judge_tokens", "max_cost")
    }
    if all(value is None for value in limits.values()):
        return None
    from scorekit.errors import ConfigError
    from scorekit.judge.spending import JudgeBudget, SpendingLedger

    worker = getattr(config, "workerinput", {})
    workers = int(worker.get("workercount", 1))
    index = int(str(worker.get("workerid", "gw0")).removeprefix("gw") or 0)
    try:
        calls, tokens, money = (
            limits[n] for n in ("max_judge_calls", "max_judge_tokens", "max_cost")
        )
        budget = JudgeBudget(
            None if calls is None else int(calls),
            None if tokens is None else int(tokens),
            None if money is None else float(money),
        )
        prices = _prices(config)
    except (ConfigError, ValueError, TypeError) as exc:
        raise pytest.UsageError(f"scorekit: {exc}") from exc
    return SpendingLedger.share(budget, index, workers, prices)


def _prices(config: pytest.Config) -> PriceTable:
    """The session's prices: ``prices`` of ``[tool.scorekit]`` over the pinned table.

    Raises:
        ConfigError: a malformed price (``field="prices"``).
    """
    from scorekit.judge.prices import PriceTable

    return PriceTable(_pyproject(config).get("prices"), source="[tool.scorekit] prices")


def _group(item: pytest.Item) -> tuple[str, MarkerSpec] | None:
    marker = item.get_closest_marker("scorekit")
    if marker is None:
        return None
    from scorekit.testing.marker import check_marker

    count = len(list(item.iter_markers("scorekit")))
    spec = check_marker(marker.kwargs, item.nodeid, args=marker.args, markers=count)
    callspec = getattr(item, "callspec", None)
    node = item.nodeid
    if callspec is not None and node.endswith(f"[{callspec.id}]"):
        node = node[: -len(f"[{callspec.id}]")]
    return node, spec


def _sink(state: _State, item: pytest.Item) -> Callable[[ScoreCheck], None]:
    def record(check: ScoreCheck) -> None:
        named = state.session_scores().add(check, item.nodeid, _group(item))
        for sid, result in named.results.items():
            value = repr(result.score) if result.status == "ok" else result.status
            item.user_properties.append((f"scorekit:{sid}", value))

    return record


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    """Record the test's score checks (setup, call and teardown) in the session."""
    from scorekit.errors import ConfigError
    from scorekit.judge.spending import JUDGE_LEDGER
    from scorekit.testing import recording, repeating

    state = item.config.stash[_STATE]
    try:  # a marked test that records no score still counts: its gates gated nothing
        group = _group(item)
    except ConfigError:  # a malformed marker fails the test that records a score under it
        group = None
    token = JUDGE_LEDGER.set(state.ledger)
    try:
        with recording(_sink(state, item)), repeating(1 if group is None else group[1].trials):
            outcome = yield
    finally:
        JUDGE_LEDGER.reset(token)
    if group is not None:
        state.session_scores().groups.setdefault(*group)
    return outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """A test the judge budget stopped is skipped, saying so (the session then fails)."""
    from scorekit.errors import JudgeBudgetError

    try:
        return (yield)
    except JudgeBudgetError as exc:
        item.config.stash[_STATE].budget_skipped += 1
        pytest.skip(f"scorekit: {exc}")


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object | None) -> None:
    """On the xdist controller: take a finished worker's scores."""
    output = getattr(node, "workeroutput", None) or {}
    text = output.get(_OUTPUT_KEY)
    if text:
        node.config.stash[_STATE].session_scores().merge_json(text)


def _run_config(config: pytest.Config, scores: SessionScores) -> dict[str, Any]:
    return {
        "pytest": {
            "args": [str(arg) for arg in config.invocation_params.args],
            "rootdir": str(config.rootpath),
            "markers": {group: spec.to_dict() for group, spec in scores.groups.items()},
        }
    }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Hand a worker's scores over; else check the markers and store the run."""
    config = session.config
    state = config.stash[_STATE]
    ledger = state.ledger
    if ledger is not None and (ledger.calls or state.budget_skipped):  # not an idle controller
        state.session_scores().spent(ledger.to_dict(), state.budget_skipped)
    if hasattr(config, "workerinput"):  # an xdist worker: the controller does the rest
        scores = state.scores
        if scores is not None and (scores.checks or scores.groups or scores.budget_stop):
            config.workeroutput[_OUTPUT_KEY] = scores.to_json()  # type: ignore[attr-defined]
        return
    scores = state.scores
    if scores is not None and scores.stopped and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED  # a budget stop is never a pass
    if scores is None or not scores.checks:
        return  # nothing to store (a marked test's unchecked thresholds: the summary says so)
    state.marker_failures = scores.marker_failures()
    if state.marker_failures and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if (
        not config.getoption("scorekit_no_store")
        and config.getini("scorekit_store")
        and (_pyproject(config).get("store", True) is not False)
    ):
        from scorekit.errors import ScorekitError

        db = _setting(config, "scorekit_db", "SCOREKIT_DB", "scorekit_db", "db")
        name = _setting(config, "scorekit_run_name", None, "scorekit_run_name", "run_name")
        try:
            prices = state.ledger.prices if state.ledger is not None else _prices(config)
            state.run = scores.store(
                db, name=name or "pytest", config=_run_config(config, scores), prices=prices
            )
        except ScorekitError as exc:
            state.store_error = str(exc)


def _short(text: Any) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= _MAX_REASON else line[: _MAX_REASON - 1] + "…"


def _summary_lines(state: _State, width: int) -> list[str]:
    from rich.console import Console

    from scorekit.cli.console import summary_table
    from scorekit.judge.spending import budget_text

    scores = state.session_scores()
    buffer = io.StringIO()
    # wide enough for the table never to cut a number; the terminal wraps what it must
    console = Console(file=buffer, width=max(width, 200), color_system=None, highlight=False)
    console.print(summary_table(scores.summaries(), title=f"{len(scores.checks)} scored items"))
    lines = buffer.getvalue().rstrip("\n").splitlines()
    failed = scores.failed_checks()
    if failed:
        lines.append("failing items:")
    for check in failed:
        for sid, why in check.failures.items():
            result = check.results[sid]
            lines.append(f"  {check.item.id} {sid}: {why}")
            if result.reason is not None:
                lines.append(f"      reason: {_short(result.reason)}")
            if result.error is not None:
                lines.append(f"      error: {result.error.type}: {_short(result.error.message)}")
    lines.extend(_trials_lines(scores, width))
    if scores.stopped and scores.budget_stop is not None:
        lines.append(f"FAILED judge budget: {budget_text(scores.budget_stop)}")
    for group, reasons in state.marker_failures.items():
        lines.append(f"FAILED gates of {group}: {'; '.join(reasons)}")
    lines.extend(_unchecked_lines(scores))
    if state.run is not None:
        lines.append(f"stored: run {state.run[0]} in {state.run[1]}")
    if state.store_error is not None:
        lines.append(f"the session's run was not stored: {state.store_error}")
    return lines


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Print the session's scores: the summary table, the failing items, the marker gates."""
    state = config.stash[_STATE]
    if hasattr(config, "workerinput") or state.scores is None:
        return
    if not state.scores.checks:  # only marked tests that scored nothing
        lines = _unchecked_lines(state.scores)
        if lines:
            terminalreporter.write_sep("=", "scorekit")
            for line in lines:
                terminalreporter.write_line(line, yellow=True)
        return
    terminalreporter.write_sep("=", "scorekit")
    for line in _summary_lines(state, terminalreporter._tw.fullwidth):
        red = line.startswith(("FAILED", "the session's run was not stored"))
        terminalreporter.write_line(line, red=red, yellow=line.startswith("gates of"))


def _trials_lines(scores: SessionScores, width: int) -> list[str]:
    from rich.console import Console

    from scorekit.cli.console import trials_table

    lines: list[str] = []
    for group, found in scores.marker_trials().items():
        buffer = io.StringIO()
        console = Console(file=buffer, width=max(width, 200), color_system=None, highlight=False)
        console.print(trials_table(found))
        lines.append(f"trials of {group}:")
        lines.extend(buffer.getvalue().rstrip("\n").splitlines())
    return lines


def _unchecked_lines(scores: SessionScores) -> list[str]:
    return [
        f"gates of {group} not checked: none of its cases recorded a score"
        for group in scores.unchecked_markers()
    ]


@pytest.fixture(scope="session")
def scorekit_model(pytestconfig: pytest.Config) -> str:
    """The configured judge model string; skips the test when none is configured."""
    model = _setting(pytestconfig, "scorekit_model", "SCOREKIT_MODEL", "scorekit_model", "model")
    if not model:
        pytest.skip(NO_MODEL_REASON)
    return str(model)


@pytest.fixture(scope="session")
def scorekit_judge(scorekit_model: str) -> Judge:
    """A :class:`~scorekit.judge.Judge` on the configured model (skips without one)."""
    from scorekit.judge.judge import Judge

    return Judge(scorekit_model)


@pytest.fixture
def scorekit_scorer(request: pytest.FixtureRequest) -> Callable[..., Scorer]:
    """A factory: ``scorekit_scorer(name, **options)`` builds a registered scorer.

    An LLM scorer gets the ``scorekit_judge`` as its ``model`` unless ``model=`` is given,
    so a test using one is skipped when no judge is configured.
    """
    from scorekit.scorers.registry import build_scorer, get_entry

    def make(name: str, /, **options: Any) -> Scorer:
        if get_entry(name).kind == "llm" and options.get("model") is None:
            options["model"] = request.getfixturevalue("scorekit_judge")
        return build_scorer(name, **options)

    return make
