"""The mypyc-compiled text core: the same results as the Python sources, and never stale.

``make core`` compiles the completeness modules (``scorekit.text.compiled``); these tests
compare the compiled core's elements and tags with the Python sources' on real and hostile
text, and check that a build which no longer matches the sources or the interpreter is not
loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from scorekit.text import compiled
from scorekit.text.elements import extract_elements
from scorekit.text.tagger import tag_text

ROOT = Path(__file__).resolve().parents[2]
STSB = ROOT / "examples" / "stsb" / "sts-test-non-msr.tsv"

_SCRIPT = """
import json, sys
from scorekit.text import compiled
from scorekit.text.elements import extract_elements
from scorekit.text.tagger import tag_text
texts = json.load(sys.stdin)
print(json.dumps([compiled.core_status(), [
    [extract_elements(t), [[x.text, sorted(x.tags)] for x in tag_text(t)]] for t in texts
]]))
"""


def _texts() -> list[str]:
    """800 STS-B sentences, their concatenation, and 20k characters of each hostile kind."""
    sentences: list[str] = []
    for line in STSB.read_text(encoding="utf-8").splitlines()[:400]:
        fields = line.split("\t")
        sentences += fields[5:7]
    prose = " ".join(sentences)
    hostile = [
        prose.replace(".", " ").replace("?", " ").replace("!", " ")[:20_000],
        "a" * 20_000,
        "東京は日本の首都です。" * 2_000,
        (ROOT / "src" / "scorekit" / "pipeline.py").read_text(encoding="utf-8")[:20_000],
        "ab. " * 5_000,
    ]
    return [*sentences, prose, *hostile]


def _results(texts: list[str]) -> list[list[object]]:
    return [[extract_elements(t), [[x.text, sorted(x.tags)] for x in tag_text(t)]] for t in texts]


@pytest.mark.skipif(
    not compiled.core_status().startswith("compiled"),
    reason="no compiled text core: make core builds it (needs gcc, Debian package gcc, and the "
    "Python headers, Debian package python3-dev)",
)
def test_the_compiled_core_gives_the_python_sources_results() -> None:
    texts = _texts()
    env = {**os.environ, compiled.PURE_PYTHON_ENV: "1", "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    status, pure = json.loads(done.stdout)
    assert status == f"Python sources ({compiled.PURE_PYTHON_ENV} is set)"
    assert compiled.core_status() == "compiled (mypyc modules and C kernels)"
    mine = json.loads(json.dumps(_results(texts)))
    assert len(mine) == len(pure) == 806
    assert [i for i, (a, b) in enumerate(zip(mine, pure, strict=True)) if a != b] == []


def _fake_build(tmp_path: Path) -> Path:
    """A copy of the text sources with a build folder whose manifest matches them."""
    text = tmp_path / "text"
    text.mkdir()
    for source in [*compiled.TEXT.glob("*.py"), *compiled.TEXT.glob("*.c")]:
        shutil.copy2(source, text / source.name)
    folder = text / "_compiled"
    folder.mkdir()
    manifest = {
        "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
        "sources": compiled.source_digests(text),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_a_build_matching_the_sources_and_interpreter_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(compiled.PURE_PYTHON_ENV, raising=False)
    folder = _fake_build(tmp_path)
    assert compiled.unusable_reason(folder) is None
    assert compiled.compiled_folder(folder) == folder


def test_a_build_older_than_an_edited_source_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(compiled.PURE_PYTHON_ENV, raising=False)
    folder = _fake_build(tmp_path)
    tagger = folder.parent / "tagger.py"
    tagger.write_text(tagger.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert compiled.compiled_folder(folder) is None
    assert compiled.unusable_reason(folder) == (
        "the compiled core is older than the sources (make core rebuilds it)"
    )


def test_an_edited_c_kernel_makes_the_build_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(compiled.PURE_PYTHON_ENV, raising=False)
    folder = _fake_build(tmp_path)
    kernel = folder.parent / "_sentiment_kernel.c"
    kernel.write_text(kernel.read_text(encoding="utf-8") + "\n/* edited */\n", encoding="utf-8")
    assert compiled.unusable_reason(folder) == (
        "the compiled core is older than the sources (make core rebuilds it)"
    )


def test_a_new_source_file_also_makes_the_build_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(compiled.PURE_PYTHON_ENV, raising=False)
    folder = _fake_build(tmp_path)
    (folder.parent / "extra.py").write_text("X = 1\n", encoding="utf-8")
    assert compiled.compiled_folder(folder) is None


def test_a_build_for_another_interpreter_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(compiled.PURE_PYTHON_ENV, raising=False)
    folder = _fake_build(tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["ext_suffix"] = ".cpython-39-x86_64-linux-gnu.so"
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert compiled.unusable_reason(folder) == (
        "the compiled core is for another interpreter (make core rebuilds it)"
    )


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no compiled core (make core builds it)"),
        ("{not json", "no compiled core (make core builds it)"),
        ("[1, 2]", "the compiled core's manifest is unreadable (make core rebuilds it)"),
    ],
)
def test_a_missing_or_broken_manifest_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None, reason: str
) -> None:
    monkeypatch.delenv(compiled.PURE_PYTHON_ENV, raising=False)
    folder = _fake_build(tmp_path)
    if content is None:
        (folder / "manifest.json").unlink()
    else:
        (folder / "manifest.json").write_text(content, encoding="utf-8")
    assert compiled.unusable_reason(folder) == reason


def test_the_environment_variable_forces_the_python_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _fake_build(tmp_path)
    monkeypatch.setenv(compiled.PURE_PYTHON_ENV, "1")
    assert compiled.unusable_reason(folder) == "SCOREKIT_PURE_PYTHON is set"
    monkeypatch.setenv(compiled.PURE_PYTHON_ENV, "0")
    assert compiled.unusable_reason(folder) is None
