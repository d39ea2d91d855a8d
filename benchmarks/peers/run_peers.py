"""Peers' scorers beside scorekit's on the same judge, rows and cut (issue 29, part 5).

Three peers, each run by its own driver against the benchmark judge's own llama.cpp server (its
OpenAI-compatible ``/v1`` API on 127.0.0.1), in a throw-away environment of this folder, never a
dependency of scorekit, never run by ``make test``:

* ``--peer mastra`` (default): Mastra's ``@mastra/evals`` 1.10.2 LLM scorers (context relevance,
  faithfulness) in Node (``mastra_scorers.mjs``; the pinned ``package.json`` and
  ``package-lock.json``, installed here with ``npm ci`` into ``node_modules`` on first use);
* ``--peer ragas``: Ragas 0.4.3's ``ContextRelevance`` and ``Faithfulness``;
* ``--peer deepeval``: DeepEval 4.3.1's ``ContextualRelevancyMetric`` and
  ``FaithfulnessMetric``. Both Python peers run in ``python_peers.py`` under this folder's own
  ``.venv``, made here on first use (``python -m venv .venv`` and ``pip install -r
  requirements.txt``, the pinned set); ``python_peers.py`` says how it counts calls and tokens.

``node_modules`` and ``.venv`` are ignored by git. The rows are ARES development rows sampled
and cut exactly as ``benchmarks/judge_agreement.py`` samples and cuts them (same seed: the first
N rows of its balanced sample; documents cut to their first 512 judge tokens). Printed for the
peer: AUROC of the score, balanced accuracy at 0.5, errors, judge calls, prompt and completion
tokens and seconds per row (tokens over the rows where they could be measured); with
``--ours FILE.json`` (a ``judge_agreement.py --json`` file of the same task), scorekit's figures
on the same rows beside them. With ``--out FILE.jsonl`` each row's outcome is appended as the
driver prints it, and rows already there are not sent again, so an interrupted run resumes.

Run: ``.venv/bin/python benchmarks/peers/run_peers.py --model local/PATH.gguf --rows 30
[--peer mastra|ragas|deepeval] [--scorer context-relevance|faithfulness]
[--ours /tmp/cr-full-104.json] [--out rows.jsonl]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_quality.cutting import Cutter, judge_server
from judge_quality.data import balanced_sample, load_ares
from judge_quality.metrics import auroc, balanced_accuracy
from judge_quality.runner import JudgeOptions, cut_row

HERE = Path(__file__).resolve().parent
LABELS = {"context-relevance": "context_relevance", "faithfulness": "answer_faithfulness"}
PEERS = ("mastra", "ragas", "deepeval")
VENV_PYTHON = HERE / ".venv" / "bin" / "python"


def ensure_node_modules() -> None:
    """Install the pinned packages once (``npm ci``)."""
    if (HERE / "node_modules" / "@mastra" / "evals").is_dir():
        return
    if shutil.which("npm") is None:
        raise SystemExit("node and npm are needed for Mastra's scorers (Node 20)")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)


def ensure_venv() -> None:
    """Make the Python peers' own environment once (``.venv``, ``requirements.txt``)."""
    if VENV_PYTHON.exists():
        return
    subprocess.run([sys.executable, "-m", "venv", str(HERE / ".venv")], check=True)
    pip = [str(VENV_PYTHON), "-m", "pip", "install", "-r", str(HERE / "requirements.txt")]
    subprocess.run(pip, check=True)


def driver(peer: str, base: str, scorer: str) -> list[str]:
    """The command that scores JSON lines on stdin with ``peer``'s ``scorer``."""
    if peer == "mastra":
        ensure_node_modules()
        return ["node", str(HERE / "mastra_scorers.mjs"), base, scorer]
    ensure_venv()
    return [str(VENV_PYTHON), str(HERE / "python_peers.py"), peer, base, scorer]


def mean(values: list[Any]) -> float | None:
    """The mean of the values that are not ``None`` (``None`` when there are none)."""
    known = [float(v) for v in values if v is not None]
    return sum(known) / len(known) if known else None


def figures(labels: list[int], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """AUROC and balanced accuracy at 0.5 of the scored rows (errors count apart), costs per row.

    Calls and seconds are means over all rows, errors included; tokens over the ``tok_rows``
    rows whose tokens were measured (a Python peer's row is ``null`` where they could not be).
    """
    scored = [(label, r) for label, r in zip(labels, rows, strict=True) if r["score"] is not None]
    ys = [label for label, _ in scored]
    scores = [float(r["score"]) for _, r in scored]
    return {
        "rows": len(rows),
        "errors": sum(r["score"] is None for r in rows),
        "auroc": auroc(ys, scores),
        "ba": balanced_accuracy(ys, [int(s >= 0.5) for s in scores]),
        "calls": mean([r.get("calls") for r in rows]),
        "prompt_tok": mean([r.get("input_tokens") for r in rows]),
        "compl_tok": mean([r.get("output_tokens") for r in rows]),
        "tok_rows": sum(r.get("input_tokens") is not None for r in rows),
        "s_row": mean([r.get("seconds") for r in rows]),
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


def _feed(sink: Any, payload: str) -> None:
    """Write ``payload`` to the driver's stdin and close it."""
    with sink:
        sink.write(payload)


def run_driver(
    command: list[str], peer: str, scorer: str, rows: list[Any], out: Path | None
) -> list[Any] | None:
    """The peer's outcome per row, in row order; each is appended to ``out`` as printed.

    Rows already in ``out`` (by key) are not sent again, so an interrupted run resumes; a
    record there from another peer or scorer stops the run. ``None`` when the driver fails.
    """
    done: dict[str, Any] = {}
    if out is not None and out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                if (record.get("peer", "mastra"), record["scorer"]) != (peer, scorer):
                    raise SystemExit(f"{out} holds {record['key']} of another peer or scorer")
                done[record["key"]] = record
    todo = [r for r in rows if r.key not in done]
    payload = "".join(
        json.dumps({"key": r.key, "question": r.question, "context": r.contexts[0],
                    "answer": r.answer}) + "\n"
        for r in todo
    )  # fmt: skip
    if todo:
        # the Python peers may leave files in their working folder (DeepEval's .deepeval/)
        with tempfile.TemporaryDirectory(prefix="peers-") as folder, subprocess.Popen(
            command, cwd=HERE if peer == "mastra" else folder, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True,
        ) as child:  # fmt: skip
            assert child.stdin is not None
            assert child.stdout is not None
            # fed from a thread: a payload larger than the pipe's buffer would otherwise keep
            # this loop from reading the driver's lines until the driver had read them all
            feeder = threading.Thread(target=_feed, args=(child.stdin, payload), daemon=True)
            feeder.start()
            for line in child.stdout:
                if not line.strip():
                    continue
                record = json.loads(line)
                done[record["key"]] = record
                if out is not None:
                    with out.open("a", encoding="utf-8") as sink:
                        sink.write(line if line.endswith("\n") else line + "\n")
                print(f"{len(done)}/{len(rows)} {record['key']} score={record['score']}",
                      flush=True)  # fmt: skip
        if child.returncode != 0:
            print(f"the {peer} driver exited with {child.returncode}", file=sys.stderr)
            return None
    return [done[r.key] for r in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--rows", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cut-tokens", type=int, default=512)
    parser.add_argument("--peer", choices=PEERS, default="mastra")
    parser.add_argument("--scorer", choices=list(LABELS), default="context-relevance")
    parser.add_argument("--ours", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    judge = JudgeOptions(args.model, args.seed).judge()
    server = judge_server(judge)
    if server is None:
        print("the peers run needs a local judge (local/PATH.gguf)", file=sys.stderr)
        return 2
    cutter = Cutter(args.cut_tokens, server)
    rows = balanced_sample(load_ares(LABELS[args.scorer]), args.rows, args.seed)
    rows = [cut_row(r, cutter) for r in rows]
    base = server.start().rstrip("/") + "/v1"
    command = driver(args.peer, base, args.scorer)
    peer = run_driver(command, args.peer, args.scorer, rows, args.out)
    if peer is None:
        return 1
    labels = [r.label for r in rows]
    table = {args.peer: figures(labels, peer)}
    if args.ours is not None:
        table["scorekit"] = figures(labels, ours_on(args.ours, [r.key for r in rows]))
    print(f"{args.scorer}: {len(rows)} ARES rows ({sum(labels)} positive), {cutter.method}")
    for name, row in table.items():
        print(name, json.dumps({k: round(v, 3) if isinstance(v, float) else v
                                for k, v in row.items()}))  # fmt: skip
    errors = [r["error"] for r in peer if r["error"]]
    if errors:
        print(f"first error: {errors[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
