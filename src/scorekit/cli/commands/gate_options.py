"""The options of ``scorekit run`` that shape its verdict, repeats and budget, declared once.

``--max-error-rate``, ``--min-agreement`` (docs/trust.md), ``--trials`` and the judge budget
(``--max-judge-calls``, ``--max-judge-tokens``, ``--max-cost`` and the ``--price`` it reads,
docs/cost.md): their texts are
read by :mod:`scorekit.cli.option_texts` and checked by the run (:mod:`scorekit.evals.gates`,
:mod:`scorekit.evals.agreement_gates`).
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = [
    "MaxCostOption",
    "MaxErrorRateOption",
    "MaxJudgeCallsOption",
    "MaxJudgeTokensOption",
    "MinAgreementOption",
    "PriceOption",
    "TrialsOption",
]

MaxErrorRateOption = Annotated[
    list[str] | None,
    typer.Option(
        "--max-error-rate",
        metavar="[SCORER=]SHARE",
        help="Most errors a scorer may have, as a share of its results, for the verdict to "
        "pass (0-1; repeatable) [0: any error fails]",
    ),
]
"""``--max-error-rate [SCORER=]SHARE``, repeatable."""

TrialsOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Score each item K times: the judge's self-consistency, spread and a mean "
        "interval with its noise (K x the judge calls) [1]",
        metavar="K",
    ),
]
"""``--trials K``."""

MinAgreementOption = Annotated[
    list[str] | None,
    typer.Option(
        "--min-agreement",
        metavar="SCORER:FIGURE=MIN",
        help="Least agreement with the items' human labels for the verdict to pass "
        "(auroc, kappa, balanced_accuracy, pearson, spearman; FIGURE.low: the 95 % "
        "interval's lower bound; repeatable; docs/trust.md)",
    ),
]
"""``--min-agreement SCORER:FIGURE[.low]=MIN``, repeatable."""

MaxJudgeCallsOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        metavar="N",
        help="Hard budget: send at most N judge calls (cache hits are free); past it no new "
        "item starts, the run stops resumable and its verdict fails (exit 4; docs/cost.md)",
    ),
]
"""``--max-judge-calls N``."""

MaxJudgeTokensOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        metavar="N",
        help="Hard budget: at most N judge tokens, prompt + completion; a call is sent only "
        "if its upper bound fits (exit 4 when it stops the run; docs/cost.md)",
    ),
]
"""``--max-judge-tokens N``."""

MaxCostOption = Annotated[
    float | None,
    typer.Option(
        metavar="DOLLARS",
        help="Hard budget: at most DOLLARS (US) of judge calls at the judge models' prices "
        "(the pinned table, the config's prices, --price); a call is sent only if its upper "
        "bound fits (exit 4 when it stops the run; docs/cost.md)",
    ),
]
"""``--max-cost DOLLARS``."""

PriceOption = Annotated[
    list[str] | None,
    typer.Option(
        "--price",
        metavar="MODEL=IN,OUT",
        help="A judge model's price, US dollars per million input and output tokens (wins "
        "over the table and the config's prices; repeatable), e.g. openai/gpt-4o-mini=0.15,0.6",
    ),
]
"""``--price MODEL=IN,OUT``, repeatable."""
