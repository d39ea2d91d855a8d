"""API keys never appear in results, logs, cache keys, exceptions, reports or repr."""

from __future__ import annotations

import logging
import pickle
import uuid
from pathlib import Path

import pytest

from scorekit import JudgeHTTPError, PromptStep, ScorerRunError, create_scorer
from scorekit.judge import Judge
from scorekit.judge.providers import resolve_model
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import Reply, ScriptedServer

SECRET = "sk-scorekit-SECRET-0123456789abcdef"


def scorer_for(judge: Judge):
    return (
        create_scorer("rel", description="d", judge=judge)
        .analyze(PromptStep("label", lambda ctx: f"label {ctx.run.output}", Relevance))
        .generate_score(lambda ctx: 1.0)
    )


async def test_key_stays_out_of_repr_errors_logs_results_and_cache(
    server: ScriptedServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    judge = Judge(
        f"openai-compatible/s-{uuid.uuid4().hex[:6]}",
        base_url=server.base_url,
        api_key=SECRET,
        cache_dir=tmp_path,
        retry_backoff=0.01,
    )
    # the key really is sent ...
    ok = await scorer_for(judge).run(output="o")
    assert server.requests[-1].headers["authorization"] == f"Bearer {SECRET}"
    # ... and a server that echoes it back in errors (worst case) does not leak it
    echo = {"error": {"message": f"Incorrect API key provided: {SECRET}", "code": "bad_key"}}
    server.enqueue(
        Reply(status=503, body=echo),
        *[Reply(status=401, body=echo) for _ in range(2)],
    )
    with pytest.raises(ScorerRunError) as info:
        await scorer_for(judge).run(output="other")
    error = info.value
    cause = error.__cause__
    assert isinstance(cause, JudgeHTTPError)
    assert cause.status_code == 401
    assert "***" in str(cause)
    assert error.result is not None
    texts = [
        repr(judge),
        repr(judge.model),
        repr(judge.layers),
        repr(judge.settings),
        str(cause),
        repr(cause),
        str(error),
        pickle.dumps(cause).decode("latin-1"),
        pickle.dumps(error).decode("latin-1"),
        ok.model_dump_json(),
        error.result.model_dump_json(),
        str(error.result.to_dict()),
        caplog.text,
        repr(resolve_model("openai/gpt-4o-mini", api_key=SECRET)),
    ]
    texts += [path.read_bytes().decode("latin-1") for path in tmp_path.iterdir()]
    for text in texts:
        assert SECRET not in text
    assert "retry 1/3" in caplog.text  # the 503 was logged, redacted


def test_key_from_the_environment_is_not_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", SECRET)
    judge = Judge("groq/llama-3.1-8b-instant")
    assert SECRET not in repr(judge) + repr(judge.model) + repr(judge.layers)
    assert SECRET not in repr(vars(judge.settings))


def test_short_keys_are_redacted_too() -> None:
    from scorekit.judge.translate import redact

    assert redact("key=k9 sent", "k9") == "key=*** sent"
    assert redact("nothing to hide", None) == "nothing to hide"
    assert redact("nothing to hide", "  ") == "nothing to hide"
