"""LoCoMo retrieval benchmark: `python -m bench.locomo [--locomo PATH] [--dim N] [--chunk-chars N]`.

Converts the LoCoMo dev slice to a JSONL export and QRELS (bench/locomo_convert.py),
imports it into a fresh store, runs `flashback build` with the offline defaults, then
scores the default search configuration, each alternative, and a BM25 baseline over the
same topics (Okapi BM25, k1 1.2, b 0.75, word tokens) measured in the same run. Prints a
table and ends with one JSON line of every figure.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.locomo_convert import convert
from engine.embeddings.base import EmbeddingConfig
from engine.evaluation.runner import evaluate, load_qrels
from engine.memory.build import BuildOptions
from engine.memory.topic_documents import topic_documents_for
from engine.rerank.base import Candidate
from engine.rerank.threshold import ThresholdReranker
from engine.retrieval.search import RetrievalSettings, Stage1Result
from engine.service import FlashbackService
from engine.store.database import connect, db_path

DEFAULT_LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"
SHOWN = ("recall@1_any", "recall@5_any", "recall@10_any", "recall@5_all", "mrr", "ndcg@10",
         "evidence@8000", "evidence@32000", "latency_ms_p50")
_WORD = re.compile(r"\w+")


def bm25_over_topics(connection, queries):
    """A plain Okapi BM25 over each topic's full text: the baseline the issue asks for."""
    topic_ids = [r[0] for r in connection.execute("SELECT id FROM topic")]
    texts = {t: " ".join(d) for t, d in topic_documents_for(connection, topic_ids, 10**9).items()}
    tokens = {t: Counter(_WORD.findall(text.lower())) for t, text in texts.items()}
    lengths = {t: sum(c.values()) for t, c in tokens.items()}
    average = sum(lengths.values()) / max(1, len(lengths))
    frequency = Counter(word for c in tokens.values() for word in c)
    n = len(tokens)

    def search(query: str):
        started = time.perf_counter()
        words = set(_WORD.findall(query.lower()))
        scores = {}
        for topic, counts in tokens.items():
            score = 0.0
            for word in words & counts.keys():
                idf = math.log(1 + (n - frequency[word] + 0.5) / (frequency[word] + 0.5))
                tf = counts[word]
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * lengths[topic] / average))
            if score:
                scores[topic] = score
        ranked = sorted(scores, key=lambda t: -scores[t])[:50]
        candidates = [Candidate("topic", t, i, 0.0, scores[t]) for i, t in enumerate(ranked, 1)]
        return Stage1Result(query, candidates, {"total": (time.perf_counter() - started) * 1000}), None

    return evaluate(connection, queries, search)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--dim", type=int, default=None, help="built-in embedder dimension (default: its own)")
    parser.add_argument("--chunk-chars", type=int, default=BuildOptions().chunk_chars)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="flashback-locomo-"))
    export, qrels = work / "locomo.jsonl", work / "qrels.json"
    conversion = convert(args.locomo, export, qrels)
    service = FlashbackService(work / "store", EmbeddingConfig(dimensions=args.dim))
    started = time.perf_counter()
    service.import_path(export)
    imported = time.perf_counter() - started
    build = service.build(BuildOptions(chunk_chars=args.chunk_chars))
    built = time.perf_counter() - started - imported
    queries = load_qrels(qrels)

    configurations = {
        "default (hybrid score fusion)": (RetrievalSettings(), None),
        "vector only": (RetrievalSettings(hybrid=False), None),
        "hybrid RRF k=60": (RetrievalSettings(fusion="rrf"), None),
        "hybrid, lexical weight 0.5": (RetrievalSettings(lexical_weight=0.5), None),
        "hybrid, lexical weight 0.7": (RetrievalSettings(lexical_weight=0.7), None),
        "hybrid + MMR 0.5": (RetrievalSettings(mmr=True), None),
        "default, no safety threshold": (RetrievalSettings(safety_threshold=0.0), None),
        "default + threshold reranker": (RetrievalSettings(), ThresholdReranker()),
    }
    results = {}
    for name, (settings, reranker) in configurations.items():
        results[name] = service.evaluate(qrels, settings, reranker)
    connection = connect(db_path(service.data_dir))
    results["BM25 over the same topics (baseline)"] = bm25_over_topics(connection, queries)
    connection.close()

    print(f"LoCoMo dev: {conversion.conversations} conversations, {conversion.messages} messages, "
          f"{len(queries)} queries; import {imported:.1f} s, build {built:.1f} s; model {build.model_id}; "
          f"{build.topics_created} topics, {build.vectors.get('topic', 0)} topic vectors")
    print(f"{'configuration':<38}" + "".join(f"{k:>15}" for k in SHOWN))
    for name, result in results.items():
        print(f"{name:<38}" + "".join(f"{result['metrics'][k]:>15}" for k in SHOWN))
    default = results["default (hybrid score fusion)"]
    print("by category (default):")
    for category, metrics in default["by_category"].items():
        print(f"  {category:<36}" + "".join(f"{metrics[k]:>15}" for k in SHOWN))
    print(json.dumps({"bench": "locomo", "model": build.model_id, "queries": len(queries),
                      "topics": build.topics_created, "build_s": round(built, 2),
                      "results": {name: r["metrics"] for name, r in results.items()},
                      "by_category": default["by_category"]}))


if __name__ == "__main__":
    main()
