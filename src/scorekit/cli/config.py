"""The YAML form of a run: ``scorekit run CONFIG.yaml``.

A config names the dataset and its column mapping, an optional target (the application under
test, ``module:function``), the scorers with their options, the judge model, the concurrency,
the thresholds of the verdict, and where to store and report. Relative paths are read from the
config file's folder. Example::

    name: expertqa-demo
    data:
      path: expertqa-sample.jsonl
      fields: {input: question, output: answer, ground_truth: reference, context: context}
    model: local/smollm2          # judge of the LLM scorers (--model / SCOREKIT_MODEL win)
    judge: {timeout: 120, max_tokens: 512, cache: true}   # judge settings (optional)
    concurrency: 4
    scorers:
      - content-similarity
      - name: keyword-coverage
        options: {compare_to: ground_truth}
    thresholds:
      content-similarity: 0.3     # minimum mean; short name or scorer id
    max_error_rate: 0.05          # or {faithfulness: 0.1}; default 0: any error fails
    scorer_timeout: 60            # seconds per local scorer call; 0 or null: no limit
    target_timeout: 300           # seconds per target call; 0 or null: no limit
    max_text_chars: 1000000       # characters one item field may hold; 0 or null: no limit
    max_cost: 0.50                # hard budget of judge money, US dollars (docs/cost.md)
    prices:                       # US dollars per million input, output tokens (win over
      openai/gpt-4o-mini: [0.15, 0.60]   # the pinned table; --price wins over these)
    report: ../../.scorekit/expertqa-report.html
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, field_validator

from scorekit.datasets.files import OPTIONAL_FIELDS, FieldMap
from scorekit.errors import ConfigError
from scorekit.import_path import import_path
from scorekit.items import Target

__all__ = [
    "DataConfig",
    "FieldsConfig",
    "JudgeConfig",
    "RunConfig",
    "ScorerConfig",
    "load_config",
    "load_target",
]


class FieldsConfig(BaseModel):
    """Which record field holds each item field (header-less CSV/TSV: 0-based column numbers).

    A field per :class:`~scorekit.datasets.files.FieldMap` attribute (the item record's fields
    and the id), pinned to the record's declaration by ``tests/test_item_record.py``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: str = "input"
    """The input's field."""
    output: str = "output"
    """The output's field (not needed when a target produces outputs)."""
    ground_truth: str = "ground_truth"
    """The ground truth's field (optional in records)."""
    id: str = "id"
    """The id's field (optional; the line number is used without it)."""
    context: str = "context"
    """The retrieved context pieces' field (optional in records)."""
    request_context: str = "request_context"
    """The per-request data's field (optional in records)."""
    expected_trajectory: str = "expected_trajectory"
    """The expected steps' field, for trajectory scorers (optional in records)."""
    additional_context: str = "additional_context"
    """The further data's field (optional in records)."""
    extra: list[str] = Field(default_factory=list)
    """Fields copied into each item's metadata (required in every record)."""
    labels: dict[str, str] = Field(default_factory=dict)
    """Scorer → the field holding a person's label of the item for it (``{faithfulness:
    supported}``); a record without it is unlabelled."""

    def field_map(self) -> FieldMap:
        """Return the mapping as :class:`~scorekit.datasets.files.FieldMap`."""
        return FieldMap(
            **self.model_dump(exclude={"extra", "labels"}),
            extra=tuple(self.extra),
            labels=tuple(self.labels.items()),
            # a field the config names must exist: a misspelt name fails instead of being
            # silently ignored
            required=frozenset(name for name in OPTIONAL_FIELDS if name in self.model_fields_set),
        )


class DataConfig(BaseModel):
    """The dataset file and how to read it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path
    """The file (``.jsonl``, ``.csv``, ``.tsv``), relative to the config file's folder."""
    format: Literal["jsonl", "json", "csv", "tsv"] | None = None
    """Overrides the format the suffix implies."""
    fields: FieldsConfig = Field(default_factory=FieldsConfig)
    """The column mapping."""
    header: bool = True
    """CSV/TSV: the first row names the columns."""
    quoting: bool = True
    """CSV/TSV: honour quote characters."""
    delimiter: str | None = None
    """CSV/TSV: overrides the delimiter."""


class JudgeConfig(BaseModel):
    """Settings of the judge the LLM scorers share (see :class:`scorekit.Judge`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout: float | None = Field(default=None, gt=0)
    """Seconds one judge call may take."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Reply budget in tokens."""
    max_retries: int | None = Field(default=None, ge=0)
    """Retries on 429, 5xx and connection errors."""
    concurrency: int | None = Field(default=None, ge=1)
    """Judge requests in flight at once."""
    cache: bool | None = None
    """Use the persistent judge-call cache (default true)."""
    context_window: int | None = Field(default=None, ge=256)
    """The local judge's context window in tokens."""

    def options(self) -> dict[str, Any]:
        """The settings given, as ``Judge`` keyword arguments."""
        return {key: value for key, value in self.model_dump().items() if value is not None}


class ScorerConfig(BaseModel):
    """One scorer: a name from ``scorekit scorers`` and its options."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    """Short name (``content-similarity``) or scorer id."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options of the scorer's factory."""
    model: str | None = None
    """This scorer's judge model, overriding the run's ``model``."""


class RunConfig(BaseModel):
    """A whole run, as read from YAML (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = None
    """A name for the run."""
    data: DataConfig
    """The dataset."""
    target: str | None = None
    """The application under test, ``module:function`` (importable from the config's folder)."""
    model: str | None = None
    """The judge model of the LLM scorers (``provider/name``)."""
    judge: JudgeConfig = Field(default_factory=JudgeConfig)
    """Settings of that judge (timeout, max_tokens, cache, ...)."""
    concurrency: int = Field(default=8, ge=1)
    """Items scored at once."""
    scorers: list[ScorerConfig] = Field(min_length=1)
    """The scorers, in order."""
    thresholds: dict[str, Annotated[float, Strict()]] = Field(default_factory=dict)
    """Scorer (short name or id) → minimum mean for the verdict to pass."""
    max_error_rate: (
        Annotated[float, Strict(), Field(ge=0, le=1)]
        | dict[str, Annotated[float, Strict(), Field(ge=0, le=1)]]
        | None
    ) = None
    """The largest share of ``error`` results a scorer may have for the verdict to pass: one
    number for every scorer, or scorer (short name or id) → number; default 0 (any error
    fails), 1 turns the gate off (``--max-error-rate`` wins)."""
    trials: Annotated[int, Strict(), Field(ge=1)] = 1
    """How many times each item is scored (the judge against itself; ``--trials`` wins)."""
    max_judge_calls: Annotated[int, Strict(), Field(ge=1)] | None = None
    """The run's hard budget of judge calls (docs/cost.md; ``--max-judge-calls`` wins)."""
    max_judge_tokens: Annotated[int, Strict(), Field(ge=1)] | None = None
    """The run's hard budget of judge tokens, prompt + completion (``--max-judge-tokens``
    wins)."""
    max_cost: Annotated[float, Strict(), Field(gt=0, allow_inf_nan=False)] | None = None
    """The run's hard budget of judge money, US dollars at the judge models' prices
    (docs/cost.md; ``--max-cost`` wins)."""
    prices: dict[str, Any] | None = None
    """Judge model (``provider/model``) → its price, US dollars per million tokens:
    ``{input_per_mtok: IN, output_per_mtok: OUT}`` or ``[IN, OUT]``; they win over the pinned
    table (``--price`` wins over them)."""
    min_agreement: dict[str, dict[str, Annotated[float, Strict()] | str]] | None = None
    """Scorer → the least agreement with the items' human labels for the verdict to pass:
    ``{faithfulness: {kappa: 0.4, bound: low}}`` (docs/trust.md; ``--min-agreement`` wins)."""
    scorer_timeout: Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)] | None = 60.0
    """Seconds one call of a local (code) scorer may take on one item; past it that item gets
    ``error`` (``ScorerTimeoutError``). ``0`` or ``null``: no limit (``--scorer-timeout``
    wins)."""
    target_timeout: Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)] | None = 300.0
    """Seconds one call of the ``target`` may take on one item; past it that item gets ``error``
    (``TargetTimeoutError``). ``0`` or ``null``: no limit (``--target-timeout`` wins)."""
    max_text_chars: Annotated[int, Strict(), Field(ge=0)] | None = 1_000_000
    """Characters one item field may hold; a longer one makes that item ``error``
    (``TextLimitError``). ``0`` or ``null``: no limit (``--max-text-chars`` wins)."""
    db: str | None = None
    """Where to store results: a SQLite file path (relative to the config file's folder) or a
    SQLAlchemy URL (default ``.scorekit/scorekit.db`` under the working directory)."""
    report: Path | None = None
    """Write the HTML report here after the run (relative to the config file's folder)."""
    base_dir: Path = Path()
    """The config file's folder (set by :func:`load_config`)."""

    @field_validator("scorers", mode="before")
    @classmethod
    def _names_alone(cls, value: Any) -> Any:
        # a bare string stands for a scorer with default options
        if isinstance(value, list):
            return [{"name": v} if isinstance(v, str) else v for v in value]
        return value

    def resolve(self, path: Path) -> Path:
        """Return ``path`` resolved against the config file's folder."""
        return path if path.is_absolute() else self.base_dir / path

    def database(self) -> str | None:
        """Return the ``db`` setting ready for :class:`~scorekit.store.Store`.

        A SQLite file path is resolved against the config file's folder; a SQLAlchemy URL is
        kept as given (``sqlite:///x.db`` is relative to the working directory, as SQLAlchemy
        reads it).
        """
        if self.db is None or "://" in self.db:
            return self.db
        return str(self.resolve(Path(self.db)))


def _where(error: Any) -> str:
    """The field path of a validation error, list positions in brackets (``scorers[1].name``)."""
    path = ""
    for part in error["loc"]:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "config"


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a run config.

    Args:
        path: the YAML file.

    Returns:
        The config, with ``base_dir`` set to the file's folder.

    Raises:
        ConfigError: the file is missing, is not YAML, or a field is wrong; the message and
            ``field`` name the field (``scorers[1].options``).
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read ({exc.strerror})", field="config") from exc
    try:
        raw = yaml.load(text, Loader=_UniqueKeyLoader)
    except _DuplicateKeyError as exc:
        raise ConfigError(f"{source}: {exc}", field=exc.key) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML ({exc})", field="config") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: expected a mapping at the top level", field="config")
    if "base_dir" in raw:
        raise ConfigError(f"{source}: base_dir is set from the file's location", field="base_dir")
    try:
        return RunConfig.model_validate({**raw, "base_dir": source.resolve().parent})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _where(first)
        raise ConfigError(f"{source}: {where}: {first['msg']}", field=where) from exc


class _DuplicateKeyError(yaml.YAMLError):
    """A YAML mapping names one key twice (YAML forbids it; PyYAML keeps the last silently).

    Attributes:
        key: the key, as written.
    """

    def __init__(self, key: str, first_line: int, line: int) -> None:
        super().__init__(
            f"the key {key!r} appears twice in one mapping (lines {first_line} and {line}); "
            "a config holds each key once"
        )
        self.key = key


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that repeats a key (lines are 1-based).

    Only the keys written in the mapping count: a merge key (``<<: *defaults``) brings in keys
    that the mapping may override, as YAML means it to.
    """


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE_TAG:
            continue
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, Hashable):
            continue  # construct_mapping refuses it below, as a YAML error
        line = key_node.start_mark.line + 1
        if key in seen:
            raise _DuplicateKeyError(str(key), seen[key], line)
        seen[key] = line
    return loader.construct_mapping(node, deep=True)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _unique_mapping,
)


def load_target(spec: str, base_dir: Path | None = None) -> Target:
    """Import the target named ``module:function`` (``module.sub:object.method`` works too).

    Args:
        spec: ``module:attribute`` path.
        base_dir: a folder to import from first (the config file's folder).

    Raises:
        ConfigError: malformed spec, the module cannot be imported, or the object is not
            callable.
    """
    if base_dir is not None and str(base_dir) not in sys.path:
        sys.path.insert(0, str(base_dir))
    value = import_path(spec, kind="target", field="target", attribute="function")
    if not callable(value):
        raise ConfigError(f"target {spec!r} is not callable", field="target")
    return value  # type: ignore[no-any-return]
