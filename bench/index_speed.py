"""Vector search: hnswlib (engine.index) against exact numpy search, and stage-1 latency.

    python -m bench.index_speed --topics 100000 [--dim 384] [--queries 200]

On clustered synthetic vectors (seeded; uniform random vectors are a pathological case for
HNSW and say nothing about embeddings) it measures:
  * the build of a VectorIndex over every vector, and its save and load;
  * per query, top-50 by exact search (`X @ q` + argpartition) and by the index: recall@50
    of the index against the exact answer (target ≥ 0.98) and the speed-up (target ≥ 10×);
  * stage 1 as the app runs it: embed the query text with the built-in embedder (when
    `engine.embeddings` provides one), search the index, read the 50 hits' summaries from a
    SQLite `topic` table of the same size. Target p50 ≤ 20 ms.
Prints a table, then one JSON line with every figure (scripts read the last line).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

# One BLAS thread unless told otherwise, set before numpy loads OpenBLAS: a query is one
# thread in the index too, and on this shared 2-core VM a two-thread matvec waits for a
# descheduled helper thread (8 ms instead of 0.12 ms per query at 5k × 384, measured).
BLAS_THREADS = os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from engine.index import IndexMeta, VectorIndex  # noqa: E402

K = 50
DEFAULT_DIM = 384
WORDS = ("trip Lisbon apartment contract deadline birthday present doctor appointment server outage invoice "
         "recipe garden holiday flight visa interview salary football concert guitar book film moving "
         "квартира поездка договор день рождения подарок врач отпуск работа деньги машина ремонт дача").split()


def load_embedder():
    """The built-in embedder, or (None, why not): another package provides it and may not yet."""
    try:
        from engine.embeddings import EmbeddingConfig, make_embedder

        embedder = make_embedder(EmbeddingConfig(provider="builtin"))
    except Exception as exc:  # any failure means "time stage 1 without embedding", said in the output
        return None, f"{type(exc).__name__}: {exc}"
    return embedder, embedder.model_id


def clustered_vectors(n: int, centres: np.ndarray, spreads: np.ndarray, seed: int) -> np.ndarray:
    """n unit vectors around the given centres, noise scaled by each cluster's spread (float32, chunked)."""
    rng = np.random.default_rng(seed)
    dim = centres.shape[1]
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 10_000):
        stop = min(start + 10_000, n)
        members = rng.integers(0, len(centres), stop - start)
        noise = rng.standard_normal((stop - start, dim), dtype=np.float32)
        chunk = centres[members] + spreads[members, None] * noise
        out[start:stop] = chunk / np.linalg.norm(chunk, axis=1, keepdims=True)
    return out


def exact_top_k(data: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    similarities = data @ query
    top = np.argpartition(-similarities, k)[:k]
    return top[np.argsort(-similarities[top])]


def make_topic_table(path: Path, n: int, rng: np.random.Generator) -> sqlite3.Connection:
    """A `topic` table shaped like the store's: n rows with ~300-character summaries."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE topic (id INTEGER PRIMARY KEY, chat_id INTEGER NOT NULL, summary TEXT NOT NULL, "
                 "message_count INTEGER, first_at REAL, last_at REAL)")
    words = np.array(WORDS)

    def summary() -> str:
        text = " ".join(words[rng.integers(0, len(words), 60)])
        return text[:300]

    rows = ((i, int(i % 40), summary(), int(rng.integers(2, 80)), 1.6e9 + i * 300.0, 1.6e9 + i * 300.0 + 900.0)
            for i in range(1, n + 1))
    conn.executemany("INSERT INTO topic VALUES (?, ?, ?, ?, ?, ?)", rows)
    conn.commit()
    return conn


def query_texts(count: int, rng: np.random.Generator) -> list[str]:
    return [f"when did we talk about {' '.join(rng.choice(WORDS, int(rng.integers(2, 6))))}" for _ in range(count)]


def percentile_ms(seconds: list[float], q: float) -> float:
    return float(np.percentile(seconds, q) * 1000) if seconds else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=100_000)
    parser.add_argument("--dim", type=int, help="default: the built-in embedder's dimension, else 384")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    embedder, embedder_note = load_embedder()
    # The embed step is timed even when --dim differs from the embedder's: the index is
    # searched with synthetic query vectors either way (see stage 1 below).
    dim = args.dim or (embedder.dim if embedder else DEFAULT_DIM)
    rng = np.random.default_rng(args.seed)
    # ~100 topics per cluster; same-cluster cosine from 0.8 (spread 0.5) down to 0.3 (spread 1.5).
    centres = rng.standard_normal((max(args.topics // 100, 10), dim), dtype=np.float32)
    spreads = rng.uniform(0.5, 1.5, len(centres)).astype(np.float32)
    data = clustered_vectors(args.topics, centres, spreads, seed=args.seed + 1)
    queries = clustered_vectors(args.queries, centres, spreads, seed=args.seed + 2)
    labels = np.arange(1, args.topics + 1, dtype=np.int64)  # topic ids, as vector_item ids would be

    index = VectorIndex.create(dim, capacity=args.topics)
    started = time.perf_counter()
    index.add(labels, data)
    build_s = time.perf_counter() - started

    # Separate loops, each warmed up: interleaved, the exact scan of the whole matrix evicts
    # the CPU caches the index search would otherwise keep warm (it does in the app).
    exact_answers, exact_s = [], []
    for i in range(-3, len(queries)):
        started = time.perf_counter()
        exact = exact_top_k(data, queries[i], K)
        if i >= 0:
            exact_s.append(time.perf_counter() - started)
            exact_answers.append(set(labels[exact].tolist()))
    index_answers, index_s = [], []
    for i in range(-3, len(queries)):
        started = time.perf_counter()
        found = index.search(queries[i], K)
        if i >= 0:
            index_s.append(time.perf_counter() - started)
            index_answers.append({label for label, _ in found})
    overlap = sum(len(a & b) for a, b in zip(exact_answers, index_answers, strict=True))
    recall = overlap / (K * len(queries))
    # Medians: on a shared 2-core machine a neighbour's burst lands in either loop's mean.
    exact_ms, index_ms = percentile_ms(exact_s, 50), percentile_ms(index_s, 50)

    with tempfile.TemporaryDirectory(prefix="flashback-bench-") as scratch:
        work = Path(scratch)
        meta = IndexMeta("bench:synthetic", dim, args.topics, {}, "bench")
        started = time.perf_counter()
        index.save(work / "topics.hnsw", meta)
        save_s = time.perf_counter() - started
        file_mb = (work / "topics.hnsw").stat().st_size / 2**20
        started = time.perf_counter()
        index = VectorIndex.load(work / "topics.hnsw", meta)
        load_s = time.perf_counter() - started

        conn = make_topic_table(work / "topics.sqlite3", args.topics, rng)
        texts = query_texts(args.queries, rng)
        stage = {"embed": [], "search": [], "sqlite": [], "total": []}
        for i in range(-5, len(queries)):  # five untimed rounds: model load, caches
            text, query = texts[i % len(texts)], queries[i % len(queries)]
            t0 = time.perf_counter()
            if embedder is not None:
                embedder.embed([text], kind="query")
            t1 = time.perf_counter()
            # The index holds synthetic vectors, so it is searched with the synthetic query:
            # a real query's vector would fall outside their clusters.
            hits = index.search(query, K)
            t2 = time.perf_counter()
            ids = [label for label, _ in hits]
            rows = conn.execute(f"SELECT id, summary, message_count, first_at, last_at FROM topic "
                                f"WHERE id IN ({','.join('?' * len(ids))})", ids).fetchall()
            by_id = {row[0]: row for row in rows}
            ranked = [by_id[label] for label in ids]
            t3 = time.perf_counter()
            assert len(ranked) == len(hits)
            if i >= 0:
                for part, seconds in zip(stage, (t1 - t0, t2 - t1, t3 - t2, t3 - t0), strict=True):
                    stage[part].append(seconds)
        conn.close()

    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    speedup = exact_ms / index_ms
    p50, p95 = percentile_ms(stage["total"], 50), percentile_ms(stage["total"], 95)
    verdict = "met" if p50 <= 20 else "NOT met"
    embed_line = (f"with the built-in embedder {embedder.model_id}" if embedder is not None
                  else f"WITHOUT the embed step (built-in embedder unavailable: {embedder_note})")
    lines = [
        f"index_speed: {args.topics:,} topics × {dim} dims, {args.queries} queries, k={K}, params {index.params}, "
        f"OPENBLAS_NUM_THREADS={BLAS_THREADS}",
        f"{'build':<28}{build_s:>10.2f} s   ({args.topics / build_s:,.0f} vectors/s)",
        f"{'save / load':<28}{save_s:>10.2f} s / {load_s:.2f} s   (file {file_mb:.0f} MiB)",
        f"{'per query (ms)':<28}{'p50':>10}{'p95':>10}{'mean':>10}",
        f"{'  exact numpy (X @ q)':<28}{exact_ms:>10.3f}{percentile_ms(exact_s, 95):>10.3f}"
        f"{np.mean(exact_s) * 1000:>10.3f}",
        f"{'  hnswlib (VectorIndex)':<28}{index_ms:>10.3f}{percentile_ms(index_s, 95):>10.3f}"
        f"{np.mean(index_s) * 1000:>10.3f}",
        f"{'speed-up (p50)':<28}{speedup:>10.1f} ×   (target ≥ 10)",
        f"{'recall@50':<28}{recall:>10.4f}     (target ≥ 0.98)",
        f"stage 1, {embed_line}:",
        f"{'':<28}{'p50 ms':>10}{'p95 ms':>10}",
    ]
    lines += [f"{'  ' + part:<28}{percentile_ms(times, 50):>10.2f}{percentile_ms(times, 95):>10.2f}"
              if part != "embed" or embedder is not None else f"{'  embed':<28}{'n/a':>10}{'n/a':>10}"
              for part, times in stage.items()]
    lines += [f"stage 1 p50 {p50:.2f} ms, p95 {p95:.2f} ms (target p50 ≤ 20: {verdict}); "
              f"peak RSS {peak_rss_mb:.0f} MB"]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.write(json.dumps({
        "bench": "index_speed", "topics": args.topics, "dim": dim, "queries": args.queries, "k": K,
        "params": index.params, "blas_threads": BLAS_THREADS, "build_s": round(build_s, 2), "save_s": round(save_s, 3),
        "load_s": round(load_s, 3), "file_mib": round(file_mb, 1),
        "exact_p50_ms": round(exact_ms, 3), "hnsw_p50_ms": round(index_ms, 3),
        "exact_mean_ms": round(float(np.mean(exact_s)) * 1000, 3),
        "hnsw_mean_ms": round(float(np.mean(index_s)) * 1000, 3),
        "speedup": round(speedup, 1),
        "recall_at_50": round(recall, 4),
        "stage1_embedder": embedder.model_id if embedder is not None else None,
        "stage1_embed_note": None if embedder is not None else embedder_note,
        **{f"stage1_{part}_p50_ms": round(percentile_ms(t, 50), 3) for part, t in stage.items()},
        **{f"stage1_{part}_p95_ms": round(percentile_ms(t, 95), 3) for part, t in stage.items()},
        "peak_rss_mb": round(peak_rss_mb),
    }, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
