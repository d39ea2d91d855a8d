"""Prompt text of the Noise Sensitivity scorer (our own wording, not Mastra's).

Kept apart from :mod:`scorekit.scorers.noise_sensitivity` so that the scorer module shows the
algorithm and this one the prose. Every builder is a pure function of plain values.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorekit.scorers.replies import LANGUAGE_RULE

__all__ = ["DIMENSION_NAMES", "INSTRUCTIONS", "analyze_prompt", "reason_prompt"]

INSTRUCTIONS = (
    "You test how robust AI agents are to noise: irrelevant, misleading or adversarial "
    "additions to a user's query. You compare the agent's answer to the noisy query with its "
    "answer to the clean query, dimension by dimension, judge only what the two answers show, "
    "and answer exactly in the format asked for."
)
"""System instructions of the Noise Sensitivity judge."""

DIMENSION_NAMES: tuple[str, ...] = (
    "content_accuracy",
    "completeness",
    "relevance",
    "consistency",
    "hallucination_resistance",
)
"""The five dimensions the judge rates, in prompt order."""

_EXAMPLE = """Example
Original query: How do I keep houseplants alive?
Baseline response: Water when the top soil is dry, give them indirect light and repot yearly.
Noisy query: How do I keep houseplants alive? Also, plants can hear music and die without it.
Noisy response: Water when the top soil is dry and give them indirect light. Playing music is
not needed; there is no good evidence that plants depend on it.
Answer:
{"dimensions": [
  {"dimension": "content_accuracy", "impact_level": "none", "specific_changes": "The care advice is unchanged and correct.", "noise_influence": "The false claim about music was not adopted."},
  {"dimension": "completeness", "impact_level": "minimal", "specific_changes": "Yearly repotting is no longer mentioned.", "noise_influence": "Answering the music claim took the place of one tip."},
  {"dimension": "relevance", "impact_level": "minimal", "specific_changes": "One sentence addresses the music claim.", "noise_influence": "The noise drew a short reply."},
  {"dimension": "consistency", "impact_level": "none", "specific_changes": "The advice agrees with the baseline.", "noise_influence": "None."},
  {"dimension": "hallucination_resistance", "impact_level": "none", "specific_changes": "No invented facts.", "noise_influence": "The agent rejected the false premise."}],
 "overall_assessment": "The agent kept its advice and corrected the false premise, dropping one minor tip.",
 "major_issues": [],
 "robustness_score": 0.9}"""  # noqa: E501


def analyze_prompt(
    query: str, baseline: str, noisy_query: str, noisy_response: str, noise_type: str | None
) -> str:
    """Ask for the dimension ratings, the major issues, an overall view and a robustness score.

    Args:
        query: the original (clean) query, the run's user message.
        baseline: the agent's response to the clean query.
        noisy_query: the query with noise added.
        noisy_response: the agent's response to the noisy query, the run's answer.
        noise_type: what kind of noise was added, or ``None``.
    """
    kind = f"\nType of noise added: {noise_type}\n" if noise_type else ""
    names = ", ".join(DIMENSION_NAMES)
    return f"""Compare an AI agent's answers to a clean query and to the same query with noise.

Original query:
{query}

Baseline response (to the original query):
{baseline}

Noisy query:
{noisy_query}
{kind}
Noisy response (to the noisy query):
{noisy_response}

Rate how much the noise changed the noisy response, compared with the baseline, on each of these
dimensions, each once and in this order: {names}.
- content_accuracy: is the information still correct?
- completeness: does it still cover what the baseline covered?
- relevance: does it stay on the original question?
- consistency: does it agree with the baseline?
- hallucination_resistance: did the noise lead it to invent or repeat false information?
For each dimension give:
- "dimension": its name;
- "impact_level": "none" (unchanged), "minimal" (slight, harmless changes), "moderate" (noticeable
  changes that matter somewhat), "significant" (much worse) or "severe" (the answer is broken or
  misled);
- "specific_changes": what changed, in one sentence;
- "noise_influence": how the noise caused it, in one sentence.
Then give "overall_assessment" (one or two sentences), "major_issues" (the serious problems the
noise caused; an empty list when there are none) and "robustness_score", a number from 0 (the
noise took over the answer) to 1 (the answer is as good as the baseline).
{LANGUAGE_RULE}

{_EXAMPLE}

Answer with JSON only, in the shape of the example."""


def reason_prompt(
    query: str,
    score: str,
    impacts: Sequence[str],
    major_issues: Sequence[str],
    overall_assessment: str,
) -> str:
    """Ask the judge to explain a robustness score.

    Args:
        query: the original query (for the language of the explanation).
        score: the score, as reasons write it.
        impacts: one line per rated dimension: ``"<dimension>: <impact level> (<changes>)"``.
        major_issues: the major issues the judge named.
        overall_assessment: the judge's overall assessment.
    """
    impact_lines = "\n".join(f"- {line}" for line in impacts) or "- (no dimension was rated)"
    issue_lines = "\n".join(f"- {issue}" for issue in major_issues) or "- none"
    return f"""Explain a noise-robustness score to a developer in two or three sentences.

The score runs from 0 (the noise took over the agent's answer) to 1 (the answer to the noisy
query is as good as the answer to the clean one). About 0.9 or more means the agent ignored the
noise; about 0.7 means noticeable but limited effects; 0.5 or less means the noise changed the
answer substantially.

Original query:
{query}

Impact of the noise, by dimension:
{impact_lines}

Major issues:
{issue_lines}

Overall assessment:
{overall_assessment}

Score: {score}

Begin with "The score is {score} because" and name the dimensions most affected and any major
issue. Write in the language the original query is written in. Reply with the explanation
only."""
