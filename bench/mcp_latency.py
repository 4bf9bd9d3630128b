"""`flashback mcp` latency per tool call, as an assistant sees it (issue 24).

    python -m bench.mcp_latency [--rounds 5]

The demo export imported and built into a temporary store; the server started as a client
starts it (`python -m app --data-dir X mcp` over stdio, the official SDK's client); the
window's settings point Flash and Ask at the tests' scripted OpenAI-compatible server on
127.0.0.1, which answers at once, so the figures are Flashback's own cost plus two or three
local HTTP round trips (a real model adds its seconds). Per tool: the client's wall time
from `call_tool` to the result, p50 and p95 over `--rounds` calls with varied queries, after
one warm-up call of each. Also: the start (spawn to initialized) and `tools/list`. The load
average is printed beside the figures: on a shared 2-core machine it decides them. Prints a
table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

import resources
from engine.api import Flashback
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest
from tests.mcp_client import connected, write_window_settings
from tests.test_mcp_llm import KEY, ask_model, flash_model

QUERIES = ("hotel in Lisbon", "паспорт", "когда вылет в Лиссабон?", "what did Dan say about the hotel",
           "release on Friday", "мама врач", "running club route", "flat viewing")


def scripted(request: RecordedRequest) -> FakeResponse:
    """Flash's turns (a get_topics_content tool, or its result in the messages) or Ask's steps."""
    body = request.body
    tools = [t["function"]["name"] for t in body.get("tools") or []]
    if "get_topics_content" in tools or any(m["role"] == "tool" for m in body["messages"]):
        return flash_model(request)
    return ask_model(request)


def _ms(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def calls(rounds: int, topics: list[int]) -> dict[str, list[tuple[str, dict]]]:
    queries = [QUERIES[i % len(QUERIES)] for i in range(rounds + 1)]
    return {
        "list_chats": [("list_chats", {})] * (rounds + 1),
        "search_memory (threshold)": [("search_memory", {"query": q}) for q in queries],
        "search_memory (none, candidates)": [("search_memory", {"query": q, "reranker": "none",
                                                                "include_candidates": True}) for q in queries],
        "search_memory (flash, scripted model)": [("search_memory", {"query": q, "reranker": "flash"})
                                                  for q in queries],
        "get_topic (first page)": [("get_topic", {"id": topic}) for topic in topics],
        "get_context (8,000 tokens)": [("get_context", {"query": q}) for q in queries],
        "ask_memory (scripted model)": [("ask_memory", {"question": q}) for q in queries],
        "bad argument (tool error)": [("search_memory", {"query": "x", "limit": 99})] * (rounds + 1),
    }


async def measure(data: Path, rounds: int, errlog: Path) -> dict:
    figures: dict[str, dict] = {}
    started = time.perf_counter()
    async with connected(data, errlog, env={"FLASHBACK_API_KEY": KEY}) as session:
        figures["start (spawn to initialized)"] = {"p50": round((time.perf_counter() - started) * 1000, 1)}
        mark = time.perf_counter()
        await session.list_tools()
        figures["tools/list"] = {"p50": round((time.perf_counter() - mark) * 1000, 1)}
        topics = [topic.id for topic in Flashback(data).browse.topics(limit=rounds + 1)]
        for label, batch in calls(rounds, topics).items():
            samples = []
            for number, (name, arguments) in enumerate(batch):
                mark = time.perf_counter()
                result = await session.call_tool(name, arguments)
                if number:  # the first call of each is the warm-up
                    samples.append((time.perf_counter() - mark) * 1000)
                if result.is_error != label.startswith("bad"):
                    raise SystemExit(f"{label}: {result.content[0].text}")
            figures[label] = {"p50": _ms(samples, 0.5), "p95": _ms(samples, 0.95), "n": len(samples)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed calls per tool, after one warm-up (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, FakeOpenAI() as server:
        data = Path(folder) / "data"
        service = Flashback(data, origin="command")
        service.imports.import_path(resources.demo_export())
        service.memory.build()
        write_window_settings(data, {"preset": "openrouter", "base_url": server.base_url, "model": "bench/model"})
        server.handle("/v1/chat/completions", scripted)
        figures = asyncio.run(measure(data, args.rounds, Path(folder) / "stderr.log"))
    load = [round(x, 2) for x in os.getloadavg()]
    print(f"{'call':<40}{'p50 ms':>10}{'p95 ms':>10}")
    for label, row in figures.items():
        print(f"{label:<40}{row['p50']:>10}{row.get('p95', ''):>10}")
    print(f"load average {load}")
    print(json.dumps({"bench": "mcp_latency", "rounds": args.rounds, "load": load, "calls_ms": figures},
                     ensure_ascii=False))


if __name__ == "__main__":
    main()
