"""Fusion measured for the local model (issue 15): `python -m bench.local_fusion STORE:QRELS [STORE:QRELS …]`.

Takes stores already built with `--embedder local` (`bench.locomo --embedder local` and
`bench.bilingual` print where theirs are) and their QRELS, embeds every question once, and
scores the stage-1 variants that matter for this model from the same query vectors:
BM25's weight (0.5 / 0.7 / 0.9 / BM25 alone / vectors alone), BM25 abstaining on topics in
another script (on, off), and the safety threshold (0.30, none). Each variant is a
`RetrievalSettings` or a Retriever whose script reach is switched off; nothing else
changes. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.api import Flashback
from engine.embeddings.base import EmbeddingConfig
from engine.evaluation.runner import evaluate, load_qrels
from engine.retrieval.search import RetrievalSettings, Retriever

SHOWN = ("recall@5_any", "recall@10_any", "mrr", "evidence@8000")


class _NoReach(Retriever):
    """The same retriever with BM25 keeping its weight on topics it cannot read."""

    def _lexical_reach(self, connection, query, topics):
        return None


def variants() -> dict[str, tuple[RetrievalSettings, bool]]:
    """name → (settings, script reach on)."""
    only_topics = {"people": 0, "artifacts": 0}
    return {
        "default (BM25 0.7, script reach, safety 0.30)": (RetrievalSettings(**only_topics), True),
        "BM25 0.5": (RetrievalSettings(lexical_weight=0.5, **only_topics), True),
        "BM25 0.9": (RetrievalSettings(lexical_weight=0.9, **only_topics), True),
        "BM25 alone (weight 1.0)": (RetrievalSettings(lexical_weight=1.0, **only_topics), True),
        "vectors alone": (RetrievalSettings(hybrid=False, **only_topics), True),
        "no script reach": (RetrievalSettings(**only_topics), False),
        "no safety threshold": (RetrievalSettings(safety_threshold=0.0, **only_topics), True),
    }


def measure(store: Path, qrels: Path) -> dict[str, dict[str, float]]:
    service = Flashback(store, EmbeddingConfig(provider="local"))
    plain = service._context.retriever()
    queries = load_qrels(qrels)
    texts = sorted({q.query for q in queries})
    vectors = dict(zip(texts, plain.embedder.embed(texts, "query"), strict=True))  # once for every variant
    results = {}
    connection = service._context.connect()
    try:
        for name, (settings, reach) in variants().items():
            retriever = plain if reach else _NoReach(plain.embedder, plain.indexes, plain.calibration)
            scored = evaluate(connection, queries, lambda q, s=settings, r=retriever: (
                r.search(connection, q.query, s, vectors[q.query]), None))
            results[name] = {k: scored["metrics"][k] for k in SHOWN}
    finally:
        connection.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="STORE_DIR:QRELS_JSON, a store built with --embedder local")
    args = parser.parse_args()
    figures = {}
    for pair in args.pairs:
        store, qrels = pair.split(":", 1)
        figures[pair] = measure(Path(store), Path(qrels))
        print(f"{pair}")
        print(f"  {'variant':<48}" + "".join(f"{k.replace('_any', ''):>15}" for k in SHOWN))
        for name, metrics in figures[pair].items():
            print(f"  {name:<48}" + "".join(f"{metrics[k]:>15}" for k in SHOWN))
    print(json.dumps({"bench": "local_fusion", "results": figures}, ensure_ascii=False))


if __name__ == "__main__":
    main()
