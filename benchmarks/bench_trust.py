"""Speed of the trust statistics (issue 31's targets; figures, never asserts).

    .venv/bin/python benchmarks/bench_trust.py

* agreement (balanced accuracy, κ, AUROC, best threshold, each with 2,000 bootstrap
  resamples) over 1,000,000 labelled items, binary labels, scores at 2 decimals and at full
  precision (the resampling grid);
* the prediction-powered mean over 1,000,000 items (1,000 labelled);
* a paired comparison with 10,000 resamples and sign flips over 100,000 paired items;
* the 95 % bootstrap interval every summary's mean gets (``with_mean_interval``), 1,000,000
  scores at 2 decimals and at full precision;
* one label written through the annotating viewer (``POST``, SQLite, 100 writes, median).
"""

from __future__ import annotations

import re
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from scorekit.summary import ScoreSummary
from scorekit.trust import agreement, paired_comparison, ppi_mean
from scorekit.trust.estimates import with_mean_interval


def timed(label: str, call: object) -> None:
    start = time.perf_counter()
    call()  # type: ignore[operator]
    print(f"{label:70} {time.perf_counter() - start:7.2f} s")


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    truth = (rng.random(n) < 0.6).astype(float)
    fine = np.clip(truth * 0.3 + rng.random(n) * 0.7, 0, 1)
    coarse = np.round(fine, 2)
    timed("agreement, 1M items, scores at 2 decimals", lambda: agreement(coarse, truth))
    timed("agreement, 1M items, scores at full precision", lambda: agreement(fine, truth))
    timed("ppi_mean, 1M items (1,000 labelled)",
          lambda: ppi_mean(truth[:1000], fine[:1000], fine[1000:]))  # fmt: skip
    a = rng.random(100_000)
    b = np.clip(a + rng.normal(0.002, 0.05, 100_000), 0, 1)
    timed("paired_comparison, 100k paired items, 10,000 resamples",
          lambda: paired_comparison(a, b, threshold=0.5))  # fmt: skip
    for label, scores in (("2 decimals", coarse), ("full precision", fine)):
        summary = ScoreSummary("s", {"ok": n}, scores.tolist())
        timed(f"a summary's mean interval, 1M scores at {label}",
              lambda summary=summary: with_mean_interval(summary))  # fmt: skip
    viewer_label_writes()


def viewer_label_writes() -> None:
    from starlette.testclient import TestClient

    from scorekit.evals.run import run_evals_sync
    from scorekit.scorers import create_content_similarity_scorer
    from scorekit.store import Store
    from scorekit.view import create_app
    from scorekit.view.annotation import Annotator

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "x.db"
        items = [{"id": f"q{i}", "input": "a", "output": "b"} for i in range(1000)]
        run_id = run_evals_sync(items, [create_content_similarity_scorer()], store=db).run_id
        with Store(db, create=False) as store:
            app = create_app(db, annotator=Annotator(store, "bench"))
            with TestClient(app, base_url="http://127.0.0.1:8088") as client:
                page = client.get(f"/runs/{run_id}/item", params={"id": "q0"}).text
                found = re.search(r'name="token" value="([^"]+)"', page)
                assert found is not None
                form = {"token": found.group(1), "scorer_id": "content-similarity-scorer"}
                took = []
                for i in range(100):
                    start = time.perf_counter()
                    client.post(f"/runs/{run_id}/item/label", follow_redirects=False,
                                data={**form, "item_id": f"q{i}", "label": str(i % 2)})  # fmt: skip
                    took.append(time.perf_counter() - start)
    print(f"{'viewer label write (POST, SQLite), median of 100':70} "
          f"{statistics.median(took) * 1000:7.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
