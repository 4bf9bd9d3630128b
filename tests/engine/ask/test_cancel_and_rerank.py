"""Cancel (the token and asyncio's own), and the flow with Flash as the user's reranker."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from engine.ask import AskCancelled, AskSettings, ask
from engine.errors import CancelToken, is_cancel
from engine.llm import ChatClient
from engine.rerank.flash import FlashSettings
from engine.rerank.flash.session import FlashSession
from engine.rerank.threshold import ThresholdReranker
from engine.store.database import connect, db_path
from tests.engine.ask.conftest import (
    CHAT,
    FAST_RETRY,
    NOW,
    ScriptedModel,
    bodies,
    citing,
    endpoint,
    make_deps,
    run_ask,
)
from tests.fake_openai import FakeResponse

QUESTION = "когда мама записалась к терапевту?"
PLAN = {"queries": {"ru": ["запись к терапевту"], "en": ["therapist"]}, "dates": "", "chats": [], "people": []}
RIGHT = ("Мама записалась к терапевту на 14 марта на 9:30", "записалась к терапевту")


def test_the_token_cancels_a_waiting_answer_at_once(server, service, data_dir):
    slow = FakeResponse(json={"choices": []}, delay=5.0)
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=slow))
    token = CancelToken()
    steps: list[str] = []

    def on_step(record):
        steps.append(record.name)
        if record.name == "compose":
            threading.Timer(0.2, token.cancel).start()

    started = time.perf_counter()
    with pytest.raises(AskCancelled) as raised:
        run_ask(QUESTION, service, data_dir, server, cancel=token, on_step=on_step)
    assert time.perf_counter() - started < 2.0  # not the server's 5 s
    assert is_cancel(raised.value) and str(raised.value) == "Ask cancelled."
    partial = raised.value.partial
    assert [s.name for s in partial.steps] == ["plan", "search", "rerank", "compose"] == steps
    assert partial.sources and partial.answer is None and partial.run_id is None  # a cancelled run is not recorded


def test_a_token_cancelled_before_the_start_stops_before_any_search(server, service, data_dir):
    token = CancelToken()
    token.cancel()
    with pytest.raises(AskCancelled):
        run_ask(QUESTION, service, data_dir, None, cancel=token)


def test_cancelling_the_task_cancels_the_flow(server, service, data_dir):
    slow = FakeResponse(json={"choices": []}, delay=5.0)
    server.handle(CHAT, ScriptedModel(plan=slow))

    async def go() -> float:
        async with ChatClient(endpoint(server), retry=FAST_RETRY) as client:
            deps = make_deps(service, data_dir, client)
            task = asyncio.ensure_future(ask(QUESTION, deps, now=NOW))
            await asyncio.sleep(0.3)
            started = time.perf_counter()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return time.perf_counter() - started

    assert asyncio.run(go()) < 2.0  # at once, not the server's 5 s


def test_flash_reranks_the_fused_candidates_and_its_tokens_count(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(RIGHT)))
    flash = FlashSession(endpoint(server), FlashSettings(model="test/ask"), lambda: connect(db_path(data_dir)))
    outcome = run_ask(QUESTION, service, data_dir, server, reranker=flash)

    rerank = outcome.steps[2]
    assert rerank.name == "rerank" and rerank.ok and rerank.fallback is None
    assert rerank.detail["reranker"] == "flash" and rerank.usage["prompt_tokens"] == 200  # read + select turns
    assert outcome.selection.reranker == "flash" and outcome.sources
    assert {s.topic_id for s in outcome.sources} <= {x.id for x in outcome.selection.selected}
    assert outcome.usage["prompt_tokens"] == 400 and len(bodies(server)) == 4  # plan, 2 Flash turns, answer
    shown = bodies(server)[1]["messages"][1]["content"]
    assert all(f"[Topic:{c.id}]" in shown for c in outcome.candidates if c.kind == "topic" and c.rank <= 25)


class StuckReranker(ThresholdReranker):
    name = "stuck"

    async def arerank(self, query, candidates, rewrite=None):
        await asyncio.sleep(30)


def test_a_reranker_over_its_share_of_the_budget_falls_back_to_stage_1s_best(server, service, data_dir):
    server.handle(CHAT, ScriptedModel(plan=PLAN, answer=citing(RIGHT)))
    outcome = run_ask(QUESTION, service, data_dir, server, reranker=StuckReranker(),
                      settings=AskSettings(total_budget_s=2.0))
    rerank = outcome.steps[2]
    assert rerank.fallback == "timeout" and not rerank.ok and rerank.ms < 10_000  # not the stuck 30 s
    assert rerank.detail["error"] == "the reranker took longer than its 0.7 s"  # 0.35 of 2 s: its share
    assert 0 < len(outcome.selection.selected) <= 5 and outcome.answer is not None and outcome.fallback is None
    assert all(s.reason.startswith("fallback (the time ran out)") for s in outcome.selection.selected)
