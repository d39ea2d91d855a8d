"""The quick checks on the reply's text: includes, excludes, equals, matches, similarity.

Source: Mastra evals 1.10.2 ``checks`` (mastra-scorers.md §3.10). The text is that of the
output's ``role == "assistant"`` messages (:func:`~scorekit.checks.check_scorer.assistant_texts`),
joined with ``" "`` (includes, excludes, similarity) or ``""`` (equals, matches), as Mastra
joins them. ``ignore_case`` lower-cases both sides (``str.lower``, as JS ``toLowerCase``: ``ß``
is not folded to ``ss``). Scores are 0 or 1, except ``similarity`` without a threshold.

Honest results (divergences): an output whose assistant messages have no text at all (or that
has none) is ``skipped`` (row 30); a target that measures nothing (an empty string, a
similarity target that is all whitespace, a threshold of 0 or above 1) is a ``ConfigError``
(row 31); ``matches(..., exact=True)`` requires the *whole* text to match, where Mastra
builds ``^source$`` without a group, so that ``cat|dog`` accepts ``hotdog`` (row 32).
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorekit.checks.check_scorer import NO_TEXT, assistant_texts, check_scorer, passed_score
from scorekit.checks.js_regex import JsRegex
from scorekit.errors import ConfigError
from scorekit.pipeline import Scorer, not_scorable
from scorekit.scorers.options import check_flag
from scorekit.steps import NotScorable
from scorekit.text.dice import dice_similarity
from scorekit.text.whitespace import remove_whitespace

__all__ = [
    "EQUALS_ID",
    "EXCLUDES_ID",
    "INCLUDES_ID",
    "MATCHES_ID",
    "SIMILARITY_ID",
    "Pattern",
    "equals",
    "excludes",
    "includes",
    "matches",
    "similarity",
]

INCLUDES_ID = "check-includes"
"""Mastra's id of the ``includes`` check."""
EXCLUDES_ID = "check-excludes"
"""Mastra's id of the ``excludes`` check."""
EQUALS_ID = "check-equals"
"""Mastra's id of the ``equals`` check."""
MATCHES_ID = "check-matches"
"""Mastra's id of the ``matches`` check."""
SIMILARITY_ID = "check-similarity"
"""Mastra's id of the ``similarity`` check."""

Pattern = str | re.Pattern[str] | JsRegex | Mapping[str, str]
"""What ``matches`` takes: a Python pattern (text or compiled), a :class:`JsRegex`, or a JS
regex as data ``{"source": ..., "flags": ...}``."""


def _target(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{field} must be a string, not {type(value).__name__}", field=field)
    if not value:
        raise ConfigError(f"{field} must not be empty: every text contains ''", field=field)
    return value


def _reply_text(messages: list[Any], separator: str, *, fold: bool = False) -> str | NotScorable:
    """Return the assistant texts joined (lower-cased when ``fold``), or a skip if none has text."""
    texts = assistant_texts(messages)
    if not any(texts):
        return not_scorable(NO_TEXT)
    text = separator.join(texts)
    return text.lower() if fold else text


def _case(target: str, ignore_case: Any) -> tuple[str, bool]:
    """The target as compared (lower-cased with ``ignore_case``) and whether to fold case."""
    fold = check_flag(ignore_case, field="ignore_case")
    return (target.lower() if fold else target), fold


def includes(expected: str, *, ignore_case: bool = True, scorer_id: str | None = None) -> Scorer:
    """Check that the reply contains ``expected`` (Mastra ``checks.includes``).

    Args:
        expected: the text to find; non-empty.
        ignore_case: compare lower-cased texts.
        scorer_id: the scorer's id, by default Mastra's ``check--target``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-includes``): 1 when found, else 0. ``preprocess_step_result`` is
        ``{"output", "target", "found"}`` (``output`` the assistant texts joined with a space,
        both lower-cased with ``ignore_case``). Skipped when no assistant message has text.

    Raises:
        ConfigError: ``expected`` is empty or not a string, ``ignore_case`` is not a bool.

    Example:
        >>> reply = [{"role": "assistant", "content": "It is Sunny in Paris."}]
        >>> includes("sunny").run_sync(output=reply).score
        1.0
    """
    target, fold = _case(_target(expected, "expected"), ignore_case)

    def preprocess(messages: list[Any]) -> dict[str, Any] | NotScorable:
        output = _reply_text(messages, " ", fold=fold)
        if isinstance(output, NotScorable):
            return output
        return {"output": output, "target": target, "found": target in output}

    return check_scorer(
        scorer_id or INCLUDES_ID,
        description=f"Whether the reply includes {expected!r}",
        preprocess=preprocess,
        score=passed_score("found"),
    )


def excludes(unwanted: str, *, ignore_case: bool = True, scorer_id: str | None = None) -> Scorer:
    """Check that the reply does not contain ``unwanted`` (Mastra ``checks.excludes``).

    Args:
        unwanted: the text that must not appear; non-empty.
        ignore_case: compare lower-cased texts.
        scorer_id: the scorer's id, by default Mastra's ``check-excludes``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-excludes``): 1 when absent, else 0. ``preprocess_step_result`` is
        ``{"output", "target", "excluded"}``. Skipped when no assistant message has text.

    Raises:
        ConfigError: ``unwanted`` is empty or not a string, ``ignore_case`` is not a bool.

    Example:
        >>> reply = [{"role": "assistant", "content": "It is Sunny in Paris."}]
        >>> excludes("error").run_sync(output=reply).score
        1.0
    """
    target, fold = _case(_target(unwanted, "unwanted"), ignore_case)

    def preprocess(messages: list[Any]) -> dict[str, Any] | NotScorable:
        output = _reply_text(messages, " ", fold=fold)
        if isinstance(output, NotScorable):
            return output
        return {"output": output, "target": target, "excluded": target not in output}

    return check_scorer(
        scorer_id or EXCLUDES_ID,
        description=f"Whether the reply avoids {unwanted!r}",
        preprocess=preprocess,
        score=passed_score("excluded"),
    )


def equals(expected: str, *, ignore_case: bool = True, scorer_id: str | None = None) -> Scorer:
    """Check that the reply is exactly ``expected`` (Mastra ``checks.equals``).

    The assistant texts are joined with no separator and not trimmed: ``" sunny "`` does not
    equal ``"sunny"``.

    Args:
        expected: the whole expected reply; non-empty.
        ignore_case: compare lower-cased texts.
        scorer_id: the scorer's id, by default Mastra's ``check-equals``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-equals``): 1 when equal, else 0. ``preprocess_step_result`` is
        ``{"output", "target", "is_equal"}``. Skipped when no assistant message has text.

    Raises:
        ConfigError: ``expected`` is empty or not a string, ``ignore_case`` is not a bool.

    Example:
        >>> reply = [{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]
        >>> equals("AB").run_sync(output=reply).score
        1.0
    """
    target, fold = _case(_target(expected, "expected"), ignore_case)

    def preprocess(messages: list[Any]) -> dict[str, Any] | NotScorable:
        output = _reply_text(messages, "", fold=fold)
        if isinstance(output, NotScorable):
            return output
        return {"output": output, "target": target, "is_equal": output == target}

    return check_scorer(
        scorer_id or EQUALS_ID,
        description=f"Whether the reply equals {expected!r}",
        preprocess=preprocess,
        score=passed_score("is_equal"),
    )


@dataclass(frozen=True)
class _Matcher:
    """A compiled pattern of either dialect, and how results show it."""

    shown: str
    js: JsRegex | None
    python: re.Pattern[str] | None

    def test(self, text: str, *, exact: bool) -> bool:
        if self.js is not None:
            return self.js.test_whole(text) if exact else self.js.test(text)
        assert self.python is not None
        found = self.python.fullmatch(text) if exact else self.python.search(text)
        return found is not None


def _matcher(pattern: Any) -> _Matcher:
    if isinstance(pattern, JsRegex):
        return _Matcher(str(pattern), pattern, None)
    if isinstance(pattern, Mapping):
        if not set(pattern) <= {"source", "flags"} or "source" not in pattern:
            raise ConfigError(
                "a JS regex given as data is {'source': str, 'flags': str}", field="pattern"
            )
        regex = JsRegex(pattern["source"], pattern.get("flags", ""))
        return _Matcher(str(regex), regex, None)
    if isinstance(pattern, str):
        try:
            pattern = re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as exc:
            raise ConfigError(f"pattern is not a valid regex: {exc}", field="pattern") from exc
    if isinstance(pattern, re.Pattern) and isinstance(pattern.pattern, str):
        return _Matcher(pattern.pattern, None, pattern)
    raise ConfigError(
        "pattern must be a str or re.Pattern[str] (Python syntax), or a JS regex "
        f"(js_regex(...) or {{'source', 'flags'}}), not {type(pattern).__name__}",
        field="pattern",
    )


def matches(pattern: Pattern, *, exact: bool = False, scorer_id: str | None = None) -> Scorer:
    """Check that the reply matches a regular expression (Mastra ``checks.matches``).

    Args:
        pattern: a Python regex (a string or a compiled ``re.Pattern``, Python syntax and
            flags), or a JavaScript regex ported from Mastra: ``js_regex(source, flags)`` or
            the data ``{"source": ..., "flags": ...}`` (translated with JS semantics, see
            :mod:`scorekit.checks.js_regex`).
        exact: require the whole reply to match (Python ``fullmatch``); else a match anywhere
            (``search``; a JS regex with the ``y`` flag must match at the start). Mastra
            builds ``^source$`` without a group, so ``cat|dog`` accepts any text ending in
            ``dog``; scorekit does not (row 32).
        scorer_id: the scorer's id, by default Mastra's ``check--matcher``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-matches``): 1 on a match, else 0. ``preprocess_step_result`` is
        ``{"output", "pattern", "matched"}``: ``output`` the assistant texts joined with no
        separator, ``pattern`` the regex as JS shows it (``/\\d+/i``) or a Python pattern's
        text. Skipped when no assistant message has text.

    Raises:
        ConfigError: the pattern does not compile, uses an unsupported JS construct, or has
            another type; ``exact`` is not a bool.

    Example:
        >>> from scorekit.checks import js_regex
        >>> reply = [{"role": "assistant", "content": "Highs of 72°F."}]
        >>> matches(js_regex(r"\\d{1,3}°[FC]")).run_sync(output=reply).score
        1.0
    """
    matcher = _matcher(pattern)
    whole = check_flag(exact, field="exact")

    def preprocess(messages: list[Any]) -> dict[str, Any] | NotScorable:
        output = _reply_text(messages, "")
        if isinstance(output, NotScorable):
            return output
        return {
            "output": output,
            "pattern": matcher.shown,
            "matched": matcher.test(output, exact=whole),
        }

    return check_scorer(
        scorer_id or MATCHES_ID,
        description=f"Whether the reply {'fully ' if whole else ''}matches {matcher.shown}",
        preprocess=preprocess,
        score=passed_score("matched"),
    )


def _threshold(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(
            f"threshold must be a number, not {type(value).__name__}", field="threshold"
        )
    limit = float(value)
    if not math.isfinite(limit) or not 0 < limit <= 1:
        raise ConfigError(
            f"threshold must be in (0, 1], got {value!r}: 0 passes every reply and a value "
            "above 1 none",
            field="threshold",
        )
    return limit


def similarity(
    expected: str,
    *,
    ignore_case: bool = True,
    threshold: float | None = None,
    scorer_id: str | None = None,
) -> Scorer:
    """Score the reply's bigram similarity to ``expected`` (Mastra ``checks.similarity``).

    Similarity: npm string-similarity 4.0.4 ``compareTwoStrings`` (Dice coefficient of
    character bigrams after deleting all whitespace, :func:`scorekit.text.dice_similarity`),
    unrounded.

    Args:
        expected: the reference text; it must have a non-whitespace character.
        ignore_case: compare lower-cased texts.
        threshold: when given, the score is 1 if the similarity is ``>= threshold``, else 0;
            a number in (0, 1].
        scorer_id: the scorer's id, by default Mastra's ``check--threshold``; give each
            check of one kind its own to run several in one run (ids are unique in a run).

    Returns:
        A scorer (id ``check-similarity``): the similarity in [0, 1], or 0/1 with a threshold.
        ``preprocess_step_result`` is ``{"output", "target", "score", "threshold"}``
        (``score`` the similarity; ``threshold`` only when given). Skipped when no assistant
        message has text.

    Raises:
        ConfigError: ``expected`` is not a string or is all whitespace, ``threshold`` is not
            in (0, 1], ``ignore_case`` is not a bool.

    Example:
        >>> reply = [{"role": "assistant", "content": "Sunny, 73°F"}]
        >>> similarity("Sunny, 72°F").run_sync(output=reply).score
        0.7777777777777778
    """
    target = _target(expected, "expected")
    if not remove_whitespace(target):
        raise ConfigError(
            "expected must have a non-whitespace character: the similarity ignores whitespace",
            field="expected",
        )
    target, fold = _case(target, ignore_case)
    limit = _threshold(threshold)

    def preprocess(messages: list[Any]) -> dict[str, Any] | NotScorable:
        output = _reply_text(messages, " ", fold=fold)
        if isinstance(output, NotScorable):
            return output
        result: dict[str, Any] = {
            "output": output,
            "target": target,
            "score": dice_similarity(output, target),
        }
        if limit is not None:
            result["threshold"] = limit
        return result

    def score(result: Any) -> float:
        value: float = result["score"]
        if limit is None:
            return value
        return 1.0 if value >= limit else 0.0

    return check_scorer(
        scorer_id or SIMILARITY_ID,
        description=f"How similar the reply is to {expected!r}"
        + (f" (passes at {limit})" if limit is not None else ""),
        preprocess=preprocess,
        score=score,
    )
