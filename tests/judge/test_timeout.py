"""The per-attempt timeout: a model's one-time start-up is not counted, its request is."""

from __future__ import annotations

import asyncio
import time

import pytest

from scorekit.errors import JudgeTimeoutError
from scorekit.judge.model import ChatMessage, JudgeRequest, JudgeResponse, PreparedJudgeModel
from scorekit.judge.timeout import TimeoutModel

REQUEST = JudgeRequest(messages=(ChatMessage("user", "x"),))


class SlowToStart:
    """A model that takes ``start_s`` to get ready once, then ``reply_s`` per request."""

    model_id = "test/slow-start"

    def __init__(self, start_s: float, reply_s: float) -> None:
        self.start_s = start_s
        self.reply_s = reply_s
        self.started = False
        self.prepared = 0

    async def prepare(self) -> None:
        self.prepared += 1
        if not self.started:
            await asyncio.sleep(self.start_s)
            self.started = True

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        assert self.started
        await asyncio.sleep(self.reply_s)
        return JudgeResponse("ok")


async def test_start_up_is_not_counted_against_the_timeout() -> None:
    model = SlowToStart(start_s=0.3, reply_s=0.01)
    assert isinstance(model, PreparedJudgeModel)
    timed = TimeoutModel(model, 0.1)
    started = time.perf_counter()
    assert (await timed.complete(REQUEST)).text == "ok"
    assert time.perf_counter() - started >= 0.3
    assert (await timed.complete(REQUEST)).text == "ok"
    assert model.prepared == 2  # asked every time, cheap once ready


async def test_the_request_itself_is_still_timed() -> None:
    timed = TimeoutModel(SlowToStart(start_s=0.0, reply_s=1.0), 0.1)
    started = time.perf_counter()
    with pytest.raises(JudgeTimeoutError, match=r"0\.1 s timeout"):
        await timed.complete(REQUEST)
    assert time.perf_counter() - started < 0.5
