"""Run references: how a user names a stored run, resolved the same way everywhere.

A reference is a run's id, a unique prefix of it (``"3f2a"``), its name, or ``"latest"`` (the
run started last). An exact id wins; otherwise the runs whose id starts with the reference or
whose name is the reference must be exactly one. The command line (:meth:`Store.get_run
<scorekit.store.store.Store.get_run>`) and the viewer (:mod:`scorekit.view.database`) both
call :func:`find_run`, so they accept and refuse the same references with the same words.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import Connection, select

from scorekit.errors import StoreError
from scorekit.store.records import RunRecord, run_record, utc
from scorekit.store.tables import runs

__all__ = ["CANDIDATES", "find_run"]

CANDIDATES = 10
"""Runs an ambiguous reference lists."""


def find_run(conn: Connection, ref: str, url: str) -> RunRecord:
    """The one run ``ref`` names (the module docstring says how).

    Args:
        conn: an open connection to the store.
        ref: the reference.
        url: the store's URL without its password, for the messages.

    Raises:
        StoreError: no run matches, or several do (the message lists up to
            :data:`CANDIDATES` of them: id, name, start).
        sqlalchemy.exc.SQLAlchemyError: the query failed (the caller words it).
    """
    if ref == "latest":
        found = list(conn.execute(select(runs).order_by(runs.c.started_at.desc()).limit(1)))
    else:
        found = list(conn.execute(select(runs).where(runs.c.id == ref)))
        if not found and ref:
            escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            query = select(runs).where(
                runs.c.id.like(escaped + "%", escape="\\") | (runs.c.name == ref)
            )
            order = query.order_by(runs.c.started_at.desc(), runs.c.id)
            found = list(conn.execute(order.limit(CANDIDATES + 1)))
    if not found:
        raise StoreError(f"no run {ref!r} in {url}", url=url, run_id=ref)
    if len(found) > 1:
        listed = "; ".join(
            f"{row.id[:8]} {row.name or '(no name)'} started "
            f"{cast(datetime, utc(row.started_at)):%Y-%m-%d %H:%M:%S}"
            for row in found[:CANDIDATES]
        )
        more = " and more" if len(found) > CANDIDATES else ""
        raise StoreError(
            f"{ref!r} matches several runs in {url}: {listed}{more}; give more of an id",
            url=url,
            run_id=ref,
        )
    return run_record(found[0])
