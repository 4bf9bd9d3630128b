"""What the local model embeds per topic, against what it costs: `python -m bench.local_shapes STORE:QRELS …`.

Takes stores already built with `--embedder local` (`bench.locomo --embedder local`,
`bench.bilingual`) and re-embeds their topics with fewer passages per topic: the summary
alone, the summary and at most 2 / 4 / 6 (the default) windows of ~600 chars spread over the
topic, and the windows without the summary. Every shape is a subset of the default's texts,
so the embedding cache serves them (nothing is computed again); each runs on a copy of the
store, whose indexes are rebuilt. Per shape: topic vectors and their characters (the
model's cost grows with characters: `bench.local_speed`), recall@5 and evidence@8000 from
the same query vectors. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from engine.api import Flashback
from engine.embeddings.base import EmbeddingConfig
from engine.evaluation.runner import evaluate, load_qrels
from engine.memory.build import BuildOptions
from engine.memory.documents import PassageShape
from engine.memory.topic_documents import topic_documents_for
from engine.retrieval.search import RetrievalSettings

SHAPES = {
    "summary only": PassageShape(max_windows=0),
    "summary + ≤2 windows": PassageShape(max_windows=2),
    "summary + ≤4 windows": PassageShape(max_windows=4),
    "summary + ≤6 windows (default)": PassageShape(),
    "≤6 windows, no summary": PassageShape(summary=False),
}


def _reshaped(store: Path, work: Path, shape: PassageShape) -> tuple[Flashback, int, int]:
    """A copy of `store` whose topics are embedded in `shape`: (service, vectors, characters)."""
    copy = work / "store"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(store, copy)
    service = Flashback(copy, EmbeddingConfig(provider="local"))
    connection = service._context.connect()
    try:
        connection.execute("DELETE FROM vector_item WHERE kind = 'topic'")
        connection.commit()
        topics = [r[0] for r in connection.execute("SELECT id FROM topic")]
        texts = [t for texts in topic_documents_for(connection, topics, shape).values() for t in texts]
    finally:
        connection.close()
    report = service.memory.build(BuildOptions(chunk_chars=shape))
    if report.embedded:
        raise SystemExit(f"{shape}: {report.embedded} texts were not in the cache; is {store} a local store?")
    return service, len(texts), sum(map(len, texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="STORE_DIR:QRELS_JSON, a store built with --embedder local")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="flashback-local-shapes-"))
    figures: dict[str, dict] = {}
    settings = RetrievalSettings(people=0, artifacts=0)
    for pair in args.pairs:
        store, qrels = pair.split(":", 1)
        queries = load_qrels(Path(qrels))
        vectors = None
        figures[pair] = {}
        print(pair)
        for name, shape in SHAPES.items():
            service, count, chars = _reshaped(Path(store), work, shape)
            retriever = service._context.retriever()
            if vectors is None:  # the same questions for every shape: embedded once
                texts = sorted({q.query for q in queries})
                vectors = dict(zip(texts, retriever.embedder.embed(texts, "query"), strict=True))
            connection = service._context.connect()
            try:
                metrics = evaluate(connection, queries, lambda q, r=retriever, c=connection, v=vectors: (
                    r.search(c, q.query, settings, v[q.query]), None))["metrics"]
            finally:
                connection.close()
            figures[pair][name] = {"vectors": count, "chars": chars, "r@5": metrics["recall@5_any"],
                                   "evidence@8000": metrics["evidence@8000"]}
            print(f"  {name:<34} {count:>6} vectors {chars:>9,} chars  R@5 {metrics['recall@5_any']:.4f}  "
                  f"evidence@8000 {metrics['evidence@8000']:.4f}")
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"bench": "local_shapes", "results": figures}, ensure_ascii=False))


if __name__ == "__main__":
    main()
