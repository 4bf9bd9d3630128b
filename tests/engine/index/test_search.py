"""VectorIndex search against numpy brute force, and the edges: empty, k > live count, deletes, growth."""

from __future__ import annotations

import numpy as np
import pytest

from engine.index import VectorIndex
from tests.engine.index.synthetic import clustered_vectors, exact_top_k

DIM = 64


@pytest.fixture(scope="module")
def corpus():
    """3,000 clustered vectors with labels that are not 0..n-1 (as vector_item ids would not be)."""
    data = clustered_vectors(3000, DIM, centre_seed=1, seed=1)
    labels = np.arange(3000, dtype=np.int64) * 7 + 1000
    index = VectorIndex.create(DIM, capacity=3000)
    index.add(labels, data)
    return data, labels, index


def _queries(count: int, seed: int) -> np.ndarray:
    return clustered_vectors(count, DIM, centre_seed=1, seed=seed)  # the corpus's clusters, new points


def test_recall_at_50_against_brute_force(corpus):
    data, labels, index = corpus
    hits = 0
    queries = _queries(100, seed=2)
    for query in queries:
        found = index.search(query, 50)
        exact = exact_top_k(data, labels, query, 50)
        assert len(found) == 50
        similarities = [score for _, score in found]
        assert similarities == sorted(similarities, reverse=True)
        # The scores are cosine similarities of the returned labels, not distances.
        by_label = dict(zip(labels.tolist(), (data @ query).tolist(), strict=True))
        assert np.allclose(similarities, [by_label[label] for label, _ in found], atol=1e-4)
        hits += len({label for label, _ in found} & {label for label, _ in exact})
    recall = hits / (50 * len(queries))
    assert recall >= 0.98, recall


def test_search_many_matches_search(corpus):
    _, _, index = corpus
    queries = _queries(10, seed=3)
    batched = index.search_many(queries, 20)
    assert len(batched) == 10
    for query, results in zip(queries, batched, strict=True):
        single = index.search(query, 20)
        assert [label for label, _ in results] == [label for label, _ in single]
        assert np.allclose([s for _, s in results], [s for _, s in single])


def test_a_stored_vector_finds_itself_first(corpus):
    data, labels, index = corpus
    label, similarity = index.search(data[123], 1)[0]
    assert label == labels[123]
    assert similarity == pytest.approx(1.0, abs=1e-5)


def test_empty_index_returns_nothing():
    index = VectorIndex.create(DIM)
    query = clustered_vectors(1, DIM)[0]
    assert index.live_count == 0
    assert index.search(query, 10) == []
    assert index.search_many(np.stack([query, query]), 10) == [[], []]
    index.add(np.array([1]), query[None, :])
    assert index.search_many(np.empty((0, DIM), np.float32), 10) == []
    index.mark_deleted([1])
    assert index.search(query, 10) == []
    assert len(index.labels()) == 0


def test_k_larger_than_the_live_count_returns_every_live_item():
    data = clustered_vectors(5, DIM, seed=4)
    index = VectorIndex.create(DIM)
    index.add(np.array([10, 11, 12, 13, 14]), data)
    assert [label for label, _ in index.search(data[0], 50)][0] == 10
    assert sorted(label for label, _ in index.search(data[0], 50)) == [10, 11, 12, 13, 14]
    index.mark_deleted([11, 12])
    assert sorted(label for label, _ in index.search(data[0], 50)) == [10, 13, 14]
    assert [len(r) for r in index.search_many(data, 50)] == [3] * 5
    assert index.search(data[0], 0) == []


def test_mark_deleted_hides_items_and_ignores_unknown_or_repeated_labels():
    data = clustered_vectors(200, DIM, seed=5)
    labels = np.arange(200, dtype=np.int64)
    index = VectorIndex.create(DIM)
    index.add(labels, data)
    index.mark_deleted([5, 6, 7])
    index.mark_deleted([5, 999_999])  # already deleted, never added: both ignored
    index.mark_deleted(np.int64(8))
    assert index.live_count == 196
    assert set(index.labels().tolist()) == set(range(200)) - {5, 6, 7, 8}
    for deleted in (5, 6, 7, 8):
        assert deleted not in {label for label, _ in index.search(data[deleted], 50)}
    # Re-adding a deleted label brings it back with its new vector.
    index.add(np.array([5]), data[100:101])
    assert index.live_count == 197
    assert 5 in {label for label, _ in index.search(data[100], 2)}


def test_adding_past_capacity_grows_the_index():
    data = clustered_vectors(1000, DIM, seed=6)
    index = VectorIndex.create(DIM, capacity=16)
    for start in range(0, 1000, 97):
        index.add(np.arange(start, min(start + 97, 1000)), data[start:start + 97])
    assert index.live_count == 1000
    assert index.capacity >= 1000
    assert [index.search(data[i], 1)[0][0] for i in (0, 500, 999)] == [0, 500, 999]


def test_adding_an_existing_label_replaces_its_vector():
    data = clustered_vectors(50, DIM, seed=7)
    index = VectorIndex.create(DIM)
    index.add(np.arange(50), data)
    index.add(np.array([3]), data[40:41])
    assert index.live_count == 50
    assert index.search(data[3], 1)[0][0] != 3
    assert {label for label, _ in index.search(data[40], 2)} == {3, 40}


def test_set_ef_is_reported_in_params():
    index = VectorIndex.create(DIM, m=8, ef_construction=100, ef_search=64)
    index.set_ef(256)
    assert index.params == {"M": 8, "ef_construction": 100, "ef_search": 256, "space": "cosine"}


@pytest.mark.parametrize(("labels", "vectors"), [
    (np.arange(3), np.zeros((3, DIM + 1), np.float32)),  # wrong dimension
    (np.arange(2), np.ones((3, DIM), np.float32)),  # counts differ
    (np.array([-1]), np.ones((1, DIM), np.float32)),  # not an id
    (np.array([1.5]), np.ones((1, DIM), np.float32)),  # not an integer
    (np.arange(1), np.full((1, DIM), np.nan, np.float32)),  # would poison the graph
])
def test_add_rejects_bad_input(labels, vectors):
    index = VectorIndex.create(DIM)
    with pytest.raises(ValueError):
        index.add(labels, vectors)
    assert index.live_count == 0


def test_search_rejects_a_vector_of_the_wrong_dimension(corpus):
    _, _, index = corpus
    with pytest.raises(ValueError):
        index.search(np.ones(DIM - 1, np.float32), 5)
