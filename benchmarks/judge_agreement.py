"""Judgement quality and cost of scorekit's LLM scorers against human labels (issue 12).

The harness lives in ``benchmarks/judge_quality/``; this is its command. For every LLM scorer
with a human label in ``shared/data`` (ARES: context relevance, context precision,
faithfulness, answer relevancy; BEGIN and ExpertQA claims: faithfulness, hallucination;
RAGChecker pairs: answer similarity) it prints balanced accuracy, Cohen's κ, AUROC, the share of
``error`` results, judge calls / prompt / completion tokens and seconds per row, and run-to-run
agreement, next to a plain one-call labelling prompt on the same model and rows. What it
measures and how: docs/judge-quality.md.

Run::

    .venv/bin/python benchmarks/judge_agreement.py --model local/PATH.gguf
    .venv/bin/python benchmarks/judge_agreement.py --model local/smollm2 --rows 4 \\
        --tasks ares-context-relevance --json /tmp/judge-quality.json
    make bench-judge            # fetches the Qwen2.5-Coder-1.5B judge, then the default run
    .venv/bin/python benchmarks/judge_agreement.py --cost-set expertqa --model local/PATH.gguf
                                # the 10-row ExpertQA cost set vs issue 12's peers (costset.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_quality.cli import main

if __name__ == "__main__":
    sys.exit(main())
