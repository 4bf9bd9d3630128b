"""Stage-1 latency on an existing store: `python -m bench.search_latency --data DIR [--repeat 3]`.

Runs a fixed set of Russian and English queries through `Flashback.stage1` (what the
window and the CLI call: connection, embed, hnswlib, BM25, fusion, loading candidates) after
one warm-up search, and prints p50/p95. Baseline in the same run: the index freshness check
as it was before schema 4 (count and sum over the kind's vector items) against the current
one (`store_checksum`: one `vector_generation` row), per kind. Ends with one JSON line.

Use a store built by `bench.build_speed` (the 1M-message one: `--keep`), or any data dir.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from engine.api import Flashback
from engine.memory.vectors import store_checksum
from engine.retrieval.search import RetrievalSettings
from engine.store.database import connect, db_path

QUERIES = ("зарплата релиз", "билет прогулка", "отпуск в августе", "release notes", "доктор анализы",
           "Elena birthday", "встреча в пятницу", "hotel booking", "ремонт машины", "кофе утром")
LEGACY_CHECKSUM = ("SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0) FROM vector_item "
                   "WHERE model_id = ? AND kind = ?")


def _ms(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 2)


def _timed(work, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        work()
    return (time.perf_counter() - started) * 1000 / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a Flashback data dir")
    parser.add_argument("--repeat", type=int, default=3, help="passes over the queries (default 3)")
    args = parser.parse_args()
    service = Flashback(args.data)
    started = time.perf_counter()
    service.search.candidates(QUERIES[0], RetrievalSettings())  # loads (or first rebuilds) the indexes
    warm_up_s = time.perf_counter() - started
    totals = [service.search.candidates(q, RetrievalSettings()).timings_ms["total"]
              for _ in range(args.repeat) for q in QUERIES]
    model = service._context.retriever().embedder.model_id
    connection = connect(db_path(args.data))
    freshness = {}
    for kind in ("topic", "person", "artifact"):
        legacy = _timed(lambda k=kind: connection.execute(LEGACY_CHECKSUM, (model, k)).fetchone(), 20)
        current = _timed(lambda k=kind: store_checksum(connection, model, k), 20)
        freshness[kind] = {"legacy_ms": round(legacy, 3), "current_ms": round(current, 4),
                           "ratio": round(legacy / max(current, 1e-6), 1)}
        print(f"freshness check, {kind}: before schema 4 {legacy:.3f} ms, now {current:.4f} ms "
              f"({freshness[kind]['ratio']}×)")
    connection.close()
    figures = {"bench": "search_latency", "queries": len(totals), "warm_up_s": round(warm_up_s, 1),
               "stage1_ms_p50": round(statistics.median(totals), 2), "stage1_ms_p95": _ms(totals, 0.95),
               "freshness": freshness}
    print(f"stage 1: p50 {figures['stage1_ms_p50']} ms, p95 {figures['stage1_ms_p95']} ms over {len(totals)} "
          f"searches (first search {warm_up_s:.1f} s)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
