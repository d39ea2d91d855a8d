"""Issue 34 #3: texts without bounds. A field over ``max_text_chars`` is refused before any
scorer sees it (memory stays bounded); stored and written texts are capped with their full
length and SHA-256 kept."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scorekit import ConfigError, run_evals_sync
from scorekit.cli import app
from scorekit.evals.text_limits import text_length, text_limit_error
from scorekit.scorers import create_completeness_scorer, create_content_similarity_scorer
from scorekit.store import Store
from scorekit.store.stored_text import STORED_TEXT_CHARS, capped, cut_text

runner = CliRunner()


def _prose(characters: int, seed: int = 0) -> str:
    words = "the quick brown fox jumps over a lazy dog while seven wizards hex every jolly quartz"
    rng = random.Random(seed)
    text = " ".join(rng.choice(words.split()) for _ in range(characters // 3))
    return text[:characters]


def test_a_field_over_the_limit_is_that_items_error_and_the_run_goes_on() -> None:
    data = [
        {"id": "long", "output": "x" * 1001, "ground_truth": "x"},
        {"id": "context", "output": "ok", "ground_truth": "ok", "context": ["a" * 600, "b" * 401]},
        {"id": "fits", "output": "x" * 1000, "ground_truth": "x" * 1000},
    ]
    result = run_evals_sync(
        data, [create_content_similarity_scorer()], max_text_chars=1000, concurrency=1
    )
    by_id = {
        item.item.id: item.scorer_results["content-similarity-scorer"] for item in result.items
    }
    assert by_id["fits"].status == "ok"
    for item_id, field, length in (("long", "output", 1001), ("context", "context", 1001)):
        error = by_id[item_id].error
        assert by_id[item_id].status == "error" and error is not None
        assert (error.type, error.step) == ("TextLimitError", "load")
        assert error.message == (
            f"field {field!r} holds {length:,} characters, over the run's limit of 1,000 "
            "(max_text_chars; give a larger one, or None, to score it)"
        )
    lifted = run_evals_sync(data, [create_content_similarity_scorer()], max_text_chars=None)
    assert {i.scorer_results["content-similarity-scorer"].status for i in lifted.items} == {"ok"}


def test_a_targets_long_output_is_refused_as_it_returns() -> None:
    result = run_evals_sync(
        [{"id": "a", "input": "q", "ground_truth": "x"}],
        [create_content_similarity_scorer()],
        target=lambda text: "y" * 50,
        max_text_chars=10,
    )
    [item] = result.items
    error = item.scorer_results["content-similarity-scorer"].error
    assert error is not None and (error.type, error.step) == ("TextLimitError", "target")
    assert "field 'output' holds 50 characters" in error.message


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_the_limit_must_be_a_positive_integer_or_none(bad: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        run_evals_sync([{"output": "a"}], [create_content_similarity_scorer()], max_text_chars=bad)
    assert caught.value.field == "max_text_chars"


def test_text_length_adds_up_messages_pieces_and_keys() -> None:
    messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    assert text_length(messages) == len("userhello") + len("assistanthi")  # values, not keys
    assert text_length(("ab", ["c", {"d": "ef"}], 7, None)) == 6
    assert text_length("x" * 10, stop=3) == 10  # one string is measured whole, cheaply
    error = text_limit_error([("input", "abc"), ("output", ["abcd"])], 3)
    assert error is not None and (error.field, error.length, error.limit) == ("output", 4, 3)
    assert text_limit_error([("output", "x" * 100)], None) is None


def test_stored_texts_keep_their_length_and_hash(tmp_path: Path) -> None:
    long = _prose(1_000_000)  # the run's default limit holds it; the store keeps a tenth
    digest = hashlib.sha256(long.encode()).hexdigest()
    cut = cut_text(long)
    assert cut == (
        f"{long[:STORED_TEXT_CHARS]}… [cut by scorekit: {len(long):,} characters in all, "
        f"sha256 {digest}]"
    )
    assert capped({"a": ["short", long]}) == {"a": ["short", cut]}
    value = {"a": ["short"]}
    assert capped(value) is value  # nothing to cut: no copy
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "output": long, "ground_truth": long}) + "\n")
    out = tmp_path / "r.jsonl"
    database = tmp_path / "r.db"
    report = tmp_path / "r.html"
    done = runner.invoke(
        app,
        [
            *("run", str(data), "-s", "content-similarity", "--db", str(database)),
            *("--out", str(out), "--report", str(report)),
        ],
    )
    assert done.exit_code == 0, done.output
    with Store(database) as store:
        [row] = store.results(store.get_run("latest").id)
    assert row.score == 1.0  # the scorer saw the whole text
    assert row.output == cut and row.ground_truth == cut
    [line] = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["output"] == cut
    assert report.stat().st_size < 1_000_000  # before: 4 MB (the text four times)


_PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
"""


def test_a_huge_record_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    # before: completeness parsed the whole text, at about 90 MB per MB of prose (6.9 GB for
    # 50 MB); now the record is refused by the default limit before any scorer sees it
    data = tmp_path / "d.jsonl"
    records = [
        {"id": "huge", "output": _prose(3_000_000)},
        {"id": "small", "input": "Short.", "output": "Short."},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    scorekit = Path(sys.executable).with_name("scorekit")
    database = tmp_path / "r.db"
    done = subprocess.run(
        [
            *(sys.executable, "-c", _PEAK, str(scorekit), "run", str(data)),
            *("-s", "completeness", "--db", str(database)),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
    )
    code, peak_mb = map(int, done.stdout.split())
    assert code == 1  # the refused record is an error
    assert peak_mb < 200, f"peak {peak_mb} MB"
    with Store(database) as store:
        rows = {r.item_id: r for r in store.results(store.get_run("latest").id)}
    assert rows["small"].status == "ok"
    assert rows["huge"].status == "error" and rows["huge"].error is not None
    assert rows["huge"].error["type"] == "TextLimitError"
    assert "3,000,000 characters" in rows["huge"].error["message"]


def test_completeness_scores_a_long_text_when_the_limit_allows_it() -> None:
    text = _prose(20_000, seed=1)
    result = run_evals_sync(
        [{"output": text, "input": text}], [create_completeness_scorer()], max_text_chars=20_000
    )
    assert result.items[0].scorer_results["completeness-scorer"].score == 1.0


def test_numbers_count_and_what_cannot_be_serialised_is_a_note(tmp_path: Path) -> None:
    # the break-test's findings: a million numbers passed the limit as 0 characters, and a
    # value nested 600 deep ended the run when it was stored
    assert text_length(list(range(1_000))) == len("".join(map(repr, range(1_000))))
    nested: Any = "end"
    for _ in range(600):
        nested = [nested]
    data = [
        {
            "id": "numbers",
            "output": "a",
            "ground_truth": "a",
            "additional_context": list(range(200_000)),
        },
        {"id": "deep", "output": "a", "ground_truth": "a", "metadata": {"k": nested}},
        {"id": "fine", "output": "a", "ground_truth": "a"},
    ]
    result = run_evals_sync(
        data, [create_content_similarity_scorer()], store=tmp_path / "r.db", concurrency=1
    )
    with Store(tmp_path / "r.db") as store:
        rows = {r.item_id: r for r in store.results(result.run_id)}
    assert rows["numbers"].status == "error"
    assert rows["numbers"].error is not None and rows["numbers"].error["type"] == "TextLimitError"
    assert rows["fine"].status == "ok" and rows["deep"].status == "ok"
    assert str(rows["deep"].metadata).startswith("[not stored by scorekit:")


def test_long_lists_and_keys_are_capped_when_stored() -> None:
    value = {"k" * (STORED_TEXT_CHARS + 1): list(range(20_000))}
    [(key, items)] = capped(value).items()
    assert key.startswith("k" * STORED_TEXT_CHARS + "… [cut by scorekit:")
    assert len(items) == 10_001 and items[-1] == "… [cut by scorekit: 20,000 items in all]"
