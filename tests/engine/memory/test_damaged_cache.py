"""A model whose vectors are cached (a local model, an API; stored as float16 since issue 26):
a cached row that is no longer a vector (NaN) is met by the build that reads it, removed with
its entity's items and embedded again (issue 12, finding 5, for the cache that remains)."""

from __future__ import annotations

from pathlib import Path

import resources
from engine.api import Flashback
from engine.embeddings.builtin import BuiltinEmbedder
from engine.memory.build import build_memory
from engine.memory.health import find_damaged_vectors
from engine.store.database import connect, db_path


class CachedEmbedder(BuiltinEmbedder):
    """The built-in vectors, kept the way a costly model's are: cached, float16, no sketch."""

    cache_vectors = True
    stored_as = "float16"
    sketch_dim = None


def test_a_damaged_cached_vector_is_found_and_embedded_again(tmp_path):
    data_dir = tmp_path / "store"
    Flashback(data_dir).imports.import_path(resources.demo_export())
    connection = connect(db_path(data_dir))
    try:
        first = build_memory(data_dir, connection, CachedEmbedder())
        model, dim = first.model_id, 1024
        assert connection.execute("SELECT count(*), min(length(vector)) FROM embedding_cache WHERE model_id = ?",
                                  (model,)).fetchone()[1] == 2 * dim  # float16
        connection.execute("UPDATE embedding_cache SET vector = ? WHERE rowid = (SELECT min(rowid) FROM "
                           "embedding_cache WHERE model_id = ?)", (b"\xff" * (2 * dim), model))  # NaN as float16
        assert find_damaged_vectors(connection, model, dim)
        for path in (Path(data_dir) / "index").glob("*.hnsw*"):
            path.unlink()  # the rebuild reads every cached vector, the damaged one too

        again = build_memory(data_dir, connection, CachedEmbedder.from_state(
            (Path(data_dir) / "index" / "builtin_idf.bin").read_bytes()))

        assert any("re-embedded damaged vectors" in line for line in again.repaired) and again.embedded >= 1
        assert not find_damaged_vectors(connection, model, dim)
    finally:
        connection.close()
