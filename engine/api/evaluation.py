"""Evaluation on relevance judgements: a QRELS file's figures (`flashback eval`)."""

from __future__ import annotations

from pathlib import Path

from engine.api.context import StoreContext
from engine.evaluation.runner import evaluate, load_qrels
from engine.rerank.base import KeepAllReranker, Reranker
from engine.retrieval.search import RetrievalSettings


class EvaluationService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context

    def evaluate(self, qrels_path: Path, settings: RetrievalSettings | None = None,
                 reranker: Reranker | None = None, on_progress=None) -> dict:
        queries = load_qrels(qrels_path)
        settings = settings or RetrievalSettings()
        reranker = reranker or KeepAllReranker()
        retriever = self._context.retriever()
        connection = self._context.connect()
        try:
            def run(query: str):
                stage1 = retriever.search(connection, query, settings)
                return stage1, reranker.rerank(query, stage1.candidates)

            return evaluate(connection, queries, run, on_progress)
        finally:
            connection.close()
