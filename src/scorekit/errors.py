"""The one error hierarchy of scorekit.

```
ScorekitError
├── ConfigError (also ValueError)   bad option or input; names the field
│   └── TextLimitError              a text field longer than max_text_chars (an item's error)
├── JudgeError
│   ├── JudgeUnavailableError       unknown provider, missing key or extra
│   ├── JudgeHTTPError              status_code, retry_after
│   ├── JudgeTimeoutError
│   ├── JudgeContextWindowError     prompt_tokens, context_window
│   ├── JudgeOutputError            raw output, schema, attempts
│   └── JudgeBudgetError            the run's judge budget would be crossed: limit, budget
├── ScorerRunError                  scorer id, failed step, completed steps, partial result
├── ScorerTimeoutError              a local scorer call ran past scorer_timeout
├── TargetTimeoutError              a target call ran past target_timeout (an item's error)
├── StoreError                      the results database failed or lacks a run; url (no password)
├── ClusterError                    a Ray run could not finish (no room, a batch lost too often)
├── DataSourceError *               the dataset iterable raised; partial result
├── LogprobError * (also ValueError)   log-probabilities that give no label distribution
├── ScriptExhaustedError * (also RuntimeError)   a ScriptedJudge has no reply left
└── ScoreAssertionError * (also AssertionError)  assert_score: a score out of its bound

KeyboardInterrupt (not a ScorekitError: ``except Exception`` must not swallow Ctrl-C)
└── EvalInterrupted *               Ctrl-C stopped run_evals_sync; the partial result is stored
```

The classes marked ``*`` are defined beside the value they carry or the part that raises them
(:mod:`scorekit.evals.result`, :mod:`scorekit.judge.logprobs`, :mod:`scorekit.judge.scripted`,
:mod:`scorekit.testing.assertions`) and exported from their package; the others live here.
Every error carries its data as attributes (all optional keywords, so the default exception
pickling restores them for worker processes) and never includes an API key in its message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scorekit.results import ScorerRunResult
    from scorekit.usage import JudgeUsage

__all__ = [
    "ClusterError",
    "ConfigError",
    "JudgeBudgetError",
    "JudgeContextWindowError",
    "JudgeError",
    "JudgeHTTPError",
    "JudgeOutputError",
    "JudgeTimeoutError",
    "JudgeUnavailableError",
    "ScorekitError",
    "ScorerRunError",
    "ScorerTimeoutError",
    "StoreError",
    "TargetTimeoutError",
    "TextLimitError",
]


class ScorekitError(Exception):
    """Base class of every error scorekit raises on purpose."""


class ConfigError(ScorekitError, ValueError):
    """A bad option or input value.

    Attributes:
        field: the name of the option, argument or data field that is wrong (``None`` when the
            error is not about one field).
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class TextLimitError(ConfigError):
    """An item's text field is longer than the run's ``max_text_chars``.

    Recorded as the item's error (``RunError.type``), never raised out of a run.

    Attributes:
        field: the item field (``output``, ``input``, ``ground_truth``, ``context``, ...).
        length: the characters the field holds.
        limit: the run's ``max_text_chars``.
    """

    def __init__(
        self, message: str, *, field: str | None = None, length: int = 0, limit: int = 0
    ) -> None:
        super().__init__(message, field=field)
        self.length = length
        self.limit = limit


class JudgeError(ScorekitError):
    """A judge (LLM) call failed.

    Attributes:
        usage: the judge usage spent before the failure (a ``JudgeUsage``), when known.
    """

    def __init__(self, message: str, *, usage: JudgeUsage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


class JudgeUnavailableError(JudgeError):
    """The judge cannot be used: unknown provider, missing API key or missing optional extra."""


class JudgeHTTPError(JudgeError):
    """The judge's server answered with an HTTP error after all retries.

    Attributes:
        status_code: the HTTP status code of the last response (0 when unknown).
        retry_after: the server's ``Retry-After`` in seconds, when it sent one.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int = 0,
        retry_after: float | None = None,
        usage: JudgeUsage | None = None,
    ) -> None:
        super().__init__(message, usage=usage)
        self.status_code = status_code
        self.retry_after = retry_after


class JudgeTimeoutError(JudgeError):
    """A judge call did not finish within its timeout."""


class JudgeContextWindowError(JudgeError):
    """The prompt does not fit the model's context window; it is never silently truncated.

    Attributes:
        prompt_tokens: the prompt's size in tokens, when known.
        context_window: the model's context window in tokens, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        prompt_tokens: int | None = None,
        context_window: int | None = None,
        usage: JudgeUsage | None = None,
    ) -> None:
        super().__init__(message, usage=usage)
        self.prompt_tokens = prompt_tokens
        self.context_window = context_window


class JudgeBudgetError(JudgeError):
    """The call was not sent: it would cross the run's judge budget (``max_judge_calls`` ...).

    The run then starts no new item; the results this refusal touched are not stored, so
    ``--resume`` with a larger budget scores them (:mod:`scorekit.judge.spending`).

    Attributes:
        limit: the budget's name (``"max_judge_calls"``, ``"max_judge_tokens"`` or
            ``"max_cost"``).
        budget: its value (calls, tokens, or US dollars).
    """

    def __init__(self, message: str, *, limit: str = "", budget: float = 0) -> None:
        super().__init__(message)
        self.limit = limit
        self.budget = budget


class JudgeOutputError(JudgeError):
    """The judge's reply could not be turned into the requested structured output.

    Attributes:
        raw_output: the judge's last raw reply text (``None`` if there was none).
        schema_name: the name of the schema the reply had to satisfy.
        attempts: how many judge calls were made for this output (including repairs).
    """

    def __init__(
        self,
        message: str,
        *,
        raw_output: str | None = None,
        schema_name: str | None = None,
        attempts: int = 1,
        usage: JudgeUsage | None = None,
    ) -> None:
        super().__init__(message, usage=usage)
        self.raw_output = raw_output
        self.schema_name = schema_name
        self.attempts = attempts


class ScorerRunError(ScorekitError):
    """A step of a scorer run failed.

    The message reads ``"Scorer Run Failed: <cause>"`` as in Mastra.

    Attributes:
        scorer_id: the id of the scorer that failed.
        failed_step: the step that raised (``"preprocess"``, ``"analyze"``,
            ``"generate_score"`` or ``"generate_reason"``).
        completed_steps: the steps that finished before it, in order.
        result: the partial result (status ``"error"``) with the results and prompts of the
            completed steps, the judge usage so far and the error details.
    """

    def __init__(
        self,
        message: str,
        *,
        scorer_id: str = "",
        failed_step: str = "",
        completed_steps: tuple[str, ...] = (),
        result: ScorerRunResult | None = None,
    ) -> None:
        super().__init__(message)
        self.scorer_id = scorer_id
        self.failed_step = failed_step
        self.completed_steps = completed_steps
        self.result = result


class StoreError(ScorekitError):
    """The results database could not be opened, read or written, or has no such run.

    Attributes:
        url: the database URL with any password masked, when known.
        run_id: the run concerned, when there is one.
    """

    def __init__(self, message: str, *, url: str | None = None, run_id: str | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.run_id = run_id


class ScorerTimeoutError(ScorekitError):
    """A local scorer call took longer than ``scorer_timeout`` (or was not started)."""


class TargetTimeoutError(ScorekitError):
    """A target call took longer than ``target_timeout`` (or was not started).

    Recorded as the item's error (``RunError.type``), never raised out of a run.
    """


class ClusterError(ScorekitError):
    """The cluster could not finish the run: no room for the workers, or a batch lost too often."""
