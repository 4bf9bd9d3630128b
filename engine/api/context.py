"""What every sub-service of the facade shares: the data folder, who is asking, the embedder
choice and the cached retriever, behind one lock.

The embedder choice is the only shared state a face changes (Settings → Embeddings): it is
swapped under the lock with `use_embedding`, and each call reads one consistent snapshot at
its start, so a worker searching while the window switches embedders never sees half of each.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from engine.embeddings.base import Embedder, EmbeddingConfig
from engine.memory import calibration as calibration_store
from engine.memory.embedder_state import load_embedder
from engine.memory.indexes import IndexSet
from engine.retrieval.search import Retriever
from engine.store.database import connect, db_path
from engine.store.faults import StoreReadOnly, plain_faults, read_only_store

T = TypeVar("T")


class StoreContext:
    def __init__(self, data_dir: Path, embedding: EmbeddingConfig | None, origin: str) -> None:
        self.data_dir = Path(data_dir)
        self.origin = origin  # "window", "command", "mcp:<client>": what other processes are told
        self._lock = threading.Lock()
        self._embedding = embedding or EmbeddingConfig()
        self._retriever: Retriever | None = None
        self._read_only_told = False  # a read-only store is said once per face (issue 23)

    @property
    def embedding(self) -> EmbeddingConfig:
        with self._lock:
            return self._embedding

    def use_embedding(self, config: EmbeddingConfig) -> None:
        """Switch the embedder searches and builds use; cached search state is dropped."""
        with self._lock:
            self._embedding = config
            self._retriever = None

    def embedder(self) -> Embedder:
        return load_embedder(self.data_dir, self.embedding)

    def retriever(self) -> Retriever:
        with self._lock:
            if self._retriever is None:
                embedder = load_embedder(self.data_dir, self._embedding)
                # A search never saves an index another process is building (engine.memory.indexes).
                indexes = IndexSet(self.data_dir, embedder.model_id, embedder.dim, owner=False, embedder=embedder)
                self._retriever = Retriever(embedder, indexes, calibration_store.load(indexes.folder, embedder))
            return self._retriever

    def invalidate(self) -> None:
        """Forget cached search state: the store changed (a build here or in another process)."""
        with self._lock:
            self._retriever = None

    def connect(self) -> sqlite3.Connection:
        return connect(db_path(self.data_dir))

    def read_only(self) -> StoreReadOnly | None:
        """Why this process cannot write the store (its folder or its file), or None."""
        return read_only_store(self.data_dir)

    def tell_read_only(self) -> bool:
        """True the first time only: whoever asks first says the store is read-only (the
        window's status bar, else the first search's note); nobody repeats it."""
        with self._lock:
            told, self._read_only_told = self._read_only_told, True
            return not told

    def read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """A damaged or full store is met as the plain `StoreError` an import or a search
        raises (one sentence with what to do), never as a bare sqlite3 error."""
        with plain_faults(self.data_dir, ""):
            connection = self.connect()
            try:
                return query(connection)
            finally:
                connection.close()

    def vector_counts(self, connection: sqlite3.Connection) -> dict[str, int]:
        return dict(connection.execute(
            "SELECT model_id, items FROM vector_generation WHERE kind = 'topic' AND items > 0").fetchall())


def idf_lost(embedder: Embedder, counts: dict[str, int]) -> bool:
    """The built-in embedder has no fitted table, yet the store holds vectors of a fitted
    built-in model: `index/` was deleted (issue 12, finding 6). Searching with the unfitted
    model would find nothing and say nothing."""
    return (embedder.needs_fit and not embedder.fitted and embedder.model_id.startswith("builtin:")
            and any(model.startswith("builtin:") and model != embedder.model_id for model in counts))
