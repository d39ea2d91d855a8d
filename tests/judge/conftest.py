from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict

from tests.servers.scripted_openai import ScriptedServer


class Relevance(BaseModel):
    """The relevance-labelling schema the judge tests ask for."""

    model_config = ConfigDict(extra="forbid")
    label: Literal["high", "medium", "low", "none"]


@pytest.fixture(scope="session")
def _session_server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def server(_session_server: ScriptedServer) -> Iterator[ScriptedServer]:
    _session_server.reset()
    yield _session_server
    _session_server.reset()
