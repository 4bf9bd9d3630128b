"""Issue 22: why a saved index cannot be used, said in Russian from the same codes as the English."""

from __future__ import annotations

import pytest

from engine.index import IndexMeta, IndexUnusable, VectorIndex
from tests.engine.russian_text import assert_russian


def test_an_unusable_index_is_said_in_russian(tmp_path):
    path = tmp_path / "topics.hnsw"
    index = VectorIndex.create(dim=4)
    index.add([1], [[1.0, 0.0, 0.0, 0.0]])
    meta = IndexMeta("builtin-v1", 4, 1, store_checksum="a")
    index.save(path, meta)
    with pytest.raises(IndexUnusable) as stale:
        VectorIndex.load(path, IndexMeta("builtin-v1", 4, 2, store_checksum="a"))
    assert str(stale.value) == \
        "The search index topics.hnsw needs rebuilding (stale: count 1 in the index, 2 expected)."
    assert stale.value.reason == "stale: count 1 in the index, 2 expected"
    assert stale.value.render("ru") == \
        "Поисковый индекс topics.hnsw нужно перестроить (устарел: элементов в индексе 1, ожидалось 2)."
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(IndexUnusable) as corrupt:
        VectorIndex.load(path, meta)
    assert corrupt.value.reason.startswith("corrupt: index file is ")
    assert_russian(corrupt.value.render("ru"), "topics.hnsw")
    with pytest.raises(IndexUnusable) as missing:
        VectorIndex.load(tmp_path / "none.hnsw", meta)
    assert_russian(missing.value.render("ru"), "none.hnsw")
