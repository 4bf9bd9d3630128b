"""Vector search over embeddings: an hnswlib index with a JSON sidecar that says what it was built from."""

from engine.index.sidecar import IndexMeta, IndexUnusable
from engine.index.vector_index import VectorIndex

__all__ = ["IndexMeta", "IndexUnusable", "VectorIndex"]
