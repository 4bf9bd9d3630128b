"""A loaded index's first search reads the saved file's vectors in place (issue 26): exact,
without building hnswlib's graph, which the second search (or `load_graph`) builds."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from engine.index import IndexMeta, VectorIndex
from engine.index.level_zero import LevelZero, LevelZeroUnreadable
from engine.index.sidecar import read_sidecar
from tests.engine.index.synthetic import clustered_vectors

DIM = 24
MODEL = "builtin:test-v1"


def _saved(tmp_path, count=800, deleted=(5, 6, 7)):
    data = clustered_vectors(count, DIM, seed=11)
    index = VectorIndex.create(DIM, capacity=64, m=8, ef_construction=60, ef_search=40)
    index.add(np.arange(count, dtype=np.int64) + 1, data)
    index.mark_deleted(list(deleted))
    path = tmp_path / "topics.hnsw"
    meta = IndexMeta(model_id=MODEL, dim=DIM, count=count - len(deleted))
    index.save(path, meta)
    return path, meta, data


def _exact(data, query, k, deleted):
    units = data / np.linalg.norm(data, axis=1, keepdims=True)
    scores = units @ (query / np.linalg.norm(query))
    order = [int(i) for i in np.argsort(-scores, kind="stable") if int(i) + 1 not in deleted]
    return [i + 1 for i in order[:k]], scores


def test_first_search_is_exact_and_builds_no_graph(tmp_path):
    path, meta, data = _saved(tmp_path)
    loaded = VectorIndex.load(path, meta)
    assert not loaded.graph_loaded
    query = data[42] + 0.3 * data[7]
    hits = loaded.search(query, 30)
    assert not loaded.graph_loaded
    labels, scores = _exact(data, query, 30, {5, 6, 7})
    assert [label for label, _ in hits] == labels
    assert [score for _, score in hits] == pytest.approx([float(scores[label - 1]) for label in labels], abs=1e-5)
    assert {5, 6, 7}.isdisjoint(label for label, _ in loaded.search(data[5], 50))
    assert loaded.graph_loaded  # the second search built the graph


def test_everything_that_needs_the_graph_builds_it(tmp_path):
    path, meta, data = _saved(tmp_path)
    loaded = VectorIndex.load(path, meta)
    assert loaded.live_count == 797 and loaded.dim == DIM
    assert loaded.params == {"M": 8, "ef_construction": 60, "ef_search": 40, "space": "cosine"}
    assert np.array_equal(loaded.labels(), np.setdiff1d(np.arange(1, 801), [5, 6, 7]))
    assert not loaded.graph_loaded  # none of the above needed it
    loaded.add(np.array([5000]), data[:1])
    assert loaded.graph_loaded and loaded.live_count == 798
    again = VectorIndex.load(path, meta)
    again.load_graph()
    assert again.graph_loaded
    assert [label for label, _ in again.search(data[3], 5)][0] == 4


def test_a_file_of_another_layout_is_refused_in_place(tmp_path):
    path, meta, data = _saved(tmp_path)
    elements = read_sidecar(path).elements
    assert LevelZero(path, DIM, elements).count == elements
    with pytest.raises(LevelZeroUnreadable):
        LevelZero(path, DIM + 1, elements)  # a dimension the records do not hold
    with pytest.raises(LevelZeroUnreadable):
        LevelZero(path, DIM, elements + 1)
    raw = bytearray(path.read_bytes())
    struct.pack_into("<Q", raw, 40, 8)  # offsetData_ moved: not the layout read in place
    short = tmp_path / "short.bin"
    short.write_bytes(bytes(raw))
    with pytest.raises(LevelZeroUnreadable):
        LevelZero(short, DIM, elements)


def test_an_empty_saved_index_searches_to_nothing(tmp_path):
    index = VectorIndex.create(DIM)
    path = tmp_path / "empty.hnsw"
    meta = IndexMeta(model_id=MODEL, dim=DIM, count=0)
    index.save(path, meta)
    loaded = VectorIndex.load(path, meta)
    assert loaded.search(np.ones(DIM, np.float32), 5) == []
