"""What a CI job reads from ``scorekit run``: a JUnit XML file and a Markdown summary.

``scorekit run ... --junit FILE`` writes one JUnit test suite for the run, with one test case
per scorer: it fails when the scorer failed a gate of the verdict (no ``ok`` result, a mean
below its threshold, too many errors; :func:`scorekit.verdict.scorer_failures`), and its
statistics are test properties. ``--markdown FILE`` writes the summary table, the gates and
the verdict as GitHub-flavoured Markdown, for a job to post on a pull request or to append to
``$GITHUB_STEP_SUMMARY``. Both read the run's one :class:`~scorekit.summary.ScoreSummary` per
scorer, so they show the numbers ``scorekit run`` prints.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path

from scorekit.cli.console import interval_text
from scorekit.errors import ConfigError
from scorekit.evals.result import EvalRunResult
from scorekit.notebook import score_text
from scorekit.store.records import RunRecord, ScorerChange
from scorekit.trust.paired import PairedComparison
from scorekit.verdict import error_rate, format_rate

__all__ = [
    "junit_xml",
    "markdown_comparison",
    "markdown_summary",
    "mean_regressions",
    "write_ci_file",
    "write_outputs",
]


def junit_xml(result: EvalRunResult) -> str:
    """The run as a JUnit XML document: a test suite, one test case per scorer.

    A case fails (``<failure>``) when its scorer failed a gate; each case has the scorer's
    counts, error rate, mean, median, minimum and maximum as properties.
    """
    failures = result.failures
    failed = sum(1 for why in failures.values() if why)
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=f"scorekit {result.run_name or result.run_id}",
        tests=str(len(result.summaries)),
        failures=str(failed),
        errors="0",
        skipped="0",
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("run_id", result.run_id),
        ("items", str(result.total_items)),
        ("verdict", result.verdict or "none"),
    ):
        ET.SubElement(props, "property", name=name, value=value)
    for sid, summary in result.summaries.items():
        case = ET.SubElement(suite, "testcase", classname="scorekit", name=sid)
        case_props = ET.SubElement(case, "properties")
        values: dict[str, str] = {
            **{str(status): str(n) for status, n in summary.counts.items()},
            "error_rate": format_rate(error_rate(summary)),
            "mean": score_text(summary.mean),
            "median": score_text(summary.median),
            "min": score_text(summary.minimum),
            "max": score_text(summary.maximum),
        }
        if sid in result.thresholds:
            values["threshold"] = f"{result.thresholds[sid]:g}"
        for name, value in values.items():
            ET.SubElement(case_props, "property", name=name, value=value)
        why = failures.get(sid)
        if why:
            ET.SubElement(case, "failure", message="; ".join(why)).text = "; ".join(why)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _md(text: str) -> str:
    """Text safe in a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """``text`` as a Markdown code span, safe in a table cell whatever backticks it holds.

    The fence is one backtick longer than the longest run inside (CommonMark 6.1), padded with
    a space when the text starts or ends with a backtick.
    """
    inner = _md(text)
    longest = current = 0
    for char in inner:
        current = current + 1 if char == "`" else 0
        longest = max(longest, current)
    fence = "`" * (longest + 1)
    pad = " " if inner.startswith("`") or inner.endswith("`") else ""
    return f"{fence}{pad}{inner}{pad}{fence}"


def markdown_summary(result: EvalRunResult, *, store_url: str | None = None) -> str:
    """The run as Markdown: a heading with the verdict, the summary table, the gates.

    Args:
        result: the run.
        store_url: where the run is stored, shown under the table when given.
    """
    failures = result.failures
    verdict = result.verdict
    mark = {"passed": "✅ passed", "failed": "❌ failed"}.get(verdict or "", "no verdict")
    name = f" {_code(result.run_name)}" if result.run_name else ""
    lines = [
        f"### scorekit run{name}: {mark}",
        "",
        f"{result.total_items} items · run {_code(result.run_id)}",
        "",
        "| scorer | ok | skipped | error | error rate | mean | mean 95 % | median | min | max "
        "| min. mean | gate |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for sid, s in result.summaries.items():
        minimum = result.thresholds.get(sid)
        why = failures.get(sid, [])
        gate = "FAIL: " + _md("; ".join(why)) if why else "pass"
        cells = [
            _code(sid),
            str(s.counts["ok"]),
            str(s.counts["skipped"]),
            str(s.counts["error"]),
            format_rate(error_rate(s)),
            score_text(s.mean),
            interval_text(s),
            score_text(s.median),
            score_text(s.minimum),
            score_text(s.maximum),
            "—" if minimum is None else f"{minimum:g}",
            gate,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if store_url is not None:
        lines += ["", f"stored in {_code(store_url)}"]
    return "\n".join(lines) + "\n"


def markdown_comparison(
    a: RunRecord,
    b: RunRecord,
    changes: Sequence[ScorerChange],
    paired: Mapping[str, PairedComparison],
) -> str:
    """``scorekit compare A B`` as Markdown, for a pull request's comment.

    Each scorer's means, its paired change with the 95 % interval, the permutation p-value and
    the verdict.

    Args:
        a: the baseline run.
        b: the run compared with it.
        changes: from :meth:`scorekit.store.Store.compare`.
        paired: from :func:`scorekit.trust.paired_runs.compare_runs`.
    """

    def name(run: RunRecord) -> str:
        return f"{_code(run.name)} ({run.id[:8]})" if run.name else _code(run.id[:8])

    lines = [
        f"### scorekit compare: {name(a)} → {name(b)}",
        "",
        "| scorer | mean A | mean B | paired | change | 95 % interval | p | McNemar p | verdict |",
        "|---|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    for change in changes:
        one = paired.get(change.scorer_id)
        cells = [_code(change.scorer_id), score_text(change.mean_a), score_text(change.mean_b),
                 str(change.paired)]  # fmt: skip
        if one is None:
            cells += ["—", "—", "—", "—", "no paired item"]
        else:
            interval, flips = one.difference, one.mcnemar
            cells += [
                f"{interval.value:+.4f}",
                f"[{interval.low:+.4f}, {interval.high:+.4f}]",
                f"{one.p_value:.4f}",
                "—" if flips is None else f"{flips.p_value:.4f} ({flips.only_a}↓ {flips.only_b}↑)",
                one.verdict,
            ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "A change is called when its interval excludes 0 and p ≤ 0.05 (docs/trust.md). McNemar: "
        "items passing at the threshold in A only (↓) and in B only (↑).",
    ]
    return "\n".join(lines) + "\n"


def write_ci_file(path: Path, text: str, *, option: str) -> Path:
    """Write ``text`` to ``path`` (its folder made when missing); return the path.

    Raises:
        ConfigError: the file cannot be written (``field=option``).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"--{option} {path}: cannot write there ({exc.strerror or exc})", field=option
        ) from exc
    return path


def write_outputs(
    result: EvalRunResult,
    *,
    junit: Path | None,
    markdown: Path | None,
    store_url: str | None = None,
) -> list[str]:
    """Write the ``--junit`` and ``--markdown`` files that were asked for.

    Returns:
        A line per file written (``junit: PATH``), to print.

    Raises:
        ConfigError: a file cannot be written (``field`` names the option).
    """
    written = []
    if junit is not None:
        written.append(f"junit: {write_ci_file(junit, junit_xml(result), option='junit')}")
    if markdown is not None:
        text = markdown_summary(result, store_url=store_url)
        written.append(f"markdown: {write_ci_file(markdown, text, option='markdown')}")
    return written


def mean_regressions(changes: Sequence[ScorerChange], delta: float) -> list[str]:
    """The scorers whose mean fell by more than ``delta`` from run A to run B, as lines.

    The fall is measured over the paired items (scored ``ok`` in both runs), never between
    means of different items. A scorer with a mean in A and none in B (nothing measured, or
    absent) regressed too; one new in B did not.

    Args:
        changes: from :meth:`scorekit.store.Store.compare`.
        delta: the largest drop of a mean allowed, >= 0.

    Raises:
        ConfigError: a scorer has a mean in both runs but no paired item: there is nothing to
            gate on (``field="fail_on_regression"``).

    Example:
        >>> from scorekit.store.records import RunRecord, ScorerChange
    from scorekit.trust.paired import PairedComparison
        >>> mean_regressions([ScorerChange("s", 0.8, 0.7, -0.1, 3, 0, 0.8, 0.7)], 0.05)
        ['s: mean 0.8000 → 0.7000 (-0.1000, more than 0.05)']
    """
    found = []
    for change in changes:
        if change.mean_a is None:
            continue
        if change.mean_b is None:
            found.append(f"{change.scorer_id}: mean {score_text(change.mean_a)} → no mean")
        elif change.delta is None:
            raise ConfigError(
                f"{change.scorer_id}: no item was scored ok in both runs, so there is no "
                "change to gate on (the runs share no items?)",
                field="fail_on_regression",
            )
        elif change.delta < -delta:
            before, after = change.paired_mean_a, change.paired_mean_b
            if before is None or after is None:  # a change made without its paired means
                before, after = change.mean_a, change.mean_b
            found.append(
                f"{change.scorer_id}: mean {score_text(before)} → {score_text(after)} "
                f"({change.delta:+.4f}, more than {delta:g})"
            )
    return found
