"""``scorekit label`` (human labels added to a stored run) and ``scorekit align`` (agreement).

A labels file is JSON Lines, one object per line, either one label::

    {"item_id": "q17", "scorer": "faithfulness", "label": 1, "note": "cites doc 2", "author": "ana"}

or an item's labels for several scorers::

    {"id": "q17", "human_labels": {"faithfulness": 1, "answer-relevancy": 0.5}}

A scorer is named by its id or its registry name. A line that cannot be used (not JSON, a
missing field, an unknown item or scorer, a label that is not a number in ``[0, 1]``) is
refused with its line number and field; the other lines are stored, and the command exits 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from scorekit.cli import console, exit_codes
from scorekit.cli.commands.common import (
    DbOption,
    app,
    err,
    fail,
    open_store,
    out,
    scorer_numbers,
)
from scorekit.errors import ConfigError, ScorekitError
from scorekit.evals.gates import resolve_scorer_keys
from scorekit.items import check_label
from scorekit.store import Store
from scorekit.store.alignments import save_alignment
from scorekit.store.labels import NOTE_CHARS, HumanLabel, add_labels, known_items
from scorekit.trust.alignment import align

__all__ = ["align_command", "label", "read_labels_file"]


def _line_labels(data: Any, scorer_ids: list[str], author: str | None) -> list[HumanLabel]:
    """The labels of one parsed line, scorer names resolved to the run's ids."""
    if not isinstance(data, dict):
        raise ConfigError("a line must be a JSON object", field="line")
    if "human_labels" in data:
        item_id = data.get("id", data.get("item_id"))
        raw = data["human_labels"]
        if not isinstance(raw, dict):
            raise ConfigError("human_labels must map scorers to labels", field="human_labels")
        by_scorer = raw
    else:
        item_id = data.get("item_id")
        if "scorer" not in data or "label" not in data:
            missing = "scorer" if "scorer" not in data else "label"
            raise ConfigError(f"missing field {missing!r}", field=missing)
        if not isinstance(data["scorer"], str):
            raise ConfigError("a scorer is named by a string", field="scorer")
        by_scorer = {data["scorer"]: data["label"]}
    if not isinstance(item_id, (str, int)) or isinstance(item_id, bool):
        raise ConfigError("missing field 'item_id' (a string)", field="item_id")
    resolved = resolve_scorer_keys(by_scorer, scorer_ids, field="scorer")
    note, who = data.get("note"), data.get("author", author)
    if note is not None and (not isinstance(note, str) or len(note) > NOTE_CHARS):
        raise ConfigError(f"a note is text of at most {NOTE_CHARS} characters", field="note")
    if who is not None and not isinstance(who, str):
        raise ConfigError("the author is a name (text)", field="author")
    return [
        HumanLabel(str(item_id), sid, check_label(value, f"label of {sid!r}"), note, who)
        for sid, value in resolved.items()
    ]


def read_labels_file(
    path: Path, scorer_ids: list[str], author: str | None = None
) -> tuple[list[tuple[int, HumanLabel]], list[str]]:
    """Read a labels file (see the module docstring).

    Returns:
        The usable labels with their line numbers, and one message per refused line
        (``file:line: field 'x': why``).

    Raises:
        ConfigError: the file cannot be read or is not UTF-8.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})", field="labels") from exc
    found: list[tuple[int, HumanLabel]] = []
    refused: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            found.extend(
                (number, one) for one in _line_labels(json.loads(line), scorer_ids, author)
            )
        except json.JSONDecodeError as exc:
            refused.append(f"{path}:{number}: not JSON ({exc.msg})")
        except ConfigError as exc:
            refused.append(f"{path}:{number}: field {exc.field!r}: {exc}")
    return found, refused


@app.command()
def label(
    run_id: Annotated[str, typer.Argument(help="Run id, unique prefix, name, or 'latest'")],
    labels_file: Annotated[Path, typer.Argument(help="JSON Lines of human labels")],
    db: DbOption = None,
    author: Annotated[
        str | None, typer.Option(help="Who labelled (a line's own 'author' wins)")
    ] = None,
) -> None:
    """Add human labels to a stored run (appended: earlier labels stay as history)."""
    try:
        store = Store(db, create=False)
    except ScorekitError as exc:
        raise fail(exc) from exc
    with store:
        try:
            record = store.get_run(run_id)
            scorer_ids = [s["id"] for s in record.scorers]
            found, refused = read_labels_file(labels_file, scorer_ids, author)
            items = known_items(store, record.id, {one.item_id for _, one in found})
            usable = []
            for number, one in found:
                if one.item_id in items:
                    usable.append(one)
                else:
                    refused.append(
                        f"{labels_file}:{number}: field 'item_id': no item {one.item_id!r}"
                    )
            written = add_labels(store, record.id, usable, source="file")
        except ScorekitError as exc:
            raise fail(exc) from exc
    out().print(f"stored {written} label(s) on run {record.id}")
    for message in refused:
        err().print(f"refused: {message}", markup=False, highlight=False)
    if refused:
        raise typer.Exit(exit_codes.FAILED)


@app.command("align")
def align_command(
    run_id: Annotated[str, typer.Argument(help="Run id, unique prefix, name, or 'latest'")],
    db: DbOption = None,
    scorer: Annotated[
        list[str] | None, typer.Option("--scorer", "-s", help="Scorer id or name (repeatable)")
    ] = None,
    threshold: Annotated[
        list[str] | None,
        typer.Option(help="SCORER=X: predicted positive at score ≥ X (default 0.5)"),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the figures as JSON here")
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Bootstrap seed")] = 0,
    save: Annotated[
        bool,
        typer.Option(
            "--save/--no-save",
            help="Store each measured agreement, tied to the scorer's judge and prompts, for "
            "other runs of the scorer to show",
        ),
    ] = True,
) -> None:
    """Agreement of a stored run's scorers with its human labels, and the corrected means."""
    try:
        store = Store(db, create=False) if save else open_store(db)
    except ScorekitError as exc:
        hint = " (--no-save reads it without storing the agreement)" if save else ""
        raise fail(ConfigError(f"{exc}{hint}")) from exc
    with store:
        try:
            record = store.get_run(run_id)
            ids = [s["id"] for s in record.scorers]
            chosen = list(resolve_scorer_keys({s: None for s in scorer}, ids, field="scorer")) \
                if scorer else None  # fmt: skip
            limits = scorer_numbers(threshold or [], ids, field="threshold")
            found = align(store, record.id, scorers=chosen, thresholds=limits, seed=seed)
            saved = [sid for sid, one in found.items() if save and one.agreement.not_enough is None]
            for sid in saved:  # a figure worth keeping: measured on enough labels
                save_alignment(store, record, sid, found[sid].to_dict())
        except ScorekitError as exc:
            raise fail(exc) from exc
    out().print(console.alignment_table(found))
    if saved:
        out().print(f"stored the agreement of {', '.join(saved)}", markup=False, highlight=False)
    for sid, one in found.items():
        for note in one.agreement.notes:
            out().print(f"{sid}: {note}", markup=False, highlight=False)
    if json_out is not None:
        data = {"run_id": record.id, "scorers": [one.to_dict() for one in found.values()]}
        try:
            json_out.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
        except OSError as exc:
            raise fail(ConfigError(f"--json {json_out}: cannot write it ({exc.strerror})")) from exc
