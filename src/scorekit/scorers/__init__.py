"""The prebuilt scorers' factories, and the registry that builds any scorer by name.

Each scorer lives in its own module and declares its registry entry there (``ENTRY``);
:mod:`scorekit.scorers.registry` collects them with the scorers other packages register, and
:func:`build_scorer` builds any of them by name (see docs/scorers.md).
"""

from __future__ import annotations

from scorekit.scorers.answer_relevancy import create_answer_relevancy_scorer
from scorekit.scorers.answer_similarity import create_answer_similarity_scorer
from scorekit.scorers.bias import create_bias_scorer
from scorekit.scorers.completeness import create_completeness_scorer
from scorekit.scorers.content_similarity import create_content_similarity_scorer
from scorekit.scorers.context_precision import create_context_precision_scorer
from scorekit.scorers.context_recall import create_context_recall_scorer
from scorekit.scorers.context_relevance import create_context_relevance_scorer_llm
from scorekit.scorers.faithfulness import create_faithfulness_scorer
from scorekit.scorers.hallucination import create_hallucination_scorer
from scorekit.scorers.keyword_coverage import create_keyword_coverage_scorer
from scorekit.scorers.multi_turn_judge import create_multi_turn_judge_scorer
from scorekit.scorers.noise_sensitivity import create_noise_sensitivity_scorer_llm
from scorekit.scorers.prompt_alignment import create_prompt_alignment_scorer_llm
from scorekit.scorers.registry import (
    SCORERS,
    ScorerEntry,
    ScorerOption,
    ScorerSpec,
    build_scorer,
    get_scorer_entry,
    list_scorers,
)
from scorekit.scorers.rubric import create_rubric_scorer
from scorekit.scorers.summarization import create_summarization_scorer
from scorekit.scorers.textual_difference import create_textual_difference_scorer
from scorekit.scorers.tone import create_tone_scorer
from scorekit.scorers.tool_call_accuracy import create_tool_call_accuracy_scorer_code
from scorekit.scorers.tool_call_accuracy_llm import create_tool_call_accuracy_scorer_llm
from scorekit.scorers.toxicity import create_toxicity_scorer
from scorekit.scorers.trajectory import create_trajectory_scorer_code
from scorekit.scorers.trajectory_accuracy import create_trajectory_accuracy_scorer_code
from scorekit.scorers.trajectory_accuracy_llm import create_trajectory_accuracy_scorer_llm

__all__ = [
    "SCORERS",
    "ScorerEntry",
    "ScorerOption",
    "ScorerSpec",
    "build_scorer",
    "create_answer_relevancy_scorer",
    "create_answer_similarity_scorer",
    "create_bias_scorer",
    "create_completeness_scorer",
    "create_content_similarity_scorer",
    "create_context_precision_scorer",
    "create_context_recall_scorer",
    "create_context_relevance_scorer_llm",
    "create_faithfulness_scorer",
    "create_hallucination_scorer",
    "create_keyword_coverage_scorer",
    "create_multi_turn_judge_scorer",
    "create_noise_sensitivity_scorer_llm",
    "create_prompt_alignment_scorer_llm",
    "create_rubric_scorer",
    "create_summarization_scorer",
    "create_textual_difference_scorer",
    "create_tone_scorer",
    "create_tool_call_accuracy_scorer_code",
    "create_tool_call_accuracy_scorer_llm",
    "create_toxicity_scorer",
    "create_trajectory_accuracy_scorer_code",
    "create_trajectory_accuracy_scorer_llm",
    "create_trajectory_scorer_code",
    "get_scorer_entry",
    "list_scorers",
]
