"""The answer's claims: the preprocess step that Faithfulness and Hallucination share.

Both scorers first have the judge list every claim the answer makes, then judge each claim
against the context; they differ in the context they need and in the verdicts. The step here
is what comes after a scorer's own context check: an empty answer has no claims (no judge
call), any other answer is sent with :func:`claims_prompt`, and the reply is bounded by the
answer's length (:func:`~scorekit.scorers.replies.item_limit`).
"""

from __future__ import annotations

from scorekit.judge.structured import SchemaSpec
from scorekit.messages import get_assistant_message
from scorekit.pipeline import LocalResult, StepContext, local_result
from scorekit.scorers.replies import Claims, item_limit

__all__ = ["answer_claims_schema", "answer_claims_step", "claims_prompt"]


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


def answer_claims_step(ctx: StepContext) -> str | LocalResult:
    """The claims prompt for the run's answer, or no claims (no judge call) for an empty one."""
    answer = get_assistant_message(ctx.run.output) or ""
    if not answer.strip():
        return local_result(Claims(claims=[]))
    return claims_prompt(answer)


def answer_claims_schema(ctx: StepContext) -> SchemaSpec:
    """The claims reply's schema, bounded by the length of the run's answer."""
    return Claims.at_most(item_limit(get_assistant_message(ctx.run.output) or ""))
