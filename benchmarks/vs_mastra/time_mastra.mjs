// Times the code scorers of the real @mastra/evals 1.10.2 per call, the way
// benchmarks/bench_vs_mastra.py times scorekit's: for each scorer and text length, one warm-up
// call, then ROUNDS rounds of N calls cycling over the length's input/output pairs (N fitted so
// that a round takes about TARGET_MS, at least one call per pair); the best round's ms per call.
// Reads {"sizes": {"1000": [[input, output], ...]}, "scorers": [...], "target_ms": n,
// "rounds": n} from the file named on the command line; writes {"scorer": {"size": ms}} to stdout.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import * as prebuilt from "@mastra/evals/scorers/prebuilt";

const FACTORIES = {
  completeness: prebuilt.createCompletenessScorer,
  "content-similarity": prebuilt.createContentSimilarityScorer,
  "textual-difference": prebuilt.createTextualDifferenceScorer,
  "keyword-coverage": prebuilt.createKeywordCoverageScorer,
  tone: prebuilt.createToneScorer,
};

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));

function runOf(input, output) {
  return {
    input: { inputMessages: [{ role: "user", content: input }] },
    output: [{ role: "assistant", content: output }],
  };
}

async function timeOne(scorer, runs) {
  const started = performance.now();
  await scorer.run(runs[0]);
  const first = performance.now() - started;
  const calls = Math.max(runs.length, Math.ceil(spec.target_ms / Math.max(first, 0.001)));
  let best = Infinity;
  for (let round = 0; round < spec.rounds; round++) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await scorer.run(runs[i % runs.length]);
    best = Math.min(best, (performance.now() - t0) / calls);
  }
  return best;
}

const out = {};
for (const name of spec.scorers) {
  const scorer = FACTORIES[name]();
  out[name] = {};
  for (const [size, pairs] of Object.entries(spec.sizes)) {
    const runs = pairs.map(([input, output]) => runOf(input, output));
    out[name][size] = await timeOne(scorer, runs);
  }
}
process.stdout.write(JSON.stringify(out));
