"""``Judge``: a model plus instructions, asked for structured output or text by prompt steps.

A judge is a stack of layers, each knowing only the one below (style.md rule 3)::

    Judge.generate_object / generate_text    prompt building, usage accounting
      repair          one repair request; the cut-off rule             (repair.py, budget.py)
      cache           persistent SQLite judge-call cache               (cache.py)
      retry           backoff + jitter on 429/5xx/connection errors    (retry.py)
      spending        each attempt against the run's judge budget      (spending.py)
      rate limit      per-model AIMD concurrency limiter, shared       (ratelimit.py)
      timeout         hard deadline per attempt                        (timeout.py)
      adapter         OpenAI-compatible / Anthropic / local / test     (openai_compat.py ...)
      HTTP            the provider SDK's client

Retry sits above the rate limiter (a design choice): the limiter then sees every attempt's
outcome, including the 429s that a retry hides, and a request waiting out its backoff holds no
slot. The timeout sits below it, so time spent queueing for a slot never counts against a
call's deadline.

A judge built from a model string has a :class:`JudgeSpec`, its recipe as plain data (model
string, instructions, options; never the API key), and pickles as that spec: the receiving
process (a Ray worker, a process pool) builds its own judge, with its own SDK clients, limiter
and cache connection (:mod:`scorekit.judge.spec`). ``JudgeSpec`` is defined here, beside
``Judge``, because the two refer to each other: in two modules they would import each other.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from scorekit.errors import ConfigError, JudgeBudgetError, JudgeError
from scorekit.judge.adapters import build_model
from scorekit.judge.budget import first_budget, spec_bound
from scorekit.judge.judge_result import JudgeResult, UsageMeter
from scorekit.judge.model import ChatMessage, JudgeModel, JudgeRequest, JudgeResponse, JudgeUsage
from scorekit.judge.providers import resolve_model, url_problem
from scorekit.judge.ratelimit import AdaptiveLimiter
from scorekit.judge.repair import ask_structured, ask_text
from scorekit.judge.settings import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_RETRIES,
    DEFAULT_RETRY_BACKOFF_S,
    JudgeSettings,
    check_plain_options,
    given_options,
)
from scorekit.judge.stack import stack_layers
from scorekit.judge.structured import OutputSchema, SchemaSpec
from scorekit.judge.timeout import adapter_timeout
from scorekit.judge.trial import trial_seed

if TYPE_CHECKING:
    pass

__all__ = ["DEFAULT_INSTRUCTIONS", "Judge", "JudgeSpec"]

T = TypeVar("T")

DEFAULT_INSTRUCTIONS = (
    "You are a careful, impartial evaluator of AI system outputs. Follow the task exactly and "
    "answer only in the requested format."
)
"""System instructions used when a judge is created without its own."""

_log = logging.getLogger("scorekit.judge")


class Judge:
    """A judge model with its system instructions, retries, rate limit and cache.

    Args:
        model: ``"provider/model"`` (e.g. ``"openai/gpt-4o-mini"``, ``"ollama/llama3.2"``,
            ``"local/smollm2"``; see :func:`~scorekit.judge.providers.list_providers`) or
            any :class:`~scorekit.judge.model.JudgeModel` object.
        instructions: the system prompt sent with every request (non-empty). When omitted, a
            prebuilt scorer given this judge uses its own instructions (Mastra's field-wise
            fallback), and :data:`DEFAULT_INSTRUCTIONS` serve elsewhere.
        timeout: seconds one attempt may take (``> 0``); a hung call is cancelled and fails
            with ``JudgeTimeoutError``. ``None`` fits the judge: 60 s for a hosted API, a
            deadline from its measured speed for the local judge (local.py).
        max_retries: retries on 429, 5xx and connection errors (``>= 0``), honouring
            ``Retry-After``.
        retry_backoff: first retry delay in seconds without ``Retry-After`` (``>= 0``);
            doubles per retry, jittered.
        concurrency: most requests in flight to this model (``>= 1``), shared by every judge
            on the same model; adapts down on 429 and back up on success. Default 8, and 1
            for ``local/...`` (the in-process server answers one request at a time).
        temperature: sampling temperature in ``[0, 2]`` (default 0).
        seed: sampling seed, sent where the provider accepts one.
        max_tokens: reply budget in tokens (``>= 1``) or ``None`` (the provider's); a reply
            with a bounded schema gets its bound's budget, or this when smaller (budget.py).
        cache: use the persistent judge-call cache (models from provider strings only; a
            ``JudgeModel`` object has no stable identity to key on, and ``test/...`` is never
            cached).
        cache_dir: the cache folder (default ``.scorekit/`` under the working directory).
        context_window: the local judge's window in tokens (default 8,192, ``>= 256``).
        base_url: the endpoint for a model string, an ``http(s)://`` URL with a host
            (required for ``openai-compatible`` unless ``OPENAI_COMPATIBLE_BASE_URL`` is set);
            wins over the environment.
        api_key: the API key for a model string; wins over the environment. Never shown in
            ``repr``, errors, logs, results or cache keys, and never pickled (see below).

    A judge built from a model string pickles as its :attr:`spec` and is built again on the
    other side (:meth:`JudgeSpec.build`), with its own SDK clients, limiter and cache
    connection, so it can be sent to Ray workers or a process pool. The pickled bytes hold no
    API key: the receiving process reads the key from its own environment (the provider's
    variable, e.g. ``OPENAI_API_KEY``) even when ``api_key=`` was passed here, and fails to
    unpickle with ``JudgeUnavailableError`` when it has none. Likewise a base URL taken from a
    ``<PROVIDER>_BASE_URL`` variable is read again there; one passed as ``base_url=`` travels.
    A judge around a ``JudgeModel`` object has no spec and refuses to pickle.

    Raises:
        ConfigError: an option is invalid (``field`` names it).
        JudgeUnavailableError: the model string is malformed, its provider unknown, or its
            API key, base URL or optional extra missing, or a ``<PROVIDER>_BASE_URL``
            variable malformed; the message says what to set.

    Example::

        judge = Judge("openai/gpt-4o-mini", timeout=30, concurrency=16)
        result = await judge.generate_object("Label this ...", Verdicts, step="analyze")
    """

    def __init__(
        self,
        model: JudgeModel | str,
        instructions: str | None = None,
        *,
        timeout: float | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_backoff: float = DEFAULT_RETRY_BACKOFF_S,
        concurrency: int | None = None,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int | None = None,
        cache: bool = True,
        cache_dir: str | os.PathLike[str] | None = None,
        context_window: int | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> None:
        if instructions is not None and (
            not isinstance(instructions, str) or not instructions.strip()
        ):
            raise ConfigError("instructions must be a non-empty string", field="instructions")
        concurrency_given = concurrency is not None
        if concurrency is None:
            # the in-process llama.cpp server answers one request at a time: more in flight
            # would only queue inside it, where their timeouts are already running
            local = isinstance(model, str) and model.startswith("local/")
            concurrency = 1 if local else DEFAULT_CONCURRENCY
        settings = JudgeSettings.create(
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
            concurrency=concurrency,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            cache=cache,
            cache_dir=cache_dir,
            context_window=context_window,
        )
        for name, value in (("base_url", base_url), ("api_key", api_key)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError(f"{name} must be a non-empty string", field=name)
        identity: dict[str, Any] | None = None
        spec: JudgeSpec | None = None
        if isinstance(model, str):
            resolved = resolve_model(model, base_url=base_url, api_key=api_key)
            built = build_model(
                resolved,
                timeout=adapter_timeout(settings.timeout, resolved.provider.protocol),
                context_window=settings.context_window,
            )
            options = given_options(
                settings,
                concurrency_given=concurrency_given,
                cache_dir_given=cache_dir is not None,
                base_url=base_url,
            )
            spec = JudgeSpec(model, instructions, options)
            if resolved.provider.protocol != "test":
                identity = dict(getattr(built, "identity", None) or {}) or None
        elif isinstance(model, JudgeModel):
            if base_url is not None or api_key is not None:
                field = "base_url" if base_url is not None else "api_key"
                raise ConfigError(
                    f"{field} applies to model strings only; configure your JudgeModel itself",
                    field=field,
                )
            built = model
        else:
            raise ConfigError(
                f"model must be a 'provider/model' string or a JudgeModel, "
                f"not {type(model).__name__}",
                field="model",
            )
        self.model: JudgeModel = built
        """The lowest layer: the protocol adapter or the given ``JudgeModel`` object."""
        self.instructions = instructions or DEFAULT_INSTRUCTIONS
        """The system prompt sent with every request."""
        self.has_own_instructions = instructions is not None
        """Whether the judge was given instructions (else a prebuilt scorer gives it its own)."""
        self.settings = settings
        """The validated keyword options."""
        self._spec = spec
        self._transport, self._limiter = stack_layers(built, settings, identity, owner=self)

    @property
    def model_id(self) -> str:
        """The model's ``"provider/name"``."""
        return self.model.model_id

    @property
    def limiter(self) -> AdaptiveLimiter:
        """The concurrency limiter this judge shares with every judge on the same model."""
        return self._limiter

    @property
    def layers(self) -> JudgeModel:
        """The outermost layer below the repair loop (cache, retry, limit, timeout, model)."""
        return self._transport

    @property
    def spec(self) -> JudgeSpec | None:
        """The judge's recipe as plain data (no API key), or ``None`` for a ``JudgeModel`` object.

        ``judge.spec.build()`` makes an equivalent judge; pickling sends this spec.
        """
        return self._spec

    def __repr__(self) -> str:
        return f"Judge(model={self.model_id!r})"

    def __copy__(self) -> Judge:
        # a shallow copy shares the model, limiter and cache (pickling, by __reduce__, does not)
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin

    def __reduce__(self) -> tuple[Callable[[JudgeSpec], Judge], tuple[JudgeSpec]]:
        """Pickle as the judge's :attr:`spec`, built again on unpickling (no API key inside).

        Raises:
            TypeError: the judge was built around a ``JudgeModel`` object, which has no spec.
        """
        if self._spec is None:
            raise TypeError(
                "cannot pickle a Judge built around a JudgeModel object "
                f"({type(self.model).__name__}): "
                "build it from a model string, Judge('provider/model', ...), to send it to "
                "another process"
            )
        return (_build_judge, (self._spec,))

    def with_instructions(self, instructions: str) -> Judge:
        """Return a judge with other instructions, sharing this one's model, limiter and cache.

        Its :attr:`spec` (if any) holds the new instructions.

        Raises:
            ConfigError: ``instructions`` is empty or not a string.
        """
        if not isinstance(instructions, str) or not instructions.strip():
            raise ConfigError("instructions must be a non-empty string", field="instructions")
        twin = self.__copy__()
        twin.instructions = instructions
        twin.has_own_instructions = True
        if self._spec is not None:
            twin._spec = replace(self._spec, instructions=instructions)
        twin._limiter.claim(self.settings.concurrency, owner=twin)
        return twin

    def _request(self, prompt: str, spec: SchemaSpec | None, step: str | None) -> JudgeRequest:
        return JudgeRequest(
            messages=(ChatMessage("system", self.instructions), ChatMessage("user", prompt)),
            output_schema=spec.json_schema if spec else None,
            output_model=spec.model if spec else None,
            schema_name=spec.name if spec else "text",
            step=step,
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
            seed=trial_seed(self.settings.seed),  # a repeat (trials=k) samples anew
        )

    async def _send(self, meter: UsageMeter, request: JudgeRequest) -> JudgeResponse:
        started = time.perf_counter()
        try:
            response = await self._transport.complete(request)
        except JudgeError as exc:
            below = exc.usage or JudgeUsage(attempts=1)  # the deadline, from the layers below
            attempts = below.attempts
            if isinstance(exc, JudgeBudgetError):  # its last attempt was refused, not sent
                attempts -= 1
            failed = JudgeUsage(
                calls=min(1, attempts), attempts=attempts, latency_s=time.perf_counter() - started
            )
            meter.usage = meter.usage + JudgeUsage.budgets(request.max_tokens, below.timeout_s)
            meter.usage = meter.usage + failed
            raise
        used = JudgeUsage(
            calls=1,
            input_tokens=response.input_tokens,
            output_tokens=response.output_tokens,
            latency_s=time.perf_counter() - started,
            cache_hits=int(response.cache_hit),
            attempts=response.attempts,
        )
        if not response.cache_hit:  # a cache hit spent no budget
            budget = response.max_tokens or request.max_tokens
            used = used + JudgeUsage.budgets(budget, response.timeout_s)
        meter.usage = meter.usage + used
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug(
                "judge %s step=%s tokens=%d/%d latency=%.3fs attempts=%d cache_hit=%s finish=%s",
                self.model_id,
                request.step,
                used.input_tokens,
                used.output_tokens,
                used.latency_s,
                used.attempts,
                response.cache_hit,
                response.finish_reason,
            )
        return response

    async def generate_object(
        self,
        prompt: str,
        schema: OutputSchema,
        *,
        step: str | None = None,
        top_logprobs: int | None = None,
    ) -> JudgeResult[Any]:
        """Ask for output that satisfies ``schema``.

        The reply budget follows from the schema's bound (:mod:`scorekit.judge.budget`). The
        reply is parsed tolerantly (fences, prose) and validated; an invalid reply gets one
        repair request, a cut-off one the cut-off rule (:mod:`scorekit.judge.repair`).

        Args:
            prompt: the user prompt.
            schema: a pydantic model class, a JSON schema dict or a ``SchemaSpec``.
            step: the asking step's name, for logs and test doubles.
            top_logprobs: ask for each reply token's log-probability and this many top
                alternatives (``1``-``20``; a repair asks too), for the result's ``logprobs``;
                by default the schema's ``reader`` says how many (else none).

        Returns:
            The validated value (a model instance for a pydantic schema, else the JSON value),
            the raw reply and the usage of every request made.

        Raises:
            JudgeOutputError: still invalid after the repair, or the schema's ``reader``
                refused the reply's log-probabilities; holds the raw text.
            JudgeError: the call failed (HTTP, timeout, context window); ``usage`` holds what
                was spent.
        """
        spec = SchemaSpec.of(schema)
        reader = spec.reader
        if top_logprobs is None and reader is not None:
            top_logprobs = reader.top_logprobs
        meter = UsageMeter()
        try:
            bound = spec_bound(spec)
            budget = first_budget(bound, self.settings.max_tokens)
            first = replace(
                self._request(prompt, spec, step), max_tokens=budget, top_logprobs=top_logprobs
            )
            value, response = await ask_structured(
                lambda request: self._send(meter, request), first, spec, bound
            )
            if reader is not None:
                value = reader.read(value, response.text, response.logprobs)
        except JudgeError as exc:
            exc.usage = meter.usage
            raise
        return JudgeResult(value, response.text, meter.usage, self.model_id, response.logprobs)

    async def generate_text(self, prompt: str, *, step: str | None = None) -> JudgeResult[str]:
        """Ask for free text (e.g. a reason).

        Args:
            prompt: the user prompt.
            step: the asking step's name.

        Raises:
            JudgeOutputError: the reply is empty (after one repair request), or cut off at
                ``max_tokens`` (not retried: free text has no bound).
            JudgeError: the call failed; ``usage`` holds what was spent.
        """
        meter = UsageMeter()
        try:
            response = await ask_text(
                lambda request: self._send(meter, request), self._request(prompt, None, step)
            )
        except JudgeError as exc:
            exc.usage = meter.usage
            raise
        return JudgeResult(response.text, response.text, meter.usage, self.model_id)


@dataclass(frozen=True)
class JudgeSpec:
    """The recipe of a :class:`Judge` as plain data: picklable, JSON-able, without secrets.

    A judge built from a model string has one (:attr:`Judge.spec`) and pickles as it; scorer
    specs embed it to cross process boundaries. :meth:`build` makes a new judge: the model
    string is resolved again where it is built, so the API key (never part of a spec) and any
    ``<PROVIDER>_BASE_URL`` come from that process's environment.

    Args:
        model: the ``"provider/model"`` string.
        instructions: the judge's own instructions, or ``None``.
        options: keyword options of :class:`Judge` as JSON scalars, names from
            :data:`~scorekit.judge.settings.SPEC_OPTIONS` (``cache_dir`` a path string; a
            ``PathLike`` is turned into one); ``None`` where it is the default is dropped.

    Raises:
        ConfigError: a field is invalid, an option unknown, ``api_key`` given, or an option's
            value one :class:`Judge` would refuse (``field`` names it). The model string is
            resolved by :meth:`build`, not here (that reads the environment).

    Example::

        spec = JudgeSpec("openai/gpt-4o-mini", options={"timeout": 30, "concurrency": 16})
        assert JudgeSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
        judge = spec.build()  # reads OPENAI_API_KEY in this process
    """

    model: str
    """The ``"provider/model"`` string (``"openai/gpt-4o-mini"``, ``"local/smollm2"``)."""
    instructions: str | None = None
    """The judge's own system instructions, or ``None`` when it had none (a prebuilt scorer then
    gives it its own)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The keyword options the judge was built with, where not the default, as JSON scalars in
    :data:`~scorekit.judge.settings.SPEC_OPTIONS` order (``cache_dir`` as the absolute path the
    judge used); never ``api_key``."""

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise ConfigError("model must be a non-empty 'provider/model' string", field="model")
        if self.instructions is not None and (
            not isinstance(self.instructions, str) or not self.instructions.strip()
        ):
            raise ConfigError(
                "instructions must be a non-empty string or None", field="instructions"
            )
        options = check_plain_options(self.options)
        url = options.get("base_url")
        problem = url_problem(url) if url is not None else None
        if problem:
            raise ConfigError(f"base_url is not a usable URL: {problem}", field="base_url")
        object.__setattr__(self, "options", options)

    def __hash__(self) -> int:
        return hash((self.model, self.instructions, tuple(self.options.items())))

    def build(self) -> Judge:
        """Make the judge this spec describes, resolving the model string in this process.

        Returns:
            A new judge (sharing the limiter and cache of judges on the same model here).

        Raises:
            JudgeUnavailableError: the model string cannot be resolved here (unknown provider,
                no API key in this environment, missing extra ...).
            ConfigError: ``base_url`` is not a usable URL.
        """
        return Judge(self.model, self.instructions, **self.options)

    def to_dict(self) -> dict[str, Any]:
        """Return the spec as JSON-able data: ``{"model", "instructions", "options"}``."""
        return {
            "model": self.model,
            "instructions": self.instructions,
            "options": dict(self.options),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JudgeSpec:
        """Read a spec written by :meth:`to_dict` (``instructions`` and ``options`` optional).

        Raises:
            ConfigError: ``data`` is not a mapping, lacks ``model``, has unknown keys, or holds
                invalid fields (``field`` names it).
        """
        if not isinstance(data, Mapping):
            raise ConfigError(
                f"a judge spec must be a mapping, not {type(data).__name__}", field="judge"
            )
        unknown = sorted(str(key) for key in data if key not in _SPEC_FIELDS)
        if unknown:
            raise ConfigError(
                f"unknown judge spec field {unknown[0]!r}; expected {', '.join(_SPEC_FIELDS)}",
                field=unknown[0],
            )
        if "model" not in data:
            raise ConfigError("a judge spec needs a 'model' ('provider/model')", field="model")
        return cls(data["model"], data.get("instructions"), data.get("options", {}))


_SPEC_FIELDS = ("model", "instructions", "options")


def _build_judge(spec: JudgeSpec) -> Judge:
    """Unpickle a judge: build it from its spec (module level, so pickle can name it)."""
    return spec.build()
