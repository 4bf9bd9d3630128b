"""How long a build holds SQLite's write lock at a stretch: `python -m bench.write_lock_hold
[--locomo PATH | --synth MESSAGES] [--embedder local|builtin] [--poll-ms 20]`.

Converts the LoCoMo dev slice (bench/locomo_convert.py), or writes a synthetic Telegram
export of `--synth` messages (bench/synth_telegram.py), imports it into a fresh store,
then runs `flashback build` (`Flashback.memory.build`, the window's and the CLI's path)
while a second process does what a search recording its run does, over and over: `BEGIN
IMMEDIATE` (busy timeout an hour; should it pass, the wait goes on), `COMMIT`, sleep
`--poll-ms`. Its longest wait is the longest time the build kept every other writer out, autocommit
statements included; SQLite's busy handler sleeps up to 100 ms between tries, so a figure
can be up to 0.1 s above the true hold. Each wait is matched to the build stage last
reported when it began (the build's progress callback, one monotonic clock for both). In
the build's own process, `engine.store.transaction.observe_holds` times every write
transaction exactly and names the function that opened it (autocommit statements are
seen by the probe only).

Before issue 22 the build embedded inside its write transactions: a local-model build kept
other writers out for as long as embedding a batch of 200 topics took. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import bisect
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.locomo_convert import convert
from bench.synth_telegram import write_export
from engine.api import Flashback
from engine.embeddings.base import EmbeddingConfig
from engine.store.database import db_path
from engine.store.transaction import observe_holds

DEFAULT_LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"
ROOT = Path(__file__).resolve().parents[1]
PROBE_BUSY_MS = 3_600_000  # an hour: a hold it outlasts still counts from its first try (see probe)


def probe(path: Path, poll_ms: float) -> None:
    """The second process: take and release the write lock until stdin closes; print the waits."""
    import sqlite3
    import threading

    connection = sqlite3.connect(path, isolation_level=None, timeout=PROBE_BUSY_MS / 1000)
    connection.execute(f"PRAGMA busy_timeout={PROBE_BUSY_MS}")
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    waits: list[tuple[float, float]] = []  # (monotonic time the first try began, seconds until one got in)
    errors: list[str] = []
    print("ready", flush=True)
    began: float | None = None
    while not stop.is_set():
        began = time.monotonic() if began is None else began  # after a busy timeout the wait goes on
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            errors.append(str(exc))
            continue
        waits.append((began, time.monotonic() - began))
        began = None
        connection.execute("COMMIT")
        time.sleep(poll_ms / 1000)
    connection.close()
    print(json.dumps({"waits": waits, "errors": errors}))


def _writer() -> str:
    """The engine function whose `with write_transaction(...)` just ended."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if "/engine/" in name and not name.endswith(("transaction.py", "contextlib.py")):
            return f"{frame.f_globals.get('__name__', '?')}.{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


def _stage_at(timeline: list[tuple[float, str]], moment: float) -> str:
    index = bisect.bisect_right([t for t, _ in timeline], moment) - 1
    return timeline[index][1] if index >= 0 else "before the build"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--synth", type=int, default=0, help="a synthetic Telegram export of this many messages")
    parser.add_argument("--embedder", default="local", choices=("local", "builtin"))
    parser.add_argument("--poll-ms", type=float, default=20.0, help="the probe's pause between lock takes")
    parser.add_argument("--probe", type=Path, help=argparse.SUPPRESS)  # the second process's mode
    args = parser.parse_args()
    if args.probe:
        probe(args.probe, args.poll_ms)
        return

    work = Path(tempfile.mkdtemp(prefix="flashback-lock-hold-"))
    if args.synth:
        export = work / "result.json"
        messages = write_export(export, args.synth, seed=3)
    else:
        export = work / "locomo.jsonl"
        messages = convert(args.locomo, export, work / "qrels.json").messages
    service = Flashback(work / "store", EmbeddingConfig(provider=args.embedder))
    service.imports.import_path(export)

    prober = subprocess.Popen([sys.executable, "-m", "bench.write_lock_hold", "--probe",
                               str(db_path(service.data_dir)), "--poll-ms", str(args.poll_ms)],
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert prober.stdout.readline().strip() == "ready"
    timeline: list[tuple[float, str]] = [(time.monotonic(), "start")]

    def on_progress(stage: str, _done: int, _total: int) -> None:
        if stage != timeline[-1][1]:
            timeline.append((time.monotonic(), stage))

    holds: dict[str, list[float]] = {}  # writer → its transactions' holds, seconds

    def on_hold(seconds: float) -> None:
        holds.setdefault(_writer(), []).append(seconds)

    started = time.monotonic()
    try:
        with observe_holds(on_hold):
            report = service.memory.build(on_progress=on_progress)
    finally:
        ended = time.monotonic()
        out, _ = prober.communicate("", timeout=PROBE_BUSY_MS / 1000 + 60)
    probed = json.loads(out)
    waits = [(began, waited) for began, waited in probed["waits"] if began < ended]
    longest_at, longest = max(waits, key=lambda item: item[1]) if waits else (started, 0.0)
    by_stage: dict[str, float] = {}
    for began, waited in waits:
        stage = _stage_at(timeline, began)
        by_stage[stage] = round(max(by_stage.get(stage, 0.0), waited), 3)
    ordered = sorted(waited for _, waited in waits)
    figures = {
        "embedder": report.model_id, "messages": messages, "topics": report.vectors.get("topic", 0),
        "build_s": round(ended - started, 1), "probes": len(waits), "probe_errors": len(probed["errors"]),
        "longest_hold_s": round(longest, 3), "longest_hold_stage": _stage_at(timeline, longest_at),
        "p99_wait_s": round(ordered[int(0.99 * (len(ordered) - 1))], 3) if ordered else 0.0,
        "waits_over_1s": sum(waited > 1.0 for waited in ordered), "longest_by_stage_s": by_stage,
        "transactions": sum(len(seconds) for seconds in holds.values()),
        "longest_transaction_s": round(max((max(seconds) for seconds in holds.values()), default=0.0), 3),
        "longest_transaction_by_writer_s": {writer: round(max(seconds), 3) for writer, seconds in
                                            sorted(holds.items(), key=lambda item: -max(item[1]))},
    }
    print(f"{figures['messages']:,} messages, {figures['topics']:,} topic items, build {figures['build_s']} s "
          f"({figures['embedder']})")
    print(f"longest write-lock hold seen by another process: {figures['longest_hold_s']} s "
          f"(during {figures['longest_hold_stage']}); waits over 1 s: {figures['waits_over_1s']} "
          f"of {figures['probes']}")
    for stage, seconds in by_stage.items():
        print(f"  {stage:<20} {seconds:>8.3f} s")
    print(f"{figures['transactions']} write transactions in the build's process; the longest, by who opened them:")
    for writer, seconds in figures["longest_transaction_by_writer_s"].items():
        print(f"  {writer:<50} {seconds:>8.3f} s  ({len(holds[writer])} transactions)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
