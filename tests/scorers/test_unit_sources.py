"""Issue 34 #1: units a judge extracts must come from their text (divergences.md row 108).

On the scripted judge server (127.0.0.1) and the real store: a judge that answers an answer
about Paris with the claims prompt's own example (a Tesla) is sent back once for repair, and
the second such reply makes the item an ``error`` with the raw reply kept, where the scorer
used to judge those claims and report a score that rested on nothing."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from scorekit import run_evals_sync
from scorekit.judge import Judge
from scorekit.scorers import create_faithfulness_scorer
from scorekit.scorers.unit_sources import MIN_FOUND, found_share, stray_units, words_of
from scorekit.store import Store
from tests.servers.scripted_openai import Reply, ScriptedServer

EXAMPLE = {
    "claims": [
        "The Model S is built by Tesla.",
        "The Model S reaches 100 km/h in 2.1 seconds.",
        "Tesla Model S prices might drop next year.",
    ]
}
ANSWER = "Paris is the capital of France. About 2M people live there."


def _judge(server: ScriptedServer) -> Judge:
    return Judge(
        f"openai-compatible/u-{uuid.uuid4().hex[:8]}",
        base_url=server.base_url,
        cache=False,
        max_retries=0,
    )


def test_copied_example_claims_are_repaired_then_an_error_with_the_reply_kept(
    server: ScriptedServer, store_db: str | Path
) -> None:
    # before: the copied claims were judged (the second reply, sent back as not verdicts, was
    # repaired by the third) and the answer about Paris scored a green 1.0
    yes = {"verdicts": [{"verdict": "yes", "reason": "r"}] * 3}
    server.enqueue(Reply(json.dumps(EXAMPLE)), Reply(json.dumps(EXAMPLE)), Reply(json.dumps(yes)))
    scorer = create_faithfulness_scorer(model=_judge(server), context=["Paris is in France."])
    result = run_evals_sync(
        [{"id": "paris", "input": "Tell me about Paris.", "output": ANSWER}],
        [scorer],
        store=store_db,
    )
    assert len(server.requests) == 2  # the claims request and one repair, no verdicts asked
    with Store(store_db) as store:
        [row] = store.results(result.run_id)
    assert row.status == "error" and row.score is None
    assert row.error is not None
    assert row.error["type"] == "JudgeOutputError"
    assert row.error["step"] == "preprocess"
    assert json.loads(row.error["raw_output"]) == EXAMPLE
    assert "claims at positions [0, 1, 2] do not come from the text given" in row.error["message"]


def test_claims_taken_from_the_answer_or_the_query_are_judged(server: ScriptedServer) -> None:
    server.enqueue(
        Reply(json.dumps({"claims": ["Paris is the capital of France.", "2M live in Paris."]})),
        Reply(json.dumps({"verdicts": [{"verdict": "yes", "reason": "r"}] * 2})),
    )
    scorer = create_faithfulness_scorer(
        model=_judge(server), context=["Paris, the capital of France, has 2M people."]
    )
    result = scorer.run_sync(input="Tell me about Paris.", output=ANSWER)
    assert (result.status, result.score) == ("ok", 1.0)
    assert len(server.requests) == 2


def test_words_are_compared_by_stem_and_in_pieces_for_scripts_without_spaces() -> None:
    assert words_of("The recommended setting recommends it.") == {"recomm", "settin"}
    assert words_of("東京は日本の首都") == {"東京", "京は", "は日", "日本", "本の", "の首", "首都"}
    assert found_share("Yes.", words_of("No.")) == 0.0  # "yes" is a word, not a function word
    assert found_share("It is.", words_of("anything")) is None  # no word: not checked
    source = "Einstein won the Nobel Prize in 1921."
    assert stray_units(["Einstein won the Nobel Prize.", "Birds are interesting."], source) == [1]
    # a unit that takes the query's terms to stand alone passes with the query in the source
    claim = ["Albert Einstein won the Nobel Prize in 1921."]
    assert stray_units(claim, "Yes, in 1921.") == [0]
    assert stray_units(claim, "Yes, in 1921.\nWhen did Einstein get the Nobel Prize?") == []
    assert MIN_FOUND == 0.25
