"""Several processes on one data folder (issue 12): what waiting and reading next to a writer cost.

    python -m bench.many_processes --store 20000 --import 120000

Steps, on a fresh store of `--store` synthetic Telegram messages, imported and built:
1. Lock hand-over: a child process holds the store's write lock; this process waits for it;
   the child is told to let go; the time from that word to this process holding the lock
   (the poll interval bounds it), over `--handovers` rounds.
2. Searches (`Flashback.search` with the threshold reranker, recorded) idle, then
   while a real `flashback import` of `--import` messages runs in a child process: latency
   p50/p95, failures (must be 0) and how many runs could not be recorded.
3. A `flashback build` started while that import runs: how long it waited, and the gap
   between the import's end and the build's start.
4. A stale topic index (500 topics' items gone, as a build's first commits leave it) while
   another process holds the lock, then with nobody writing: the search's stand-in (the
   index as it was plus exact scores for what it lacks) against the current index, and the
   `flashback build` that remakes the index (searches never do).
Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

from bench.synth_telegram import write_export
from engine.api import Flashback, SearchRequest, make_reranker
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.search import RetrievalSettings
from engine.store.database import connect, db_path
from engine.store.lock import StoreWriteLock, current_holder

QUERIES = ("зарплата релиз", "билет прогулка", "отпуск в августе", "release notes", "доктор анализы",
           "Elena birthday", "встреча в пятницу", "hotel booking", "ремонт машины", "кофе утром")
ROOT = Path(__file__).resolve().parents[1]


def _percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1) if ordered else 0.0


def _flashback(*args: str, data_dir: Path, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "app", "--data-dir", str(data_dir), *args], cwd=ROOT,
                            stdin=subprocess.DEVNULL, text=True, **popen)


def handovers(data_dir: Path, rounds: int) -> list[float]:
    code = textwrap.dedent(f"""
        import sys
        from engine.store.lock import StoreWriteLock
        for _ in range({rounds}):
            with StoreWriteLock({str(data_dir)!r}, "build", origin="command"):
                print("held", flush=True)
                sys.stdin.readline()
            sys.stdin.readline()  # take it again only when asked
        """)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    waits = []
    for _ in range(rounds):
        assert child.stdout.readline().strip() == "held"
        told: list[float] = []

        def tell(told=told) -> None:  # from another thread, while this one waits for the lock
            told.append(time.perf_counter())
            child.stdin.write("go\n")
            child.stdin.flush()

        threading.Timer(random.uniform(0.3, 0.7), tell).start()  # not in step with the poll
        with StoreWriteLock(data_dir, "import"):
            waits.append((time.perf_counter() - told[0]) * 1000)
        child.stdin.write("again\n")
        child.stdin.flush()
    child.wait(timeout=30)
    return waits


def _hold(data_dir: Path) -> subprocess.Popen:
    """A child process holding the write lock as `flashback build` would, until told."""
    code = textwrap.dedent(f"""
        import sys
        from engine.store.lock import StoreWriteLock
        with StoreWriteLock({str(data_dir)!r}, "build", origin="command"):
            print("held", flush=True)
            sys.stdin.readline()
        """)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    assert child.stdout.readline().strip() == "held"
    return child


def searches(service: Flashback, until=None, minimum: int = 20) -> dict:
    reranker = make_reranker("threshold", ThresholdSettings())
    latencies, failures, unrecorded = [], 0, 0
    while len(latencies) < minimum or (until is not None and not until()):
        query = QUERIES[len(latencies) % len(QUERIES)]
        started = time.perf_counter()
        try:
            outcome = service.search.search_sync(SearchRequest(query, RetrievalSettings(), reranker, record=True))
        except Exception:  # noqa: BLE001 - counted: the figure that must stay 0
            failures += 1
            continue
        latencies.append((time.perf_counter() - started) * 1000)
        unrecorded += outcome.run_id is None
        if until is None and len(latencies) >= minimum:
            break
    return {"searches": len(latencies), "p50_ms": _percentile(latencies, 0.5), "p95_ms": _percentile(latencies, 0.95),
            "failures": failures, "unrecorded": unrecorded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=int, default=20_000, help="messages in the store searched (default 20000)")
    parser.add_argument("--import", dest="imported", type=int, default=120_000,
                        help="messages of the import that runs next to the searches (default 120000)")
    parser.add_argument("--handovers", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        data_dir, figures = Path(scratch) / "data", {}
        store_export, big_export = Path(scratch) / "store.json", Path(scratch) / "big.json"
        write_export(store_export, args.store, seed=11)
        write_export(big_export, args.imported, seed=12)
        for step in (("import", str(store_export)), ("build",)):
            subprocess.run([sys.executable, "-m", "app", "--data-dir", str(data_dir), *step], cwd=ROOT, check=True,
                           capture_output=True)

        waits = handovers(data_dir, args.handovers)
        figures["handover_ms"] = {"p50": _percentile(waits, 0.5), "max": round(max(waits), 1)}

        service = Flashback(data_dir)
        service.search.candidates(QUERIES[0])  # warm: indexes loaded
        figures["search_idle"] = searches(service)
        importer = _flashback("import", str(big_export), data_dir=data_dir, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        import_started = time.perf_counter()
        while current_holder(data_dir) is None:
            time.sleep(0.01)
        builder = _flashback("build", "--json", data_dir=data_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        build_spawned = time.perf_counter()
        figures["search_during_import"] = searches(service, until=lambda: importer.poll() is not None)
        import_ended = time.perf_counter()  # within one search of the real end
        while (holder := current_holder(data_dir)) is None or holder.operation != "build":
            if builder.poll() is not None:
                break
            time.sleep(0.005)
        build_locked = time.perf_counter()
        _out, build_err = builder.communicate()
        figures["import_s"] = round(import_ended - import_started, 1)
        figures["build_waited_s"] = round(build_locked - build_spawned, 1)
        figures["build_said"] = next((line for line in build_err.splitlines() if "waiting for" in line), "")
        figures["build_after_import_ms"] = round((build_locked - import_ended) * 1000, 1)
        figures["build_s"] = round(time.perf_counter() - build_locked, 1)

        service = Flashback(data_dir)
        service.search.candidates(QUERIES[0])
        current = searches(service)
        connection = connect(db_path(data_dir))
        stale = [r[0] for r in connection.execute(
            "SELECT DISTINCT entity_id FROM vector_item WHERE kind = 'topic' ORDER BY entity_id DESC LIMIT 500")]
        connection.execute(f"DELETE FROM vector_item WHERE kind = 'topic' AND entity_id IN ({','.join('?' * 500)})",
                           stale)
        items = connection.execute("SELECT count(*) FROM vector_item WHERE kind = 'topic'").fetchone()[0]
        connection.close()
        holder = _hold(data_dir)  # as a build in another process holds it
        stand_in = Flashback(data_dir)
        started = time.perf_counter()
        notes = stand_in.search.search_sync(SearchRequest(QUERIES[0])).notes
        first_stand_in_ms = (time.perf_counter() - started) * 1000
        stand_in_figures = searches(stand_in)
        holder.communicate("done\n", timeout=30)
        free = searches(Flashback(data_dir))  # nobody builds: a search still never rebuilds
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "app", "--data-dir", str(data_dir), "build"], cwd=ROOT, check=True,
                       capture_output=True)
        figures["stale_index"] = {"topic_items": items, "current_p50_ms": current["p50_ms"],
                                  "stand_in_first_ms": round(first_stand_in_ms, 1),
                                  "stand_in_p50_ms": stand_in_figures["p50_ms"],
                                  "stand_in_no_writer_p50_ms": free["p50_ms"],
                                  "build_that_remakes_it_s": round(time.perf_counter() - started, 1),
                                  "note": notes[0] if notes else ""}
    figures["handover_rounds"] = args.handovers
    figures["store_messages"], figures["import_messages"] = args.store, args.imported
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
