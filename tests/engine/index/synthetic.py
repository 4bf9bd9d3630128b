"""Clustered unit vectors shaped like text embeddings, and the exact answers to search them.

Uniform random vectors are a pathological case for HNSW (recall@50 of 0.1-0.2 at 100k):
real embeddings sit in clusters, so the tests use clusters too.
"""

from __future__ import annotations

import numpy as np


def clustered_vectors(n: int, dim: int, *, clusters: int = 30, spread: float = 0.6,
                      centre_seed: int = 0, seed: int = 0) -> np.ndarray:
    """n L2-normalised float32 vectors around `clusters` random centres (same-cluster cosine ≈ 0.7).

    Same `centre_seed`, different `seed`: new points from the same clusters (queries for a corpus).
    """
    centres = np.random.default_rng(centre_seed).standard_normal((clusters, dim))
    rng = np.random.default_rng(seed)
    points = centres[rng.integers(0, clusters, n)] + spread * rng.standard_normal((n, dim))
    return normalised(points)


def normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    return (vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)).astype(np.float32)


def exact_top_k(data: np.ndarray, labels: np.ndarray, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Brute force: the k labels with the highest cosine similarity, best first."""
    similarities = data @ normalised(query)
    order = np.argsort(-similarities, kind="stable")[:k]
    return [(int(labels[i]), float(similarities[i])) for i in order]
