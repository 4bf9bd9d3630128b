"""A cold `flashback search` on the demo store: process start to exit (issue 26's 0.3 s goal).

    python -m bench.cold_start [--runs 7] [--tree /path/to/another/checkout]

The demo export is imported and built once into a temp data folder; then each command runs
once unmeasured (its bytecode cached, as pip caches an installed wheel's) and `--runs` times
as a fresh process, and the median is kept. Baselines in the same run: a bare
`python -c pass` (the interpreter's own start) and `flashback --version` (the CLI's entry
point and nothing else). `--tree` runs the commands from another checkout (its own store):
a before/after in one run. Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERY = "когда мама записалась к терапевту"


def _seconds(args: list[str], env: dict[str, str], tree: Path, runs: int) -> float:
    """The median of `runs` fresh processes, after one unmeasured run (its bytecode cached)."""
    times = []
    subprocess.run([sys.executable, *args], env=env, cwd=tree, capture_output=True)
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, *args], env=env, cwd=tree, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip()[-1500:]}")
    return statistics.median(times)


def measure(tree: Path, data_dir: Path, runs: int) -> dict:
    # Bytecode cached, as an installed wheel has it (pip compiles it): PYTHONDONTWRITEBYTECODE
    # would make every run compile the project's sources again (~180 ms a user never pays).
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "FLASHBACK_DATA_DIR": str(data_dir), "PYTHONPATH": str(tree)}
    demo = subprocess.run([sys.executable, "-c", "import resources; print(resources.demo_export())"], env=env,
                          cwd=tree, capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "app", "import", demo], env=env, cwd=tree, capture_output=True, check=True)
    subprocess.run([sys.executable, "-m", "app", "build"], env=env, cwd=tree, capture_output=True, check=True)
    python_s = _seconds(["-c", "pass"], env, tree, runs)
    version_s = _seconds(["-m", "app", "--version"], env, tree, runs)
    search_s = _seconds(["-m", "app", "search", QUERY], env, tree, runs)
    return {"python_s": round(python_s, 3), "version_s": round(version_s, 3), "cold_search_s": round(search_s, 3),
            "search_beyond_python_s": round(search_s - python_s, 3),
            "search_vs_version": round(search_s / version_s, 2), "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tree", type=Path, default=ROOT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flashback-cold-") as scratch:
        figures = measure(args.tree.resolve(), Path(scratch) / "data", args.runs)
    print(f"cold `flashback search` {figures['cold_search_s']} s (median of {args.runs}); "
          f"`flashback --version` {figures['version_s']} s; `python -c pass` {figures['python_s']} s")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
