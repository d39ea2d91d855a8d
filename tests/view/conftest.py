"""Fixtures of the viewer tests: the test database (built once per module) and a client."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("starlette", reason="the viewer needs the view extra (starlette)")

from starlette.testclient import TestClient

from scorekit.view import create_app

from .data import ViewerRuns, build_viewer_db


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> ViewerRuns:
    return build_viewer_db(tmp_path_factory.mktemp("viewer") / "scorekit.db")


@pytest.fixture
def client(runs: ViewerRuns) -> Iterator[TestClient]:
    with TestClient(create_app(runs.db), base_url="http://127.0.0.1") as client:
        yield client
