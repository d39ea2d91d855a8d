"""Stored agreements with human labels, tied to what the scorer was when they were measured.

An alignment record is one scorer's agreement figures (``Alignment.to_dict()`` of
:mod:`scorekit.trust.alignment`) measured on one run's labels, with the scorer's *identity* in
that run: its spec (registry name and options), its judge model and the version of
scorekit's judge prompts (``scorekit.judge.cache.PROMPT_VERSION``), as the run recorded them.
Any run of a scorer can then show the latest agreement measured for it: **current** when the
identity is the run's own, **stale** (with what differs) when the judge, the prompts or the
options changed since, since an agreement measured with one judge says nothing about another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.exc import SQLAlchemyError

from scorekit.errors import StoreError
from scorekit.store.engines import Database
from scorekit.store.records import RunRecord
from scorekit.store.store import Store
from scorekit.store.tables import alignments

__all__ = ["StoredAlignment", "latest_alignments", "save_alignment", "scorer_identity"]


def scorer_identity(run: RunRecord, scorer_id: str) -> dict[str, Any]:
    """What a scorer was in a run: ``{"spec", "judge", "prompt_version"}`` (``None`` unknown).

    ``spec`` is the scorer's id and its options with the factory's defaults filled in (as the
    run recorded them; a run that recorded none: its registry spec, else the id alone), so that
    an option given at its default value is the same scorer.
    """
    row = next((s for s in run.scorers if s.get("id") == scorer_id), {"id": scorer_id})
    options = row.get("options")
    spec = {"id": scorer_id, "options": options} if options is not None else row.get("spec")
    return {
        "spec": spec or {"id": scorer_id},
        "judge": row.get("judge"),
        "prompt_version": row.get("prompt_version"),
    }


def _key(identity: Mapping[str, Any]) -> str:
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredAlignment:
    """The latest agreement stored for a scorer, as seen from one run.

    Attributes:
        scorer_id: the scorer.
        measured_on: the run whose labels it was measured on.
        figures: ``Alignment.to_dict()``.
        created_at: when it was stored.
        stale: whether the scorer differs now (another judge, prompts or options).
        differences: what differs (``"judge openai/a → openai/b"``), empty when current.
    """

    scorer_id: str
    measured_on: str
    figures: dict[str, Any]
    created_at: datetime
    stale: bool
    differences: tuple[str, ...] = ()


def save_alignment(
    store: Store, run: RunRecord, scorer_id: str, figures: Mapping[str, Any]
) -> None:
    """Store one scorer's agreement measured on ``run``'s labels, with its identity there.

    Raises:
        StoreError: the write failed.
    """
    identity = scorer_identity(run, scorer_id)
    row = {
        "run_id": run.id,
        "scorer_id": scorer_id,
        "identity": identity,
        "identity_key": _key(identity),
        "figures": dict(figures),
        "created_at": datetime.now(timezone.utc),
    }
    store.insert(alignments, [row], what="the alignment")


def _differences(then: Mapping[str, Any], now: Mapping[str, Any]) -> tuple[str, ...]:
    found = []
    for name in ("judge", "prompt_version"):
        if then.get(name) != now.get(name):
            found.append(f"{name.replace('_', ' ')} {then.get(name)} → {now.get(name)}")
    if then.get("spec") != now.get("spec"):
        found.append("the scorer's options")
    return tuple(found)


def latest_alignments(db: Database, run: RunRecord) -> dict[str, StoredAlignment]:
    """For each scorer of ``run``, the latest stored agreement of that scorer, current or stale.

    The latest one whose identity is the run's own wins; without one, the latest of any
    identity, marked stale with what differs. A scorer never aligned is absent.

    Raises:
        StoreError: the read failed.
    """
    if not inspect(db.engine).has_table(alignments.name):  # a read-only older database
        return {}
    found: dict[str, StoredAlignment] = {}
    try:
        with db.engine.connect() as conn:
            for row in run.scorers:
                scorer_id = str(row.get("id"))
                identity = scorer_identity(run, scorer_id)
                query = select(alignments).where(alignments.c.scorer_id == scorer_id)
                same = conn.execute(
                    query.where(alignments.c.identity_key == _key(identity))
                    .order_by(alignments.c.id.desc())
                    .limit(1)
                ).first()
                latest = (
                    same or conn.execute(query.order_by(alignments.c.id.desc()).limit(1)).first()
                )
                if latest is None:
                    continue
                differences = () if same else _differences(latest.identity, identity)
                found[scorer_id] = StoredAlignment(
                    scorer_id=scorer_id,
                    measured_on=latest.run_id,
                    figures=latest.figures,
                    created_at=latest.created_at,
                    stale=same is None,
                    differences=differences or (() if same else ("the scorer",)),
                )
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read alignments: {exc}", run_id=run.id) from exc
    return found
