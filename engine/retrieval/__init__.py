"""Stage 1: query → candidates (vector search, optional BM25 fusion and MMR, filters)."""
