"""The cross-encoder reranker's own cost per query: what Flashback spends around the rerank
requests, with a server that answers at once.

    python -m bench.cross_encoder_overhead [--runs 40] [--query "hotel in Lisbon"] [--batch 16]

A real store (the demo Telegram export, imported and built by the engine), the real stage 1
for the query with the safety threshold off (50 topic candidates, people and files), and the
scripted rerank server from the tests (tests/fake_rerank.py, llama.cpp's shape) in a child
process of its own, so its work never shares this process's interpreter lock. The reranker
sends stage 1's first 40 topics (the seed's top_n) in batches of `--batch`. Per run:

  * own work: the whole `arerank` minus the time inside the HTTP transport (sending, waiting,
    receiving: what bench/rerank_overhead.py leaves out of Flash's overhead too), i.e.
    reading the passages from the store and cutting them to 256 tokens, encoding the
    requests and decoding the answers, the selection and the report (target ≤ 10 ms for 40
    candidates), as wall time and as this thread's CPU time (everything here runs on it;
    waiting costs none), which a busy machine inflates far less than wall time;
  * the passages on their own (store reads and cuts);
  * the baseline, in the same run: the same request bodies POSTed with a bare httpx client
    on one connection, so the HTTP share is the server's and the network stack's, not ours.

Prints a table, then one JSON line. The load average is printed beside it: on a shared
2-core machine the figures move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from engine.api import Flashback, RetrievalSettings
from engine.rerank.cross_encoder import CrossEncoderSettings, RerankEndpoint
from engine.rerank.cross_encoder.client import tls_context

DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo" / "telegram_demo_export.json"
TARGET_MS = 10.0


def serve(port_out, stop) -> None:
    """The scripted server in a child process: answers every request at once."""
    from tests.fake_rerank import FakeRerank

    with FakeRerank() as server:
        server.serve("llamacpp")
        port_out.put(server.root)
        stop.wait()


class TimedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport, timed: wall and CPU seconds spent inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.wall = self.cpu = 0.0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            response = await super().handle_async_request(request)
            await response.aread()
            return response
        finally:
            self.wall += time.perf_counter() - wall
            self.cpu += time.thread_time() - cpu


def pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 3) if values else 0.0


async def measure(reranker, transport: TimedTransport, endpoint: RerankEndpoint, query: str, candidates,
                  runs: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"total": [], "http": [], "own": [], "cpu": [], "passages": [], "baseline": []}
    for number in range(runs + 3):  # three warm-up runs: imports, the TLS context, the first connection
        transport.wall = transport.cpu = 0.0
        started, cpu_started = time.perf_counter(), time.thread_time()
        result = await reranker.arerank(query, candidates)
        total = (time.perf_counter() - started) * 1000
        cpu = (time.thread_time() - cpu_started - transport.cpu) * 1000
        report = result.report
        assert result.fallback is None and report["sent"] == 40, report.get("error")
        http = report["timings_ms"]["http"]
        bodies = [endpoint.request_body(query, ["x" * 900] * size) for size in _batch_sizes(40, report["batches"])]
        async with httpx.AsyncClient(verify=tls_context()) as bare:
            started = time.perf_counter()
            for body in bodies:
                (await bare.post(endpoint.url, json=body)).raise_for_status()
            baseline = (time.perf_counter() - started) * 1000
        if number >= 3:
            out["total"].append(total)
            out["http"].append(http)
            out["own"].append(total - transport.wall * 1000)
            out["cpu"].append(cpu)
            out["passages"].append(report["timings_ms"]["passages"])
            out["baseline"].append(baseline)
    return out


def _batch_sizes(count: int, batches: int) -> list[int]:
    size = -(-count // batches)
    return [min(size, count - start) for start in range(0, count, size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--query", default="hotel in Lisbon")
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args()

    context = multiprocessing.get_context("spawn")
    port_out, stop = context.Queue(), context.Event()
    child = context.Process(target=serve, args=(port_out, stop), daemon=True)
    child.start()
    try:
        root = port_out.get(timeout=60)
        with tempfile.TemporaryDirectory() as work:
            app = Flashback(Path(work) / "data")
            app.imports.import_path(DEMO)
            app.memory.build()
            stage1 = app.search.candidates(args.query, RetrievalSettings(safety_threshold=0.0))
            topics = sum(1 for c in stage1.candidates if c.kind == "topic")
            endpoint = RerankEndpoint("llamacpp", root)
            settings = CrossEncoderSettings(batch=args.batch, skip_small=False, skip_flat=False)
            transport = TimedTransport()
            reranker = app.search.cross_encoder_reranker(endpoint, settings, transport=transport)
            figures = asyncio.run(measure(reranker, transport, endpoint, args.query, stage1.candidates, args.runs))
    finally:
        stop.set()
        child.join(timeout=10)

    load = os.getloadavg()[0]
    print(f"cross-encoder overhead: {args.runs} runs, {topics} topic candidates, 40 sent in batches of "
          f"{args.batch}; load average {load:.2f}")
    print(f"{'':<28}{'p50 ms':>10}{'p95 ms':>10}")
    for name, label in (("own", "own work (total − transport)"), ("cpu", "own work, CPU time"),
                        ("passages", "  passages (store + cut)"),
                        ("http", "awaiting the server"), ("baseline", "bare httpx, same bodies"),
                        ("total", "whole rerank")):
        print(f"{label:<28}{pct(figures[name], 50):>10}{pct(figures[name], 95):>10}")
    own, cpu = pct(figures["own"], 50), pct(figures["cpu"], 50)
    print(f"own work p50 {own} ms wall, {cpu} ms CPU: {'within' if cpu <= TARGET_MS else 'OVER'} the "
          f"{TARGET_MS:g} ms target (CPU)")
    print(json.dumps({"bench": "cross_encoder_overhead", "runs": args.runs, "candidates": 40,
                      "topic_candidates": topics, "batch": args.batch, "batches": -(-40 // args.batch),
                      "own_ms_p50": own, "own_ms_p95": pct(figures["own"], 95), "own_cpu_ms_p50": cpu,
                      "own_cpu_ms_p95": pct(figures["cpu"], 95),
                      "passages_ms_p50": pct(figures["passages"], 50), "http_ms_p50": pct(figures["http"], 50),
                      "baseline_http_ms_p50": pct(figures["baseline"], 50), "total_ms_p50": pct(figures["total"], 50),
                      "target_ms": TARGET_MS, "within_target": cpu <= TARGET_MS, "load_average": round(load, 2),
                      "python": sys.version.split()[0]}))


if __name__ == "__main__":
    main()
