# %% [markdown]
# # Scoring a DataFrame of ExpertQA answers
#
# A notebook as a plain script with cells (open it in Jupyter with jupytext, or in VS Code,
# or run it with `python`). It reads the 12 ExpertQA answers of `examples/expertqa/` into a
# DataFrame, scores them with three code scorers (and two LLM scorers when `SCOREKIT_MODEL`
# names a judge), and turns the results back into DataFrames. In Jupyter, the result renders
# as a coloured summary table and `run_evals` shows a progress bar.

# %%
import os
from pathlib import Path

import pandas as pd

from scorekit import run_evals_sync
from scorekit.datasets.files import FieldMap
from scorekit.datasets.frames import frame_items
from scorekit.scorers import build_scorer

SAMPLE = Path(__file__).resolve().parent.parent / "expertqa" / "expertqa-sample.jsonl"
answers = pd.read_json(SAMPLE, lines=True)
answers[["id", "field", "question"]].head()

# %% [markdown]
# The columns are named as the dataset's fields (`question`, `answer`, `reference`): map them
# as a run config does. A DataFrame with `input` / `output` / `ground_truth` columns can be
# passed to `run_evals` as it is.

# %%
fields = FieldMap(input="question", output="answer", ground_truth="reference", extra=("field",))
scorers = [
    build_scorer(name) for name in ("content-similarity", "completeness", "keyword-coverage")
]
model = os.environ.get("SCOREKIT_MODEL")
if model:
    scorers += [build_scorer(name, model=model) for name in ("faithfulness", "context-relevance")]

result = run_evals_sync(frame_items(answers, fields=fields), scorers, progress=None)
result  # noqa: B018 - in Jupyter: the summary table, coloured scores, the weakest items

# %%
long = result.to_pandas()
print(long[["item_id", "scorer_id", "status", "score"]].head(6).to_string(index=False))

# %%
wide = result.to_pandas(wide=True)
print(wide[[s.id for s in scorers]].round(3).to_string())
print("means:", {sid: round(mean, 4) for sid, mean in result.scores.items()})
