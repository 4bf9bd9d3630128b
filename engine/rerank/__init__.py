"""Rerankers: stage 2 of retrieval (threshold filter here; the LLM reranker beside it)."""
