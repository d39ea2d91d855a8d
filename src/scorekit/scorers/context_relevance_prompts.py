"""Prompt text of the Context Relevance scorer (our own wording, not Mastra's).

Kept apart from :mod:`scorekit.scorers.context_relevance` so that the scorer module shows the
algorithm and this one the prose. Every builder is a pure function of plain values. The judge
refers to pieces by number only; it is never asked to copy their text back.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorekit.context import format_pieces

__all__ = ["INSTRUCTIONS", "analyze_prompt", "reason_prompt"]

INSTRUCTIONS = (
    "You assess retrieved context for AI agents: how relevant each context piece is to the "
    "user's query, and whether the agent's response actually used it. Judge every piece on its "
    "own merits, be consistent from one piece to the next, and answer exactly in the format "
    "asked for."
)
"""System instructions of the Context Relevance judge."""

_LANGUAGE = (
    "Language: write `reasoning`, `missing_context` and `overall_assessment` in the language "
    "the user query is written in (a Japanese query gets Japanese text, an English query "
    "English text). Keep the JSON keys and the relevance labels in English."
)

_EXAMPLE = """Example
User query: How tall is the Eiffel Tower, and who designed it?
Agent response: The Eiffel Tower is about 330 metres tall.
Context pieces:
[0] The Eiffel Tower is 330 metres tall including its antennas.
[1] Paris has roughly 2.1 million inhabitants.
[2] The tower was completed in 1889 for the World's Fair.
Answer:
{"evaluations": [
  {"context_index": 0, "relevance_level": "high", "was_used": true, "reasoning": "Gives the height asked for; the response states it."},
  {"context_index": 1, "relevance_level": "none", "was_used": false, "reasoning": "The city's population has nothing to do with the question."},
  {"context_index": 2, "relevance_level": "medium", "was_used": false, "reasoning": "Useful background on the tower, but not what was asked; the response does not mention it."}],
 "missing_context": ["Who designed the Eiffel Tower"],
 "overall_assessment": "One piece answers the height; nothing covers the designer, the second half of the question."}"""  # noqa: E501


def analyze_prompt(query: str, response: str, pieces: Sequence[str]) -> str:
    """Ask for one evaluation per context piece, the missing context and an overall view.

    Args:
        query: the user's message.
        response: the agent's answer.
        pieces: the context pieces, numbered from 0 in the prompt.
    """
    last = len(pieces) - 1
    return f"""Assess the context an AI agent was given for answering a user.

User query:
{query}

Agent response:
{response}

Context pieces (numbered from 0):
{format_pieces(pieces)}

Return exactly {len(pieces)} evaluations, one per context piece: context_index 0 to {last}, each
index exactly once. For every piece give:
- "context_index": the piece's number (do not copy the piece's text).
- "relevance_level": how much the piece bears on the user query:
  "high" = it answers the query directly or holds information the answer depends on;
  "medium" = it adds helpful background or supporting detail;
  "low" = it touches the topic only indirectly;
  "none" = it is unrelated to the query.
- "was_used": true when the response states or clearly relies on the piece's information,
  false otherwise. Decide from what the response says, not from how relevant the piece is.
- "reasoning": one or two sentences that justify both judgements.

Then give:
- "missing_context": the information that was not among the pieces but that a complete,
  well-grounded answer to this query needs (an empty list when nothing important is missing;
  do not list things the query did not ask about).
- "overall_assessment": one or two sentences on how well the context served this query.

{_LANGUAGE}

{_EXAMPLE}

Answer with the JSON object only."""


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
