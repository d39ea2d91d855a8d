"""A run plan: everything ``scorekit run`` needs, from command-line flags or a YAML config.

The plan holds the items (read lazily), the scorers (built through the registry,
:func:`scorekit.scorers.build_scorer`, so a name may be a built-in, ``module:factory`` or a
scorer another package registered), the target, the thresholds mapped to scorer ids, and the
settings of the store and the report. LLM scorers on the same model share one judge, built
with the run's judge settings.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scorekit.cli.config import RunConfig, load_target
from scorekit.cli.option_texts import parse_error_rates, parse_pairs, parse_value
from scorekit.datasets.files import OPTIONAL_FIELDS, FieldMap, read_dataset
from scorekit.errors import ConfigError
from scorekit.evals.gates import check_max_error_rate, check_thresholds, resolve_scorer_keys
from scorekit.evals.scorer_threads import DEFAULT_SCORER_TIMEOUT
from scorekit.evals.target_calls import DEFAULT_TARGET_TIMEOUT
from scorekit.evals.text_limits import DEFAULT_MAX_TEXT_CHARS
from scorekit.items import EvalItem, Target
from scorekit.judge.judge import Judge
from scorekit.judge.prices import Price, PriceTable, parse_price
from scorekit.judge.spending import JudgeBudget, check_prices
from scorekit.pipeline import Scorer
from scorekit.scorers.registry import ScorerEntry, build_scorer, get_entry

__all__ = [
    "DataFlags",
    "JudgePool",
    "RunPlan",
    "assign_options",
    "build_scorers",
    "error_limits",
    "mapped_fields",
    "plan_from_config",
    "plan_from_flags",
    "threshold_ids",
]


def assign_options(entries: Sequence[ScorerEntry], raw: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Assign ``[scorer:]key=value`` options to the chosen scorers.

    An option without a ``scorer:`` prefix goes to every chosen scorer that accepts it.

    Args:
        entries: the chosen scorers' entries.
        raw: the ``--option`` texts, values read as JSON where they parse.

    Returns:
        Entry name → its options.

    Raises:
        ConfigError: a malformed option, an unknown scorer prefix, or no chosen scorer accepts
            the option (``field="option"``).
    """
    chosen = {entry.name: entry for entry in entries}
    assigned: dict[str, dict[str, Any]] = {name: {} for name in chosen}
    for option in raw:
        key, sep, value = option.partition("=")
        if not sep or not key:
            raise ConfigError(f"--option {option!r}: expected key=value", field="option")
        prefix, _, name = key.rpartition(":")
        names = [get_entry(prefix).name] if prefix else list(chosen)
        if prefix and names[0] not in chosen:
            raise ConfigError(
                f"--option {option!r}: scorer {prefix!r} is not chosen", field="option"
            )
        takers = [n for n in names if name in {o.name for o in chosen[n].options()}]
        if not takers:
            raise ConfigError(
                f"--option {option!r}: no chosen scorer has an option {name!r}; "
                "see `scorekit scorers`",
                field="option",
            )
        for taker in takers:
            if name in assigned[taker]:
                raise ConfigError(
                    f"--option gives {taker}:{name} twice; give it once", field="option"
                )
            assigned[taker][name] = parse_value(value)
    return assigned


def threshold_ids(raw: Mapping[str, Any], scorers: Sequence[Scorer]) -> dict[str, float]:
    """Map threshold keys (scorer ids, or any name the registry knows) to scorer ids.

    The one resolution ``run_evals(thresholds=...)`` uses too
    (:func:`scorekit.evals.gates.check_thresholds`).

    Raises:
        ConfigError: a key naming no scorer of the run, or a value that is not a finite
            number (``field="thresholds"``).
    """
    return check_thresholds(raw, [s.id for s in scorers])


def error_limits(
    raw: Any, scorers: Sequence[Scorer], overall: Any = None
) -> dict[str, float] | None:
    """Resolve ``max_error_rate`` to scorer id → limit, for every scorer.

    Args:
        raw: a number for every scorer, scorer name → number, or ``None``.
        scorers: the run's scorers.
        overall: the limit of the scorers a mapping leaves out (default: the default limit).

    Returns:
        The limits, or ``None`` when nothing was given (the default limits, or a resumed
        run's stored ones, apply).

    Raises:
        ConfigError: a value outside 0..1, a key naming no scorer (``field="max_error_rate"``).
    """
    if raw is None and overall is None:
        return None
    ids = [s.id for s in scorers]
    limits = check_max_error_rate(overall, ids)  # no overall: the default for every scorer
    if isinstance(raw, Mapping):
        named = resolve_scorer_keys(raw, ids, field="max_error_rate")
        given = check_max_error_rate(named, ids)
        limits.update({sid: given[sid] for sid in named})
    elif raw is not None:
        limits = check_max_error_rate(raw, ids)
    return limits


class JudgePool:
    """The judges of one run: one per model string, shared by every LLM scorer on that model.

    Args:
        options: ``Judge`` keyword settings (timeout, max_tokens, cache ...) for every judge.
            Without settings the model string itself is handed to the scorers, which then build
            their judge with their own instructions.
    """

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        self._made: dict[str, Judge] = {}

    def get(self, model: str) -> Judge | str:
        """The judge of ``model`` (made on first use), or the string when no settings apply.

        Raises:
            ConfigError, JudgeUnavailableError: as :class:`~scorekit.judge.judge.Judge`.
        """
        if not self.options:
            return model
        if model not in self._made:
            self._made[model] = Judge(model, **self.options)
        return self._made[model]


def _build(entry: ScorerEntry, options: Mapping[str, Any], model: Any, judges: JudgePool) -> Scorer:
    kwargs = dict(options)
    if entry.kind == "llm":
        chosen = kwargs.pop("model", None) or model
        if chosen is not None:
            kwargs["model"] = judges.get(chosen) if isinstance(chosen, str) else chosen
    return build_scorer(entry.name, **kwargs)


def build_scorers(
    names: Sequence[str], options: Sequence[str], model: str | None, judges: JudgePool
) -> list[Scorer]:
    """Build the scorers of ``--scorer`` names with their ``--option`` texts.

    Args:
        names: scorer names (anything :func:`~scorekit.scorers.registry.get_entry` accepts).
        options: ``[scorer:]key=value`` texts (see :func:`assign_options`).
        model: the judge model of the LLM scorers, or ``None``.
        judges: the run's judges, shared by scorers on one model.

    Raises:
        ConfigError: an unknown scorer or option, or an LLM scorer without a model.
    """
    return _chosen(names, options, model, judges)[1]


def _chosen(
    names: Sequence[str], options: Sequence[str], model: str | None, judges: JudgePool
) -> tuple[set[str], list[Scorer]]:
    """The judge models the named scorers use, and the scorers (see :func:`build_scorers`)."""
    entries = [get_entry(n) for n in names]
    assigned = assign_options(entries, options)
    models = _models([(entry, assigned[entry.name].get("model") or model) for entry in entries])
    built = []
    for entry in entries:
        try:
            built.append(_build(entry, assigned[entry.name], model, judges))
        except ConfigError as exc:  # name the flag and the scorer, as a config names its path
            where = (
                f"--option {entry.name}:{exc.field}"
                if exc.field in assigned[entry.name]
                else (f"--scorer {entry.name}")
            )
            raise ConfigError(f"{where}: {exc}", field=exc.field) from exc
    return models, built


@dataclass
class RunPlan:
    """A run ready to go.

    Attributes:
        name: the run's name.
        path: the dataset file.
        items: its items, read lazily.
        header: CSV/TSV: whether the first row names the columns (for counting records).
        scorers: the scorers, distinct ids.
        target: the application under test, or ``None``.
        concurrency: items scored at once.
        thresholds: scorer id → minimum mean.
        max_error_rate: scorer id → error-rate limit, or ``None`` (the default limits, or a
            resumed run's).
        min_agreement: scorer → ``{figure: minimum}``, the agreement gates
            (:mod:`scorekit.trust.min_agreement`), or ``None``.
        trials: how many times each item is scored (``--trials``).
        budget: the judge budget, ``{"max_judge_calls": N, "max_judge_tokens": N}`` (the
            limits given; :mod:`scorekit.judge.spending`).
        max_cost: the judge budget in US dollars, or ``None``.
        prices: judge model → price given by the config or ``--price`` (over the table).
        models: the judge model strings the LLM scorers use.
        scorer_timeout: seconds one local scorer call may take, ``None``: no limit.
        target_timeout: seconds one target call may take, ``None``: no limit.
        max_text_chars: characters one item field may hold, ``None``: no limit.
        fields: which record field gives which item field (``{"output": "answer", ...}``),
            part of the dataset's identity a resumed run is checked against.
        db: the results database (``None``: the default SQLite file).
        report: where to write the HTML report, or ``None``.
        config: JSON data describing the run, stored with it.
    """

    name: str | None
    path: Path
    items: Iterator[EvalItem]
    header: bool
    scorers: list[Scorer]
    target: Target | None
    concurrency: int
    thresholds: dict[str, float]
    models: set[str]
    db: str | None
    report: Path | None
    config: dict[str, Any] = field(default_factory=dict)
    max_error_rate: dict[str, float] | None = None
    min_agreement: dict[str, dict[str, Any]] | None = None
    trials: int = 1
    budget: dict[str, int] = field(default_factory=dict)
    max_cost: float | None = None
    prices: dict[str, Price] = field(default_factory=dict)
    correlate: str | None = None
    scorer_timeout: float | None = DEFAULT_SCORER_TIMEOUT
    target_timeout: float | None = DEFAULT_TARGET_TIMEOUT
    max_text_chars: int | None = DEFAULT_MAX_TEXT_CHARS
    fields: dict[str, str] = field(default_factory=dict)

    def check(self) -> None:
        """Refuse what would only fail once scoring began; call it before the run starts.

        Reads the first record (the items stay lazy: it is put back): a dataset without
        records, a header or first record without a named field, or without the
        ``--correlate`` field, is a usage error before anything is scored or stored.

        Raises:
            ConfigError: a scorer is named twice (``field="scorer"``); the dataset holds no
                records (``field="data"``); the first record has no ``correlate`` field
                (``field="correlate"``); the reader's own errors (a missing column).
        """
        ids = [s.id for s in self.scorers]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ConfigError(f"the scorer {twice[0]!r} is named twice", field="scorer")
        first = next(self.items, None)
        if first is None:
            raise ConfigError(
                f"{self.path} holds no records: there is nothing to score", field="data"
            )
        self.items = itertools.chain([first], self.items)
        if self.correlate and _lacks(first, self.correlate):
            raise ConfigError(
                f"--correlate {self.correlate!r}: the first record has no such field "
                f"({first.load_error})",
                field="correlate",
            )

    def price_run(
        self, max_cost: float | None, prices: Sequence[str], *, check: bool = True
    ) -> None:
        """Apply ``--max-cost`` and ``--price`` (they win over the config's), and check them.

        Args:
            max_cost: ``--max-cost`` in US dollars, or ``None`` (the config's, if any).
            prices: ``--price MODEL=IN,OUT`` texts (dollars per million tokens).
            check: check a money budget against the prices now (off for a resume: the prices
                stored with the run count, and ``run_evals`` checks them).

        Raises:
            ConfigError: a malformed ``--price`` (``field="--price"``), a ``max_cost`` that is
                not a finite number > 0 (``field="max-cost"``), or a money budget over a judge
                model without a price (``field="prices"``), before anything starts.
        """
        if max_cost is not None:
            self.max_cost = max_cost
        self.prices.update(parse_price(text) for text in prices)
        try:
            budget = JudgeBudget(max_cost=self.max_cost)
        except ConfigError as exc:
            raise ConfigError(f"--max-cost / max_cost: {exc}", field="max-cost") from exc
        if check:
            models = [model for scorer in self.scorers for model in scorer.judge_models]
            check_prices(budget, PriceTable(self.prices), models)


def _lacks(item: EvalItem, name: str) -> bool:
    # the reader names the first missing field; the label is the last one it checks
    return item.load_error is not None and item.load_error.endswith(f"missing field {name!r}")


def _models(entries: Sequence[tuple[ScorerEntry, Any]]) -> set[str]:
    return {m for entry, m in entries if entry.kind == "llm" and isinstance(m, str)}


def plan_from_config(
    config: RunConfig,
    *,
    model: str | None,
    concurrency: int | None,
    correlate: str | None,
    judge_options: Mapping[str, Any],
) -> RunPlan:
    """Build the plan of a YAML config; command-line values win over the config's.

    Args:
        config: the loaded config (:func:`scorekit.cli.config.load_config`).
        model: the judge model from ``--model`` / ``SCOREKIT_MODEL``, or ``None``.
        concurrency: ``--concurrency``, or ``None``.
        correlate: a label field to keep in each item's metadata, or ``None``.
        judge_options: judge settings from flags (they win over the config's ``judge:``).

    Raises:
        ConfigError: an unknown scorer or option, an LLM scorer without a model, a bad target.
        JudgeUnavailableError: a judge model cannot be resolved.
    """
    run_model = model or config.model
    judges = JudgePool({**config.judge.options(), **judge_options})
    if any(":" in s.name for s in config.scorers) and str(config.base_dir) not in sys.path:
        # a `module:factory` scorer is importable from the config's folder, as a target is
        sys.path.insert(0, str(config.base_dir))
    entries = []
    scorers = []
    for index, spec in enumerate(config.scorers):
        try:
            entry = get_entry(spec.name)
            entries.append((entry, spec.options.get("model") or spec.model or run_model))
            scorers.append(_build(entry, spec.options, spec.model or run_model, judges))
        except ConfigError as exc:
            raise _at_scorer(exc, index, spec.options) from exc
    target = load_target(config.target, config.base_dir) if config.target else None
    fields = config.data.fields.field_map()
    # a label column for no scorer of the run is a mistake in the config, refused before scoring
    resolve_scorer_keys(dict(fields.labels), [s.id for s in scorers], field="data.fields.labels")
    if correlate:
        fields = FieldMap(**{**fields.__dict__, "extra": (*fields.extra, correlate)})
    path = config.resolve(config.data.path)
    items = read_dataset(
        path,
        fields=fields,
        format=config.data.format,
        header=config.data.header,
        quoting=config.data.quoting,
        delimiter=config.data.delimiter,
        require_output=target is None,
    )
    return RunPlan(
        name=config.name,
        path=path,
        items=items,
        header=config.data.header,
        scorers=scorers,
        target=target,
        concurrency=concurrency or config.concurrency,
        thresholds=threshold_ids(config.thresholds, scorers),
        max_error_rate=error_limits(config.max_error_rate, scorers),
        min_agreement=config.min_agreement,
        trials=config.trials,
        budget={
            name: value
            for name in ("max_judge_calls", "max_judge_tokens")
            if (value := getattr(config, name)) is not None
        },
        max_cost=config.max_cost,
        prices=PriceTable(config.prices, source="config").overrides,
        models=_models(entries),
        db=config.database(),
        report=config.resolve(config.report) if config.report else None,
        config={**config.model_dump(mode="json", exclude={"base_dir"}), "model": run_model},
        correlate=correlate,
        scorer_timeout=config.scorer_timeout or None,
        target_timeout=config.target_timeout or None,
        max_text_chars=config.max_text_chars or None,
        fields=mapped_fields(fields),
    )


def mapped_fields(fields: FieldMap) -> dict[str, str]:
    """Which record field gives each item field (a ``None`` field is left out)."""
    names = ("output", *OPTIONAL_FIELDS)
    return {name: str(getattr(fields, name)) for name in names if getattr(fields, name)}


def _at_scorer(exc: ConfigError, index: int, options: Mapping[str, Any]) -> ConfigError:
    """``exc`` with the config's path of the field it names (``scorers[0].options.scale``)."""
    if exc.field in (None, "scorer"):
        where = f"scorers[{index}].name" if exc.field == "scorer" else f"scorers[{index}]"
    elif exc.field in options:
        where = f"scorers[{index}].options.{exc.field}"
    else:
        where = f"scorers[{index}].{exc.field}"
    return ConfigError(f"{where}: {exc}", field=where)


@dataclass(frozen=True)
class DataFlags:
    """How ``scorekit run DATASET`` reads the dataset (its ``--*-field`` and CSV flags).

    Attributes:
        input_field, output_field, ground_truth_field, id_field, context_field: the fields
            (or 0-based column numbers) of each item field; ``None``: the default name, and
            the field may be missing from records.
        data_format: ``"jsonl"``, ``"csv"``, ``"tsv"``, or ``None`` (from the suffix).
        header: CSV/TSV: the first row names the columns.
        quoting: CSV/TSV: honour quote characters.
        delimiter: CSV/TSV: overrides the delimiter.
    """

    input_field: str | None = None
    output_field: str = "output"
    ground_truth_field: str | None = None
    id_field: str | None = None
    context_field: str = "context"
    data_format: str | None = None
    header: bool = True
    quoting: bool = True
    delimiter: str | None = None


def plan_from_flags(
    data: Path,
    *,
    scorers: Sequence[str],
    options: Sequence[str],
    model: str | None,
    thresholds: Sequence[str],
    max_error_rate: Sequence[str] = (),
    flags: DataFlags,
    correlate: str | None,
    concurrency: int | None,
    judge_options: Mapping[str, Any],
    name: str | None,
    db: str | None,
    report: Path | None,
) -> RunPlan:
    """Build the plan of ``scorekit run DATASET --scorer ...``.

    Raises:
        ConfigError: no scorer, a bad ``--format``, an unknown scorer or option, a malformed
            ``--option`` or ``--threshold``, an LLM scorer without a model.
        JudgeUnavailableError: a judge model cannot be resolved.
    """
    if not scorers:
        raise ConfigError("give --scorer (at least one), or a .yaml config", field="scorer")
    formats: tuple[Literal["jsonl", "json", "csv", "tsv"], ...] = ("jsonl", "json", "csv", "tsv")
    if flags.data_format is not None and flags.data_format not in formats:
        raise ConfigError(
            f"--format must be jsonl, json, csv or tsv, not {flags.data_format!r}",
            field="format",
        )
    explicit = {
        field_name
        for field_name, value in (
            ("input", flags.input_field),
            ("ground_truth", flags.ground_truth_field),
            ("id", flags.id_field),
        )
        if value is not None
    }
    fields = FieldMap(
        input=flags.input_field or "input",
        output=flags.output_field,
        ground_truth=flags.ground_truth_field or "ground_truth",
        id=flags.id_field or "id",
        context=flags.context_field,
        extra=(correlate,) if correlate else (),
        required=frozenset(explicit),
    )
    models, built = _chosen(scorers, options, model, JudgePool(judge_options))
    overall, pairs = parse_error_rates(max_error_rate)
    return RunPlan(
        name=name,
        path=data,
        items=read_dataset(
            data,
            fields=fields,
            format=flags.data_format,
            header=flags.header,
            quoting=flags.quoting,
            delimiter=flags.delimiter,
        ),
        header=flags.header,
        scorers=built,
        target=None,
        concurrency=concurrency or 8,
        thresholds=threshold_ids(
            parse_pairs(thresholds, flag="--threshold", what="scorer=minimum"), built
        ),
        max_error_rate=error_limits(pairs or None, built, overall),
        models=models,
        db=db,
        report=report,
        fields=mapped_fields(fields),
        config={
            "data": str(data),
            "scorers": list(scorers),
            "options": list(options),
            "model": model,
        },
        correlate=correlate,
    )
