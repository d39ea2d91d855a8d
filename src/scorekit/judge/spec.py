"""``JudgeSpec``: a judge's recipe as plain data, to send a judge to another process.

A :class:`~scorekit.judge.judge.Judge` holds a lock, a shared limiter, SDK clients and a cache
connection, none of which crosses a process boundary. What does is its spec: the model string,
the judge's own instructions and the keyword options it was built with, as JSON scalars
(:data:`~scorekit.judge.settings.SPEC_OPTIONS`), and never the API key. A judge built from a
model string pickles as its spec (``Judge.__reduce__``) and the receiving process (a Ray
worker, a process pool) builds its own judge from it, reading the API key, and any
``<PROVIDER>_BASE_URL``, from its own environment. Scorer specs
(:mod:`scorekit.scorers.registry`) embed a judge spec, and write it as JSON with
:meth:`JudgeSpec.to_dict`.

The class is defined in :mod:`scorekit.judge.judge`, beside ``Judge``, and imported from
there: the two refer to each other (``JudgeSpec.build()`` makes a ``Judge``, ``Judge.spec``
makes a ``JudgeSpec``), so defining them in two modules would make each import the other.
This module is its import path; the option names and their validation live in
:mod:`scorekit.judge.settings`, with the options themselves.

Example::

    spec = Judge("openai/gpt-4o-mini", timeout=30).spec
    spec.to_dict()  # {"model": "openai/gpt-4o-mini", "instructions": None,
                    #  "options": {"timeout": 30.0}}
    judge = JudgeSpec.from_dict(spec.to_dict()).build()  # reads OPENAI_API_KEY here
"""

from __future__ import annotations

from scorekit.judge.judge import JudgeSpec
from scorekit.judge.settings import SPEC_OPTIONS

__all__ = ["SPEC_OPTIONS", "JudgeSpec"]
