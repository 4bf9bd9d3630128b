"""What a real chat server accepts, rejects and enforces, and Flash's turns on it (docs/llm_servers.md).

    python -m bench.llm_servers --base-url http://127.0.0.1:8080/v1 --label llama-server \\
        --data-dir /tmp/d18 --json out.json

Two parts. The wire probes send each request shape Flash and the topic agents use and
record the status and whether the server *enforced* what was asked (a tool call arrived,
the reply parsed against the schema, the bound held). The runs search the store with
Flash under each protocol and record seconds per turn, the fallback, whether the selection
kept to the candidates, and the request fields of every call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import httpx

from engine.api import Flashback
from engine.llm import CapabilityMemory, Endpoint
from engine.rerank.flash import FlashSettings, fuse_candidates
from engine.rerank.flash.session import FlashSession
from engine.retrieval.search import RetrievalSettings

TOOL = {"type": "function", "function": {"name": "get_topics_content", "description": "Load topics",
        "parameters": {"type": "object", "properties": {"topic_ids": {"type": "array", "items": {"type": "integer"}}},
                       "required": ["topic_ids"]}}}
ASK = [{"role": "system", "content": "You pick topics. Candidates: [Topic:7] Lisbon hotel, [Topic:9] bike brakes."},
       {"role": "user", "content": "Which topics are about the hotel in Lisbon?"}]
ENUM_SCHEMA = {"type": "json_schema", "json_schema": {"name": "read", "schema": {
    "type": "object", "properties": {"topic_ids": {"type": "array", "items": {"type": "integer", "enum": [7, 9]},
                                                   "minItems": 1, "maxItems": 2}},
    "required": ["topic_ids"], "additionalProperties": False}}}
CALLED = {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {
    "name": "get_topics_content", "arguments": "{\"topic_ids\": [7]}"}}]}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "=== Topic 7 ===\nCasa dos Remédios, 3 nights"}


def probes() -> dict[str, dict]:
    named = {"type": "function", "function": {"name": "get_topics_content"}}
    return {
        "tool_choice required": {"messages": ASK, "tools": [TOOL], "tool_choice": "required", "max_tokens": 128},
        "tool_choice named": {"messages": ASK, "tools": [TOOL], "tool_choice": named, "max_tokens": 128},
        "response_format json_object": {"messages": ASK, "response_format": {"type": "json_object"},
                                        "max_tokens": 128},
        "response_format json_schema (enum ids)": {"messages": ASK, "response_format": ENUM_SCHEMA, "max_tokens": 128},
        "tool_choice auto + response_format": {"messages": ASK, "tools": [TOOL], "tool_choice": "auto",
                                               "response_format": {"type": "json_object"}, "max_tokens": 128},
        "assistant tool call, content null": {"messages": [*ASK, {**CALLED, "content": None}, RESULT],
                                              "tools": [TOOL], "max_tokens": 64},
        "assistant tool call, content \"\"": {"messages": [*ASK, {**CALLED, "content": ""}, RESULT],
                                             "tools": [TOOL], "max_tokens": 64},
        "max_tokens 16": {"messages": ASK, "max_tokens": 16},
        "max_completion_tokens 16": {"messages": ASK, "max_completion_tokens": 16},
    }


def enforced(name: str, body: dict) -> str:
    message = body["choices"][0]["message"]
    usage = body.get("usage") or {}
    if name.startswith("tool_choice") and "response_format" not in name:
        return "call arrived" if message.get("tool_calls") else "ignored (prose)"
    if "json" in name or "response_format" in name:
        try:
            value = json.loads(message.get("content") or "")
        except ValueError:
            return "not JSON"
        if "enum" in name:
            ids = value.get("topic_ids") if isinstance(value, dict) else None
            return "valid, ids in enum" if isinstance(ids, list) and set(ids) <= {7, 9} and ids else "shape broken"
        return "valid JSON"
    if name.startswith("max"):
        return f"held ({usage.get('completion_tokens')} tokens)" if (usage.get("completion_tokens") or 99) <= 16 \
            else f"ignored ({usage.get('completion_tokens')} tokens)"
    return "answered"


def run_probes(base_url: str, model: str) -> list[dict]:
    rows = []
    with httpx.Client(base_url=base_url, timeout=120) as http:
        for name, body in probes().items():
            started = time.perf_counter()
            reply = http.post("/chat/completions", json={"model": model, **body})
            row = {"probe": name, "status": reply.status_code, "seconds": round(time.perf_counter() - started, 2)}
            if reply.status_code == 200:
                row["result"] = enforced(name, reply.json())
            else:
                row["result"] = " ".join(reply.text.split())[:160]
            rows.append(row)
    return rows


def run_flash(service: Flashback, endpoint: Endpoint, query: str, protocol: str, recent: str = "",
              memory: CapabilityMemory | None = None) -> dict:
    settings = FlashSettings(model=endpoint.default_model, protocol=protocol)
    session = FlashSession(endpoint, settings, service._context.connect, recent,
                           {"capabilities": memory or CapabilityMemory()})
    started = time.perf_counter()
    rewrite = asyncio.run(session.arewrite(query)) if recent else None
    retrieval = RetrievalSettings()
    stage1 = service.search.candidates(query, retrieval)
    candidates = stage1.candidates
    if rewrite is not None and rewrite.used:  # stage 1 as the service will run it: both queries, fused
        candidates = fuse_candidates(candidates, service.search.candidates(rewrite.rewritten, retrieval).candidates)
    result = asyncio.run(session.arerank(query, candidates, rewrite))
    report, trace = result.report, result.trace or {}
    shown = {(c.kind, c.id) for c in candidates}
    statuses = [t.get("error") for t in trace.get("turns", []) if t.get("error")]
    return {
        "protocol_asked": protocol, "protocol": report.get("protocol"), "switch": report.get("protocol_switch"),
        "fallback": result.fallback, "error": report.get("error"),
        "seconds_per_turn": {k: round(v / 1000, 2) for k, v in report["timings_ms"].items()
                             if k.startswith("turn_") or k == "contextualize"},
        "total_seconds": round(time.perf_counter() - started, 2),
        "selected": [f"{s.kind}:{s.id}" for s in result.selected],
        "selected_are_candidates": all((s.kind, s.id) in shown for s in result.selected),
        "bounded": all(("max_tokens" in t["request"] or "max_completion_tokens" in t["request"])
                       for t in trace.get("turns", [])),
        "attempts": [t.get("attempts") for t in trace.get("turns", [])], "turn_errors": statuses,
        "rewrite": report.get("rewrite"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llm_servers", description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--label", default="server")
    parser.add_argument("--model", default="local")
    parser.add_argument("--preset", default="llamacpp")
    parser.add_argument("--data-dir", type=Path, required=True, help="a built store (import the demo, then build)")
    parser.add_argument("--query", default="hotel in Lisbon")
    parser.add_argument("--recent", default="Anna: did you book the place in Alfama?\nme: yes, for three nights")
    parser.add_argument("--rewrite-query", default="where are we staying?")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args(argv)
    endpoint = Endpoint.from_preset(args.preset, model=args.model, base_url=args.base_url)
    service = Flashback(args.data_dir)
    out = {"server": args.label, "base_url": args.base_url, "probes": run_probes(args.base_url, args.model),
           "runs": []}
    for protocol in ("constrained", "tools", "auto"):
        out["runs"].append(run_flash(service, endpoint, args.query, protocol))
    custom = replace(endpoint, preset="custom")  # a named tool_choice (llamacpp's preset sends "required")
    out["runs"].append({**run_flash(service, custom, args.query, "tools"), "preset": "custom"})
    out["runs"].append({**run_flash(service, custom, args.query, "auto"), "preset": "custom"})
    out["runs"].append({**run_flash(service, endpoint, args.rewrite_query, "auto", recent=args.recent),
                        "with_recent": True})
    text = json.dumps(out, ensure_ascii=False, indent=1)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
