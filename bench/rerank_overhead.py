"""The Flash reranker's own cost: what Flashback spends around the two LLM round trips.

    python -m bench.rerank_overhead [--runs 30] [--query "hotel in Lisbon"] [--load 15]

A real store (the demo Telegram export, 113 topics, imported and built by the engine),
the real stage 1 for the query with the safety threshold off (50 topic candidates plus
people and artifacts), and the scripted OpenAI-compatible server from the tests answering
at once: turn 1 loads `--load` topics, turn 2 picks five. Per run it measures
  * overhead: the reranker's total minus the time spent awaiting ChatClient.complete,
    i.e. prompt building, store reads, tool results, parsing and the trace (target p50
    ≤ 20 ms); plus `json.dumps` of the trace, as storing the run would;
  * the store reads of get_topics_content on their own;
  * the baseline, in the same run: the same two request bodies POSTed with a bare
    httpx client, so the ratio says how much Flashback adds to the network round trips.
The turn-1 prompt (system + user + tool schema) for the 50 candidates is sized in chars
and estimated tokens (target ≤ 4,000). Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from engine.api import Flashback
from engine.llm import ChatClient, Endpoint
from engine.rerank.flash import FlashReranker, FlashSettings, estimate_tokens, store_topic_source
from engine.retrieval.search import RetrievalSettings
from engine.store.database import connect, db_path
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply, tool_call

DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo" / "telegram_demo_export.json"
CHAT = "/v1/chat/completions"
KEY = "sk-bench-not-a-real-key-000000"


def scripted_model(topic_ids: list[int], load: int):
    """Turn 1: load the first `load` candidates in one call; turn 2: pick five of them."""
    asked = topic_ids[:load]
    final = json.dumps({"topic_ids": [{"id": f"Topic:{i}", "reason": f"mentions what the query asks ({n})"}
                                      for n, i in enumerate(asked[::3][:5], 1)]})
    usage = {"prompt_tokens": 3500, "completion_tokens": 120, "total_tokens": 3620, "cost": 0.0004}

    def answer(request: RecordedRequest) -> FakeResponse:
        messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
        if any(m.get("role") == "tool" for m in messages):
            return FakeResponse(json=chat_reply(final, usage=usage))
        call = tool_call("get_topics_content", {"topic_ids": asked}, "call_bench")
        return FakeResponse(json=chat_reply(tool_calls=[call], usage=usage))
    return answer


def timed_source(data_dir: Path, seconds: list[float]):
    source = store_topic_source(lambda: connect(db_path(data_dir)))

    def read(ids: list[int]):
        started = time.perf_counter()
        try:
            return source(ids)
        finally:
            seconds.append(time.perf_counter() - started)
    return read


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


async def measure(server: FakeOpenAI, data_dir: Path, query: str, candidates, runs: int) -> dict:
    endpoint = Endpoint(base_url=server.base_url, api_key=KEY, model="bench/flash", preset="openrouter")
    reads: list[float] = []
    out: dict[str, list[float]] = {"overhead": [], "trace_json": [], "total": [], "http": [], "baseline": [],
                                   "store_read": []}
    last = None
    async with ChatClient(endpoint) as client, httpx.AsyncClient(base_url=server.base_url) as bare:
        reranker = FlashReranker(client, timed_source(data_dir, reads), FlashSettings(model="bench/flash"))
        for i in range(-3, runs):  # three untimed rounds: connections, caches, lazy imports
            server.requests.clear()
            reads.clear()
            result = await reranker.arerank(query, candidates)
            started = time.perf_counter()
            json.dumps(result.trace, ensure_ascii=False)
            trace_s = time.perf_counter() - started
            bodies = [r.body for r in server.requests_to(CHAT)]
            # The baseline: the same two bodies, POSTed bare (no prompt building, no parsing).
            started = time.perf_counter()
            for body in bodies:
                (await bare.post("/chat/completions", json=body)).json()
            baseline_s = time.perf_counter() - started
            if i < 0:
                continue
            timings = result.report["timings_ms"]
            http_ms = sum(v for k, v in timings.items() if k.startswith("turn_"))
            out["overhead"].append(timings["overhead"])
            out["trace_json"].append(trace_s * 1000)
            out["total"].append(timings["total"])
            out["http"].append(http_ms)
            out["baseline"].append(baseline_s * 1000)
            out["store_read"].append(sum(reads) * 1000)
            last = result
    assert last is not None and last.fallback is None, last.report if last else None
    return {"series": out, "last": last}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--query", default="hotel in Lisbon")
    parser.add_argument("--load", type=int, default=15, help="topics the scripted model loads on turn 1")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="flashback-bench-") as scratch, FakeOpenAI() as server:
        data_dir = Path(scratch) / "data"
        service = Flashback(data_dir)
        service.imports.import_path(DEMO)
        build = service.memory.build()
        candidates = service.search.candidates(args.query, RetrievalSettings(safety_threshold=0.0)).candidates
        topic_ids = [c.id for c in candidates if c.kind == "topic"]
        server.handle(CHAT, scripted_model(topic_ids, args.load))
        measured = asyncio.run(measure(server, data_dir, args.query, candidates, args.runs))

    s, last = measured["series"], measured["last"]
    system, user = last.trace["system_prompt"], last.trace["user_prompt"]
    tools = last.trace["turns"][0]["request"]["tools"]
    prompt_chars = len(system) + len(user)
    prompt_tokens = last.report["prompt_tokens_estimate"]
    cap = last.trace["summary_cap"]
    loaded_chars = len(last.trace["turns"][1]["request"]["messages"][-1]["content"])
    with_trace = [o + t for o, t in zip(s["overhead"], s["trace_json"], strict=True)]
    p50, p95 = pct(s["overhead"], 50), pct(s["overhead"], 95)
    ratio = pct(s["total"], 50) / pct(s["baseline"], 50)
    kinds = {k: sum(1 for c in candidates if c.kind == k) for k in ("topic", "person", "artifact")}
    verdict = "met" if p50 <= 20 else "NOT met"
    tokens_verdict = "met" if prompt_tokens <= 4000 else "NOT met"
    lines = [
        f"rerank_overhead: {build.topics_created} topics in the store; candidates {kinds}; query {args.query!r} "
        f"({last.report['prompt_language']} prompt); the model loads {args.load} topics; {args.runs} runs",
        f"{'ms per run':<36}{'p50':>10}{'p95':>10}",
        *(f"{'  ' + label:<36}{pct(s[key], 50):>10.2f}{pct(s[key], 95):>10.2f}" for label, key in (
            ("reranker total", "total"), ("awaiting ChatClient (2 turns)", "http"),
            ("bare HTTP, same 2 bodies (baseline)", "baseline"), ("overhead (total - awaiting)", "overhead"),
            ("  of which store reads", "store_read"), ("json.dumps(trace)", "trace_json"))),
        f"{'  overhead + trace JSON':<36}{pct(with_trace, 50):>10.2f}{pct(with_trace, 95):>10.2f}",
        f"reranker total / bare HTTP baseline (p50): {ratio:.2f}×",
        f"overhead p50 {p50:.2f} ms, p95 {p95:.2f} ms (target p50 ≤ 20: {verdict})",
        f"turn-1 prompt: {prompt_chars:,} chars (system {len(system):,}, user {len(user):,}), ~{prompt_tokens:,} "
        f"tokens with the tool schema (target ≤ 4,000: {tokens_verdict}); summaries cut at {cap} chars; "
        f"tool result {loaded_chars:,} chars",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.write(json.dumps({
        "bench": "rerank_overhead", "runs": args.runs, "query": args.query, "store_topics": build.topics_created,
        "candidates": kinds, "loaded_topics": args.load, "prompt_language": last.report["prompt_language"],
        "overhead_p50_ms": round(p50, 3), "overhead_p95_ms": round(p95, 3),
        "overhead_with_trace_json_p50_ms": round(pct(with_trace, 50), 3),
        "store_read_p50_ms": round(pct(s["store_read"], 50), 3),
        "trace_json_p50_ms": round(pct(s["trace_json"], 50), 3),
        "total_p50_ms": round(pct(s["total"], 50), 3), "total_p95_ms": round(pct(s["total"], 95), 3),
        "http_wait_p50_ms": round(pct(s["http"], 50), 3), "baseline_http_p50_ms": round(pct(s["baseline"], 50), 3),
        "ratio_total_to_baseline": round(ratio, 3),
        "prompt_chars": prompt_chars, "prompt_system_chars": len(system), "prompt_user_chars": len(user),
        "prompt_tokens_estimate": prompt_tokens,
        "tool_schema_tokens": estimate_tokens(json.dumps(tools, ensure_ascii=False)),
        "summary_cap_chars": cap,
        "tool_result_chars": loaded_chars,
        "targets_met": {"overhead_p50_le_20ms": p50 <= 20, "prompt_le_4000_tokens": prompt_tokens <= 4000},
    }, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
