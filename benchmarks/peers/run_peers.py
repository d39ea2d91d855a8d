"""Peers' scorers beside scorekit's on the same judge, rows and cut (issue 29, part 5).

Mastra's own ``@mastra/evals`` 1.10.2 LLM scorers (context relevance, faithfulness) run in Node
(``mastra_scorers.mjs``, this folder's pinned ``package.json`` and ``package-lock.json``,
installed with ``npm ci`` into ``benchmarks/peers/node_modules``, ignored by git; a throw-away
environment, never a dependency of scorekit, never run by ``make test``) against the benchmark
judge's own llama.cpp server (its OpenAI-compatible ``/v1`` API on 127.0.0.1), on ARES
development rows sampled and cut exactly as ``benchmarks/judge_agreement.py`` samples and cuts
them (same seed: the first N rows of its balanced sample). Printed per scorer: AUROC of the
score, balanced accuracy at 0.5, errors, judge calls, prompt and completion tokens and seconds
per row; with ``--ours FILE.json`` (a ``judge_agreement.py --json`` file of the same task),
scorekit's figures on the same rows beside them.

Run: ``.venv/bin/python benchmarks/peers/run_peers.py --model local/PATH.gguf --rows 30
[--scorer context-relevance] [--ours /tmp/cr-full-104.json] [--out rows.jsonl]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_quality.cutting import Cutter, judge_server
from judge_quality.data import balanced_sample, load_ares
from judge_quality.metrics import auroc, balanced_accuracy
from judge_quality.runner import JudgeOptions, cut_row

HERE = Path(__file__).resolve().parent
LABELS = {"context-relevance": "context_relevance", "faithfulness": "faithfulness"}


def ensure_node_modules() -> None:
    """Install the pinned packages once (``npm ci``)."""
    if (HERE / "node_modules" / "@mastra" / "evals").is_dir():
        return
    if shutil.which("npm") is None:
        raise SystemExit("node and npm are needed for Mastra's scorers (Node 20)")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)


def figures(labels: list[int], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """AUROC, balanced accuracy at 0.5 and costs per row of scored rows (errors count apart)."""
    scored = [(label, r) for label, r in zip(labels, rows, strict=True) if r["score"] is not None]
    ys = [label for label, _ in scored]
    scores = [float(r["score"]) for _, r in scored]
    count = max(1, len(rows))
    return {
        "rows": len(rows),
        "errors": sum(r["score"] is None for r in rows),
        "auroc": auroc(ys, scores),
        "ba": balanced_accuracy(ys, [int(s >= 0.5) for s in scores]),
        "calls": sum(r.get("calls", 0) for r in rows) / count,
        "prompt_tok": sum(r.get("input_tokens", 0) for r in rows) / count,
        "compl_tok": sum(r.get("output_tokens", 0) for r in rows) / count,
        "s_row": sum(r.get("seconds", 0.0) for r in rows) / count,
    }


def ours_on(path: Path, keys: list[str]) -> list[dict[str, Any]]:
    """scorekit's outcomes on ``keys`` from a ``judge_agreement.py --json`` file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    run = next(r for r in data["runs"] if r["variant"].startswith("scorer"))
    by_key = {o["key"]: o for o in run["outcomes"]}
    return [
        {"score": by_key[k]["score"], "calls": by_key[k]["calls"],
         "input_tokens": by_key[k]["input_tokens"], "output_tokens": by_key[k]["output_tokens"],
         "seconds": by_key[k]["wall_s"]}
        for k in keys
    ]  # fmt: skip


def run_mastra(base: str, scorer: str, rows: list[Any], out: Path | None) -> list[Any] | None:
    """Mastra's outcome per row, in row order; each is appended to ``out`` as Node prints it.

    Rows already in ``out`` (by key) are not sent again, so an interrupted run resumes.
    """
    done: dict[str, Any] = {}
    if out is not None and out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                done[record["key"]] = record
    todo = [r for r in rows if r.key not in done]
    payload = "".join(
        json.dumps({"key": r.key, "question": r.question, "context": r.contexts[0],
                    "answer": r.answer}) + "\n"
        for r in todo
    )  # fmt: skip
    if todo:
        with subprocess.Popen(
            ["node", "mastra_scorers.mjs", base, scorer], cwd=HERE, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True,
        ) as node:  # fmt: skip
            assert node.stdin is not None
            assert node.stdout is not None
            node.stdin.write(payload)
            node.stdin.close()
            for line in node.stdout:
                if not line.strip():
                    continue
                record = json.loads(line)
                done[record["key"]] = record
                if out is not None:
                    with out.open("a", encoding="utf-8") as sink:
                        sink.write(line if line.endswith("\n") else line + "\n")
                print(f"{len(done)}/{len(rows)} {record['key']} score={record['score']}",
                      flush=True)  # fmt: skip
        if node.returncode != 0:
            print(f"node exited with {node.returncode}", file=sys.stderr)
            return None
    return [done[r.key] for r in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--rows", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cut-tokens", type=int, default=512)
    parser.add_argument("--scorer", choices=list(LABELS), default="context-relevance")
    parser.add_argument("--ours", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    ensure_node_modules()
    judge = JudgeOptions(args.model, args.seed).judge()
    server = judge_server(judge)
    if server is None:
        print("the peers run needs a local judge (local/PATH.gguf)", file=sys.stderr)
        return 2
    cutter = Cutter(args.cut_tokens, server)
    rows = balanced_sample(load_ares(LABELS[args.scorer]), args.rows, args.seed)
    rows = [cut_row(r, cutter) for r in rows]
    base = server.start().rstrip("/") + "/v1"
    mastra = run_mastra(base, args.scorer, rows, args.out)
    if mastra is None:
        return 1
    labels = [r.label for r in rows]
    table = {"mastra": figures(labels, mastra)}
    if args.ours is not None:
        table["scorekit"] = figures(labels, ours_on(args.ours, [r.key for r in rows]))
    print(f"{args.scorer}: {len(rows)} ARES rows ({sum(labels)} positive), {cutter.method}")
    for name, row in table.items():
        print(name, json.dumps({k: round(v, 3) if isinstance(v, float) else v
                                for k, v in row.items()}))  # fmt: skip
    errors = [r["error"] for r in mastra if r["error"]]
    if errors:
        print(f"first error: {errors[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
