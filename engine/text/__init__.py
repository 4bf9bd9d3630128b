"""Text measures every layer shares, with no dependency on the store or a model: the stemmer
and term folding BM25 indexes and queries with (`stemming`), and the token estimate that
prompt and export budgets are counted in (`tokens`). The lowest layer of the engine."""
