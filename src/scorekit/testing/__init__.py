"""LLM evaluations as tests: the assertions, the pytest plugin and the test session's run.

- :mod:`~scorekit.testing.assertions`: :func:`assert_score`, :func:`assert_scores` (re-exported
  here: ``from scorekit.testing import assert_score``);
- :mod:`~scorekit.testing.marker`: ``@pytest.mark.scorekit(...)``'s settings, checked;
- :mod:`~scorekit.testing.plugin`: the pytest plugin (``pytest11`` entry point);
- :mod:`~scorekit.testing.session`: the scores of one pytest session, gated and stored once.
"""

from __future__ import annotations

from scorekit.testing.assertions import (
    Bound,
    ScoreAssertionError,
    ScoreCheck,
    ScoreSink,
    assert_score,
    assert_scores,
    recording,
    repeating,
)

__all__ = [
    "Bound",
    "ScoreAssertionError",
    "ScoreCheck",
    "ScoreSink",
    "assert_score",
    "assert_scores",
    "recording",
    "repeating",
]
