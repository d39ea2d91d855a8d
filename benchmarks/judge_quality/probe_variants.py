"""The label probe's prompt variants: the shipped context relevance prompt, one factor changed.

Every variant but ``reference`` and ``baseline`` starts from the scorer's analyze prompt
(:mod:`scorekit.scorers.context_relevance_prompts`, built as the scorer builds it for one piece)
and changes exactly one thing, named in :attr:`ProbeVariant.factor`, so that a difference in
the table can be read as that factor's effect:

============== ======================================================================
variant        what differs from ``scorer``
============== ======================================================================
scorer         nothing: the analyze prompt as shipped
no-response    the agent's response is not shown
query-last     the user query comes after the pieces and the response
question-last  the user prompt ends with the question "How relevant is context piece 0
               to the user query?"
defs-system    the level definitions sit in the system prompt instead of the user prompt
defs-wording   the level definitions use the reference prompt's wording
one-task       only the relevance level is asked (no use, reasoning, missing context,
               overall assessment or language line)
level-first    the reply opens with the level (``{"evaluations": [{"relevance_level":``),
               not with the piece's index (JSON key order)
============== ======================================================================

Two more variants change the reference's tail, the other way round (is it the response, or
the extra tasks, that loses the signal?): ``ref-response`` shows the agent's response after
the context, ``ref-tasks`` asks for the missing context and an overall assessment besides the
level. ``plain-list`` is a candidate design in our own words: the reference's shape (levels
defined in the system prompt, query and numbered pieces only, the question last) with a
compact reply, one level per piece in order (``{"levels": ["high", ...]}``), a few completion
tokens a piece.

``reference`` is the measuring stick described in the shared data's README
(``ares_databricks_human_dev/README.md``): a plain four-level prompt, levels defined in the
system prompt, query and document only, the question asked last, the reply
``{"relevance_level": ...}``. It is written here from that description as a benchmark fixture;
it is not product text. ``baseline`` is the harness's plain yes/no question.

The variants that share the scorer's text up to a late point are probed right after it, so
llama.cpp's prompt cache evaluates only their new tail (see :mod:`judge_quality.probe`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from judge_quality import baselines
from scorekit.inputs.retrieval_context import format_pieces
from scorekit.scorers import context_relevance_prompts as prompts
from scorekit.scorers.context_relevance import RELEVANCE_WEIGHTS

__all__ = [
    "BASELINE_OPENING",
    "DEFAULT_PROBE",
    "LEVEL_FIRST_OPENING",
    "LIST_OPENING",
    "PROBE_VARIANTS",
    "REFERENCE_OPENING",
    "SCORER_OPENING",
    "WAS_SHIPPED_OPENING",
    "Messages",
    "ProbeVariant",
]

Messages = tuple[str, str]
"""(system, user)."""

WAS_SHIPPED_OPENING = '{"evaluations": [{"context_index": 0, "relevance_level": "'
"""The reply of the scorer before the redesign up to its first label (one piece: index 0)."""
LEVEL_FIRST_OPENING = '{"evaluations": [{"relevance_level": "'
"""That reply with the level as the first key of the evaluation."""
SCORER_OPENING = LEVEL_FIRST_OPENING
"""The scorer's reply up to its first label (the redesign asks the level first)."""
REFERENCE_OPENING = '{"relevance_level": "'
"""The reference prompt's reply up to its label."""
BASELINE_OPENING = '{"label": "'
"""The baseline's reply up to its label."""
LIST_OPENING = '{"levels": ["'
"""The candidate's reply up to the first piece's level."""


@dataclass(frozen=True)
class ProbeVariant:
    """One prompt variant.

    Attributes:
        name: the variant's name on the command line and in the table.
        factor: what differs from the shipped scorer prompt, in a few words.
        messages: ``(question, document, answer) -> (system, user)``.
        opening: the reply's text before the label.
        weights: each allowed label's weight (its order is the table's).
    """

    name: str
    factor: str
    messages: Callable[[str, str, str], Messages]
    opening: str
    weights: Mapping[str, float]


# -- the scorer's prompt and its parts -------------------------------------------------------

_SHIPPED_LEVELS = (
    '"high" = the piece holds what the query asks; "medium" = part of it; "low" = same topic, '
    'but it does not help answer; "none" = unrelated.'
)
_REFERENCE_LEVELS = (
    '"high" = it directly addresses the query or gives essential information; "medium" = '
    'supporting or background information that helps; "low" = only loosely related, not much '
    'help; "none" = irrelevant or unrelated.'
)
_TASKS_AFTER_LEVEL = "\n- was_used:"


_WAS_SHIPPED_SYSTEM = (
    "You rate how relevant retrieved context is to a user's query, and whether a response used "
    "it. Answer in the JSON format asked for."
)
"""The scorer's system prompt before issue 29's redesign (a fixture: the one-factor variants
below are built on it)."""


def _was_shipped_prompt(query: str, response: str, pieces: list[str]) -> str:
    """The scorer's analyze prompt before issue 29's redesign, word for word."""
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


def _was_shipped(question: str, document: str, answer: str) -> Messages:
    return _WAS_SHIPPED_SYSTEM, _was_shipped_prompt(question, answer, [document])


def _scorer(question: str, document: str, answer: str) -> Messages:
    return prompts.INSTRUCTIONS, prompts.analyze_prompt(question, answer, [document])


def _replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise ValueError(f"the scorer prompt no longer holds {old[:40]!r} exactly once")
    return text.replace(old, new)


def _no_response(question: str, document: str, answer: str) -> Messages:
    system, user = _was_shipped(question, document, answer)
    return system, _replace_once(user, f"Response:\n{answer}\n\n", "")


def _query_last(question: str, document: str, answer: str) -> Messages:
    system, user = _was_shipped(question, document, answer)
    head = f"User query:\n{question}\n\n"
    rest = user.removeprefix(head)
    body, marker, tail = rest.partition("\n\nFor each piece")
    return system, f"{body}\n\n{head}{marker.lstrip()}{tail}"


def _question_last(question: str, document: str, answer: str) -> Messages:
    system, user = _was_shipped(question, document, answer)
    return system, f"{user}\n\nHow relevant is context piece 0 to the user query?"


def _defs_system(question: str, document: str, answer: str) -> Messages:
    system, user = _was_shipped(question, document, answer)
    system = f"{system}\nRelevance levels of a context piece: {_SHIPPED_LEVELS}"
    return system, _replace_once(user, _SHIPPED_LEVELS, "one of the relevance levels defined.")


def _defs_wording(question: str, document: str, answer: str) -> Messages:
    system, user = _was_shipped(question, document, answer)
    return system, _replace_once(user, _SHIPPED_LEVELS, _REFERENCE_LEVELS)


def _one_task(question: str, document: str, answer: str) -> Messages:
    system, user = _was_shipped(question, document, answer)
    cut = user.index(_TASKS_AFTER_LEVEL)
    return system, user[:cut]


# -- the measuring sticks --------------------------------------------------------------------

_REFERENCE_SYSTEM = (
    "You are an expert evaluator of context relevance: you decide whether a context is "
    "relevant and useful for answering a user's query. Relevance levels:\n"
    '- "high": the context directly addresses the query or provides essential information\n'
    '- "medium": the context gives supporting or background information that is helpful\n'
    '- "low": the context is tangentially related but not very helpful\n'
    '- "none": the context is completely irrelevant or unrelated\n'
    'Respond only with JSON: {"relevance_level": "high" | "medium" | "low" | "none"}.'
)


def _reference(question: str, document: str, answer: str) -> Messages:
    del answer  # the reference never shows the agent's answer
    user = (
        "Rate how relevant the context below is to the user's query.\n\n"
        f"User Query: {question}\n\nContext:\n{document}\n\n"
        "How relevant is the context to the user's query? Answer with the JSON only."
    )
    return _REFERENCE_SYSTEM, user


def _ref_response(question: str, document: str, answer: str) -> Messages:
    system, user = _reference(question, document, answer)
    tail = "\n\nHow relevant is the context"
    return system, _replace_once(user, tail, f"\n\nAgent's response:\n{answer}{tail}")


def _ref_tasks(question: str, document: str, answer: str) -> Messages:
    system, user = _reference(question, document, answer)
    head = user[: user.index("\n\nHow relevant is the context")]
    ask = ('\n\nGive "relevance_level", then "missing_context": what the query needs that the '
           'context lacks ([] if nothing), then "overall_assessment": a few words.')  # fmt: skip
    return system, f"{head}{ask} Answer with the JSON only."


_PLAIN_SYSTEM = (
    "You judge whether retrieved context helps answer a user's question. The relevance of a "
    "context piece is one of:\n"
    "- high: it answers the question, or holds information the answer cannot do without\n"
    "- medium: it holds supporting or background information that helps answer\n"
    "- low: it touches the topic but does little to answer the question\n"
    "- none: it has nothing to do with the question\n"
    "Reply with JSON only."
)


def _plain_list(question: str, document: str, answer: str) -> Messages:
    del answer  # relevance is judged from the question and the pieces alone
    user = (
        f"User question:\n{question}\n\nContext pieces:\n[0] {document}\n\n"
        "How relevant is each context piece to the user question? Give one level per piece, "
        "in order."
    )
    return _PLAIN_SYSTEM, user


def _baseline(question: str, document: str, answer: str) -> Messages:
    user = baselines.context_relevance.prompt(question, (document,), answer, None, None)
    return baselines.BASELINE_INSTRUCTIONS, user


_YES_NO = {"yes": 1.0, "no": 0.0}

PROBE_VARIANTS: dict[str, ProbeVariant] = {
    v.name: v
    for v in (
        ProbeVariant("reference", "the shared README's plain prompt", _reference,
                     REFERENCE_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("ref-response", "reference + the response shown", _ref_response,
                     REFERENCE_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("ref-tasks", "reference + missing context and assessment asked",
                     _ref_tasks, REFERENCE_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("was-shipped", "none (the prompt before the redesign)", _was_shipped,
                     WAS_SHIPPED_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("level-first", "reply opens with the level (key order)", _was_shipped,
                     LEVEL_FIRST_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("question-last", "ends with the relevance question", _question_last,
                     SCORER_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("one-task", "relevance only, no other task", _one_task, SCORER_OPENING,
                     RELEVANCE_WEIGHTS),
        ProbeVariant("defs-wording", "the reference's level wording", _defs_wording,
                     SCORER_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("no-response", "the response not shown", _no_response, SCORER_OPENING,
                     RELEVANCE_WEIGHTS),
        ProbeVariant("defs-system", "level definitions in the system prompt", _defs_system,
                     SCORER_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("query-last", "the query after the pieces", _query_last, SCORER_OPENING,
                     RELEVANCE_WEIGHTS),
        ProbeVariant("scorer", "the redesigned prompt as shipped now (issue 29)", _scorer,
                     SCORER_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("plain-list", "candidate: plain shape, one level per piece", _plain_list,
                     LIST_OPENING, RELEVANCE_WEIGHTS),
        ProbeVariant("baseline", "plain yes/no question", _baseline, BASELINE_OPENING, _YES_NO),
    )
}  # fmt: skip
"""The variants by name, in the order a row probes them (cache-sharing variants together)."""

DEFAULT_PROBE = ("reference", "ref-response", "ref-tasks", "was-shipped", "level-first",
                 "question-last", "one-task", "defs-wording", "no-response", "defs-system",
                 "query-last", "scorer", "plain-list")  # fmt: skip
"""``--probe`` with no names: every variant but the yes/no baseline (measured before: 0.53)."""
