"""Auto-tune on the LoCoMo dev slice: `python -m bench.locomo_tune [--locomo PATH] [--folds 5]`.

Converts the dev slice (bench/locomo_convert.py), imports it into a fresh store, builds with
the offline defaults, loads the QRELS as the store's labels (what the window's "Import
labels…" does), then tunes the threshold reranker for each objective with k-fold
cross-validation and prints before / after / cross-validated figures and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert
from engine.api import Flashback
from engine.evaluation.frozen import labelled_targets
from engine.evaluation.labels import LabelStore
from engine.evaluation.sweep import DEFAULT_BUDGET
from engine.evaluation.tune import OBJECTIVES, tune_service
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.search import RetrievalSettings

SHOWN = ("kept_precision", "kept_recall", "kept_f1", "recall@budget", "kept_topics")


def locomo_service(work: Path, locomo: Path) -> tuple[Flashback, int]:
    """A built store holding the dev slice, its QRELS loaded as labels; and how many queries."""
    export, qrels = work / "locomo.jsonl", work / "qrels.json"
    convert(locomo, export, qrels)
    service = Flashback(work / "store")
    service.imports.import_path(export)
    service.memory.build()
    summary = LabelStore(service.data_dir).import_qrels(qrels)
    return service, summary.queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="flashback-locomo-tune-"))
    started = time.perf_counter()
    service, queries = locomo_service(work, args.locomo)
    targets = labelled_targets(service.search)
    print(f"LoCoMo dev: {queries} labelled queries; store ready in {time.perf_counter() - started:.1f} s")
    results = {}
    for objective in OBJECTIVES:
        mark = time.perf_counter()
        result = tune_service(service.search, targets, RetrievalSettings(), ThresholdSettings(), objective, args.budget,
                              args.folds)
        results[objective] = result.as_dict()
        s = result.tuned.settings
        print(f"\nobjective {objective}: threshold {s.threshold:.2f}, gap {s.gap:.2f}, top-K {s.top_k}, "
              f"lexical weight {result.tuned.lexical_weight} ({time.perf_counter() - mark:.1f} s)")
        print(f"{'':<16}" + "".join(f"{key:>16}" for key in SHOWN))
        for name in ("before", "after", "cross_validated"):
            print(f"{name:<16}" + "".join(f"{results[objective][name][key]:>16}" for key in SHOWN))
        print(f"noise: {result.noise}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
