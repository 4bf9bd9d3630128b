"""Saving and loading: a round trip keeps everything; anything doubtful raises IndexUnusable, never loads."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from engine.errors import EngineError
from engine.index import IndexMeta, IndexUnusable, VectorIndex
from engine.index.sidecar import sidecar_path
from tests.engine.index.synthetic import clustered_vectors

DIM = 32
MODEL = "builtin:test-v1"


@pytest.fixture
def saved(tmp_path):
    """A 500-item index with two deletions, saved; returns (path, meta, data, the index)."""
    data = clustered_vectors(500, DIM, seed=3)
    index = VectorIndex.create(DIM, capacity=100, m=12, ef_construction=150, ef_search=96)
    index.add(np.arange(500, dtype=np.int64) + 1, data)
    index.mark_deleted([1, 2])
    meta = IndexMeta(model_id=MODEL, dim=DIM, count=498, params={"chunking": "v1"}, store_checksum="sha:abc")
    path = tmp_path / "indexes" / "topics.hnsw"
    index.save(path, meta)
    return path, meta, data, index


def test_round_trip_keeps_results_deletions_and_parameters(saved):
    path, meta, data, original = saved
    loaded = VectorIndex.load(path, meta)
    assert loaded.live_count == 498
    assert loaded.dim == DIM
    assert loaded.params == {"M": 12, "ef_construction": 150, "ef_search": 96, "space": "cosine"}
    assert np.array_equal(loaded.labels(), np.arange(3, 501))
    # The first search reads the saved vectors in place, the next ones the graph: the same hits.
    for query in data[[0, 1, 100, 499]]:
        found, expected = loaded.search(query, 20), original.search(query, 20)
        assert [label for label, _ in found] == [label for label, _ in expected]
        assert [score for _, score in found] == pytest.approx([score for _, score in expected], abs=1e-6)
    assert 1 not in {label for label, _ in loaded.search(data[0], 50)}
    # A loaded index keeps growing.
    loaded.add(np.arange(1000, 3000), clustered_vectors(2000, DIM, seed=4))
    assert loaded.live_count == 2498


def test_sidecar_records_what_the_index_was_built_from(saved):
    path, _, _, _ = saved
    sidecar = json.loads(sidecar_path(path).read_text(encoding="utf-8"))
    assert sidecar["model_id"] == MODEL
    assert sidecar["dim"] == DIM
    assert sidecar["count"] == 498
    assert sidecar["store_checksum"] == "sha:abc"
    assert sidecar["params"] == {"chunking": "v1", "M": 12, "ef_construction": 150, "ef_search": 96,
                                 "space": "cosine"}
    assert sidecar["deleted"] == [1, 2]
    assert sidecar["format"] == 1
    assert sidecar["saved_at"] > 1.7e9
    assert sidecar["binary"]["bytes"] == path.stat().st_size


def test_save_leaves_no_temporary_files(saved):
    path, _, _, _ = saved
    assert sorted(p.name for p in path.parent.iterdir()) == ["topics.hnsw", "topics.hnsw.json"]


def test_save_removes_temporaries_left_by_an_interrupted_save(saved):
    path, meta, _, index = saved
    leftover = path.parent / ".topics.hnsw.k3j2x9.tmp"
    leftover.write_bytes(b"half an index")
    index.save(path, meta)
    assert not leftover.exists()


def test_a_failed_save_keeps_the_previous_files(saved):
    path, meta, _, index = saved
    before = (path.read_bytes(), sidecar_path(path).read_bytes())
    index.add(np.array([9999]), clustered_vectors(1, DIM, seed=9))
    unserialisable = IndexMeta(MODEL, DIM, 499, params={"oops": object()}, store_checksum="sha:new")
    with pytest.raises(TypeError):
        index.save(path, unserialisable)
    assert (path.read_bytes(), sidecar_path(path).read_bytes()) == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["topics.hnsw", "topics.hnsw.json"]
    assert VectorIndex.load(path, meta).live_count == 498


def test_save_refuses_a_meta_that_does_not_describe_the_index(saved, tmp_path):
    _, meta, _, index = saved
    with pytest.raises(ValueError):
        index.save(tmp_path / "other.hnsw", replace(meta, count=10))
    with pytest.raises(ValueError):
        index.save(tmp_path / "other.hnsw", replace(meta, dim=DIM * 2))


def test_an_empty_index_round_trips(tmp_path):
    meta = IndexMeta(MODEL, DIM, 0, {}, "sha:empty")
    VectorIndex.create(DIM).save(tmp_path / "empty.hnsw", meta)
    loaded = VectorIndex.load(tmp_path / "empty.hnsw", meta)
    assert loaded.live_count == 0
    assert loaded.search(np.ones(DIM, np.float32), 5) == []


def _unusable(path, expected) -> str:
    with pytest.raises(IndexUnusable) as caught:
        VectorIndex.load(path, expected)
    assert isinstance(caught.value, EngineError)
    assert caught.value.reason in str(caught.value)
    return caught.value.reason


def test_missing_files_are_reported_as_missing(saved, tmp_path):
    path, meta, _, _ = saved
    assert _unusable(tmp_path / "never-saved.hnsw", meta) == "missing"
    sidecar_path(path).unlink()
    assert _unusable(path, meta) == "missing"


def test_missing_binary_is_reported_as_missing(saved):
    path, meta, _, _ = saved
    path.unlink()
    assert _unusable(path, meta) == "missing"


@pytest.mark.parametrize(("changed", "reason"), [
    ({"model_id": "openrouter:other"}, f"stale: model changed from {MODEL} to openrouter:other"),
    ({"store_checksum": "sha:def"}, "stale: store changed"),
    ({"dim": 768}, "stale: dimension 32 in the index, 768 expected"),
    ({"count": 499}, "stale: count 498 in the index, 499 expected"),
])
def test_a_changed_model_store_dimension_or_count_is_stale(saved, changed, reason):
    path, meta, _, _ = saved
    assert _unusable(path, replace(meta, **changed)) == reason


def test_params_do_not_have_to_match(saved):
    path, meta, _, _ = saved
    assert VectorIndex.load(path, replace(meta, params={})).live_count == 498


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip_one_byte", "empty"])
def test_a_damaged_binary_is_corrupt(saved, damage):
    path, meta, _, _ = saved
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        raw = raw[: len(raw) // 2]
    elif damage == "garbage":
        raw = bytearray(np.random.default_rng(0).integers(0, 256, len(raw), dtype=np.uint8).tobytes())
    elif damage == "flip_one_byte":
        raw[len(raw) // 3] ^= 0xFF
    else:
        raw = bytearray()
    path.write_bytes(bytes(raw))
    assert _unusable(path, meta).startswith("corrupt: ")


@pytest.mark.parametrize("text", [
    "not json at all {",
    "[1, 2, 3]",
    "{}",
    '{"format": 1, "model_id": "builtin:test-v1"}',
    "\x00\xff",
])
def test_a_garbage_sidecar_is_corrupt(saved, text):
    path, meta, _, _ = saved
    sidecar_path(path).write_text(text, encoding="latin-1")
    assert _unusable(path, meta).startswith("corrupt: ")


def test_a_sidecar_with_a_wrong_field_type_is_corrupt(saved):
    path, meta, _, _ = saved
    sidecar = json.loads(sidecar_path(path).read_text(encoding="utf-8"))
    sidecar["count"] = "498"
    sidecar_path(path).write_text(json.dumps(sidecar), encoding="utf-8")
    assert _unusable(path, meta) == "corrupt: sidecar field 'count' is missing or not int"


def test_a_sidecar_from_another_format_version_is_stale(saved):
    path, meta, _, _ = saved
    sidecar = json.loads(sidecar_path(path).read_text(encoding="utf-8"))
    sidecar["format"] = 2
    sidecar_path(path).write_text(json.dumps(sidecar), encoding="utf-8")
    assert _unusable(path, meta).startswith("stale: format version 2")


def test_a_binary_from_another_save_is_corrupt(saved, tmp_path):
    """A crash between the two renames pairs a new binary with the old sidecar."""
    path, meta, data, index = saved
    index.add(np.array([3]), data[:1])  # a replaced vector: same size, different bytes
    index.save(tmp_path / "newer.hnsw", meta)
    newer = (tmp_path / "newer.hnsw").read_bytes()
    assert len(newer) == path.stat().st_size
    path.write_bytes(newer)
    assert _unusable(path, meta) == "corrupt: index file does not match its sidecar (checksum differs)"
