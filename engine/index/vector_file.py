"""The full vectors beside a sketch index: one flat file, read through a memory map.

A sketch index (engine.memory.indexes) finds candidates by a short sketch of each vector;
the candidates are then scored with their full vectors, which live here: int8 with a float32
scale per row (or float16), ordered by label. Nothing is read when the file is opened: a
search touches the rows of its ~1,000 candidates and the labels' pages a binary search
visits, so a first search on a big store does not wait to read every vector (issue 26).

Layout, little-endian: a 32-byte header (magic, version, dim, rows, format), the labels
(int64, ascending), the scales (float32, int8 only), the rows (int8 or float16). A build
holds the vectors in memory as it adds them and writes the file whole beside the index's
binary (the same temp-file-then-rename as the index; the sidecar pairs them, engine.index.sidecar).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np

from engine.messages import Message, msg

MAGIC = b"FBVEC\0\0\1"
_HEADER = struct.Struct("<8sIIQI4x")  # magic, version, dim, rows, format (0 int8 + scale, 1 float16)
VERSION = 1
FORMATS = {"int8": 0, "float16": 1}
_WRITE_ROWS = 20_000


class VectorFileDamaged(ValueError):
    """The file is not what its header says (truncated, another format); `problem` says how, as a
    code (`index.vectors.*`) a face renders in its language."""

    def __init__(self, problem: Message) -> None:
        super().__init__(str(problem))
        self.problem = problem


def encode(vectors: np.ndarray, stored_as: str) -> tuple[np.ndarray, np.ndarray]:
    """(scales, rows) of unit vectors as stored: int8 with max|x|/127 per row, or float16 (no scales)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if stored_as == "float16":
        return np.zeros(0, np.float32), vectors.astype(np.float16)
    scales = np.maximum(np.abs(vectors).max(axis=1, initial=0.0), 1e-12).astype(np.float32) / np.float32(127)
    return scales, np.round(vectors / scales[:, None]).astype(np.int8)


def decode(scales: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
    if rows.dtype == np.float16:
        return rows.astype(np.float32)
    return rows.astype(np.float32) * np.asarray(scales, dtype=np.float32)[:, None]


class VectorFile:
    """Full vectors by label: a memory-mapped file, plus what a build added since it was read."""

    def __init__(self, dim: int, stored_as: str) -> None:
        self.dim = dim
        self.stored_as = stored_as
        # (labels, their ascending order or None when already ascending, scales or None, rows)
        self._parts: list[tuple[np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray]] = []

    # -- reading -----------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, mapped: bool = os.name != "nt") -> VectorFile:
        """Map a saved file (nothing is read but its header). On Windows a mapped file cannot be
        replaced, which the next build must do (from another process too): it is read whole."""
        # One open file for the header, the size and every part: a build in another process may
        # rename a new file onto `path` meanwhile (the MCP soak: a part mapped from the newer,
        # shorter file, "mmap length is greater than file size"). Maps outlive the handle.
        try:
            with open(path, "rb") as handle:
                return cls._read(handle, mapped)
        except VectorFileDamaged:
            raise
        except (OSError, struct.error, ValueError) as exc:
            raise VectorFileDamaged(msg("index.vectors.unreadable", error=str(exc))) from exc

    @classmethod
    def _read(cls, handle: BinaryIO, mapped: bool) -> VectorFile:
        magic, version, dim, count, kind = _HEADER.unpack(handle.read(_HEADER.size))
        size = os.fstat(handle.fileno()).st_size
        stored_as = {v: k for k, v in FORMATS.items()}.get(kind)
        width = {"int8": dim, "float16": 2 * dim}.get(stored_as or "", 0)
        scale_bytes = 4 if stored_as == "int8" else 0
        if magic != MAGIC or version != VERSION or stored_as is None or \
                size != _HEADER.size + count * (8 + scale_bytes + width):
            raise VectorFileDamaged(msg("index.vectors.format"))
        opened = cls(dim, stored_as)
        if count:
            offset = _HEADER.size
            def part(dtype, start: int, shape: tuple[int, ...]) -> np.ndarray:
                if mapped:  # a plain array over the map: indexing it skips np.memmap's per-call bookkeeping
                    return np.memmap(handle, dtype, "r", start, shape).view(np.ndarray)
                handle.seek(start)
                return np.fromfile(handle, dtype, int(np.prod(shape))).reshape(shape)

            labels = part(np.int64, offset, (count,))
            offset += 8 * count
            scales = part(np.float32, offset, (count,)) if scale_bytes else None
            offset += scale_bytes * count
            rows = part(np.int8 if stored_as == "int8" else np.float16, offset, (count, dim))
            opened._parts.append((labels, None, scales, rows))
        return opened

    def __len__(self) -> int:
        return sum(len(part[0]) for part in self._parts)

    def vectors_of(self, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(which of `labels` are here, their vectors as float32 in that order)."""
        labels = np.asarray(labels, dtype=np.int64)
        held = np.zeros(len(labels), dtype=bool)
        out = np.zeros((len(labels), self.dim), np.float32)
        for known, order, scales, rows in reversed(self._parts):  # the newest row of a label wins
            ascending_known = known if order is None else known[order]
            at = np.minimum(np.searchsorted(ascending_known, labels), len(known) - 1)
            found = (np.asarray(ascending_known[at]) == labels) & ~held
            if not found.any():
                continue
            where = at[found] if order is None else order[at[found]]
            forward = np.argsort(where, kind="stable")  # ascending offsets: the map is read forward
            vectors = np.empty((len(where), self.dim), np.float32)
            vectors[forward] = decode(None if scales is None else np.asarray(scales[where[forward]]),
                                      np.asarray(rows[where[forward]]))
            out[found] = vectors
            held |= found
        return held, out[held]

    def scores_of(self, labels: np.ndarray, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(which of `labels` are here, their cosines with the unit `query` in that order): what a
        search needs of a thousand candidates, without making their float32 vectors. The int8
        rows are widened and multiplied by the query in one pass (einsum: a BLAS matrix-vector
        product this small spent more time starting its threads than computing, 2.3 ms against
        0.4), then each by its scale."""
        labels = np.asarray(labels, dtype=np.int64)
        query = np.asarray(query, dtype=np.float32)
        held = np.zeros(len(labels), dtype=bool)
        scores = np.zeros(len(labels), np.float32)
        for known, order, scales, rows in reversed(self._parts):  # the newest row of a label wins
            ascending_known = known if order is None else known[order]
            at = np.minimum(np.searchsorted(ascending_known, labels), len(known) - 1)
            found = (np.asarray(ascending_known[at]) == labels) & ~held
            if not found.any():
                continue
            where = at[found] if order is None else order[at[found]]
            part = np.einsum("ij,j->i", np.asarray(rows[where]).astype(np.float32), query)
            scores[found] = part * np.asarray(scales[where]) if scales is not None else part
            held |= found
        return held, scores[held]

    # -- a build -----------------------------------------------------------------------------

    def add(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        """Keep these rows (unit vectors) in memory until `save`."""
        labels = np.asarray(labels, dtype=np.int64).copy()
        if not len(labels):
            return
        scales, rows = encode(vectors, self.stored_as)
        order = None if np.all(np.diff(labels) > 0) else np.argsort(labels, kind="stable")
        self._parts.append((labels, order, scales if self.stored_as == "int8" else None, rows))

    def save(self, path: Path, keep: np.ndarray | None = None) -> None:
        """Write the rows (of the `keep` labels only, when given) to `path`, ascending by label.
        The rows are copied `_WRITE_ROWS` at a time: a 1M-message store's 290 MB of rows are
        not held twice more beside the index (concatenated, then reordered: 1.9 GB at peak)."""
        lengths = [len(p[0]) for p in self._parts]
        labels = np.concatenate([np.asarray(p[0]) for p in self._parts]) if self._parts else np.zeros(0, np.int64)
        # The newest row of a label wins (parts are in the order they came), then ascending order.
        newest = np.zeros(len(labels), dtype=bool)
        newest[len(labels) - 1 - np.unique(labels[::-1], return_index=True)[1]] = True
        chosen = newest if keep is None else newest & np.isin(labels, keep)
        picked = np.flatnonzero(chosen)
        picked = picked[np.argsort(labels[picked], kind="stable")]
        starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        part_of = np.searchsorted(starts, picked, side="right") - 1  # which part each picked row is in

        def gathered(column: int, start: int, stop: int) -> np.ndarray:
            """Rows `picked[start:stop]` of one column (3: the rows, 2: the scales), in order."""
            chunk, parts = picked[start:stop], part_of[start:stop]
            first = self._parts[0][column] if self._parts else None
            # Called only for picked rows, so a part exists; column 2 (the scales) only when
            # stored as int8, where every part has its scales.
            assert first is not None
            out = np.empty((len(chunk), *np.shape(first)[1:]), dtype=np.asarray(first[:0]).dtype)
            for part in np.unique(parts):
                mine = parts == part
                out[mine] = np.asarray(self._parts[part][column])[chunk[mine] - starts[part]]
            return out

        with open(path, "wb") as handle:
            handle.write(_HEADER.pack(MAGIC, VERSION, self.dim, len(picked), FORMATS[self.stored_as]))
            handle.write(np.ascontiguousarray(labels[picked], "<i8").tobytes())
            columns = (2, 3) if self.stored_as == "int8" else (3,)
            for column in columns:
                for start in range(0, len(picked), _WRITE_ROWS):
                    rows = gathered(column, start, start + _WRITE_ROWS)
                    handle.write(np.ascontiguousarray(rows, "<f4" if column == 2 else None).tobytes())
