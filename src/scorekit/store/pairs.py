"""The scores two stored runs gave the same items: what a paired comparison compares."""

from __future__ import annotations

from sqlalchemy import and_, select
from sqlalchemy.exc import SQLAlchemyError

from scorekit.errors import StoreError
from scorekit.store.store import Store
from scorekit.store.tables import results

__all__ = ["paired_scores"]


def paired_scores(
    store: Store, run_a: str, run_b: str
) -> dict[str, tuple[list[float], list[float]]]:
    """Per scorer, the scores of the items scored ``ok`` in both runs, matched by item id.

    Args:
        store: the results database.
        run_a: the first run's id (resolve a reference with ``store.get_run`` first).
        run_b: the second run's id.

    Returns:
        Scorer id → (run A's scores, run B's scores), in item id order; a scorer without a
        paired item is absent.

    Raises:
        StoreError: the read failed.
    """
    ra, rb = results.alias("ra"), results.alias("rb")
    query = (
        select(ra.c.scorer_id, ra.c.score, rb.c.score)
        .select_from(
            ra.join(
                rb,
                and_(
                    ra.c.item_id == rb.c.item_id,
                    ra.c.scorer_id == rb.c.scorer_id,
                    rb.c.run_id == run_b,
                ),
            )
        )
        .where(
            ra.c.run_id == run_a,
            ra.c.status == "ok",
            rb.c.status == "ok",
            ra.c.score.is_not(None),
            rb.c.score.is_not(None),
        )
        .order_by(ra.c.scorer_id, ra.c.item_id)
    )
    found: dict[str, tuple[list[float], list[float]]] = {}
    try:
        with store.engine.connect() as conn:
            for scorer_id, score_a, score_b in conn.execute(query):
                a, b = found.setdefault(scorer_id, ([], []))
                a.append(float(score_a))
                b.append(float(score_b))
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read the paired scores: {exc}", run_id=run_a) from exc
    return found
