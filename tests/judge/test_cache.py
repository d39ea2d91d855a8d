from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path

import pytest
from pydantic import BaseModel, field_validator

from scorekit.errors import ConfigError, JudgeOutputError
from scorekit.judge import Judge, ScriptedJudge
from scorekit.judge.cache import CACHE_FILE, CachingModel, cache_key
from scorekit.judge.model import ChatMessage, JudgeRequest
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import Reply, ScriptedServer


def cached_judge(server: ScriptedServer, folder: Path, name: str, **options: object) -> Judge:
    return Judge(f"openai-compatible/{name}", base_url=server.base_url, cache_dir=folder, **options)


async def test_second_identical_call_is_a_counted_cache_hit(
    server: ScriptedServer, tmp_path: Path
) -> None:
    name = f"c-{uuid.uuid4().hex[:6]}"
    first = await cached_judge(server, tmp_path, name).generate_object("x", Relevance)
    assert first.usage.cache_hits == 0
    # a new judge (another scorer, a later run) on the same model and folder
    second = await cached_judge(server, tmp_path, name).generate_object("x", Relevance)
    assert second.value == first.value
    assert len(server.requests) == 1
    usage = second.usage
    assert (usage.calls, usage.cache_hits, usage.attempts) == (1, 1, 0)
    assert (usage.input_tokens, usage.output_tokens) == (0, 0)  # nothing billed
    assert (tmp_path / CACHE_FILE).is_file()


async def test_key_covers_messages_schema_and_generation_params(
    server: ScriptedServer, tmp_path: Path
) -> None:
    name = f"c-{uuid.uuid4().hex[:6]}"
    await cached_judge(server, tmp_path, name).generate_object("x", Relevance)
    await cached_judge(server, tmp_path, name).generate_object("y", Relevance)
    await cached_judge(server, tmp_path, name, seed=3).generate_object("x", Relevance)
    await cached_judge(server, tmp_path, name, temperature=0.5).generate_object("x", Relevance)
    await cached_judge(server, tmp_path, name).generate_text("x")
    await cached_judge(server, tmp_path, f"{name}-other").generate_object("x", Relevance)
    assert len(server.requests) == 6


async def test_invalid_and_cut_off_replies_are_not_cached(
    server: ScriptedServer, tmp_path: Path
) -> None:
    name = f"c-{uuid.uuid4().hex[:6]}"
    server.enqueue(Reply("nope"), Reply('{"label": "low"}'))
    result = await cached_judge(server, tmp_path, name).generate_object("x", Relevance)
    assert result.usage.calls == 2
    # the first (invalid) reply was not kept: the first request goes to the server again,
    # and the (valid) repair reply is a hit
    server.enqueue(Reply('{"label": "high"}'))
    again = await cached_judge(server, tmp_path, name).generate_object("x", Relevance)
    assert again.value.label == "high"
    assert again.usage.cache_hits == 0
    assert len(server.requests) == 3


async def test_cache_off_writes_nothing(server: ScriptedServer, tmp_path: Path) -> None:
    name = f"c-{uuid.uuid4().hex[:6]}"
    for _ in range(2):
        await cached_judge(server, tmp_path, name, cache=False).generate_object("x", Relevance)
    assert len(server.requests) == 2
    assert not (tmp_path / CACHE_FILE).exists()


async def test_default_folder_is_dot_scorekit_in_the_working_directory(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    judge = Judge(f"openai-compatible/c-{uuid.uuid4().hex[:6]}", base_url=server.base_url)
    assert judge.settings.cache_dir == tmp_path / ".scorekit"
    await judge.generate_object("x", Relevance)
    assert (tmp_path / ".scorekit" / CACHE_FILE).is_file()


def test_judge_model_objects_and_test_models_are_not_cached(tmp_path: Path) -> None:
    assert not isinstance(Judge(ScriptedJudge(), cache_dir=tmp_path).layers, CachingModel)
    assert not isinstance(Judge("test/x", cache_dir=tmp_path).layers, CachingModel)


def test_cache_key_is_stable_and_ignores_the_api_key() -> None:
    request = JudgeRequest(messages=(ChatMessage("user", "x"),), temperature=0.0)
    identity = {"provider": "openai", "model": "m", "base_url": "u"}
    assert cache_key(identity, request) == cache_key(dict(identity), request)
    assert len(cache_key(identity, request)) == 64


async def test_cached_rows_hold_no_api_key(server: ScriptedServer, tmp_path: Path) -> None:
    secret = "sk-scorekit-cache-SECRET-424242"
    judge = Judge(
        f"openai-compatible/c-{uuid.uuid4().hex[:6]}",
        base_url=server.base_url,
        api_key=secret,
        cache_dir=tmp_path,
    )
    await judge.generate_object("x", Relevance)
    rows = sqlite3.connect(tmp_path / CACHE_FILE).execute("SELECT * FROM judge_calls").fetchall()
    assert rows
    assert secret not in repr(rows)
    for path in tmp_path.iterdir():
        assert secret.encode() not in path.read_bytes()


class Scored(BaseModel):
    """Passes its JSON schema for any integer; the validator accepts 0-10 only."""

    score: int

    @field_validator("score")
    @classmethod
    def _in_range(cls, value: int) -> int:
        if not 0 <= value <= 10:
            raise ValueError("score must be within 0-10")
        return value


async def test_replies_failing_a_pydantic_validator_are_not_cached(
    server: ScriptedServer, tmp_path: Path
) -> None:
    name = f"c-{uuid.uuid4().hex[:6]}"
    # schema-valid but validator-invalid, and so is the repair reply
    server.enqueue(Reply('{"score": 42}'), Reply('{"score": 99}'))
    with pytest.raises(JudgeOutputError):
        await cached_judge(server, tmp_path, name).generate_object("x", Scored)
    assert len(cached_judge(server, tmp_path, name).layers.cache) == 0  # type: ignore[attr-defined]
    # a later run asks the server again instead of failing from the cache
    server.enqueue(Reply('{"score": 7}'))
    again = await cached_judge(server, tmp_path, name).generate_object("x", Scored)
    assert again.value == Scored(score=7)
    assert again.usage.cache_hits == 0
    assert len(server.requests) == 3


# -- cache_dir problems fail at construction, naming the path -----------------------------------


def judge_with_cache_dir(server: ScriptedServer, folder: Path) -> Judge:
    return Judge(
        f"openai-compatible/c-{uuid.uuid4().hex[:6]}", base_url=server.base_url, cache_dir=folder
    )


def test_cache_dir_that_is_a_file_is_a_config_error(server: ScriptedServer, tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    for folder in (a_file, a_file / "sub"):
        with pytest.raises(ConfigError, match="cache_dir") as info:
            judge_with_cache_dir(server, folder)
        assert info.value.field == "cache_dir"
        assert str(a_file) in str(info.value)


def test_cache_dir_that_cannot_be_created_is_a_config_error(server: ScriptedServer) -> None:
    folder = Path("/proc/scorekit-cannot-create/cache")
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc")
    with pytest.raises(ConfigError, match="cannot be created") as info:
        judge_with_cache_dir(server, folder)
    assert info.value.field == "cache_dir"
    assert "/proc/scorekit-cannot-create" in str(info.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_unwritable_cache_dir_is_a_config_error(server: ScriptedServer, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(ConfigError, match="not writable") as info:
            judge_with_cache_dir(server, folder)
        assert info.value.field == "cache_dir"
    finally:
        folder.chmod(0o755)


def test_a_garbage_cache_file_is_a_config_error_naming_it(
    server: ScriptedServer, tmp_path: Path
) -> None:
    database = tmp_path / CACHE_FILE
    database.write_bytes(b"this is not a database\n" * 100)
    with pytest.raises(ConfigError) as info:
        judge_with_cache_dir(server, tmp_path)
    assert info.value.field == "cache_dir"
    assert str(database) in str(info.value)
    assert "not a SQLite database" in str(info.value)
    assert database.read_bytes().startswith(b"this is not")  # left alone: the user decides


async def test_a_cache_failing_at_run_time_is_bypassed_with_a_warning(
    server: ScriptedServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    judge = judge_with_cache_dir(server, tmp_path)
    await judge.generate_object("x", Relevance)
    # the file is replaced behind the judge's back (another process, a full disk ...)
    judge.layers.cache.close()  # type: ignore[attr-defined]
    (tmp_path / CACHE_FILE).write_bytes(b"garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        (tmp_path / (CACHE_FILE + suffix)).unlink(missing_ok=True)
    with caplog.at_level("WARNING", logger="scorekit.judge"):
        first = await judge.generate_object("x", Relevance)
        second = await judge.generate_object("y", Relevance)
    assert first.value.label == second.value.label == "high"
    assert len(server.requests) == 3
    warnings = [r for r in caplog.records if "cache" in r.getMessage()]
    assert len(warnings) == 1  # once, not on every call
    assert str(tmp_path / CACHE_FILE) in warnings[0].getMessage()
