"""Issue 26: what a first search waits for. The window loads the topic index as it opens
(`search.warm_up`); a search maps only the labels it meets to their topics (not every item of
the store); the built-in embedder's index is a 256-dimension sketch whose candidates are
scored with the full vectors kept beside it, so it ranks as an exact search does."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

import resources
from engine.api import Flashback
from engine.index.sidecar import read_sidecar
from engine.memory.item_vectors import ItemVectors
from engine.retrieval.search import RetrievalSettings


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    data_dir = tmp_path_factory.mktemp("store")
    service = Flashback(data_dir)
    service.imports.import_path(resources.demo_export())
    service.memory.build()
    return data_dir


def test_warm_up_loads_the_topic_index_and_no_label_map(built, tmp_path):
    data_dir = Path(shutil.copytree(built, tmp_path / "data"))
    service = Flashback(data_dir)
    indexes = service._context.retriever().indexes
    assert indexes.loaded("topic") is None
    service.search.warm_up()
    assert indexes.loaded("topic") is not None
    loaded = indexes._loaded["topic"]
    assert loaded.entities._known == {}  # nothing read per item at load
    service.search.candidates("hotel in Lisbon", RetrievalSettings(candidates=5))  # 5 topics × 4 windows asked
    with closing(sqlite3.connect(data_dir / "flashback.sqlite3")) as connection:
        items = connection.execute("SELECT count(*) FROM vector_item WHERE kind = 'topic'").fetchone()[0]
    assert 0 < len(loaded.entities._known) <= 20 < items


def test_the_sketch_index_ranks_as_an_exact_search(built):
    sidecar = read_sidecar(built / "index" / "topics.hnsw").meta
    assert sidecar.dim == 256 and sidecar.params["sketch"] == 256 and (built / "index" / "topics.vec").exists()
    with closing(sqlite3.connect(built / "flashback.sqlite3")) as connection:
        assert connection.execute("SELECT count(*) FROM embedding_cache").fetchone()[0] == 0  # stored once
    service = Flashback(built)
    retriever = service._context.retriever()
    query = retriever.embedder.embed(["the Postgres upgrade and the backup"], "query")[0]
    from engine.store.database import connect, db_path

    connection = connect(db_path(built))
    try:
        found = retriever.indexes.search(connection, "topic", query, 10)
        labels = [r[0] for r in connection.execute("SELECT id FROM vector_item WHERE kind = 'topic'")]
        _labels, entities, vectors = ItemVectors(connection, retriever.embedder.model_id,
                                                 held=retriever.indexes.loaded("topic").full).load("topic", labels)
    finally:
        connection.close()
    best: dict[int, float] = {}
    for entity, score in zip(entities.tolist(), (vectors @ query).tolist(), strict=True):
        best[entity] = max(score, best.get(entity, -2.0))
    exact = sorted(best.items(), key=lambda pair: -pair[1])[:10]
    assert [entity for entity, _ in found] == [entity for entity, _ in exact]
    assert np.allclose([s for _, s in found], [s for _, s in exact], atol=1e-5)
