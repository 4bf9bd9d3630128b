"""Flash end to end against real local servers with SmolLM2-135M (docs/llm_servers.md).

Runs when the cache that `python -m bench.llama_server build` makes exists
($FLASHBACK_LLAMA_CACHE, default ~/.cache/flashback-llama); llama-cpp-python's server
when `build-python` ran or $FLASHBACK_LLAMA_PY names its python. Otherwise each test is
skipped with the reason. Only 127.0.0.1 servers started here are contacted.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from bench import llama_server as cache
from engine.api import SearchRequest
from engine.llm import CapabilityMemory, ChatClient, Endpoint
from engine.rerank.flash import FlashReranker, FlashSettings, fuse_candidates, rewrite_query, store_topic_source
from engine.rerank.flash.prompt import neutralize
from engine.rerank.flash.session import FlashSession
from engine.store.database import connect, db_path
from tests.engine.rerank.conftest import NOW

pytestmark = pytest.mark.real_llama
QUERY = "Zeppelin budget and the hangar lease"
# The protocol is under test, not the machine's speed: a shared 2-core CI runner measured
# 70 prompt tokens/s and 4 generated tokens/s (against 230 and 46 when idle), so budgets
# here are generous; the defaults' timings are in docs/llm_servers.md.
TOTAL_S = 600.0
# Fewer candidates than the local defaults (25 / 8 / 8): the protocol holds the same, and a
# loaded runner (0.6 generated tokens/s seen under a grammar) still finishes in minutes.
SMALL = {"max_candidates": 10, "people_shown": 3, "artifacts_shown": 3, "max_tokens_answer": 768}
RECENT = "Kim: the hangar people called again about the Zeppelin\nme: ugh, that lease"


def _need_llama_server() -> None:
    if not cache.server_binary().exists() or not cache.model_path().exists():
        pytest.skip(f"no llama-server + SmolLM2 in {cache.cache_dir()}: run `python -m bench.llama_server build`")


@pytest.fixture(scope="module")
def llama_server() -> Iterator[cache.LocalServer]:
    _need_llama_server()
    with cache.llama_server() as server:
        yield server


@pytest.fixture(scope="module")
def python_server() -> Iterator[cache.LocalServer]:
    if cache.python_server_python() is None or not cache.model_path().exists():
        pytest.skip("no llama-cpp-python server: run `python -m bench.llama_server build-python` or set "
                    "FLASHBACK_LLAMA_PY")
    with cache.python_server() as server:
        yield server


def flash(server: cache.LocalServer, data_dir, preset: str = "llamacpp", memory: CapabilityMemory | None = None,
          **settings) -> FlashReranker:
    endpoint = Endpoint.from_preset(preset, model="local", base_url=server.base_url)
    client = ChatClient(endpoint, capabilities=memory)
    settings = {"total_timeout": TOTAL_S, **SMALL, **settings}
    return FlashReranker(client, store_topic_source(lambda: connect(db_path(data_dir))),
                         FlashSettings(model="local", **settings), now=lambda: NOW)


def run(reranker: FlashReranker, query: str, candidates, rewrite=None):
    async def go():
        async with reranker.client:
            return await reranker.arerank(query, candidates, rewrite)
    return asyncio.run(go())


def assert_completed(result, candidates, turns: int = 2) -> None:
    """Both turns answered (no fallback but an empty answer), every call bounded, no 5xx."""
    assert result.fallback in (None, "model_empty"), (result.fallback, result.report["error"])
    calls = [t for t in result.trace["turns"]]
    assert len(calls) == turns and all(t["error"] is None and t["attempts"] == 1 for t in calls)
    assert all(isinstance(t["request"].get("max_tokens"), int) for t in calls)
    shown = {(c.kind, c.id) for c in candidates}
    assert all((s.kind, s.id) in shown for s in result.selected)


def test_llama_server_constrained_turns(llama_server, data_dir, stage1):
    candidates = stage1(QUERY)
    result = run(flash(llama_server, data_dir), QUERY, candidates)
    assert result.report["protocol"] == "constrained"
    assert_completed(result, candidates)
    assert result.tool_calls and set(result.tool_calls[0]) <= {c.id for c in candidates if c.kind == "topic"}


def test_llama_server_ignores_the_forced_call_and_flash_switches(llama_server, data_dir, stage1):
    candidates = stage1(QUERY)
    memory = CapabilityMemory()
    result = run(flash(llama_server, data_dir, "custom", memory), QUERY, candidates)
    if result.report["protocol_switch"] is None:  # the model happened to call the tool: the seeds' protocol held
        assert result.report["protocol"] == "tools" and result.fallback in (None, "model_empty")
        return
    assert "ignored the forced call" in result.report["protocol_switch"]["evidence"]
    assert_completed(result, candidates, turns=3)
    assert memory.get(f"{llama_server.base_url}|local").flash_protocol == "constrained"


def test_llama_server_rewrite_feeds_stage_1_and_the_prompt(llama_server, service, data_dir, stage1):
    endpoint = Endpoint.from_preset("llamacpp", model="local", base_url=llama_server.base_url)

    async def rewrite():
        async with ChatClient(endpoint) as client:
            return await rewrite_query(client, "what did he say?", RECENT, timeout=120, max_tokens=96)
    done = asyncio.run(rewrite())
    assert done.call is not None and done.call["request"]["max_tokens"] == 96 and done.elapsed_ms < 120_000
    assert done.used or done.reason  # a 135M model may not manage it: then the reason is recorded
    candidates = stage1("what did he say?")
    if done.used:
        candidates = fuse_candidates(candidates, stage1(done.rewritten))
    result = run(flash(llama_server, data_dir), "what did he say?", candidates, done)
    # stage 1 searched the rewrite exactly when it was used (a refused rewrite searches the original only)
    assert result.report["rewrite"]["original"] == "what did he say?"
    assert result.report["rewrite"]["stage1"] == done.used
    if done.used:
        assert f"<contextualized_query>\n{neutralize(done.rewritten)}" in result.trace["user_prompt"]


def test_llama_server_killed_mid_turn_falls_back_fast(data_dir, stage1):
    _need_llama_server()
    candidates = stage1(QUERY)
    server = cache.llama_server().start()
    try:
        threading.Timer(1.0, server.kill).start()  # during turn 1 or 2
        started = time.monotonic()
        result = run(flash(server, data_dir), QUERY, candidates)
    finally:
        server.stop()
    assert time.monotonic() - started < 120  # not the 600 s budget: a dead server fails fast
    if result.fallback not in (None, "model_empty"):  # finished before the kill on a fast machine otherwise
        assert result.fallback in ("llm_error", "timeout", "turn_timeout")
        assert result.selected and all(s.kind == "topic" for s in result.selected)


def test_llama_cpp_python_constrained_turns(python_server, data_dir, stage1):
    candidates = stage1(QUERY)
    result = run(flash(python_server, data_dir), QUERY, candidates)
    assert result.report["protocol"] == "constrained"
    assert_completed(result, candidates)


def test_llama_cpp_python_seeds_protocol_with_a_named_call(python_server, data_dir, stage1):
    # Its server enforces a named tool_choice; turn 2 carries the tool call with content ""
    # (null was a 500). Turn 2's json_object has no schema, so a 135M model may invent keys:
    # the wire must hold (no 5xx, bounded), the answer is the model's.
    candidates = stage1(QUERY)
    result = run(flash(python_server, data_dir, "custom", protocol="tools"), QUERY, candidates)
    assert result.report["protocol"] == "tools" and result.tool_calls
    turns = result.trace["turns"]
    assert len(turns) == 2 and all(t["error"] is None and t["attempts"] == 1 for t in turns)
    assert turns[1]["request"]["messages"][2]["content"] == ""
    assert result.fallback in (None, "model_empty", "parse_error"), result.report["error"]
    assert all(s.kind == "topic" for s in result.selected) or result.fallback is None


def test_the_service_search_with_recent_messages_on_llama_server(llama_server, service):
    """The user's path (`flashback search … --recent`): rewrite, stage 1 for both queries fused,
    Flash over the fused set, all against the real server."""
    from engine.retrieval.search import RetrievalSettings

    session = FlashSession(Endpoint.from_preset("llamacpp", base_url=llama_server.base_url),
                           FlashSettings(model="local", total_timeout=TOTAL_S, rewrite_timeout=120, **SMALL),
                           service._context.connect, RECENT)
    settings = RetrievalSettings(candidates=10)
    outcome = service.search.search_sync(SearchRequest("what did he say?", settings, session))
    rewrite = outcome.rewrite
    assert rewrite is not None and rewrite.call["request"]["max_tokens"] == 96
    if rewrite.used:  # a 135M model may not manage it: then the reason is recorded and the original searched
        assert outcome.timings.part("rewrite_stage1") is not None
        own = {c.id for c in service.search.candidates(rewrite.rewritten, settings).candidates if c.kind == "topic"}
        assert own & {c.id for c in outcome.stage1.candidates if c.kind == "topic"}
    else:
        assert rewrite.reason
    assert outcome.result.fallback in (None, "model_empty"), outcome.result.report["error"]
    assert outcome.result.report["protocol"] == "constrained"
