"""The tables of the results database (SQLAlchemy Core), portable across SQLite and PostgreSQL.

Two tables. ``runs`` holds one row per ``run_evals`` call: its name, when it started and
finished, how it ended, its configuration, its scorers and its totals. ``results`` holds one row
per (item, scorer) pair with everything the scorer run produced, in the shape of Mastra's score
rows (mastra-core.md §6.4) with snake_case names and a ``source`` (``TEST`` for dataset runs,
``LIVE`` or ``TRACE`` for runs recorded from other sources).

The schema is created on first use; columns are only ever added, never renamed, so older
databases stay readable.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    inspect,
    literal,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import OperationalError
from sqlalchemy.schema import ColumnDefault, CreateColumn

from scorekit.errors import StoreError
from scorekit.steps import RECORD_FIELDS

__all__ = [
    "OLDER_SCHEMA",
    "add_missing_columns",
    "alignments",
    "ensure_schema",
    "labels",
    "metadata",
    "missing_columns",
    "results",
    "runs",
    "trials",
]

OLDER_SCHEMA = "the database was made by an older scorekit"
"""What the refusal of a read-only database that lacks columns says (the reading commands
upgrade such a database where its file can be written: ``cli.commands.common.open_store``)."""

metadata = MetaData()
"""The schema: ``runs``, ``results``, ``labels``, ``alignments`` and ``trials``."""

_SCHEMA_LOCK = 0x5C0E_4B17  # the PostgreSQL advisory lock key of scorekit's schema changes

_json = JSON(none_as_null=True)  # store Python None as SQL NULL, not the JSON text 'null'

runs = Table(
    "runs",
    metadata,
    Column("id", String(36), primary_key=True, comment="uuid4 of the run"),
    Column("name", Text, nullable=True),
    Column("status", String(16), nullable=False, comment="running|finished|interrupted|failed"),
    Column("source", String(8), nullable=False, default="TEST"),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("config", _json, nullable=True, comment="what the caller ran (dataset, options)"),
    Column("scorers", _json, nullable=False, comment="[{id, name, description}]"),
    Column("thresholds", _json, nullable=True, comment="{scorer_id: minimum mean}"),
    Column("total_items", Integer, nullable=False, default=0),
    Column("totals", _json, nullable=True, comment="{scorer_id: {counts, mean, ...}}"),
    Column("judge_usage", _json, nullable=True),
    Column("verdict", String(8), nullable=True, comment="passed|failed"),
    Column(
        "heartbeat_at",
        DateTime(timezone=True),
        nullable=True,
        comment="last sign of life of the process writing a running run",
    ),
    Column("writer", String(255), nullable=True, comment="host:pid of the process writing it"),
)
"""One row per run."""

results = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(36), ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("item_id", Text, nullable=False),
    Column("scorer_id", Text, nullable=False),
    Column("scorer_run_id", String(36), nullable=False),
    Column("status", String(8), nullable=False, comment="ok|skipped|error"),
    Column("score", Float, nullable=True),
    Column("reason", Text, nullable=True),
    Column("preprocess_step_result", _json, nullable=True),
    Column("analyze_step_result", _json, nullable=True),
    Column("preprocess_prompt", Text, nullable=True),
    Column("analyze_prompt", Text, nullable=True),
    Column("generate_score_prompt", Text, nullable=True),
    Column("generate_reason_prompt", Text, nullable=True),
    Column("judge_calls", Integer, nullable=False, default=0),
    Column("judge_input_tokens", Integer, nullable=False, default=0),
    Column("judge_output_tokens", Integer, nullable=False, default=0),
    Column("judge_cache_hits", Integer, nullable=False, default=0),
    Column("judge_latency_s", Float, nullable=False, default=0.0),
    Column("error", _json, nullable=True, comment="{type, message, step, raw_output}"),
    # the item record (scorekit.steps.ItemRecord), one JSON column per field; a field added
    # there is added to an older database by add_missing_columns
    *(Column(name, _json, nullable=True) for name in RECORD_FIELDS),
    Column("item_metadata", _json, nullable=True),
    Column("source", String(8), nullable=False, default="TEST"),
    Column("duration_s", Float, nullable=False, default=0.0),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # where the item came from (Mastra's score row, mastra-core.md §6.4): a live call of an
    # application or a span of a recorded trace; NULL for dataset items
    Column("entity_id", Text, nullable=True, comment="the scored function or span name"),
    Column("entity_type", String(32), nullable=True, comment="AGENT|WORKFLOW|LLM|... or none"),
    Column("entity", _json, nullable=True, comment="{id, name, ...} of the scored entity"),
    Column("call_run_id", Text, nullable=True, comment="run id of the scored call"),
    Column("trace_id", String(32), nullable=True, comment="OpenTelemetry trace id, 32 hex"),
    Column("span_id", String(16), nullable=True, comment="OpenTelemetry span id, 16 hex"),
    Column("thread_id", Text, nullable=True),
    Column("resource_id", Text, nullable=True),
    Index("ix_results_run_item_scorer", "run_id", "item_id", "scorer_id"),
    Index("ix_results_run_scorer_status", "run_id", "scorer_id", "status"),
    Index("ix_results_trace_span", "trace_id", "span_id"),
    # a run's rows in the order written (show, the report, summaries, resume): without it both
    # backends sort the run's rows first (SQLite: 4.4 s for the report's first page at 1M rows)
    Index("ix_results_run_id", "run_id", "id"),
)
"""One row per (item, scorer) pair of a run."""

labels = Table(
    "labels",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(36), ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("item_id", Text, nullable=False),
    Column("scorer_id", Text, nullable=False),
    Column("label", Float, nullable=False, comment="0 or 1, or graded in [0, 1]"),
    Column("note", Text, nullable=True),
    Column("author", Text, nullable=True, comment="who set it"),
    Column("source", String(16), nullable=False, comment="dataset|file|api|viewer"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_labels_run_item_scorer", "run_id", "item_id", "scorer_id", "id"),
)
"""Human labels of a run's (item, scorer) pairs, appended: a change is a new row, the latest
row of a pair is its label, the earlier ones its history. Never mixed with the scores."""

trials = Table(
    "trials",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(36), ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("item_id", Text, nullable=False),
    Column("scorer_id", Text, nullable=False),
    Column("trial", Integer, nullable=False, comment="1 .. k-1; trial 0 is the results row"),
    Column("status", String(8), nullable=False, comment="ok|skipped|error"),
    Column("score", Float, nullable=True),
    Column("judge_calls", Integer, nullable=False, default=0),
    Column("judge_input_tokens", Integer, nullable=False, default=0),
    Column("judge_output_tokens", Integer, nullable=False, default=0),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_trials_run_scorer", "run_id", "scorer_id", "item_id"),
)
"""The repeats of a run with ``trials=k``: each (item, scorer)'s trials 1 to k-1 (trial 0 is its
row in ``results``, which every view reads as the run's result)."""

alignments = Table(
    "alignments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(36), ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("scorer_id", Text, nullable=False),
    Column("identity", _json, nullable=False, comment="{spec, judge, prompt_version}"),
    Column("identity_key", String(64), nullable=False, comment="sha256 of the identity"),
    Column("figures", _json, nullable=False, comment="Alignment.to_dict()"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_alignments_scorer_identity", "scorer_id", "identity_key", "id"),
)
"""Agreements measured on a run's human labels (``scorekit align``), each tied to what the
scorer was (its spec, judge model and prompt version): another run of the same scorer shows
the latest one, marked stale where the judge or the prompts differ."""


def add_missing_columns(engine: Engine) -> list[str]:
    """Add the columns a database made by an older scorekit lacks (all nullable or defaulted).

    The indexes it lacks are made too (after the columns they cover). On PostgreSQL this runs
    in one transaction holding scorekit's schema lock (:func:`ensure_schema`), so processes
    opening an older database at once add each column once.

    Args:
        engine: an engine on a database whose tables exist.

    Returns:
        The added tables (``labels``) and columns (``table.column``), in schema order (``[]``
        when none).
    """
    with engine.begin() as connection:
        _lock_schema(connection)
        return _add_missing(connection)


def _lock_schema(connection: Connection) -> None:
    # PostgreSQL: a transaction-scoped advisory lock serialises schema changes between
    # processes (released at commit). SQLite locks the whole file on the first write anyway.
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})


def _add_missing(connection: Connection) -> list[str]:
    added = []
    found = inspect(connection)
    for table in (labels, alignments, trials):  # tables newer than the database
        if not found.has_table(table.name):
            table.create(connection)
            added.append(table.name)
            found = inspect(connection)
    for table in (runs, results):
        have = {c["name"] for c in found.get_columns(table.name)}
        for column in table.columns:
            if column.name not in have:
                connection.execute(text(_add_column(connection.dialect, table, column)))
                added.append(f"{table.name}.{column.name}")
        indexed = {ix["name"] for ix in found.get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in indexed:
                index.create(connection, checkfirst=True)
    return added


def _add_column(dialect: Dialect, table: Table, column: Column[Any]) -> str:
    spec = str(CreateColumn(column).compile(dialect=dialect))
    default = column.default
    if isinstance(default, ColumnDefault) and default.is_scalar:
        # rows written before the column existed get its default (NOT NULL needs one)
        value = literal(default.arg).compile(
            dialect=dialect, compile_kwargs={"literal_binds": True}
        )
        spec += f" DEFAULT {value}"
    table_name = dialect.identifier_preparer.format_table(table)
    return f"ALTER TABLE {table_name} ADD COLUMN {spec}"


_OWN_COLUMNS = {"runs": ("id", "status", "started_at"), "results": ("run_id", "scorer_id")}
"""Columns a ``runs`` / ``results`` table of scorekit's always has (older versions included)."""


def _refuse_foreign(engine: Engine) -> None:
    """Refuse a database whose ``runs`` or ``results`` table is somebody else's.

    Raises:
        StoreError: such a table lacks one of scorekit's columns (nothing was written).
    """
    found = inspect(engine)
    tables = set(found.get_table_names())
    for name, needed in _OWN_COLUMNS.items():
        if name in tables:
            have = {c["name"] for c in found.get_columns(name)}
            lacking = [c for c in needed if c not in have]
            if lacking:
                raise StoreError(
                    f"the database has a {name!r} table that is not scorekit's (no column "
                    f"{lacking[0]!r}): is it the right file? (nothing was written)"
                )


def missing_columns(engine: Engine) -> list[str]:
    """The columns of scorekit's tables a database lacks, as ``table.column`` (read only)."""
    found = inspect(engine)
    have = {t.name: {c["name"] for c in found.get_columns(t.name)} for t in (runs, results)}
    return [f"{t.name}.{c.name}" for t in (runs, results) for c in t.columns
            if c.name not in have[t.name]]  # fmt: skip


def ensure_schema(engine: Engine, *, create: bool = True, read_only: bool = False) -> None:
    """Make the database hold scorekit's tables with every column.

    Safe when several processes open a fresh database at once (parallel CI jobs, the workers
    of a service): on PostgreSQL the tables are created in one transaction under an advisory
    lock, so the second process waits, then finds them; on SQLite a process that finds a
    table another just made tries again.

    Args:
        engine: the database.
        create: create the tables when missing; ``False`` (the reading commands): a database
            without them is refused, never written into.
        read_only: the database cannot be written (a read-only file or file system): an older
            database's missing columns are reported instead of added.

    Raises:
        StoreError: ``create=False`` and the database holds no scorekit tables; a ``runs`` or
            ``results`` table there is not scorekit's (refused before anything is written); a
            read-only database made by an older scorekit lacks columns.
        sqlalchemy.exc.SQLAlchemyError: the database cannot be read or changed.
    """
    _refuse_foreign(engine)
    if not create:
        missing = {runs.name, results.name} - set(inspect(engine).get_table_names())
        if missing:
            raise StoreError(
                f"the database holds no scorekit runs (no {' or '.join(sorted(missing))} "
                "table): is it the right file?"
            )
        if read_only:
            lacking = missing_columns(engine)
            if lacking:
                raise StoreError(
                    f"{OLDER_SCHEMA} (no column {lacking[0]}) and is read-only: open it once "
                    "where it can be written to upgrade it"
                )
            return
        add_missing_columns(engine)
        return
    if engine.dialect.name == "postgresql":
        with engine.begin() as connection:
            _lock_schema(connection)
            metadata.create_all(connection)
            _add_missing(connection)
        return
    # SQLite: each process checks for the tables, then creates them, so one may find a table
    # another just made. That race is harmless; try again, and the check then sees the tables.
    for attempt in range(5):
        try:
            metadata.create_all(engine)
            add_missing_columns(engine)
            return
        except OperationalError as exc:
            if "already exists" not in str(exc) or attempt == 4:
                raise
            time.sleep(0.05 * (attempt + 1))
