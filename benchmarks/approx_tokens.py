"""How far the estimate's token approximation is from a real tokenizer (issue 32).

A hosted judge has no tokenizer on this machine, so ``--estimate`` approximates its prompts
(:func:`scorekit.judge.dry_run.approx_prompt_tokens`). This script dry-runs five LLM scorers
(context relevance, faithfulness, answer relevancy, hallucination, context precision) on the
12 ExpertQA answers of ``examples/expertqa`` with a local judge, and compares, prompt by
prompt, the approximation with the local judge's own count (its chat template and tokenizer).
Nothing is generated.

Run: ``.venv/bin/python benchmarks/approx_tokens.py local/PATH.gguf``
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

from scorekit.cost import estimate_run
from scorekit.judge import Judge
from scorekit.judge.dry_run import DryRunModel, approx_prompt_tokens
from scorekit.judge.model import JudgeRequest
from scorekit.scorers import build_scorer

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_estimate import SCORERS, items


def main() -> None:
    pairs: list[tuple[int, int]] = []
    with tempfile.TemporaryDirectory() as cache:
        judge = Judge(sys.argv[1], cache_dir=cache)
        layer = judge.layers
        if not isinstance(layer, DryRunModel) or layer.counter is None:
            raise SystemExit("give a local judge (local/PATH.gguf): it has a tokenizer offline")
        count = layer.counter

        def both(request: JudgeRequest) -> int:
            tokens = count(request)
            pairs.append((approx_prompt_tokens(request.messages), tokens))
            return tokens

        layer.counter = both
        scorers = [build_scorer(name, model=judge) for name in SCORERS]
        asyncio.run(estimate_run(items(12), scorers, sample_items=None))
    errors = [(approx - real) / real for approx, real in pairs]
    approx_sum, real_sum = sum(a for a, _ in pairs), sum(r for _, r in pairs)
    print(f"{len(pairs)} prompts: approximated {approx_sum:,}, counted {real_sum:,} "
          f"({approx_sum / real_sum - 1:+.1%} in all); per prompt {statistics.mean(errors):+.1%} "
          f"mean, {min(errors):+.1%} to {max(errors):+.1%}")  # fmt: skip


if __name__ == "__main__":
    main()
