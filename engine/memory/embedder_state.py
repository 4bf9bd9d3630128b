"""What an embedder learns from the store: the built-in one's fitted IDF table (where it is
kept and when it is refitted) and the vector length of an API model configured without one.

IDF is fitted on the store's own topic texts (the embedder's docstring has the measured
gain). A refit changes `model_id`, so every stored vector is re-embedded; that is cheap for
the built-in embedder but not free, so it happens only when the store has no table yet or
has grown to twice the topics the table was fitted on (a table from a small first import
would otherwise judge a big later history by a few chats' vocabulary).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from engine.embeddings.base import Embedder, EmbeddingConfig, make_embedder
from engine.embeddings.builtin import BuiltinEmbedder
from engine.errors import CancelToken
from engine.files import private_folder, write_private
from engine.memory.documents import PassageShape
from engine.memory.topic_documents import topic_documents_for

if TYPE_CHECKING:
    from engine.embeddings.openai_compat import OpenAICompatibleEmbedder

STATE_FILE = Path("index") / "builtin_idf.bin"
DIMS_FILE = Path("index") / "embedding_dims.json"  # "<url> <model>" → vector length an API model gave
REFIT_GROWTH = 2.0
# Document frequencies from every 3rd of 57k topics put nearly the same weight on every word as
# all of them do (they only judge how common a word is), for a third of the time: the fit was
# 13 s of a 200k-message build, 51 s at 1M (issue 26; the LoCoMo figures, in docs/benchmarks.md,
# are the same: its stores have fewer topics than this).
FIT_SAMPLE = 20_000


def load_embedder(data_dir: Path, config: EmbeddingConfig) -> Embedder:
    """The configured embedder with everything it needs to size an index: the fitted IDF of
    the built-in one, the vector length of an API model (from `--embedding-dim`, else learned
    once from one probe embedding and remembered in the data folder)."""
    state = None
    if config.provider == "builtin":
        path = Path(data_dir) / STATE_FILE
        state = path.read_bytes() if path.exists() else None
    embedder = make_embedder(config, builtin_state=state)
    if config.provider in ("builtin", "local") or embedder.dim:
        return embedder
    from engine.embeddings.openai_compat import OpenAICompatibleEmbedder  # only an API model learns its length

    if isinstance(embedder, OpenAICompatibleEmbedder):
        _learn_dim(Path(data_dir) / DIMS_FILE, embedder)
    return embedder


def _learn_dim(path: Path, embedder: OpenAICompatibleEmbedder) -> None:
    """Set `embedder.dim` from what this store learned before, else from one probe request
    (the dimension decides the index layout before any text is embedded). A server that
    later changes the length under the same name fails with a clear EmbeddingResponseError."""
    key = f"{embedder.url} {embedder.model}"
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}  # missing or damaged: probing again is cheap
    dim = known.get(key) if isinstance(known, dict) else None
    if isinstance(dim, int) and dim > 0:
        embedder.dim = dim
        return
    known = known if isinstance(known, dict) else {}
    known[key] = embedder.probe()
    _write_private(path, json.dumps(known, indent=1, sort_keys=True).encode())


def needs_refit(connection: sqlite3.Connection, embedder: Embedder) -> bool:
    if not isinstance(embedder, BuiltinEmbedder):
        return False
    topics = connection.execute("SELECT count(*) FROM topic").fetchone()[0]
    if topics == 0:
        return False
    fitted = embedder.idf.documents if embedder.idf is not None else 0
    return fitted == 0 or topics >= REFIT_GROWTH * fitted


def refit(data_dir: Path, connection: sqlite3.Connection, embedder: BuiltinEmbedder, chunk_chars: int | PassageShape,
          cancel: CancelToken | None = None) -> BuiltinEmbedder:
    """Fit IDF on the topics' texts (one document per topic; an even sample of at most
    `FIT_SAMPLE` topics in a bigger store), save it, return the new embedder."""
    topic_ids = [r[0] for r in connection.execute("SELECT id FROM topic ORDER BY id")]
    sample = topic_ids[::-(-len(topic_ids) // FIT_SAMPLE)] if len(topic_ids) > FIT_SAMPLE else topic_ids

    def texts():
        for start in range(0, len(sample), 1000):
            for documents in topic_documents_for(connection, sample[start:start + 1000], chunk_chars).values():
                yield "\n".join(documents)

    fitted = embedder.fit(texts(), cancel=cancel, population=len(topic_ids))
    _write_private(Path(data_dir) / STATE_FILE, fitted.state or b"")
    return fitted


def _write_private(path: Path, data: bytes) -> None:
    """Replace `path` atomically with a 0600 file (learned from the chats: private like the store)."""
    write_private(private_folder(path.parent) / path.name, data)
