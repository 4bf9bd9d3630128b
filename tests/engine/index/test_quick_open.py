"""Issue 26: a search opens an index without reading it twice. The binary the sidecar names by
identity (inode, modification time, size) is trusted without its CRC; one replaced, copied or
written to in place is checked by CRC as before, and `flashback check` always checks it. The
full vectors beside a sketch index are paired the same way and read through a memory map."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from engine.index import IndexMeta, IndexUnusable, VectorIndex
from engine.index.vector_file import VectorFile
from engine.index.vector_index import full_path
from tests.engine.index.synthetic import clustered_vectors

DIM = 32
META = IndexMeta(model_id="builtin:test-v1", dim=DIM, count=200, store_checksum="g1:200")


@pytest.fixture
def saved(tmp_path):
    data = clustered_vectors(200, DIM, seed=5)
    index = VectorIndex.create(DIM)
    index.add(np.arange(1, 201), data)
    index.full = VectorFile(DIM, "int8")
    index.full.add(np.arange(1, 201), data / np.linalg.norm(data, axis=1, keepdims=True))
    path = tmp_path / "topics.hnsw"
    index.save(path, META)
    return path, data


def _flip_a_byte_keeping_the_time(path):
    stat = path.stat()
    with open(path, "r+b") as handle:
        handle.seek(stat.st_size // 2)
        byte = handle.read(1)
        handle.seek(stat.st_size // 2)
        handle.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_binary_with_its_identity_is_trusted_and_check_still_reads_it(saved):
    path, _ = saved
    _flip_a_byte_keeping_the_time(path)  # damage no file system event tells: same inode, time and size
    VectorIndex.load(path, META)  # a search trusts the identity (the CRC is what `check` reads)
    with pytest.raises(IndexUnusable, match="checksum differs"):
        VectorIndex.load(path, META, full_check=True)


def test_a_binary_replaced_or_copied_is_checked_by_its_crc(saved, tmp_path):
    path, data = saved
    copy = tmp_path / "copy" / "topics.hnsw"
    shutil.copytree(path.parent, copy.parent)  # new inodes: the CRC decides, and the bytes are right
    loaded = VectorIndex.load(copy, META)
    assert loaded.search(data[7], 1)[0][0] == 8
    replaced = path.with_name("other")
    replaced.write_bytes(path.read_bytes())
    _flip_a_byte_keeping_the_time(replaced)
    os.replace(replaced, path)  # another file under the name: its identity is not the saved one
    with pytest.raises(IndexUnusable, match="checksum differs"):
        VectorIndex.load(path, META)


def test_the_full_vectors_are_paired_with_the_index_and_mapped(saved):
    path, data = saved
    loaded = VectorIndex.load(path, META)
    held, vectors = loaded.full.vectors_of(np.array([3, 999, 150]))
    assert held.tolist() == [True, False, True]
    unit = data / np.linalg.norm(data, axis=1, keepdims=True)
    assert np.abs(vectors - unit[[2, 149]]).max() < 0.01  # int8: within half a step of each value
    assert isinstance(loaded.full._parts[0][3].base, np.memmap) or os.name == "nt"  # read when touched, not at open
    with open(full_path(path), "r+b") as handle:
        handle.truncate(full_path(path).stat().st_size - 1)
    with pytest.raises(IndexUnusable, match="full vectors"):
        VectorIndex.load(path, META)
