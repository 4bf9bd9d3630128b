"""Approximate nearest-neighbour search over embedding vectors (hnswlib, cosine space).

Labels are `vector_item` ids, so a hit maps straight back to its row. hnswlib documents
`add_items` as unsafe next to `knn_query`, and `resize_index` as unsafe next to both, so one
lock serialises every call into it; searches take well under a millisecond, and long adds
are fed in chunks so a search waits for at most one chunk. hnswlib keeps deleted items in
its counts, so the set of deleted labels is mirrored here (and saved in the sidecar).
"""

from __future__ import annotations

import glob
import logging
import os
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import hnswlib
import numpy as np

from engine.index.level_zero import LevelZero, LevelZeroUnreadable, reopenable
from engine.index.sidecar import (
    IndexMeta,
    IndexUnusable,
    Sidecar,
    check_against,
    check_binary,
    file_crc32,
    file_identity,
    read_sidecar,
    sidecar_json,
    sidecar_path,
)
from engine.index.vector_file import VectorFile, VectorFileDamaged
from engine.messages import msg

__all__ = ["IndexMeta", "IndexUnusable", "InvalidVector", "VectorIndex", "full_path", "saved_full_vectors"]


class InvalidVector(ValueError):
    """A vector with NaN or infinite values: never added (hnswlib would keep it silently)."""

SPACE = "cosine"
_ADD_CHUNK = 2048  # rows per lock hold during add: ~0.5 s of graph building at 100k × 384
_LOAD_HEADROOM = 1024  # room for a few additions after a load before the first resize
_MAX_LABEL = 2**63 - 1  # labels are SQLite integer ids; hnswlib stores them as uint64
# How recent a write makes a disagreeing pair a save in flight rather than a crash's leftover;
# also how long a reader waits for that save's second rename.
SAVE_SETTLE_S = 5.0

log = logging.getLogger(__name__)


class VectorIndex:
    """An hnswlib index of L2-normalisable float32 vectors keyed by integer labels.

    A loaded index answers its first search exactly from the saved file's vectors
    (engine.index.level_zero) and builds hnswlib's graph at the second search, or at once
    through `load_graph`, or for anything that changes or reads it whole (issue 26).
    """

    def __init__(self, hnsw: hnswlib.Index | None, *, ef_search: int, deleted: Iterable[int] = (),
                 saved: tuple[Path, LevelZero] | None = None) -> None:
        """Wrap an initialised hnswlib index, or a saved file not loaded yet (`saved`: its path and
        vectors); use `create` or `load` rather than calling this."""
        if hnsw is None and saved is None:
            raise ValueError("an index needs its graph or its saved file")
        self._hnsw = hnsw
        self._saved = saved
        self._scanned = False
        # Beside an index of sketches: the full vectors its candidates are scored with (saved and
        # loaded with it, paired by the sidecar like the binary; engine.index.vector_file).
        self.full: VectorFile | None = None
        self._deleted: set[int] = set(deleted)
        self._lock = threading.Lock()
        self._ef_search = ef_search
        if hnsw is not None:
            hnsw.set_ef(ef_search)  # hnswlib's default ef is 10: far too low for k = 50

    @classmethod
    def create(cls, dim: int, capacity: int = 1024, m: int = 16, ef_construction: int = 200,
               ef_search: int = 128) -> VectorIndex:
        if dim < 1 or m < 2 or ef_construction < 1 or ef_search < 1:
            raise ValueError(f"invalid index parameters: dim={dim}, M={m}, ef_construction={ef_construction}, "
                             f"ef_search={ef_search}")
        hnsw = hnswlib.Index(space=SPACE, dim=dim)
        hnsw.init_index(max_elements=max(capacity, 1), M=m, ef_construction=ef_construction)
        return cls(hnsw, ef_search=ef_search)

    @classmethod
    def load(cls, path: Path, expected: IndexMeta, *, current: bool = True, full_check: bool = False) -> VectorIndex:
        """Load a saved index; raises IndexUnusable unless it matches `expected` in every respect.

        The cheap checks (sidecar, model, dimension, store checksum, count) run before the
        binary is read; the binary must then be the one the sidecar describes (its identity as
        saved, else its CRC; `full_check`: always its CRC, see `sidecar.check_binary`).
        `current=False` skips the store checksum and count (see `check_against`).

        A save in another process renames the binary, then the sidecar: a reader between the
        two renames sees a pair that disagrees (issue 35's soak: an MCP search met "corrupt"
        while `flashback build` saved). While the save's temp file is beside it (written in
        the last `SAVE_SETTLE_S`), or when its sidecar changed as it was read, a pair that
        cannot be used is read again until it can; a damaged pair, or a crash's leftover, is
        refused at once.
        """
        path = Path(path)
        deadline = time.monotonic() + SAVE_SETTLE_S
        pause = 0.01
        while True:
            sidecar_seen = _stat_identity(sidecar_path(path))
            try:
                return cls._load_pair(path, expected, current=current, full_check=full_check)
            except IndexUnusable as unusable:
                if time.monotonic() > deadline or not _save_in_flight(path, sidecar_seen):
                    raise
                log.info("%s is being saved (%s): reading it again", path.name, unusable.reason)
            time.sleep(pause)  # the writer's second rename is microseconds away, seconds on a starved machine
            pause = min(pause * 2, 0.2)

    @classmethod
    def _load_pair(cls, path: Path, expected: IndexMeta, *, current: bool, full_check: bool) -> VectorIndex:
        """One reading of the sidecar and the files it pairs (`load`)."""
        sidecar = read_sidecar(path)
        check_against(path, sidecar.meta, expected, store=current)
        params = sidecar.meta.params
        if params.get("space") != SPACE:
            raise IndexUnusable(path, msg("index.corrupt.space", found=repr(params.get("space")), expected=repr(SPACE)))
        ef_search = params.get("ef_search")
        if not isinstance(ef_search, int) or ef_search < 1:
            raise IndexUnusable(path, msg("index.corrupt.ef_search"))
        live = sidecar.elements - len(sidecar.deleted)  # the file holds `elements` (checked as it is read)
        if live != sidecar.meta.count:
            raise IndexUnusable(path, msg("index.corrupt.count", items=sidecar.elements, live=live,
                                          expected_items=sidecar.elements, expected_live=sidecar.meta.count))
        # One open file from the check to the graph's read: a save in another process may put
        # another binary at `path` in between, and this index must stay the one it checked.
        try:
            handle = open(path, "rb")  # noqa: SIM115 - held by LevelZero until the graph is read
        except OSError as exc:
            raise IndexUnusable(path, msg("index.missing")) from exc
        try:
            check_binary(path, sidecar, handle, full=full_check)
        except BaseException:
            handle.close()
            raise
        try:
            saved = LevelZero(handle, sidecar.meta.dim, sidecar.elements)
        except (LevelZeroUnreadable, OSError, ValueError):
            saved = None  # not the layout read in place: hnswlib reads it (and says what is wrong)
        if saved is not None:
            index = cls(None, ef_search=ef_search, deleted=sidecar.deleted, saved=(path, saved))
        else:
            with handle:
                index = cls(_read_graph(reopenable(handle) or path, sidecar.meta.dim, sidecar.elements,
                                        len(sidecar.deleted)), ef_search=ef_search, deleted=sidecar.deleted)
        if isinstance(params.get("vectors"), dict):
            index.full = _open_full(path, params["vectors"], full_check)
        return index

    # -- what it holds ---------------------------------------------------------------------

    @property
    def dim(self) -> int:
        return self._hnsw.dim if self._hnsw is not None else self._saved_vectors().dim

    @property
    def capacity(self) -> int:
        with self._lock:
            return self._graph().get_max_elements()

    @property
    def params(self) -> dict:
        """Build and search parameters, as written to the sidecar."""
        built = self._hnsw if self._hnsw is not None else self._saved_vectors()
        return {"M": built.M, "ef_construction": built.ef_construction, "ef_search": self._ef_search, "space": SPACE}

    @property
    def graph_loaded(self) -> bool:
        return self._hnsw is not None

    def load_graph(self) -> None:
        """Build hnswlib's graph now (the window's warm-up), not at the second search."""
        with self._lock:
            self._graph()

    @property
    def deleted_count(self) -> int:
        """Items marked deleted that still take room in the graph and the file."""
        with self._lock:
            return len(self._deleted)

    @property
    def live_count(self) -> int:
        """Items a search can return (added and not deleted)."""
        with self._lock:
            return self._live_count()

    def vectors_of(self, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(which of `labels` are live items here, their stored unit-length vectors in that
        order): the only copy of a vector the built-in embedder makes (issue 26)."""
        labels = _as_labels(labels)
        with self._lock:
            held = np.ones(len(labels), dtype=bool)
            if self._deleted:
                held &= ~np.isin(labels, np.fromiter(self._deleted, np.int64, len(self._deleted)))
            if not held.any():
                return held, np.zeros((0, self.dim), np.float32)
            hnsw = self._graph()
            try:
                found = hnsw.get_items(labels[held], return_type="numpy")
            except RuntimeError:  # some label was never added: find which, then read the others
                held &= np.isin(labels, np.asarray(hnsw.get_ids_list(), dtype=np.int64))
                found = hnsw.get_items(labels[held], return_type="numpy") if held.any() else []
        return held, np.asarray(found, dtype=np.float32).reshape(int(held.sum()), self.dim)

    def labels(self) -> np.ndarray:
        """Live labels, ascending (int64)."""
        with self._lock:
            if self._hnsw is None:
                stored = self._saved_vectors().labels()
            else:
                stored = np.asarray(self._hnsw.get_ids_list(), dtype=np.int64)
            deleted = np.fromiter(self._deleted, dtype=np.int64, count=len(self._deleted))
        return np.sort(stored[~np.isin(stored, deleted)])

    # -- changes -----------------------------------------------------------------------------

    def add(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        """Add or replace vectors (hnswlib normalises them); grows the capacity as needed.

        Re-adding a deleted label brings it back with the new vector.
        """
        labels = _as_labels(labels)
        vectors = self._as_vectors(vectors)
        if len(labels) != len(vectors):
            raise ValueError(f"{len(labels)} labels for {len(vectors)} vectors")
        for start in range(0, len(labels), _ADD_CHUNK):
            chunk_labels = labels[start:start + _ADD_CHUNK]
            with self._lock:
                self._reserve(len(chunk_labels))
                self._graph().add_items(vectors[start:start + _ADD_CHUNK], chunk_labels)
                self._deleted.difference_update(chunk_labels.tolist())

    def reserve(self, extra: int) -> None:
        """Room for `extra` more items at once: a build that knows roughly how many it will add
        grows the index once instead of by half again and again (each growth briefly holds the
        old graph and the new one: issue 26's peak memory)."""
        with self._lock:
            hnsw = self._graph()
            needed = hnsw.element_count + extra
            if needed > hnsw.get_max_elements():
                hnsw.resize_index(needed)

    def mark_deleted(self, labels: Iterable[int] | np.ndarray | int) -> None:
        """Hide items from searches; labels not in the index, or already deleted, are ignored."""
        with self._lock:
            for label in _as_labels(labels).tolist():
                if label in self._deleted:
                    continue  # hnswlib raises on a second delete
                try:
                    self._graph().mark_deleted(label)
                except RuntimeError:
                    continue  # "Label not found": nothing to hide
                self._deleted.add(label)

    def set_ef(self, ef_search: int) -> None:
        """Search breadth: higher finds more of the true neighbours, slower (used as max(ef, k))."""
        if ef_search < 1:
            raise ValueError(f"ef_search must be positive, not {ef_search}")
        with self._lock:
            if self._hnsw is not None:
                self._hnsw.set_ef(ef_search)
            self._ef_search = ef_search

    # -- search ------------------------------------------------------------------------------

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k nearest live items as (label, cosine similarity), best first; fewer when fewer exist."""
        queries = self._as_vectors(vector)
        if len(queries) != 1:
            raise ValueError(f"search takes one vector, not {len(queries)}; use search_many")
        return self.search_many(queries, k)[0]

    def search_many(self, vectors: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """`search` for each row of `vectors`, in one hnswlib call where possible."""
        queries = self._as_vectors(vectors)
        with self._lock:
            k = min(k, self._live_count())
            if k <= 0 or len(queries) == 0:
                return [[] for _ in range(len(queries))]
            if self._hnsw is None and not self._scanned:
                # The first search of a loaded index reads the saved vectors in place: exact, and
                # no graph to build for a process that searches once (the class docstring).
                self._scanned = True
                return [self._saved_vectors().search(query, k, self._deleted) for query in queries]
            hnsw = self._graph()
            try:
                found = [hnsw.knn_query(queries, k=k)]
            except RuntimeError:
                # Some query reached fewer than k live items (deletions can cut the graph
                # apart): search row by row so only that query gets fewer results.
                found = [self._knn_as_many_as_found(query[None, :], k) for query in queries]
        results = []
        for labels, distances in found:
            for row_labels, row_distances in zip(labels, distances, strict=True):
                results.append([(int(label), 1.0 - float(distance))
                                for label, distance in zip(row_labels, row_distances, strict=True)])
        return results

    def _knn_as_many_as_found(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        while k > 0:
            try:
                return self._graph().knn_query(query, k=k)
            except RuntimeError:
                k -= max(1, k // 4)
        return np.empty((1, 0), np.uint64), np.empty((1, 0), np.float32)

    # -- persistence ---------------------------------------------------------------------------

    def save(self, path: Path, meta: IndexMeta) -> None:
        """Write the index and its sidecar atomically: temp files beside `path`, then two renames.

        `meta` must describe this index (its dim and live count); its model id and store
        checksum are what a later `load` compares against. Extra `meta.params` are kept.
        """
        path = Path(path)
        with self._lock:
            live = self._live_count()
            if meta.dim != self.dim or meta.count != live:
                raise ValueError(f"meta says dim {meta.dim} and {meta.count} items; the index has dim "
                                 f"{self.dim} and {live} live items")
            hnsw = self._graph()
            params = {**meta.params, **self.params}
            # Private like the data folder; the temp files (mkstemp) are already 0600 and keep that mode.
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _remove_leftover_temps(path)
            _remove_leftover_temps(full_path(path))
            if self.full is not None:  # renamed before the sidecar, which pairs it: see _save_full
                params["vectors"] = _save_full(self.full, path, hnsw.get_ids_list(), self._deleted)
            record = IndexMeta(model_id=meta.model_id, dim=meta.dim, count=live, params=params,
                               store_checksum=meta.store_checksum)
            binary_tmp = _temp_beside(path)
            sidecar_tmp = _temp_beside(path)
            try:
                hnsw.save_index(str(binary_tmp))
                _fsync_file(binary_tmp)
                sidecar = Sidecar(meta=record, elements=hnsw.element_count, deleted=frozenset(self._deleted),
                                  binary_bytes=binary_tmp.stat().st_size, binary_crc32=file_crc32(binary_tmp),
                                  saved_at=time.time(), binary_identity=file_identity(binary_tmp))
                sidecar_tmp.write_text(sidecar_json(sidecar), encoding="utf-8")
                _fsync_file(sidecar_tmp)
                # Binary first: a crash between the renames leaves a pair whose CRCs disagree,
                # which `load` reports as corrupt instead of trusting.
                os.replace(binary_tmp, path)
                os.replace(sidecar_tmp, sidecar_path(path))
            except BaseException:
                binary_tmp.unlink(missing_ok=True)
                sidecar_tmp.unlink(missing_ok=True)
                raise
        _fsync_dir(path.parent)

    # -- helpers (the caller holds the lock where it matters) --------------------------------------

    def _live_count(self) -> int:
        stored = self._hnsw.element_count if self._hnsw is not None else self._saved_vectors().count
        return stored - len(self._deleted)

    def _saved_vectors(self) -> LevelZero:
        """The saved file's vectors, read while the graph is not (`self._hnsw` is None)."""
        # One of the two is always set: __init__ refuses neither, `_graph` drops `_saved` only
        # once `_hnsw` is read.
        assert self._saved is not None
        return self._saved[1]

    def _graph(self) -> hnswlib.Index:
        """hnswlib's index, read from the saved file the first time it is needed."""
        if self._hnsw is None:
            assert self._saved is not None  # the graph is not read: the saved file is held (above)
            path, saved = self._saved
            self._hnsw = _read_graph(saved.reopen_path or path, saved.dim, saved.count, len(self._deleted))
            saved.close()
            self._hnsw.set_ef(self._ef_search)
            self._saved = None
        return self._hnsw

    def _reserve(self, extra: int) -> None:
        hnsw = self._graph()
        needed = hnsw.element_count + extra  # replaced labels need no room: an overestimate
        capacity = hnsw.get_max_elements()
        if needed > capacity:
            # Grow by half: amortised O(1) resizes without doubling a 100k-item index's memory.
            hnsw.resize_index(max(needed, capacity + capacity // 2))

    def _as_vectors(self, vectors: np.ndarray) -> np.ndarray:
        array = np.asarray(vectors, dtype=np.float32)
        if array.ndim == 1:
            array = array[None, :]
        if array.ndim != 2 or array.shape[1] != self.dim:
            raise ValueError(f"expected vectors of dimension {self.dim}, got shape {np.shape(vectors)}")
        if not np.isfinite(array).all():
            raise InvalidVector("vectors contain NaN or infinity")
        return np.ascontiguousarray(array)


def _read_graph(path: Path, dim: int, elements: int, deleted: int) -> hnswlib.Index:
    """hnswlib's whole index from `path`, which must hold the `elements` items its sidecar counts
    (`deleted` of them hidden: for the message only)."""
    hnsw = hnswlib.Index(space=SPACE, dim=dim)
    try:
        hnsw.load_index(str(path), max_elements=elements + _LOAD_HEADROOM)
    except (RuntimeError, MemoryError, ValueError) as exc:
        raise IndexUnusable(path, msg("index.corrupt.unreadable", error=str(exc))) from exc
    if hnsw.element_count != elements:
        raise IndexUnusable(path, msg("index.corrupt.count", items=hnsw.element_count,
                                      live=hnsw.element_count - deleted, expected_items=elements,
                                      expected_live=elements - deleted))
    return hnsw


def full_path(index_path: Path) -> Path:
    """Where an index's full vectors live: topics.hnsw → topics.vec."""
    return Path(index_path).with_suffix(".vec")


def _save_full(full: VectorFile, index_path: Path, stored: list[int], deleted: set[int]) -> dict:
    """Write the live items' full vectors beside the index: a temp file, fsync, rename. The
    sidecar, written after, records its size, CRC and identity; a crash before the sidecar's
    rename leaves the old sidecar, which does not describe this file: the pair reads as corrupt."""
    target = full_path(index_path)
    live = np.setdiff1d(np.asarray(stored, dtype=np.int64), np.fromiter(deleted, np.int64, len(deleted)))
    temp = _temp_beside(target)
    try:
        full.save(temp, keep=live)
        _fsync_file(temp)
        record = {"bytes": temp.stat().st_size, "crc32": file_crc32(temp), "identity": list(file_identity(temp))}
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return record


def saved_full_vectors(index_path: Path, model_id: str) -> VectorFile | None:
    """The full vectors saved beside an index of `model_id`, whatever store state it was saved
    for (a rebuild takes from them what it can), or None."""
    try:
        sidecar = read_sidecar(index_path)
    except IndexUnusable:
        return None
    record = sidecar.meta.params.get("vectors")
    if sidecar.meta.model_id != model_id or not isinstance(record, dict):
        return None
    try:
        return _open_full(index_path, record, False)
    except IndexUnusable:
        return None


def _open_full(index_path: Path, record: dict, full_check: bool) -> VectorFile:
    """The index's full vectors, checked against what its sidecar says as the binary is."""
    target = full_path(index_path)
    try:
        size = target.stat().st_size
        if size != record.get("bytes"):
            raise VectorFileDamaged(msg("index.vectors.size", size=size, expected=record.get("bytes")))
        same = not full_check and record.get("identity") == list(file_identity(target))
        if not same and file_crc32(target) != record.get("crc32"):
            raise VectorFileDamaged(msg("index.vectors.checksum"))
        return VectorFile.open(target)
    except VectorFileDamaged as damaged:
        raise IndexUnusable(index_path, msg("index.corrupt.vectors", problem=damaged.problem)) from damaged
    except OSError as exc:
        raise IndexUnusable(index_path, msg("index.corrupt.vectors", problem=msg("index.vectors.unreadable",
                                                                                 error=str(exc)))) from exc


def _as_labels(labels: Iterable[int] | np.ndarray | int) -> np.ndarray:
    if isinstance(labels, (int, np.integer)):
        labels = [labels]
    array = labels if isinstance(labels, np.ndarray) else np.asarray(list(labels))
    if array.size == 0:
        return np.empty(0, dtype=np.int64)
    if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"labels must be a flat sequence of integers, got {array.dtype} of shape {array.shape}")
    if int(array.min()) < 0 or int(array.max()) > _MAX_LABEL:
        raise ValueError("labels must be non-negative 64-bit ids")
    return array.astype(np.int64, copy=False)


def _stat_identity(path: Path) -> tuple[int, int] | None:
    try:
        return file_identity(path)
    except OSError:
        return None


def _save_in_flight(path: Path, sidecar_seen: tuple[int, int] | None) -> bool:
    """Whether the pair at `path` is being replaced: its sidecar changed since `sidecar_seen`, or
    a save's temp file beside it was written in the last `SAVE_SETTLE_S` (between its two
    renames the sidecar's temp is still there; a crash's leftover is older)."""
    if _stat_identity(sidecar_path(path)) != sidecar_seen:
        return True
    recent = time.time_ns() - SAVE_SETTLE_S * 1e9
    temps = path.parent.glob(glob.escape(f".{path.name}.") + "*.tmp")
    return any(identity[1] > recent for identity in map(_stat_identity, temps) if identity)


def _temp_beside(path: Path) -> Path:
    # Same folder as the target, so os.replace is a rename on one file system.
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    return Path(name)


def _remove_leftover_temps(path: Path) -> None:
    # A save killed mid-way leaves a temp copy as large as the index.
    for leftover in path.parent.glob(glob.escape(f".{path.name}.") + "*.tmp"):
        leftover.unlink(missing_ok=True)


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(folder: Path) -> None:
    # Makes the renames durable on POSIX; Windows cannot open a folder, and NTFS journals renames.
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
