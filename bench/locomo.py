"""LoCoMo retrieval benchmark: `python -m bench.locomo [--locomo PATH] [--dim N] [--chunk-chars N] [--quick]
[--embedder builtin|local]`.

Converts the LoCoMo dev slice to a JSONL export and QRELS (bench/locomo_convert.py),
imports it into a fresh store, runs `flashback build` with the offline defaults, then
scores the default search configuration and each alternative side by side, plus a BM25
baseline over the same topics (Okapi BM25, k1 1.2, b 0.75, plain word tokens) measured in
the same run. Topic granularity alternatives get their own store (sessions kept whole,
subjects of 1,500 and 2,500 chars). Lexical alternatives (no stemming, no date words, the
old common-word rule, …) re-index `topic_fts` of the default store the way they say, are
scored, and the default index is restored. `--quick` scores the default store only.
`--embedder local` builds with the local multilingual model (`flashback[local]`), its topics
cut and merged as the app does for that model (`engine.memory.model_options.build_options_for`).
Prints a table and ends with one JSON line of every figure.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import engine.memory.topic_documents as topic_documents_module
import engine.retrieval.lexical as lexical
import engine.text.stemming as stemming
from bench.locomo_convert import convert
from engine.api import Flashback
from engine.embeddings.base import EmbeddingConfig
from engine.evaluation.runner import JudgedQuery, evaluate, load_qrels
from engine.memory.build import BuildOptions
from engine.memory.lexical_index import clear_topic_fts, sync_topic_fts
from engine.memory.model_options import build_options_for
from engine.memory.topic_documents import topic_documents_for
from engine.rerank.base import Candidate
from engine.rerank.threshold import ThresholdReranker
from engine.retrieval.search import RetrievalSettings, Stage1Result
from engine.store.database import connect, db_path
from engine.topics.settings import TopicSettings

DEFAULT_LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"
SHOWN = ("recall@1_any", "recall@5_any", "recall@10_any", "recall@5_all", "mrr", "ndcg@10",
         "evidence@8000", "evidence@32000", "topic_chars_mean", "latency_ms_p50")
DEFAULT = "default"
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

    def search(judged: JudgedQuery):
        query = judged.query
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


# ---- lexical alternatives: each re-indexes topic_fts its own way while it is active ----

@contextmanager
def _patched(*patches: tuple[object, str, object]) -> Iterator[None]:
    saved = [(target, name, getattr(target, name)) for target, name, _ in patches]
    for target, name, value in patches:
        setattr(target, name, value)
    try:
        yield
    finally:
        for target, name, value in saved:
            setattr(target, name, value)


def _no_stemming():
    unstemmed_stopwords = frozenset(stemming.fold(w) for w in lexical._QUERY_STOPWORDS)
    return _patched((stemming, "stem_word", lambda word: word),
                    (lexical, "query_stopwords", lambda: unstemmed_stopwords))


def _share_rule(frequencies: dict[str, int], topics: int, budget: int = 0) -> list[str]:
    """The rule before the posting budget: leave out words in more than 25 % of the topics."""
    present = [t for t, n in frequencies.items() if n > 0]
    return [t for t in present if frequencies[t] <= 0.25 * topics] or present


LEXICAL_ALTERNATIVES: dict[str, Callable[[], object]] = {
    "BM25 without stemming": _no_stemming,
    "BM25 without date words": lambda: _patched((topic_documents_module, "date_words", lambda times: "")),
    "BM25 without query stopwords": lambda: _patched((lexical, "query_stopwords", frozenset)),
    "BM25 summary weight 1.0 (0.3)": lambda: _patched((lexical, "SUMMARY_WEIGHT", 1.0)),
    "BM25 summary weight 0 (0.3)": lambda: _patched((lexical, "SUMMARY_WEIGHT", 0.0)),
    "old rule: drop words in >25% of topics": lambda: _patched((lexical, "within_budget", _share_rule)),
}


def _reindex(service: Flashback) -> None:
    connection = connect(db_path(service.data_dir))
    try:
        clear_topic_fts(connection)
        sync_topic_fts(connection)
    finally:
        connection.close()


def _store(work: Path, name: str, export: Path, dim: int | None, options: BuildOptions, provider: str = "builtin"):
    service = Flashback(work / name, EmbeddingConfig(provider=provider, dimensions=dim))
    started = time.perf_counter()
    service.imports.import_path(export)
    imported = time.perf_counter() - started
    if provider != "builtin":  # what the app does for this model: passages, its merge threshold
        options = build_options_for(service.memory.embedder(), options)
    build = service.memory.build(options)
    return service, build, imported, time.perf_counter() - started - imported


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--dim", type=int, default=None, help="built-in embedder dimension (default: its own)")
    parser.add_argument("--chunk-chars", type=int, default=BuildOptions().chunk_chars)
    parser.add_argument("--quick", action="store_true", help="the default store's configurations only")
    parser.add_argument("--embedder", default="builtin", choices=("builtin", "local"),
                        help="local: the multilingual model of flashback[local] (use with --quick: ~10 min a store)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="flashback-locomo-"))
    export, qrels = work / "locomo.jsonl", work / "qrels.json"
    conversion = convert(args.locomo, export, qrels)
    queries = load_qrels(qrels)
    options = BuildOptions(chunk_chars=args.chunk_chars)
    service, build, imported, built = _store(work, "store", export, args.dim, options, args.embedder)

    configurations = {
        DEFAULT: (RetrievalSettings(), None),
        "vector only": (RetrievalSettings(hybrid=False), None),
        "BM25 only (lexical weight 1.0)": (RetrievalSettings(lexical_weight=1.0), None),
        "hybrid, lexical weight 0.8": (RetrievalSettings(lexical_weight=0.8), None),
        "hybrid, lexical weight 0.7": (RetrievalSettings(lexical_weight=0.7), None),
        "hybrid, lexical weight 0.5": (RetrievalSettings(lexical_weight=0.5), None),
        "hybrid RRF k=60": (RetrievalSettings(fusion="rrf"), None),
        "hybrid + MMR 0.5": (RetrievalSettings(mmr=True), None),
        "default, no safety threshold": (RetrievalSettings(safety_threshold=0.0), None),
        "default + threshold reranker": (RetrievalSettings(), ThresholdReranker()),
    }
    if args.quick:
        configurations = {k: v for k, v in configurations.items() if k in (DEFAULT, "vector only")}
    results = {}
    for name, (settings, reranker) in configurations.items():
        results[name] = service.evaluation.evaluate(qrels, settings, reranker).as_json()
    connection = connect(db_path(service.data_dir))
    results["Okapi BM25 over the same topics (baseline)"] = bm25_over_topics(connection, queries)
    connection.close()
    stores = {}
    if not args.quick:
        for name, alternative in LEXICAL_ALTERNATIVES.items():
            with alternative():
                _reindex(service)
                results[name] = service.evaluation.evaluate(qrels, RetrievalSettings()).as_json()
        _reindex(service)  # back to the default index
        for label, subject_chars in (("sessions kept whole", 0), ("subjects of 1,500 chars", 1500),
                                     ("subjects of 2,500 chars", 2500)):
            other = replace(options, topics=TopicSettings(subject_chars=subject_chars))
            alt_service, alt_build, _, alt_built = _store(work, f"store-{subject_chars}", export, args.dim, other,
                                                          args.embedder)
            stores[label] = {"topics": alt_build.topics_created, "vectors": alt_build.vectors.get("topic", 0),
                             "build_s": round(alt_built, 2)}
            results[f"{label}: default search"] = alt_service.evaluation.evaluate(qrels, RetrievalSettings()).as_json()
            if subject_chars == 0:
                results[f"{label}: lexical weight 0.5"] = alt_service.evaluation.evaluate(
                    qrels, RetrievalSettings(lexical_weight=0.5)).as_json()
                alt_connection = connect(db_path(alt_service.data_dir))
                results[f"{label}: Okapi BM25 baseline"] = bm25_over_topics(alt_connection, queries)
                alt_connection.close()

    print(f"LoCoMo dev: {conversion.conversations} conversations, {conversion.messages} messages, "
          f"{len(queries)} queries; import {imported:.1f} s, build {built:.1f} s; model {build.model_id}; "
          f"{build.topics_created} topics, {build.vectors.get('topic', 0)} topic vectors")
    for label, figures in stores.items():
        print(f"  {label}: {figures['topics']} topics, {figures['vectors']} topic vectors, "
              f"build {figures['build_s']} s")
    width = max(len(name) for name in results) + 2
    print(f"{'configuration':<{width}}" + "".join(f"{k.replace('_any', ''):>15}" for k in SHOWN))
    for name, result in results.items():
        print(f"{name:<{width}}" + "".join(f"{result['metrics'][k]:>15}" for k in SHOWN))
    default = results[DEFAULT]
    print("by category (default):")
    for category, metrics in default["by_category"].items():
        print(f"  {category:<{width - 2}}" + "".join(f"{metrics[k]:>15}" for k in SHOWN))
    print(json.dumps({"bench": "locomo", "model": build.model_id, "queries": len(queries),
                      "topics": build.topics_created, "build_s": round(built, 2), "stores": stores,
                      "results": {name: r["metrics"] for name, r in results.items()},
                      "by_category": default["by_category"]}))


if __name__ == "__main__":
    main()
