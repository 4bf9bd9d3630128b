"""`flashback build` on a large synthetic store: wall time and peak RSS, first and repeat build.

    python -m bench.build_speed --messages 1000000

Steps: write a synthetic Telegram export (bench.synth_telegram), import it into a fresh
data dir, then run `flashback build --json` twice as child processes (so each one's peak
RSS is its own, read from `getrusage(RUSAGE_CHILDREN)` deltas), the second to show an
incremental build with nothing new does no work. The baseline, measured in the same run,
is one plain pass over the store: reading every message's text from SQLite, which any
build has to do at least once; the ratio says how many such passes the build costs.
Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.synth_telegram import write_export
from engine.store.database import db_path


def _child_run(args: list[str], env: dict[str, str]) -> tuple[float, float, dict]:
    """(seconds, this child's own peak RSS in MiB via wait4, the JSON the command printed)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "app", *args], env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {err.read().strip()[-2000:]}")
        return seconds, usage.ru_maxrss / 1024, json.loads(out.read().strip().splitlines()[-1])


def _full_scan_seconds(data_dir: Path) -> float:
    connection = sqlite3.connect(db_path(data_dir))
    started = time.perf_counter()
    total = 0
    for (text,) in connection.execute("SELECT text FROM message"):
        total += len(text or "")
    connection.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--export", type=Path, help="reuse this export instead of generating one")
    parser.add_argument("--keep", type=Path, help="build in this data dir (kept) instead of a temp one")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="flashback-build-") as scratch:
        work = Path(scratch)
        export = args.export or work / "result.json"
        if not args.export:
            write_export(export, args.messages)
        data_dir = args.keep or work / "data"
        env = {**os.environ, "FLASHBACK_DATA_DIR": str(data_dir)}
        import_s, import_rss, imported = _child_run(["import", str(export), "--json"], env)
        scan_s = min(_full_scan_seconds(data_dir) for _ in range(3))
        first_s, first_rss, first = _child_run(["build", "--json"], env)
        again_s, again_rss, again = _child_run(["build", "--json"], env)
        size_mb = sum(p.stat().st_size for p in data_dir.rglob("*") if p.is_file()) / 2**20

    messages = imported.get("stats", {}).get("messages", args.messages)
    figures = {
        "messages": messages,
        "topics": first.get("topics_created"),
        "import_s": round(import_s, 1),
        "build_s": round(first_s, 1),
        "build_peak_rss_mib": round(first_rss),
        "rebuild_s": round(again_s, 1),
        "rebuild_embedded_texts": again.get("embedded"),
        "full_scan_s": round(scan_s, 2),
        "build_vs_scan_ratio": round(first_s / scan_s, 1),
        "store_mib": round(size_mb),
        "stages_s": first.get("seconds"),
    }
    print(f"import {import_s:.1f} s; build {first_s:.1f} s at peak RSS {first_rss:.0f} MiB "
          f"({figures['topics']} topics); repeat build {again_s:.1f} s; one plain scan of the messages "
          f"{scan_s:.2f} s → build = {figures['build_vs_scan_ratio']}× a scan; store {size_mb:.0f} MiB")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
