"""Import throughput and peak memory on a synthetic Telegram export.

    python -m bench.import_speed --messages 1000000

Generates a full-account Telegram export (bench/synth_telegram.py), then runs, each in a
fresh child process so peak RSS is its own:
  * baseline: `json.load` of the file + raw `sqlite3.executemany` of the same message rows
    (the naive importer the issue measured: 13.3 s and 2.3 GB for 1M messages);
  * flashback: `flashback import` through the real service (people, artifacts, FTS5,
    dedup keys, one transaction).
Prints a table, the ratio flashback/baseline in messages per second, and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import subprocess
import sys
import tempfile
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
    from engine.importers.service import import_path

    started = time.perf_counter()
    report = import_path(work / "data", export)
    return {"seconds": time.perf_counter() - started, "messages": report.messages_added}


def _child(phase: str, export: Path, work: Path) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "bench.import_speed", "--phase", phase, "--export", str(export), "--work", str(work)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--phase", choices=["baseline", "flashback"], help=argparse.SUPPRESS)
    parser.add_argument("--export", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        figures = (_baseline if args.phase == "baseline" else _flashback)(args.export, args.work)
        figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        sys.stdout.write(json.dumps(figures) + "\n")
        return

    from bench.synth_telegram import write_export

    with tempfile.TemporaryDirectory(prefix="flashback-bench-") as scratch:
        work = Path(scratch)
        export = work / "result.json"
        started = time.perf_counter()
        write_export(export, args.messages)
        size_mb = export.stat().st_size / 1e6
        elapsed = time.perf_counter() - started
        sys.stderr.write(f"generated {args.messages:,} messages ({size_mb:.0f} MB) in {elapsed:.1f} s\n")
        base = _child("baseline", export, work)
        ours = _child("flashback", export, work)
    base_rate = base["messages"] / base["seconds"]
    our_rate = ours["messages"] / ours["seconds"]
    lines = [
        f"{'':12}{'seconds':>10}{'msg/s':>12}{'peak RSS MB':>14}",
        f"{'baseline':12}{base['seconds']:>10.2f}{base_rate:>12,.0f}{base['peak_rss_mb']:>14.0f}",
        f"{'flashback':12}{ours['seconds']:>10.2f}{our_rate:>12,.0f}{ours['peak_rss_mb']:>14.0f}",
        f"throughput ratio flashback/baseline: {our_rate / base_rate:.2f}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.write(json.dumps({
        "bench": "import_speed", "messages": args.messages, "file_mb": round(size_mb, 1),
        "baseline_s": round(base["seconds"], 2), "baseline_rss_mb": round(base["peak_rss_mb"]),
        "flashback_s": round(ours["seconds"], 2), "flashback_rss_mb": round(ours["peak_rss_mb"]),
        "flashback_msgs_per_s": round(our_rate), "ratio": round(our_rate / base_rate, 3),
    }) + "\n")


if __name__ == "__main__":
    main()
