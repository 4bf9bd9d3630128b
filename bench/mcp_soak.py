"""`flashback mcp --http` under a soak (issue 35): N minutes of assistants, bad calls, slow and
dropped clients, while imports and builds run on the same store.

    python -m bench.mcp_soak [--minutes 10] [--quick]

Everything on 127.0.0.1. A temporary store holds the demo, imported and built; the server is
`python -m app --data-dir X mcp --http 0` (a child process, as a person starts it), its Flash
and Ask pointed (the window's settings) at the tests' scripted OpenAI-compatible server. Then,
until time is up:
- `--clients` assistants (the SDK's own streamable-HTTP client), each reconnecting every
  `CALLS_PER_SESSION` calls, call search_memory (threshold and Flash), get_topic,
  get_context, ask_memory, list_chats, and bad calls (an id past SQLite's range, an unknown
  argument, a 5,000-word query, a 500-character chat);
- `--abusers` clients in turn send headers a byte a second, a body a byte a second, half a
  body and go, a whole request and go without reading the answer (raw sockets), or start a
  call and give up on it after a few milliseconds (the SDK's client, cancelling);
- one thread imports a fresh synthetic Telegram export (`bench.synth_telegram`, 1,500
  messages, chats of their own) with `flashback import`, runs `flashback build`, and forgets
  the previous cycle's import (`flashback forget --source`), again and again, on the
  server's store: the store changes all the time but does not grow, so the server's memory
  has no reason to.

It reports the calls served (and the tool runs the server logged: a call refused for its
arguments never reaches a tool), errors (a call that should have answered but raised or
returned a tool error; "the memory is being built" while a build re-embeds is counted apart,
as `during_build`), p50/p95 per tool, what became of the abusive clients, the cycles,
tracebacks and ERROR lines in the server's log, and the server's RSS after the warm-up, half
way and at the end. The bound it checks: the RSS at the end is at most `RSS_GROWTH_BOUND_MB`
above the RSS after the warm-up, and at most `SECOND_HALF_BOUND_MB` above the RSS half way
(growth that goes on is a leak; caches filling stop). It ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

import resources
from app.mcp_http import BODY_SECONDS, HEADERS_SECONDS
from bench.mcp_latency import QUERIES, scripted
from bench.synth_telegram import write_export
from engine.api import Flashback
from tests.fake_openai import FakeOpenAI
from tests.mcp_client import ROOT, write_window_settings
from tests.test_mcp_llm import KEY

CALLS_PER_SESSION = 25
# The bound: caches fill in the first minutes (topic texts, term frequencies, the indexes loaded
# again after each build), then the RSS stays flat, within SECOND_HALF_BOUND_MB from half way.
RSS_GROWTH_BOUND_MB = 80
SECOND_HALF_BOUND_MB = 20
IMPORT_MESSAGES = 1500
LONG_QUERY = " ".join(f"word{n}" for n in range(5000))
GOOD = ("search", "flash", "topic", "context", "ask", "chats")
BAD = ("bad_id", "bad_argument", "long_query", "long_chat")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _folder_mb(folder: Path) -> float:
    return round(sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20, 1)


def _trouble(log: str, limit: int = 3) -> list[str]:
    """The log's first ERROR lines and tracebacks, each through the exception it ends with (a
    dozen lines cut a deep traceback before the line that says what went wrong)."""
    lines = log.splitlines()
    excerpts: list[str] = []
    next_free = 0
    for index, line in enumerate(lines):
        if index >= next_free and (" ERROR " in line or line.startswith("Traceback")):
            end = index + 1
            in_traceback = line.startswith("Traceback")
            while end < len(lines) and end - index < 120:
                in_traceback |= lines[end].startswith("Traceback")
                if not in_traceback:
                    break  # an ERROR line on its own
                if in_traceback and lines[end] and not lines[end].startswith((" ", "Traceback", "During handling",
                                                                             "The above")):
                    end += 1  # the exception's own line ends it, unless a chained traceback follows
                    following = next((line for line in lines[end:end + 2] if line.strip()), "")
                    if not following.startswith(("During handling", "The above")):
                        break
                    continue
                end += 1
            excerpts.append("\n".join(lines[index:end]))
            next_free = end
            if len(excerpts) == limit:
                break
    return excerpts


def _percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1) if ordered else 0.0


class Soak:
    def __init__(self, data: Path, url: str, token: str, deadline: float, topics: list[int]) -> None:
        self.data, self.url, self.token, self.deadline, self.topics = data, url, token, deadline, topics
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter[str] = Counter()
        self.during_build = 0
        self.abuse: Counter[str] = Counter()
        self.rng = random.Random(35)

    # -- assistants -------------------------------------------------------------------------
    def _call(self, kind: str) -> tuple[str, dict]:
        query = self.rng.choice(QUERIES)
        return {
            "search": ("search_memory", {"query": query}),
            "flash": ("search_memory", {"query": query, "reranker": "flash"}),
            "topic": ("get_topic", {"id": self.rng.choice(self.topics)}),
            "context": ("get_context", {"query": query}),
            "ask": ("ask_memory", {"question": query}),
            "chats": ("list_chats", {}),
            "bad_id": ("get_topic", {"id": 2**63}),
            "bad_argument": ("list_chats", {"everything": True}),
            "long_query": ("search_memory", {"query": LONG_QUERY}),
            "long_chat": ("search_memory", {"query": query, "chat": "9" * 500}),
        }[kind]

    async def assistant(self, number: int) -> None:
        kinds = [*GOOD, *GOOD, *BAD]
        while time.monotonic() < self.deadline:
            client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=180)
            try:
                async with client, streamable_http_client(self.url, http_client=client) as (read, write):
                    async with ClientSession(read, write, client_info=Implementation(name=f"soak-{number}",
                                                                                      version="1")) as session:
                        await session.initialize()
                        for _ in range(CALLS_PER_SESSION):
                            if time.monotonic() >= self.deadline:
                                break
                            await self._one(session, self.rng.choice(kinds))
            except Exception as exc:  # a transport failure: counted, and the assistant connects again
                self.errors[f"session: {type(exc).__name__}: {str(exc)[:80]}"] += 1
                await asyncio.sleep(1)

    async def _one(self, session: ClientSession, kind: str) -> None:
        name, arguments = self._call(kind)
        started = time.perf_counter()
        try:
            result = await session.call_tool(name, arguments)
        except Exception as exc:
            self.errors[f"{kind}: {type(exc).__name__}: {str(exc)[:80]}"] += 1
            return
        self.latency[kind].append((time.perf_counter() - started) * 1000)
        should_fail = kind in BAD and kind != "long_query"
        if result.is_error != should_fail:
            text = result.content[0].text if result.content else ""
            if text.startswith("The memory is being built by"):
                self.during_build += 1
            else:
                self.errors[f"{kind}: {text[:100]}"] += 1

    # -- abusive clients ------------------------------------------------------------------
    def _head(self, length: int) -> bytes:
        host_port = self.url.split("//", 1)[1].split("/", 1)[0]
        return (f"POST /mcp HTTP/1.1\r\nHost: {host_port}\r\nAuthorization: Bearer {self.token}\r\n"
                "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                f"Content-Length: {length}\r\n\r\n").encode()

    async def _dribble(self, head: bytes, limit: float) -> tuple[float, bytes]:
        """`head`, then a byte a second until the server closes; (seconds, what it answered)."""
        host, port = self.url.split("//", 1)[1].split("/", 1)[0].split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        started, answer = time.monotonic(), b""
        try:
            writer.write(head)
            while time.monotonic() - started < limit:
                writer.write(b" ")
                with contextlib.suppress(TimeoutError):
                    chunk = await asyncio.wait_for(reader.read(65536), timeout=1.0)
                    if not chunk:
                        return time.monotonic() - started, answer
                    answer += chunk
            return float("inf"), answer
        except ConnectionError:
            return time.monotonic() - started, answer
        finally:
            writer.close()

    async def abuser(self, number: int) -> None:
        host, port = self.url.split("//", 1)[1].split("/", 1)[0].split(":")
        initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "dropper", "version": "0"}}})
        turn = number
        while time.monotonic() < self.deadline - max(HEADERS_SECONDS, BODY_SECONDS):
            kind = ("slow_headers", "slow_body", "drop_mid_body", "drop_mid_response", "cancel_mid_call")[turn % 5]
            turn += 1
            try:
                if kind == "slow_headers":
                    seconds, _ = await self._dribble(b"POST /mcp HTTP/1.1\r\n", HEADERS_SECONDS + 60)
                    self.abuse[f"{kind}: {'timed out' if seconds < HEADERS_SECONDS + 60 else 'NOT timed out'}"] += 1
                elif kind == "slow_body":
                    seconds, answer = await self._dribble(self._head(100_000), BODY_SECONDS + 60)
                    self.abuse[f"{kind}: {answer[:12].decode(errors='replace') or 'closed'}"
                               f"{'' if seconds < BODY_SECONDS + 60 else ', NOT timed out'}"] += 1
                elif kind == "cancel_mid_call":
                    await self._give_up(self.rng.choice((0.005, 0.02, 0.05, 0.1)))
                    self.abuse[kind] += 1
                else:
                    reader, writer = await asyncio.open_connection(host, int(port))
                    if kind == "drop_mid_body":
                        writer.write(self._head(10_000) + b'{"jsonrpc": "2.0", ')
                    else:
                        writer.write(self._head(len(initialize.encode())) + initialize.encode())
                    await writer.drain()
                    writer.close()
                    self.abuse[kind] += 1
                    await asyncio.sleep(0.5)
            except OSError as exc:
                self.abuse[f"{kind}: {type(exc).__name__}"] += 1


    async def _give_up(self, seconds: float) -> None:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=60)
        with contextlib.suppress(Exception):  # a cancelled call's teardown raises in the client, by design
            async with client, streamable_http_client(self.url, http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await asyncio.wait_for(session.call_tool("get_context", {"query": "hotel in Lisbon"}), seconds)


class Writer(threading.Thread):
    """`flashback import` of a fresh export, then `flashback build`, on the server's store, until stopped."""

    def __init__(self, data: Path, folder: Path) -> None:
        super().__init__(daemon=True)
        self.data, self.folder = data, folder
        self.stop = threading.Event()
        self.cycles: list[dict] = []
        self.failures: list[str] = []

    def run(self) -> None:
        cycle = 0
        while not self.stop.is_set():
            cycle += 1
            export = self.folder / f"export-{cycle}.json"
            write_export(export, IMPORT_MESSAGES, chats=4, seed=cycle)
            # Chats of their own each cycle (the generator's ids repeat; an import skips what it has).
            shift = 100 * cycle
            text = re.sub(r'"id": (50\d\d)\b', lambda m, shift=shift: f'"id": {int(m.group(1)) + shift}',
                          export.read_text(encoding="utf-8"))
            export.write_text(text, encoding="utf-8")
            timings = {}
            sources = self._sources()
            steps = [["import", str(export)], ["build"]]
            steps += [["forget", "--source", str(source), "--yes"] for source in sources[1:]]  # all but the demo
            for step in steps:
                started = time.monotonic()
                done = subprocess.run([sys.executable, "-m", "app", "--data-dir", str(self.data), *step], cwd=ROOT,
                                      capture_output=True, text=True, timeout=1800)
                timings[step[0]] = round(timings.get(step[0], 0) + time.monotonic() - started, 1)
                if done.returncode != 0:
                    self.failures.append(f"{step[0]}: {done.stderr.strip()[-200:]}")
            self.cycles.append(timings)
            export.unlink()

    def _sources(self) -> list[int]:
        listed = subprocess.run([sys.executable, "-m", "app", "--data-dir", str(self.data), "forget", "--sources",
                                 "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
        return sorted(source["id"] for source in json.loads(listed.stdout or "[]"))


def _start_server(data: Path, token: str, stderr_path: Path) -> tuple[subprocess.Popen, str]:
    environment = {**os.environ, "FLASHBACK_API_KEY": KEY, "FLASHBACK_MCP_TOKEN": token}
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "app", "--data-dir", str(data), "mcp", "--http", "0"],
                                   cwd=ROOT, env=environment, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        found = re.search(r"serving (http://127\.0\.0\.1:\d+/mcp)", stderr_path.read_text(errors="replace"))
        if found:
            return process, found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.2)
    process.kill()
    raise SystemExit(f"the server did not start: {stderr_path.read_text(errors='replace')[-2000:]}")


async def soak(data: Path, url: str, token: str, seconds: float, clients: int, abusers: int,
               server: subprocess.Popen) -> tuple[Soak, dict]:
    topics = [topic.id for topic in Flashback(data).browse.topics(limit=40)]
    warm = Soak(data, url, token, time.monotonic() + 3600, topics)
    client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=180)
    async with client, streamable_http_client(url, http_client=client) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for kind in (*GOOD, *BAD):
                await warm._one(session, kind)
    rss = {"start_mb": _rss_mb(server.pid), "index_start_mb": _folder_mb(data / "index")}
    state = Soak(data, url, token, time.monotonic() + seconds, topics)
    samples: list[float] = []

    async def sample() -> None:
        half = time.monotonic() + seconds / 2
        while time.monotonic() < state.deadline:
            samples.append(_rss_mb(server.pid))
            if "mid_mb" not in rss and time.monotonic() >= half:
                rss["mid_mb"] = samples[-1]
            await asyncio.sleep(5)
    await asyncio.gather(sample(), *(state.assistant(n) for n in range(clients)),
                         *(state.abuser(n) for n in range(abusers)))
    rss.update(end_mb=_rss_mb(server.pid), max_mb=max(samples, default=0.0), index_end_mb=_folder_mb(data / "index"))
    return state, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to drive the server (default 10)")
    parser.add_argument("--quick", action="store_true", help="one minute")
    parser.add_argument("--clients", type=int, default=3, help="assistants calling tools at once (default 3)")
    parser.add_argument("--abusers", type=int, default=2, help="slow and dropping clients at once (default 2)")
    parser.add_argument("--no-writer", action="store_true",
                        help="no import/build/forget meanwhile: the server's own memory, on a store that stays put")
    args = parser.parse_args()
    minutes = 1.0 if args.quick else args.minutes
    token = "soak-" + os.urandom(16).hex()
    with tempfile.TemporaryDirectory() as folder, FakeOpenAI() as fake:
        data = Path(folder) / "data"
        service = Flashback(data, origin="command")
        service.imports.import_path(resources.demo_export())
        service.memory.build()
        write_window_settings(data, {"preset": "openrouter", "base_url": fake.base_url, "model": "bench/model"})
        fake.handle("/v1/chat/completions", scripted)
        server, url = _start_server(data, token, Path(folder) / "server-stderr.log")
        writer = Writer(data, Path(folder))
        try:
            if not args.no_writer:
                writer.start()
            started = time.monotonic()
            state, rss = asyncio.run(soak(data, url, token, minutes * 60, args.clients, args.abusers, server))
            elapsed = time.monotonic() - started
        finally:
            writer.stop.set()
            if writer.is_alive():
                writer.join(timeout=1800)
            server.terminate()
            server.wait(timeout=60)
        logs = data / "logs"  # rotated at 512 KB, two copies kept: read them oldest first
        log = "".join((logs / name).read_text(encoding="utf-8", errors="replace")
                      for name in ("flashback.log.2", "flashback.log.1", "flashback.log") if (logs / name).exists())
    calls = sum(len(samples) for samples in state.latency.values())
    every = [ms for samples in state.latency.values() for ms in samples]
    per_tool = {kind: {"n": len(samples), "p50_ms": _percentile(samples, 0.5), "p95_ms": _percentile(samples, 0.95)}
                for kind, samples in sorted(state.latency.items())}
    growth = round(rss["end_mb"] - rss["start_mb"], 1)
    second_half = round(rss["end_mb"] - rss.get("mid_mb", rss["start_mb"]), 1)
    held = growth <= RSS_GROWTH_BOUND_MB and second_half <= SECOND_HALF_BOUND_MB
    figures = {
        "bench": "mcp_soak", "minutes": round(elapsed / 60, 2), "clients": args.clients, "abusers": args.abusers,
        "calls": calls, "calls_per_second": round(calls / elapsed, 2),
        "server_tool_runs": len(re.findall(r": (?:done|failed) in \d+ ms", log)),
        "errors": sum(state.errors.values()), "error_kinds": dict(state.errors.most_common(10)),
        "during_build": state.during_build,
        "p50_ms": _percentile(every, 0.5), "p95_ms": _percentile(every, 0.95), "per_tool": per_tool,
        "abusive_clients": dict(sorted(state.abuse.items())),
        "import_build_cycles": len(writer.cycles), "import_build_failures": writer.failures[:5],
        "cycle_seconds": writer.cycles[:3], "log_tracebacks": log.count("Traceback"), "log_trouble": _trouble(log),
        "index_start_mb": rss["index_start_mb"], "index_end_mb": rss["index_end_mb"],
        "log_errors": len(re.findall(r" ERROR ", log)),
        "rss_start_mb": rss["start_mb"], "rss_mid_mb": rss.get("mid_mb"), "rss_end_mb": rss["end_mb"],
        "rss_max_mb": rss["max_mb"],
        "rss_growth_mb": growth, "rss_second_half_growth_mb": second_half, "rss_bound_mb": RSS_GROWTH_BOUND_MB,
        "rss_second_half_bound_mb": SECOND_HALF_BOUND_MB, "within_bound": held,
        "load": [round(x, 2) for x in os.getloadavg()],
    }
    print(f"{figures['calls']} calls in {figures['minutes']} min ({figures['calls_per_second']}/s), "
          f"{figures['errors']} errors ({state.during_build} more said a build was running), "
          f"p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms")
    for kind, row in per_tool.items():
        print(f"  {kind:<14}{row['n']:>7}{row['p50_ms']:>10}{row['p95_ms']:>10}")
    print(f"abusive clients: {figures['abusive_clients']}")
    print(f"import+build+forget cycles: {figures['import_build_cycles']}, failures: {len(writer.failures)}")
    print(f"log: {figures['log_tracebacks']} tracebacks, {figures['log_errors']} ERROR lines")
    for excerpt in figures["log_trouble"]:
        print("  " + excerpt.replace("\n", "\n  "))
    print(f"index folder: {rss['index_start_mb']} MB after warm-up, {rss['index_end_mb']} MB at the end")
    print(f"server RSS {rss['start_mb']} MB after warm-up, {rss.get('mid_mb')} half way, {rss['end_mb']} MB at the end "
          f"(max {rss['max_mb']}): "
          f"growth {growth} MB (bound {RSS_GROWTH_BOUND_MB}), {second_half} MB in the second half (bound "
          f"{SECOND_HALF_BOUND_MB}): {'held' if held else 'EXCEEDED'}")
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
