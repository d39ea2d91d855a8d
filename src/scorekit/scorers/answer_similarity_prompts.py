"""Prompt text of the Answer Similarity scorer (our own wording, not Mastra's).

Kept apart from :mod:`scorekit.scorers.answer_similarity` so that the scorer module shows the
algorithm and this one the prose. Every builder is a pure function of plain values.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorekit.scorers.replies import LANGUAGE_RULE

__all__ = ["INSTRUCTIONS", "analysis_prompt", "reason_prompt", "units_prompt"]

INSTRUCTIONS = (
    "You compare an AI agent's answer with a reference (ground-truth) answer, as a regression "
    "check. You judge meaning, not wording: different phrasings of the same fact match. You "
    "notice what the answer leaves out and where it contradicts the reference, give partial "
    "credit only for partial matches, and answer exactly in the format asked for."
)
"""System instructions of the Answer Similarity judge."""


def _numbered(units: Sequence[str]) -> str:
    return "\n".join(f"[{i}] {unit}" for i, unit in enumerate(units)) or "(none)"


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items) or "- (none)"


def units_prompt(answer: str, ground_truth: str) -> str:
    """Ask for the semantic units of the answer and of the ground truth."""
    return f"""Split two texts into semantic units: an AI agent's answer and the reference answer
it will be compared with.

A semantic unit is one piece of information: a fact, a claim, a definition, a figure with its
unit ("3776 metres"), a name. Keep together what belongs together (a number and what it
measures); split sentences that state several facts; do not split further than that. Write each
unit as a short self-contained statement in the text's own language, adding nothing the text
does not say. A text with no content gives an empty list.

Agent answer:
{answer}

Reference answer:
{ground_truth}

Answer with JSON only: {{"output_units": ["..."], "ground_truth_units": ["..."]}}"""


def analysis_prompt(query: str, truth: Sequence[str], answer: Sequence[str]) -> str:
    """Ask for one match per ground-truth unit (by position), the extras and the contradictions.

    Args:
        query: the user's message (for the language of the explanations).
        truth: the ground truth's units, numbered from 0 in the prompt.
        answer: the answer's units, numbered from 0 in the prompt.
    """
    return f"""Compare an AI agent's answer with the reference answer, unit by unit.

User query (for the language of your explanations):
{query}

Reference units (numbered from 0):
{_numbered(truth)}

Answer units (numbered from 0):
{_numbered(answer)}

Give exactly {len(truth)} matches, one per reference unit, in the reference's order (the first
match is for reference unit 0). For each:
- "output_index": the number of the answer unit that carries this reference unit's
  information, or null when no answer unit does.
- "match_type": "exact" when the answer states the same information, in the same or nearly the
  same words; "semantic" when it states the same information in other words; "partial" when it
  states only part of it, or something less precise; "missing" when the answer does not state
  it, or states something that contradicts it.
- "explanation": one sentence.
Then:
- "extra_in_output": the information the answer gives that the reference does not, each item a
  few words (an empty list when there is none).
- "contradictions": each reference unit that the answer contradicts (states differently, e.g. a
  different date, name or figure), once, as {{"ground_truth_index": …, "output_index": … or null,
  "explanation": "…"}}; an empty list when there are none. A contradicted unit is also
  "missing" among the matches.
{LANGUAGE_RULE}

Answer with JSON only: {{"matches": [{{"output_index": 0, "match_type": "semantic",
"explanation": "..."}}], "extra_in_output": [], "contradictions": []}}"""


def reason_prompt(
    query: str,
    score: str,
    scale: str,
    matches: Sequence[str],
    extras: Sequence[str],
    contradictions: Sequence[str],
    penalties: tuple[str, str, str],
) -> str:
    """Ask for a short explanation of an Answer Similarity score.

    Args:
        query: the user's message (the explanation is written in its language).
        score: the score, formatted.
        scale: the maximum score, formatted.
        matches: one line per ground-truth unit: the unit, its match type and the answer unit.
        extras: the extra information the judge listed.
        contradictions: one line per contradiction.
        penalties: the missing, contradiction and extra-information penalties, formatted.
    """
    missing, contradiction, extra_cap = penalties
    return f"""Explain an answer similarity score to a developer in at most three sentences.

The score compares an agent's answer with a reference answer: each reference unit found exactly
or in other words counts fully (an exact match a little more), a partial match half, a missing
unit subtracts {missing}; each contradiction subtracts {contradiction} and extra information
up to {extra_cap}.

User query:
{query}

Reference units and how the answer matches them:
{_bullets(matches)}

Extra information in the answer:
{_bullets(extras)}

Contradictions:
{_bullets(contradictions)}

Score: {score} (0 is worst, {scale} is best)

Begin with "The score is {score} because", then name what the answer got right, what it
missed or contradicted, and what to change to match the reference. Write in the language the
user query is written in. Reply with the explanation only."""
