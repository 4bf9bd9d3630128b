"""Import throughput and peak memory on a synthetic Telegram export.

    python -m bench.import_speed --messages 1000000 [--runs 2] [--export /tmp/export.json]

Generates a full-account Telegram export (bench/synth_telegram.py; with --export, into
that file, or reuses it if it exists), then runs, each in a fresh process so peak RSS is
its own:
  * baseline: `json.load` of the file + raw `sqlite3.executemany` of the same message rows
    (the naive importer the issue measured: 13.3 s and 2.3 GB for 1M messages);
  * flashback: `import_path` through the real service (people, artifacts, FTS5, dedup
    keys, one transaction). Big files are parsed by a child process: its peak RSS is
    measured too (Linux: VmHWM, sampled) and the reported peak is the sum of both
    processes' peaks.
With --runs N both are measured N times, alternating. Prints a table, the ratio
flashback/baseline in messages per second, and one JSON line per run.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def _baseline(export: Path, work: Path) -> dict:
    started = time.perf_counter()
    with open(export, encoding="utf-8") as handle:
        data = json.load(handle)
    rows = []
    for chat in data["chats"]["list"] + data["left_chats"]["list"]:
        for msg in chat["messages"]:
            text = msg.get("text", "")
            if not isinstance(text, str):
                text = "".join(p if isinstance(p, str) else p.get("text", "") for p in text)
            rows.append((chat["id"], msg["id"], msg.get("from"), float(msg["date_unixtime"]), text))
    conn = sqlite3.connect(work / "baseline.sqlite3")
    conn.execute("CREATE TABLE message (chat INTEGER, ext INTEGER, author TEXT, sent_at REAL, text TEXT)")
    conn.executemany("INSERT INTO message VALUES (?,?,?,?,?)", rows)
    conn.commit()
    conn.close()
    return {"seconds": time.perf_counter() - started, "messages": len(rows)}


def _flashback(export: Path, work: Path) -> dict:
    from engine.importers import parse_child as worker
    from engine.importers.runner import import_path

    peaks = _ChildPeaks()
    original_start = worker.start

    def watched_start(*args):
        child = original_start(*args)
        if child is not None:
            peaks.watch(child.process.pid)
        return child

    worker.start = watched_start
    started = time.perf_counter()
    report = import_path(work / "data", export)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "messages": report.messages_added, "child_peak_rss_mb": peaks.result()}


class _ChildPeaks:
    """Peak RSS of the parse children. Linux: their VmHWM, sampled every 20 ms (ru_maxrss of a
    child also counts the parent's pages it shared before exec). Elsewhere: RUSAGE_CHILDREN."""

    def __init__(self) -> None:
        self._peak_kb = 0
        self._threads: list[threading.Thread] = []

    def watch(self, pid: int) -> None:
        if sys.platform.startswith("linux"):
            thread = threading.Thread(target=self._sample, args=(pid,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _sample(self, pid: int) -> None:
        status = Path(f"/proc/{pid}/status")
        while True:
            try:
                fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            except OSError:
                return
            if "VmHWM" not in fields:  # exited (a zombie has no memory)
                return
            self._peak_kb = max(self._peak_kb, int(fields["VmHWM"].split()[0]))
            time.sleep(0.02)

    def result(self) -> float:
        for thread in self._threads:
            thread.join(5)
        if self._threads:
            return self._peak_kb / 1024
        return _maxrss_mb(resource.RUSAGE_CHILDREN)


def _maxrss_mb(who: int) -> float:
    value = resource.getrusage(who).ru_maxrss
    return value / (1024 * 1024) if sys.platform == "darwin" else value / 1024  # bytes on macOS


def _child(phase: str, export: Path, work: Path) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "bench.import_speed", "--phase", phase, "--export", str(export), "--work", str(work)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1, help="measure both this many times, alternating")
    parser.add_argument("--export", type=Path, help="generate the export here and keep it (reused if it exists)")
    parser.add_argument("--phase", choices=["baseline", "flashback"], help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        figures = (_baseline if args.phase == "baseline" else _flashback)(args.export, args.work)
        figures["peak_rss_mb"] = _maxrss_mb(resource.RUSAGE_SELF)
        sys.stdout.write(json.dumps(figures) + "\n")
        return

    from bench.synth_telegram import write_export

    with tempfile.TemporaryDirectory(prefix="flashback-bench-") as scratch:
        work = Path(scratch)
        export = args.export or work / "result.json"
        if export.exists():
            sys.stderr.write(f"reusing {export} (not checked against --messages)\n")
        else:
            started = time.perf_counter()
            write_export(export, args.messages)
            elapsed = time.perf_counter() - started
            sys.stderr.write(f"generated {args.messages:,} messages in {elapsed:.1f} s\n")
        size_mb = export.stat().st_size / 1e6
        for run in range(1, args.runs + 1):
            shutil.rmtree(work / "data", ignore_errors=True)  # each run imports into an empty store
            (work / "baseline.sqlite3").unlink(missing_ok=True)
            base = _child("baseline", export, work)
            ours = _child("flashback", export, work)
            _print_run(run, args, size_mb, base, ours)


def _print_run(run: int, args: argparse.Namespace, size_mb: float, base: dict, ours: dict) -> None:
    base_rate = base["messages"] / base["seconds"]
    our_rate = ours["messages"] / ours["seconds"]
    child_mb = ours.get("child_peak_rss_mb") or 0.0
    our_total_mb = ours["peak_rss_mb"] + child_mb
    lines = [
        f"run {run}: {base['messages']:,} messages, {size_mb:.0f} MB",
        f"{'':12}{'seconds':>10}{'msg/s':>12}{'peak RSS MB':>14}",
        f"{'baseline':12}{base['seconds']:>10.2f}{base_rate:>12,.0f}{base['peak_rss_mb']:>14.0f}",
        f"{'flashback':12}{ours['seconds']:>10.2f}{our_rate:>12,.0f}{our_total_mb:>14.0f}"
        f"   (importing process {ours['peak_rss_mb']:.0f} + parse child {child_mb:.0f})",
        f"throughput ratio flashback/baseline: {our_rate / base_rate:.2f}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.write(json.dumps({
        "bench": "import_speed", "run": run, "messages": args.messages, "file_mb": round(size_mb, 1),
        "baseline_s": round(base["seconds"], 2), "baseline_rss_mb": round(base["peak_rss_mb"]),
        "flashback_s": round(ours["seconds"], 2), "flashback_rss_mb": round(our_total_mb),
        "flashback_parent_rss_mb": round(ours["peak_rss_mb"]), "flashback_child_rss_mb": round(child_mb),
        "flashback_msgs_per_s": round(our_rate), "ratio": round(our_rate / base_rate, 3),
    }) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
