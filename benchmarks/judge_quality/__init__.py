"""Judgement quality and cost of scorekit's LLM scorers, against human labels (issue 12).

Modules: :mod:`~judge_quality.data` (loaders, seeded balanced subsets),
:mod:`~judge_quality.cutting` (documents cut to their first N tokens),
:mod:`~judge_quality.metrics` (balanced accuracy, κ, AUROC, run-to-run agreement),
:mod:`~judge_quality.baselines` (the plain labelling prompts), :mod:`~judge_quality.tasks`
(scorer × label × baseline), :mod:`~judge_quality.runner` (per-row outcomes),
:mod:`~judge_quality.report` (figures, tables, JSON) and :mod:`~judge_quality.cli`.
Run it as ``python benchmarks/judge_agreement.py --model MODEL`` (see docs/judge-quality.md).
"""
