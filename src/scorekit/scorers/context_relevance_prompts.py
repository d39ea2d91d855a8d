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
    "You judge how relevant retrieved context is to a user's query, and whether a response "
    "drew on it. The relevance of a context piece is one of:\n"
    '- "high": it directly addresses the query or gives information essential to answer it\n'
    '- "medium": it gives supporting or background information that helps\n'
    '- "low": it is only loosely related and helps little\n'
    '- "none": it is irrelevant or unrelated to the query\n'
    "A piece's relevance depends on the query and the piece alone, not on the response. "
    "Reply with JSON only, on one line."
)
"""System instructions of the Context Relevance judge: the relevance levels are defined here,
once, so the user prompt ends with the question (issue 29's probe: the query first, the
question last and the levels in the system prompt, the shape of the reference prompt)."""


def analyze_prompt(query: str, response: str, pieces: Sequence[str]) -> str:
    """Ask for each context piece's relevance level and use, then the missing context.

    The shape of the reference prompt the label probe measured best (issue 29,
    docs/judge-quality.md): the query, the pieces, then the response, and last the question;
    the reply gives each piece's level first, in the order shown (no index, reasoning or
    assessment: a few completion tokens a piece).

    Args:
        query: the user's message.
        response: the agent's answer.
        pieces: the context pieces, numbered from 0 in the prompt.
    """
    if len(pieces) == 1:
        context = f"Context:\n{pieces[0]}"
        each, count, lacks = "the context", "one", "it lacks"
    else:
        context = f"Context pieces:\n{format_pieces(pieces)}"
        each = f"each context piece (0 to {len(pieces) - 1}, in order)"
        count, lacks = "one per piece, in order", "no piece holds"
    return f"""Rate how relevant the context below is to the user's query.

User query: {query}

{context}

Response:
{response}

How relevant is {each} to the user's query, and did the response use it? Give \
"evaluations" ({count}: "relevance_level", then "was_used"), then "missing_context": what \
the query needs that {lacks} ([] if nothing), in the language of the user's query."""


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
