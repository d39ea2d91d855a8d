"""Content Similarity speed: the plain function, the scorer's run_sync, and bulk throughput.

Texts are real English (STS-B sentences from examples/, concatenated to length).
Reference (the real Mastra package, Node 20, same machine kind): compareTwoStrings 0.10 ms
(1k chars) and 0.90 ms (10k); scorer.run 0.70 ms and 1.46 ms.

Run: .venv/bin/python benchmarks/bench_content_similarity.py
"""

from __future__ import annotations

import csv
import itertools
import time
from pathlib import Path

from scorekit.scorers import create_content_similarity_scorer
from scorekit.text import dice_similarity

DATA = Path(__file__).resolve().parent.parent / "examples" / "stsb" / "sts-test-non-msr.tsv"


def load_pairs() -> list[tuple[str, str]]:
    with DATA.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(row[5], row[6]) for row in rows]


def text_of(sentences: list[str], length: int) -> str:
    out = ""
    for sentence in itertools.cycle(sentences):
        out += sentence + " "
        if len(out) >= length:
            return out[:length]
    raise AssertionError


def per_call_ms(fn, repeat: int) -> float:
    fn()  # warm up
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1000


def main() -> None:
    pairs = load_pairs()
    firsts = [a for a, _ in pairs]
    seconds = [b for _, b in pairs]
    scorer = create_content_similarity_scorer()
    print("Content Similarity (best of 5; ms per call)")
    print(f"{'chars':>7} {'dice_similarity':>16} {'run_sync':>10}   Mastra: compare / run")
    mastra = {1_000: (0.10, 0.70), 10_000: (0.90, 1.46)}
    for length in (1_000, 10_000):
        a, b = text_of(firsts, length), text_of(seconds, length)
        repeat = 2000 if length == 1_000 else 300
        plain = per_call_ms(lambda a=a, b=b: dice_similarity(a.lower(), b.lower()), repeat)
        run = per_call_ms(lambda a=a, b=b: scorer.run_sync(input=a, output=b), repeat)
        ref = mastra[length]
        print(f"{length:>7} {plain:>16.4f} {run:>10.4f}   {ref[0]:.2f} / {ref[1]:.2f}")

    bulk = list(itertools.islice(itertools.cycle(pairs), 100_000))
    start = time.perf_counter()
    for a, b in bulk:
        dice_similarity(a.lower(), b.lower())
    plain_rate = len(bulk) / (time.perf_counter() - start)
    start = time.perf_counter()
    for a, b in bulk:
        scorer.run_sync(input=a, output=b)
    run_rate = len(bulk) / (time.perf_counter() - start)
    mean_len = sum(len(a) + len(b) for a, b in pairs) / (2 * len(pairs))
    print(f"\n100,000 STS pairs (mean {mean_len:.0f} chars per text):")
    print(f"  dice_similarity: {plain_rate:,.0f} pairs/s")
    print(f"  scorer.run_sync: {run_rate:,.0f} pairs/s")


if __name__ == "__main__":
    main()
