// Runs @mastra/evals 1.10.2's LLM scorers (context relevance, faithfulness) on rows given as
// JSON lines on stdin ({key, question, context, answer}), against an OpenAI-compatible judge at
// the base URL given on the command line; writes one JSON line per row to stdout:
// {key, scorer, score, error, calls, input_tokens, output_tokens, seconds}.
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import * as prebuilt from "@mastra/evals/scorers/prebuilt";

const [baseURL, which] = process.argv.slice(2);
const calls = { n: 0, input: 0, output: 0 };
const counting = async (url, init) => {
  const reply = await fetch(url, init);
  const copy = reply.clone();
  calls.n += 1;
  // a streamed reply (server-sent events) carries its usage in its last chunks
  copy.text().then((text) => {
    let usage = null;
    for (const line of text.split("\n")) {
      const data = line.startsWith("data:") ? line.slice(5).trim() : line.trim();
      if (!data.startsWith("{")) continue;
      try {
        const chunk = JSON.parse(data);
        if (chunk.usage) usage = chunk.usage;
      } catch {}
    }
    calls.input += usage?.prompt_tokens ?? 0;
    calls.output += usage?.completion_tokens ?? 0;
  });
  return reply;
};
const provider = createOpenAICompatible({
  name: "local",
  baseURL,
  fetch: counting,
  supportsStructuredOutputs: true,
  includeUsage: true,
});
const model = provider.chatModel("local");

function scorerFor(name, row) {
  if (name === "context-relevance")
    return prebuilt.createContextRelevanceScorerLLM({ model, options: { context: [row.context] } });
  if (name === "faithfulness")
    return prebuilt.createFaithfulnessScorer({ model, options: { context: [row.context] } });
  throw new Error(`unknown scorer ${name}`);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const row = JSON.parse(line);
  const before = { ...calls };
  const started = performance.now();
  let score = null;
  let error = null;
  try {
    const result = await scorerFor(which, row).run({
      input: { inputMessages: [{ role: "user", content: row.question }] },
      output: [{ role: "assistant", content: row.answer }],
    });
    score = result.score;
  } catch (exc) {
    error = String(exc?.message ?? exc).slice(0, 300);
  }
  process.stdout.write(JSON.stringify({
    key: row.key, scorer: which, score, error,
    calls: calls.n - before.n,
    input_tokens: calls.input - before.input,
    output_tokens: calls.output - before.output,
    seconds: (performance.now() - started) / 1000,
  }) + "\n");
}
