"""A reader that meets a save between its two renames (the binary replaced, the sidecar not yet)
waits for the second rename instead of calling the index corrupt (issue 35's soak: an MCP
search met "corrupt" while `flashback build` saved in another process). A pair left that way
by a crash, with no save under way, is still refused at once."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time

import numpy as np
import pytest

from engine.index import IndexMeta, IndexUnusable, VectorIndex
from engine.index.sidecar import sidecar_path
from tests.engine.index.synthetic import clustered_vectors

DIM = 16
MODEL = "builtin:test-v1"
WAIT_S = 60.0  # a bound on the test's waits, not a measured time (2 busy cores)


def _saved(path, count: int, seed: int) -> IndexMeta:
    index = VectorIndex.create(DIM, capacity=count, ef_search=64)
    index.add(np.arange(1, count + 1, dtype=np.int64), clustered_vectors(count, DIM, seed=seed))
    meta = IndexMeta(model_id=MODEL, dim=DIM, count=count, store_checksum="sha:x")
    index.save(path, meta)
    return meta


@pytest.fixture
def between_renames(tmp_path):
    """The folder as a save leaves it between its renames: the new binary in place, the new
    sidecar still in its temp file beside it, the old sidecar where it was."""
    path = tmp_path / "indexes" / "topics.hnsw"
    _saved(path, 100, seed=1)
    newer = tmp_path / "newer" / "topics.hnsw"
    meta = _saved(newer, 250, seed=2)
    pending = path.parent / f".{path.name}.pending.tmp"
    shutil.copy(sidecar_path(newer), pending)
    os.replace(newer, path)
    return path, meta, pending


class _Told(logging.Handler):
    def __init__(self, words: str) -> None:
        super().__init__()
        self.words, self.event = words, threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.words in record.getMessage():
            self.event.set()


@pytest.fixture
def told():
    handler = _Told("is being saved")
    logger = logging.getLogger("engine.index.vector_index")
    logger.addHandler(handler)
    previous = logger.level
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(previous)


def test_a_reader_between_the_renames_waits_for_the_sidecar(between_renames, told):
    path, meta, pending = between_renames
    result: dict = {}

    def read():
        try:
            result["index"] = VectorIndex.load(path, meta)
        except IndexUnusable as exc:  # what the soak's search met
            result["error"] = exc

    os.utime(pending)  # written just now, as the save's is
    reader = threading.Thread(target=read)
    reader.start()
    assert told.event.wait(WAIT_S), result  # the reader met the disagreeing pair and is waiting
    os.replace(pending, sidecar_path(path))  # the save's second rename
    reader.join(WAIT_S)

    assert "error" not in result, result["error"].reason
    assert result["index"].live_count == 250


def test_a_pair_a_crash_left_disagreeing_is_refused_without_waiting(between_renames, told):
    path, meta, pending = between_renames
    pending.unlink()  # no save is under way

    with pytest.raises(IndexUnusable):
        VectorIndex.load(path, meta)
    assert not told.event.is_set()


def test_an_old_temp_file_beside_the_pair_is_not_a_save_under_way(between_renames, told):
    path, meta, pending = between_renames
    an_hour_ago = time.time() - 3600
    os.utime(pending, (an_hour_ago, an_hour_ago))  # a killed save's leftover

    with pytest.raises(IndexUnusable):
        VectorIndex.load(path, meta)
    assert not told.event.is_set()


def test_a_loaded_index_reads_its_graph_from_the_file_it_checked_after_a_newer_save(tmp_path):
    """The graph is read at the second search, maybe minutes after the load; a build in another
    process may have saved a different index at the path by then. The loaded index stays the
    one its sidecar described (before: hnswlib read the newer file, 250 items for 100)."""
    path = tmp_path / "indexes" / "topics.hnsw"
    meta = _saved(path, 100, seed=1)
    loaded = VectorIndex.load(path, meta)
    query = clustered_vectors(1, DIM, seed=9)[0]
    first = [label for label, _ in loaded.search(query, 5)]  # answered from the mapped file
    _saved(path, 250, seed=2)  # another process's build saves over it

    loaded.load_graph()

    assert loaded.live_count == 100 and set(loaded.labels().tolist()) == set(range(1, 101))
    assert [label for label, _ in loaded.search(query, 5)] == first


def test_full_vectors_replaced_while_they_are_opened_never_map_past_the_file(tmp_path):
    """The MCP soak, once in ~9,500 calls: a search opened an index's full vectors while a build
    in another process renamed a newer, shorter file onto them; the header was read from one
    file and a part mapped from the other ("ValueError: mmap length is greater than file size",
    an unexpected error to the assistant). Every open now reads one file, whichever it is."""
    from engine.index.vector_file import VectorFile, VectorFileDamaged

    target = tmp_path / "topics.hnsw.vec"
    made = []
    for count in (400, 40):
        vectors = VectorFile(DIM, "float16")
        vectors.add(np.arange(1, count + 1, dtype=np.int64), clustered_vectors(count, DIM, seed=count))
        path = tmp_path / f"v{count}.vec"
        vectors.save(path)
        made.append(path)
    shutil.copy(made[0], target)
    stop = threading.Event()

    def swap() -> None:
        turn = 0
        while not stop.is_set():
            staged = tmp_path / f".swap{turn % 2}.tmp"
            shutil.copy(made[turn % 2], staged)
            os.replace(staged, target)
            turn += 1

    swapper = threading.Thread(target=swap)
    swapper.start()
    try:
        for _ in range(1500):
            try:
                opened = VectorFile.open(target)
            except VectorFileDamaged:
                continue  # named and refused, never an unexpected error
            assert len(opened) in (400, 40)
    finally:
        stop.set()
        swapper.join()
