"""The built-in embedder's fitted IDF table: where it is kept and when it is refitted.

IDF is fitted on the store's own topic texts (the embedder's docstring has the measured
gain). A refit changes `model_id`, so every stored vector is re-embedded; that is cheap for
the built-in embedder but not free, so it happens only when the store has no table yet or
has grown to twice the topics the table was fitted on (a table from a small first import
would otherwise judge a big later history by a few chats' vocabulary).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine.embeddings.base import Embedder, EmbeddingConfig, make_embedder
from engine.embeddings.builtin import BuiltinEmbedder
from engine.importers.base import CancelToken
from engine.memory.topic_documents import topic_documents_for

STATE_FILE = Path("index") / "builtin_idf.bin"
REFIT_GROWTH = 2.0


def load_embedder(data_dir: Path, config: EmbeddingConfig) -> Embedder:
    state = None
    if config.provider == "builtin":
        path = Path(data_dir) / STATE_FILE
        state = path.read_bytes() if path.exists() else None
    return make_embedder(config, builtin_state=state)


def needs_refit(connection: sqlite3.Connection, embedder: Embedder) -> bool:
    if not isinstance(embedder, BuiltinEmbedder):
        return False
    topics = connection.execute("SELECT count(*) FROM topic").fetchone()[0]
    if topics == 0:
        return False
    fitted = embedder.idf.documents if embedder.idf is not None else 0
    return fitted == 0 or topics >= REFIT_GROWTH * fitted


def refit(data_dir: Path, connection: sqlite3.Connection, embedder: BuiltinEmbedder, chunk_chars: int,
          cancel: CancelToken | None = None) -> BuiltinEmbedder:
    """Fit IDF on every topic's texts (one document per topic), save it, return the new embedder."""
    topic_ids = [r[0] for r in connection.execute("SELECT id FROM topic ORDER BY id")]

    def texts():
        for start in range(0, len(topic_ids), 1000):
            for documents in topic_documents_for(connection, topic_ids[start:start + 1000], chunk_chars).values():
                yield "\n".join(documents)

    fitted = embedder.fit(texts(), cancel=cancel)
    path = Path(data_dir) / STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(fitted.state or b"")
    tmp.replace(path)
    return fitted
