"""The answer's claims: the preprocess step that Faithfulness and Hallucination share.

Both scorers first have the judge list every claim the answer makes, then judge each claim
against the context; they differ in the context they need and in the verdicts.
:data:`ANSWER_CLAIMS` is that step's :class:`~scorekit.scorers.verdicts.Units`, run after a
scorer's own context check: an empty answer has no claims (no judge call), any other answer is
sent with :func:`claims_prompt`, and the reply is bounded by the answer's length
(:func:`~scorekit.scorers.replies.item_limit`). Their verdict prompts show the claims with
:func:`claims_in_context`.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorekit.scorers.replies import Claims
from scorekit.scorers.verdicts import Units, numbered

__all__ = ["ANSWER_CLAIMS", "claims_in_context", "claims_prompt"]


def claims_prompt(answer: str) -> str:
    """Ask for every claim of an answer (a JSON ``{"claims": [...]}`` reply)."""
    return f"""List every claim the text below makes.

A claim is any statement that asserts something: facts, figures, opinions stated as facts and
speculation ("it may rain tomorrow" is a claim). Questions and instructions are not claims.
Split compound sentences into single claims, keep each claim self-contained (replace pronouns
with what they refer to), and keep the text's own words where you can. Add nothing that the
text does not say. An empty text has no claims.

Example: "The Model S, built by Tesla, reaches 100 km/h in 2.1 seconds. Will prices fall? They
might drop next year." gives ["The Model S is built by Tesla.", "The Model S reaches 100 km/h
in 2.1 seconds.", "Tesla Model S prices might drop next year."].

Text:
{answer}

Answer with JSON only: {{"claims": ["..."]}}"""


ANSWER_CLAIMS = Units(
    "Extract the answer's claims",
    Claims,
    claims_prompt,
    none_found="The judge found no claims in the answer, so there is nothing to check.",
)
"""The preprocess step: the answer's claims, ``at_most(item_limit(answer))``."""


def claims_in_context(query: str, context: Sequence[str], claims: Sequence[str]) -> str:
    """The middle of a verdicts prompt: the user's query, the context and the numbered claims."""
    return f"""User query (for the language of your reasons):
{query}

Context:
{chr(10).join(context)}

Claims ({len(claims)}):
{numbered(claims)}"""
