"""Exact search over a saved hnswlib file's vectors, read in place through a memory map.

hnswlib's `load_index` rebuilds its whole graph in memory before the first query: 0.4 s for
the 286k sketches of a 1M-message store, most of a first search in a new process (a CLI
search, an MCP call; issue 26). The vectors themselves sit in the file's level-0 block at a
fixed stride, so one strided matrix-vector product over the mapped file (BLAS takes the
stride as its leading dimension, no copy) scores every item exactly in ~22 ms on the same
store, and a process that searches once never builds the graph. `VectorIndex` answers its
first search this way and builds the graph when a second one comes (engine.index.vector_index).

The layout read here is hnswlib's `saveIndex` (hnswalg.h, unchanged since 0.6): a 96-byte
header of native-endian fields, then `cur_element_count` records of `size_data_per_element`
bytes, each [link count + maxM0 links][dim float32, L2-normalised in cosine space][label uint64].
Every field is checked against the file's size and the sidecar's dimension and count, so a
file of another layout is refused (`LevelZeroUnreadable`) and the caller loads it with hnswlib.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np

_HEADER = struct.Struct("<6QiI3Qd Q")  # offsetLevel0, max_elements, count, size_per_element,
# label_offset, offset_data, maxlevel (int), enterpoint (uint32), maxM, maxM0, M, mult, ef_construction
_LINK_BYTES = 4


class LevelZeroUnreadable(ValueError):
    """The file is not laid out as this module expects."""


class LevelZero:
    """The vectors and labels of a saved hnswlib index, searchable exactly without its graph."""

    def __init__(self, source: Path | BinaryIO, dim: int, elements: int) -> None:
        """Map `source`: a path, or an open file, which this object then holds (and closes) so
        that `reopen_path` names the same file however the path changes meanwhile."""
        mapped = np.memmap(source, dtype=np.uint8, mode="r")
        self._handle = source if not isinstance(source, (str, Path)) else None
        self.reopen_path = reopenable(self._handle)
        if mapped.size < _HEADER.size:
            raise LevelZeroUnreadable("shorter than its header")
        (offset_level0, _max_elements, count, stride, label_offset, data_offset,
         _max_level, _enter_point, _max_m, max_m0, m, _mult, ef_construction) = _HEADER.unpack_from(mapped.data, 0)
        expected_links = _LINK_BYTES + max_m0 * _LINK_BYTES
        if (offset_level0 != 0 or count != elements or data_offset != expected_links
                or label_offset != data_offset + 4 * dim or stride != label_offset + 8
                or mapped.size < _HEADER.size + count * stride):
            raise LevelZeroUnreadable(f"header says {count} items of {stride} bytes, data at {data_offset}, "
                                      f"label at {label_offset}; expected {elements} of dimension {dim}")
        self.dim = dim
        self.count = count
        self.M = m  # named as hnswlib names it: VectorIndex.params reads either
        self.ef_construction = ef_construction
        self._mapped = mapped
        self._vectors = np.ndarray((count, dim), np.float32, buffer=mapped,
                                   offset=_HEADER.size + data_offset, strides=(stride, 4))
        self._labels = np.ndarray((count,), np.uint64, buffer=mapped,
                                  offset=_HEADER.size + label_offset, strides=(stride,))

    def labels(self) -> np.ndarray:
        """Every stored label (deleted ones too), as int64, in file order."""
        return self._labels.astype(np.int64)

    def search(self, query: np.ndarray, k: int, deleted: set[int]) -> list[tuple[int, float]]:
        """The k items nearest to `query` by cosine, skipping `deleted` labels, best first."""
        if self.count == 0 or k <= 0:
            return []
        norm = float(np.linalg.norm(query))
        unit = (query / norm if norm > 0 else query).astype(np.float32)
        scores = self._vectors @ unit
        wanted = min(self.count, k + len(deleted))
        top = np.argpartition(-scores, wanted - 1)[:wanted] if wanted < self.count else np.arange(self.count)
        top = top[np.argsort(-scores[top], kind="stable")]
        hits = []
        for position in top.tolist():
            label = int(self._labels[position])
            if label in deleted:
                continue
            # As hnswlib reports it: a float32 distance 1 - dot, turned back into a similarity.
            hits.append((label, 1.0 - float(np.float32(1.0) - scores[position])))
            if len(hits) == k:
                break
        return hits

    def close(self) -> None:
        """Let go of the map and the file (the graph replaces them); the arrays must not be used after."""
        mmap = getattr(self._mapped, "_mmap", None)
        del self._vectors, self._labels, self._mapped
        if self._handle is not None:
            self._handle.close()
        if mmap is not None:
            try:
                mmap.close()
            except BufferError:  # a caller still holds a view: the map closes when it is dropped
                pass


def reopenable(handle: BinaryIO | None) -> Path | None:
    """A name that opens the very file `handle` has open, even after another file was renamed
    onto its path (a save in another process): its descriptor under /proc on Linux. None where
    there is no such name (the path is then all there is)."""
    if handle is None:
        return None
    by_descriptor = Path(f"/proc/self/fd/{handle.fileno()}")
    return by_descriptor if by_descriptor.exists() else None
