"""A build leaves the store writable for others while it embeds (issue 22).

The build embedded inside its write transactions: with a local model or an API that is
minutes of SQLite's write lock, and a search in another process recording its run (busy
timeout 1 s) failed. Here the embedder stops inside every call it gets until the test has
recorded a run from its own connection, the way `Flashback._record` does.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections.abc import Sequence

import numpy as np

from engine.embeddings.base import CancelToken, Embedder, EmbedKind, ProgressCallback
from engine.memory.build import build_memory
from engine.rerank.base import RerankResult, Selection
from engine.store.database import connect, db_path
from engine.traces import list_runs, save_run
from tests.engine.topics.conftest import BASE, conversation

RECORD_WAIT_MS = 1000  # what a search waits to record its run while another process writes


class PausingEmbedder(Embedder):
    """Deterministic vectors (a text's hash seeds them), made slowly: each call says it has
    started and waits to be let go, as a local model's batch takes seconds."""

    model_id = "test:pausing-d32"
    dim = 32

    def __init__(self) -> None:
        self.started: queue.Queue[str] = queue.Queue()
        self.let_go: queue.Queue[None] = queue.Queue()

    def embed(self, texts: Sequence[str], kind: EmbedKind = "document",
              on_progress: ProgressCallback | None = None, cancel: CancelToken | None = None) -> np.ndarray:
        self.started.put(kind)
        self.let_go.get(timeout=60)
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(f"{kind}:{text}".encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            rows[row] = vector / np.linalg.norm(vector)
        if on_progress is not None:
            on_progress(len(texts), len(texts))
        return rows


def _record_run(path, query: str) -> None:
    connection = connect(path)
    try:
        connection.execute(f"PRAGMA busy_timeout={RECORD_WAIT_MS}")
        save_run(connection, query=query, reranker="threshold", settings={}, candidates=[],
                 result=RerankResult("threshold", [Selection("topic", 1, "score 0.9")]), timings_ms={"total": 1.0})
    finally:
        connection.close()


def test_a_run_is_recorded_while_the_build_embeds(store):
    for number, chat in enumerate(("Команда", "Family", "Work")):
        store.add(conversation(chat, BASE + number * 86400, [
            ("Анна", f"Где отчёт по проекту {chat}?"), ("Борис", "Пришлю вечером, с графиками."),
            ("Анна", "Spasibo, I will read it tomorrow morning."), ("Борис", "Photo of the whiteboard attached."),
        ], first_id=number * 10 + 1))
    path = db_path(store.data)
    embedder = PausingEmbedder()
    outcome: dict[str, object] = {}

    def build() -> None:
        try:
            outcome["report"] = build_memory(store.data, store.connection, embedder)
        except BaseException as exc:  # surfaced by the test below
            outcome["error"] = exc

    builder = threading.Thread(target=build)
    builder.start()
    recorded, failed = [], []
    while builder.is_alive() or not embedder.started.empty():
        try:
            kind = embedder.started.get(timeout=0.05)
        except queue.Empty:
            continue
        query = f"recorded during a {kind} embedding, call {len(recorded) + len(failed) + 1}"
        try:
            _record_run(path, query)
            recorded.append(query)
        except Exception as exc:  # the store's write lock was held for longer than the busy timeout
            failed.append(f"{query}: {exc}")
        embedder.let_go.put(None)
    builder.join()

    assert "error" not in outcome, outcome.get("error")
    assert failed == []
    assert len(recorded) >= 2  # the topics, then the people (no files here; too few topics to calibrate)
    report = outcome["report"]
    assert report.vectors["topic"] > 0 and report.embedded > 0
    connection = connect(path)
    try:
        assert sorted(run.query for run in list_runs(connection)) == sorted(recorded)
        cached = connection.execute("SELECT count(*) FROM embedding_cache WHERE model_id = ?",
                                    (embedder.model_id,)).fetchone()[0]
        assert cached == report.embedded
    finally:
        connection.close()
