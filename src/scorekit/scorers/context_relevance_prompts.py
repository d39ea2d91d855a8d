"""Prompt text of the Context Relevance scorer (our own wording, not Mastra's).

Kept apart from :mod:`scorekit.scorers.context_relevance` so that the scorer module shows the
algorithm and this one the prose. Every builder is a pure function of plain values. The judge
refers to pieces by number only; it is never asked to copy their text back.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorekit.inputs.retrieval_context import format_pieces

__all__ = ["INSTRUCTIONS", "analyze_prompt", "reason_prompt"]

INSTRUCTIONS = (
    "You rate how relevant retrieved context is to a user's query, and whether a response used "
    "it. Answer in the JSON format asked for."
)
"""System instructions of the Context Relevance judge."""


def analyze_prompt(query: str, response: str, pieces: Sequence[str]) -> str:
    """Ask for one evaluation per context piece, the missing context and an overall view.

    Relevance is asked of the query and the piece alone; the response only decides
    ``was_used`` (a response written from a piece would otherwise make it look relevant).

    Args:
        query: the user's message.
        response: the agent's answer.
        pieces: the context pieces, numbered from 0 in the prompt.
    """
    last = len(pieces) - 1
    return f"""User query:
{query}

Context pieces:
{format_pieces(pieces)}

Response:
{response}

For each piece (context_index 0 to {last}, once each):
- relevance_level, from the query and the piece only (ignore the response): "high" = the \
piece holds what the query asks; "medium" = part of it; "low" = same topic, but it does not \
help answer; "none" = unrelated.
- was_used: true if the response relies on the piece.
- reasoning: a few words.
missing_context: what the query needs that no piece holds ([] if nothing).
overall_assessment: a few words.
Write the text in the language the user query is written in."""


def reason_prompt(
    query: str,
    score: str,
    scale: str,
    judgements: Sequence[str],
    penalties: Sequence[str],
    missing: Sequence[str],
) -> str:
    """Ask for a short explanation of a Context Relevance score.

    Args:
        query: the user's message (the explanation is written in its language).
        score: the score, formatted.
        scale: the maximum score, formatted.
        judgements: one line per piece (``"context 1: relevance high, used"``).
        penalties: one line per penalty and its amount.
        missing: the missing context the judge named.
    """
    missing_text = "\n".join(f"- {item}" for item in missing) or "- (none)"
    return f"""Explain a context relevance score to a developer in two to four sentences.

User query:
{query}

Score: {score} (0 is worst, {scale} is best)

Judgement of each context piece (numbered from 1):
{chr(10).join(f"- {line}" for line in judgements)}

Penalties:
{chr(10).join(f"- {line}" for line in penalties)}

Missing context:
{missing_text}

Begin with "The score is {score} because". Name the relevance level of each piece, say which
pieces the response used, mention every penalty that was applied and the missing context, if
any. Write in the language the user query is written in. Reply with the explanation only."""
