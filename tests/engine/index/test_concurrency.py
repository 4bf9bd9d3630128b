"""Adds that resize the index, deletes and searches from several threads at once.

hnswlib's resize_index is not safe next to add_items or knn_query: without the wrapper's
lock this test crashes the interpreter or raises from inside hnswlib.
"""

from __future__ import annotations

import threading

import numpy as np

from engine.index import VectorIndex
from tests.engine.index.synthetic import clustered_vectors

DIM = 32
TOTAL = 4000
BATCH = 50


def test_concurrent_add_delete_and_search_do_not_interfere():
    data = clustered_vectors(TOTAL, DIM, seed=11)
    queries = clustered_vectors(64, DIM, seed=12)
    index = VectorIndex.create(DIM, capacity=8)  # dozens of resizes while the searches run
    errors: list[BaseException] = []
    adding = threading.Event()
    adding.set()
    searched = [0]

    def guarded(work):
        def run():
            try:
                work()
            except BaseException as exc:  # reported by the assertion below, not lost in the thread
                errors.append(exc)
        return run

    def add_all():
        try:
            for start in range(0, TOTAL, BATCH):
                index.add(np.arange(start, start + BATCH), data[start:start + BATCH])
        finally:
            adding.clear()

    def search_while_adding():
        n = 0
        while adding.is_set():
            query = queries[n % len(queries)]
            results = index.search(query, 20) if n % 2 else index.search_many(queries[:4], 20)[0]
            labels = [label for label, _ in results]
            assert len(set(labels)) == len(labels)
            assert all(0 <= label < TOTAL for label in labels)
            similarities = [s for _, s in results]
            assert similarities == sorted(similarities, reverse=True)
            n += 1
        searched[0] += n

    def delete_while_adding():
        while adding.is_set():
            live = index.labels()
            if len(live):
                index.mark_deleted(live[::97][:3])

    threads = [threading.Thread(target=guarded(add_all))]
    threads += [threading.Thread(target=guarded(search_while_adding)) for _ in range(3)]
    threads.append(threading.Thread(target=guarded(delete_while_adding)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert searched[0] > 0
    assert index.capacity >= TOTAL
    assert index.live_count == len(index.labels())
    assert index.live_count < TOTAL  # the deleter did run
    survivor = int(index.labels()[-1])
    assert index.search(data[survivor], 1)[0][0] == survivor
