"""`flashback build` on a large synthetic store: time, memory, disk and the first search.

    python -m bench.build_speed --messages 200000 [--tree /path/to/another/checkout]

Steps: write a synthetic Telegram export (bench.synth_telegram), import it into a fresh
data dir, then run `flashback build --json` twice as child processes (so each one's peak
RSS is its own, from `wait4`), the second to show an incremental build with nothing new
does no work. Then the first search in a NEW process (`cold_stage1_ms`: `search.candidates`
timed inside a child that has imported engine.api and nothing else, index load included),
the same process's next searches (`warm_stage1_p50_ms`), and a whole cold `flashback search`
command (`cold_cli_search_s`, process start to exit, median of 3). The baseline, measured in
the same run, is one plain pass over the store reading every message's text from SQLite,
which any build has to do at least once. `--tree` runs the commands from another checkout
(the same export, its own store): a before/after in one run on a shared machine.
Ends with one JSON line of the figures (issue 26: scripts read its keys).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.synth_telegram import write_export

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ("зарплата релиз", "билет прогулка", "отпуск в августе", "release notes", "доктор анализы",
           "Elena birthday", "встреча в пятницу", "hotel booking", "ремонт машины", "кофе утром")
# Run in a child: the first stage 1 of a fresh process (what a CLI search or the window's first
# query pays), then the warm ones. Only engine.api is imported before the clock starts.
_SEARCH_CHILD = """
import json, statistics, sys, time
from engine.api import Flashback
queries = json.loads(sys.argv[2])
service = Flashback(sys.argv[1], origin="bench")
started = time.perf_counter()
first = service.search.candidates(queries[0])
cold = (time.perf_counter() - started) * 1000
warm = []
for _ in range(3):
    for query in queries:
        started = time.perf_counter()
        service.search.candidates(query)
        warm.append((time.perf_counter() - started) * 1000)
notes = sorted(map(str, first.rebuilt.values()))
print(json.dumps({"cold_ms": cold, "warm_p50_ms": statistics.median(warm), "notes": notes}))
"""


def _child_run(args: list[str], env: dict[str, str], tree: Path) -> tuple[float, float, dict]:
    """(seconds, this child's own peak RSS in MiB via wait4, the JSON the command printed)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, *args], env=env, stdout=out, stderr=err, cwd=tree)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {err.read().strip()[-2000:]}")
        lines = out.read().strip().splitlines()
        return seconds, usage.ru_maxrss / 1024, json.loads(lines[-1]) if lines else {}


def _full_scan_seconds(data_dir: Path) -> float:
    connection = sqlite3.connect(data_dir / "flashback.sqlite3")
    started = time.perf_counter()
    total = 0
    for (text,) in connection.execute("SELECT text FROM message"):
        total += len(text or "")
    connection.close()
    return time.perf_counter() - started


def _mib(paths) -> float:
    return sum(p.stat().st_size for p in paths if p.is_file()) / 2**20


def _store_parts(data_dir: Path) -> dict[str, float]:
    """Where the data folder's bytes are: the SQLite file (its tables, by dbstat), the index folder."""
    parts = {"index_mib": round(_mib((data_dir / "index").rglob("*")), 1)}
    connection = sqlite3.connect(data_dir / "flashback.sqlite3")
    try:
        rows = connection.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    except sqlite3.OperationalError:  # an SQLite built without dbstat
        rows = []
    connection.close()
    for name, size in rows[:8]:
        parts[f"table_{name}_mib"] = round(size / 2**20, 1)
    return parts


def measure(export: Path, data_dir: Path, tree: Path, messages: int) -> dict:
    # Bytecode is cached as an installed wheel has it: with PYTHONDONTWRITEBYTECODE (set in some
    # shells and CI images) every child would compile the project's sources again, ~180 ms that
    # a user never pays, inside the first search's time.
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "FLASHBACK_DATA_DIR": str(data_dir), "PYTHONPATH": str(tree)}
    import_s, _import_rss, imported = _child_run(["-m", "app", "import", str(export), "--json"], env, tree)
    scan_s = min(_full_scan_seconds(data_dir) for _ in range(3))
    first_s, first_rss, first = _child_run(["-m", "app", "build", "--json"], env, tree)
    again_s, _again_rss, again = _child_run(["-m", "app", "build", "--json"], env, tree)
    _, _, searched = _child_run(["-c", _SEARCH_CHILD, str(data_dir), json.dumps(QUERIES, ensure_ascii=False)],
                                env, tree)
    cli = []
    for query in QUERIES[:3]:
        seconds, _, _ = _child_run(["-m", "app", "search", query, "--json"], env, tree)
        cli.append(seconds)
    export_mib = export.stat().st_size / 2**20
    store_mib = _mib(data_dir.rglob("*"))
    return {
        "messages": imported.get("stats", {}).get("messages", messages),
        "topics": first.get("topics_created"),
        "import_s": round(import_s, 1),
        "build_s": round(first_s, 1),
        "build_vs_import": round(first_s / import_s, 1),
        "build_peak_rss_mib": round(first_rss),
        "rebuild_s": round(again_s, 1),
        "rebuild_embedded_texts": again.get("embedded"),
        "full_scan_s": round(scan_s, 2),
        "build_vs_scan_ratio": round(first_s / scan_s, 1),
        "export_mib": round(export_mib, 1),
        "store_mib": round(store_mib, 1),
        "store_vs_export": round(store_mib / export_mib, 2),
        "store_parts": _store_parts(data_dir),
        "cold_stage1_ms": round(searched["cold_ms"], 1),
        "warm_stage1_p50_ms": round(searched["warm_p50_ms"], 2),
        "search_notes": searched["notes"],
        "cold_cli_search_s": round(statistics.median(cli), 2),
        "vectors": first.get("vectors"),
        "stages_s": first.get("seconds"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--export", type=Path, help="reuse this export instead of generating one")
    parser.add_argument("--keep", type=Path, help="build in this data dir (kept) instead of a temp one")
    parser.add_argument("--tree", type=Path, default=ROOT, help="run the commands from this checkout")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="flashback-build-") as scratch:
        work = Path(scratch)
        export = args.export or work / "result.json"
        if not args.export:
            write_export(export, args.messages)
        figures = measure(export, args.keep or work / "data", args.tree.resolve(), args.messages)

    print(f"import {figures['import_s']} s; build {figures['build_s']} s ({figures['build_vs_import']}× the import) "
          f"at peak RSS {figures['build_peak_rss_mib']} MiB ({figures['topics']} topics); repeat build "
          f"{figures['rebuild_s']} s; store {figures['store_mib']} MiB for a {figures['export_mib']} MiB export "
          f"({figures['store_vs_export']}×); first search in a new process {figures['cold_stage1_ms']} ms, "
          f"then p50 {figures['warm_stage1_p50_ms']} ms; a cold `flashback search` {figures['cold_cli_search_s']} s")
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
