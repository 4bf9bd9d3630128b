"""The one object the UI (and anything else) calls: Flashback's engine behind a small API.

Methods are blocking and thread-safe to call from a worker; the UI runs them off the GUI
thread through `ui.tasks` and gets results back by signal. Each call opens its own SQLite
connection (WAL lets searches read while a build writes).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.embeddings.base import Embedder, EmbeddingConfig
from engine.evaluation.runner import evaluate, load_qrels
from engine.importers.base import CancelToken, ProgressCallback
from engine.importers.service import ImportReport, import_path
from engine.memory import calibration as calibration_store
from engine.memory.build import BuildOptions, BuildReport, StageProgress, build_memory
from engine.memory.embedder_state import load_embedder
from engine.memory.indexes import IndexSet
from engine.rerank.base import KeepAllReranker, Reranker, RerankResult
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings
from engine.retrieval.search import RetrievalSettings, Retriever, Stage1Result
from engine.store.database import connect, db_path, open_engine
from engine.store.stats import StoreStats, store_stats


@dataclass
class SearchOutcome:
    stage1: Stage1Result
    result: RerankResult
    timings_ms: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "query": self.stage1.query,
            "reranker": self.result.reranker,
            "candidates": [c.as_dict() for c in self.stage1.candidates],
            "selected": [s.as_dict() for s in self.result.selected],
            "report": self.result.report,
            "fallback": self.result.fallback,
            "timings_ms": self.timings_ms,
        }


def make_reranker(name: str, threshold: ThresholdSettings | None = None) -> Reranker:
    if name == "threshold":
        return ThresholdReranker(threshold)
    return KeepAllReranker()


class FlashbackService:
    def __init__(self, data_dir: Path, embedding: EmbeddingConfig | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.embedding = embedding or EmbeddingConfig()
        open_engine(self.data_dir).dispose()  # fail early (and clearly) on an unusable store
        self._lock = threading.Lock()
        self._retriever: Retriever | None = None

    # -- store ------------------------------------------------------------------------
    def stats(self) -> StoreStats:
        return store_stats(self.data_dir)

    def import_path(self, path: Path, format_name: str = "auto", on_progress: ProgressCallback | None = None,
                    cancel: CancelToken | None = None) -> ImportReport:
        return import_path(self.data_dir, Path(path), format_name, on_progress, cancel)

    def _connect(self):
        return connect(db_path(self.data_dir))

    # -- memory -----------------------------------------------------------------------
    def embedder(self) -> Embedder:
        return load_embedder(self.data_dir, self.embedding)

    def build(self, options: BuildOptions | None = None, on_progress: StageProgress | None = None,
              cancel: CancelToken | None = None) -> BuildReport:
        connection = self._connect()
        try:
            report = build_memory(self.data_dir, connection, self.embedder(), options=options,
                                  on_progress=on_progress, cancel=cancel)
        finally:
            connection.close()
        with self._lock:
            self._retriever = None  # the model id (IDF refit) or the indexes may have changed
        return report

    def retriever(self) -> Retriever:
        with self._lock:
            if self._retriever is None:
                embedder = self.embedder()
                indexes = IndexSet(self.data_dir, embedder.model_id, embedder.dim)
                self._retriever = Retriever(embedder, indexes, calibration_store.load(indexes.folder, embedder))
            return self._retriever

    def search(self, query: str, settings: RetrievalSettings | None = None,
               reranker: Reranker | None = None) -> SearchOutcome:
        settings = settings or RetrievalSettings()
        reranker = reranker or KeepAllReranker()
        connection = self._connect()
        try:
            stage1 = self.retriever().search(connection, query, settings)
        finally:
            connection.close()
        started = time.perf_counter()
        result = reranker.rerank(query, stage1.candidates)
        timings = dict(stage1.timings_ms)
        timings["rerank"] = round((time.perf_counter() - started) * 1000, 2)
        timings["total"] = round(timings.get("total", 0.0) + timings["rerank"], 2)
        return SearchOutcome(stage1, result, timings)

    def evaluate(self, qrels_path: Path, settings: RetrievalSettings | None = None,
                 reranker: Reranker | None = None, on_progress=None) -> dict:
        queries = load_qrels(qrels_path)
        settings = settings or RetrievalSettings()
        reranker = reranker or KeepAllReranker()
        retriever = self.retriever()
        connection = self._connect()
        try:
            def run(query: str):
                stage1 = retriever.search(connection, query, settings)
                return stage1, reranker.rerank(query, stage1.candidates)

            return evaluate(connection, queries, run, on_progress)
        finally:
            connection.close()
