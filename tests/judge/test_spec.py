"""A judge built from a model string pickles as its JudgeSpec: plain data, no API key."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit import ConfigError, JudgeUnavailableError
from scorekit.judge import Judge, JudgeSpec, ScriptedJudge, to_judge

SECRET = "sk-scorekit-PICKLE-SECRET-0123456789"
LOOPBACK = "http://127.0.0.1:9/v1"  # nothing listens there; no request is sent


def test_a_test_judge_round_trips_with_its_settings_and_instructions() -> None:
    judge = Judge("test/x", "Be strict.", timeout=5, max_tokens=100)
    again = pickle.loads(pickle.dumps(judge))
    assert isinstance(again, Judge)
    assert again is not judge
    assert again.model is not judge.model  # built again, not shared
    assert again.settings == judge.settings
    assert (again.settings.timeout, again.settings.max_tokens) == (5.0, 100)
    assert again.instructions == "Be strict."
    assert again.has_own_instructions
    assert again.model_id == "test/x"
    assert again.spec == judge.spec


def test_the_spec_holds_the_options_that_differ_from_the_defaults(tmp_path: Path) -> None:
    assert Judge("test/x").spec == JudgeSpec("test/x")
    spec = Judge("test/x", timeout=5, max_tokens=100).spec
    assert spec is not None
    assert spec.instructions is None
    assert dict(spec.options) == {"timeout": 5.0, "max_tokens": 100}
    full = Judge(
        "test/x",
        timeout=7,
        max_retries=0,
        retry_backoff=0.1,
        concurrency=2,
        temperature=0.5,
        seed=3,
        max_tokens=50,
        cache=False,
        cache_dir=tmp_path,
        context_window=1024,
    ).spec
    assert full is not None
    assert dict(full.options) == {
        "timeout": 7.0,
        "max_retries": 0,
        "retry_backoff": 0.1,
        "concurrency": 2,
        "temperature": 0.5,
        "seed": 3,
        "max_tokens": 50,
        "cache": False,
        "cache_dir": str(tmp_path.absolute()),
        "context_window": 1024,
    }
    assert full.build().settings == Judge("test/x", **full.options).settings


def test_an_openai_judge_pickles_without_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = Judge(
        "openai/gpt-4o-mini",
        "Be fair.",
        api_key=SECRET,
        base_url=LOOPBACK,
        timeout=7,
        concurrency=3,
        seed=4,
        cache=False,
    )
    data = pickle.dumps(judge)
    assert SECRET.encode() not in data
    assert SECRET not in repr(judge.spec)
    assert SECRET not in json.dumps(judge.spec.to_dict() if judge.spec else None)
    assert judge.spec is not None
    assert "api_key" not in judge.spec.options
    assert judge.spec.options["base_url"] == LOOPBACK
    # the receiving side reads the key from its own environment ...
    with pytest.raises(JudgeUnavailableError, match="OPENAI_API_KEY"):
        pickle.loads(data)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-worker-own-key")
    again = pickle.loads(data)
    assert isinstance(again, Judge)
    assert again.settings == judge.settings
    assert again.instructions == "Be fair."
    assert again.model_id == "openai/gpt-4o-mini"
    assert again.spec == judge.spec
    identity = getattr(again.model, "identity", None)
    assert identity == getattr(judge.model, "identity", None)
    assert identity is not None
    assert identity["base_url"] == LOOPBACK
    # ... and is the same judge otherwise: it shares the limiter of its model here
    assert again.limiter is judge.limiter


def test_an_unpickled_judge_answers_in_another_process(tmp_path: Path) -> None:
    judge = Judge("test/worker", "Label strictly.", timeout=5, max_tokens=100)
    code = (
        "import asyncio, json, pickle, sys\n"
        "from pydantic import BaseModel\n"
        "class Verdict(BaseModel):\n"
        "    label: str\n"
        "    score: int\n"
        "judge = pickle.loads(sys.stdin.buffer.read())\n"
        "result = asyncio.run(judge.generate_object('Label this.', Verdict, step='analyze'))\n"
        "print(json.dumps({'model': judge.model_id, 'instructions': judge.instructions,\n"
        "    'timeout': judge.settings.timeout, 'max_tokens': judge.settings.max_tokens,\n"
        "    'value': result.value.model_dump(), 'calls': result.usage.calls}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=pickle.dumps(judge),
        capture_output=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr.decode()
    assert json.loads(out.stdout) == {
        "model": "test/worker",
        "instructions": "Label strictly.",
        "timeout": 5.0,
        "max_tokens": 100,
        "value": {"label": "", "score": 0},  # the scripted double's minimal valid answer
        "calls": 1,
    }


def test_a_judge_around_a_model_object_refuses_to_pickle() -> None:
    judge = Judge(ScriptedJudge(), "Mine.")
    assert judge.spec is None
    with pytest.raises(TypeError, match=r"build it from a model string"):
        pickle.dumps(judge)
    with pytest.raises(TypeError, match="JudgeModel object"):
        pickle.dumps(judge.with_instructions("Other."))


def test_with_instructions_and_to_judge_carry_the_instructions_into_the_spec() -> None:
    base = Judge("test/x", timeout=5)
    twin = base.with_instructions("New.")
    assert twin.spec == JudgeSpec("test/x", "New.", {"timeout": 5.0})
    assert base.spec == JudgeSpec("test/x", None, {"timeout": 5.0})  # unchanged
    assert twin.model is base.model  # still a shallow twin
    assert pickle.loads(pickle.dumps(twin)).instructions == "New."
    made = to_judge(base, "Scorer instructions.")
    again = pickle.loads(pickle.dumps(made))
    assert again.instructions == "Scorer instructions."
    assert again.has_own_instructions


def test_copy_shares_the_model_and_limiter() -> None:
    judge = Judge("test/x")
    twin = copy.copy(judge)
    assert twin is not judge
    assert twin.model is judge.model
    assert twin.limiter is judge.limiter
    assert twin.spec == judge.spec


def test_a_spec_is_json_able_picklable_hashable_and_builds(tmp_path: Path) -> None:
    spec = JudgeSpec(
        "test/x",
        "Be strict.",
        {"max_tokens": 100, "timeout": 5, "cache_dir": tmp_path, "seed": None},
    )
    assert dict(spec.options) == {"timeout": 5, "max_tokens": 100, "cache_dir": str(tmp_path)}
    assert list(spec.options) == ["timeout", "max_tokens", "cache_dir"]  # canonical order
    data = json.loads(json.dumps(spec.to_dict()))
    assert data == {
        "model": "test/x",
        "instructions": "Be strict.",
        "options": {"timeout": 5, "max_tokens": 100, "cache_dir": str(tmp_path)},
    }
    assert JudgeSpec.from_dict(data) == spec
    assert JudgeSpec.from_dict({"model": "test/x"}) == JudgeSpec("test/x")
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert hash(spec) == hash(JudgeSpec.from_dict(data))
    judge = spec.build()
    assert judge.spec == JudgeSpec("test/x", "Be strict.", {**spec.options, "timeout": 5.0})
    assert judge.settings.cache_dir == tmp_path.absolute()


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"api_key": "k"}, "api_key"),
        ({"tiemout": 5}, "tiemout"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": "60"}, "timeout"),
        ({"concurrency": True}, "concurrency"),
        ({"max_tokens": [1]}, "max_tokens"),
        ({"cache": "no"}, "cache"),
        ({"base_url": "127.0.0.1:8000"}, "base_url"),
        ({"base_url": 5}, "base_url"),
    ],
)
def test_invalid_spec_options_fail_naming_the_field(options: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        JudgeSpec("test/x", options=options)
    assert info.value.field == field


def test_invalid_spec_fields_fail_naming_the_field() -> None:
    for make, field in [
        (lambda: JudgeSpec(""), "model"),
        (lambda: JudgeSpec("test/x", "  "), "instructions"),
        (lambda: JudgeSpec("test/x", options=[("timeout", 5)]), "options"),  # type: ignore[arg-type]
        (lambda: JudgeSpec.from_dict({"instructions": "x"}), "model"),
        (lambda: JudgeSpec.from_dict({"model": "test/x", "api_key": "k"}), "api_key"),
        (lambda: JudgeSpec.from_dict(["test/x"]), "judge"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(ConfigError) as info:
            make()
        assert info.value.field == field


def test_building_a_spec_resolves_the_model_here() -> None:
    with pytest.raises(JudgeUnavailableError, match="Did you mean 'openai'"):
        JudgeSpec("opnai/gpt-4o").build()


def test_the_spec_module_is_its_import_path() -> None:
    import scorekit.judge.spec as spec_module
    from scorekit.judge.settings import SPEC_OPTIONS

    assert spec_module.JudgeSpec is JudgeSpec
    assert spec_module.SPEC_OPTIONS is SPEC_OPTIONS
    assert "api_key" not in SPEC_OPTIONS
