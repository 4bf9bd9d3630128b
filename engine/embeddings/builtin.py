"""The built-in embedder: hashed character n-grams, no download, no key, no network, pure numpy.

On LoCoMo session retrieval (measured by bench/embedder_choice.py) this lexical vector
beats a small dense model (MiniLM) by a wide margin: chat questions reuse the names and
words of the conversation. Each text becomes its character 3-5-grams
(`hashing.features`), weighted by sublinear term frequency times an optional IDF,
signed-hashed into `dim` buckets and L2-normalised, so a cosine is a TF-IDF overlap score.

Dimension is the main lever: hash collisions add noise of about 1/sqrt(dim) to every
cosine. 1024 is the default: R@5 0.77 (2048: 0.81, 4096: 0.84, 512: 0.72) at 4 KiB per
vector, 410 MB for 100k topics in hnswlib; larger dims cost memory linearly.

IDF (+0.05 R@5) is state: `fit(texts)` returns an embedder with a frozen table whose
fingerprint is part of `model_id`. Refitting is therefore a model change (stored vectors
are re-embedded, which is cheap: ~3,000 topics/s) rather than a silent drift. `state` /
`from_state` persist the table (document frequencies, zlib: ~50-70 KB for 5k English topics).
A table fitted on only ~25 texts still helped (R@5 0.754 vs 0.720 without), and one fitted
on other conversations than those searched kept half the gain (0.742).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from engine.embeddings.base import CancelToken, Embedder, EmbeddingError, EmbedKind, ProgressCallback
from engine.embeddings.hashing import features, normalise
from engine.messages import msg

VERSION = 1  # bump whenever normalisation, hashing or weighting changes the vector a text gets
DEFAULT_DIM = 1024
IDF_BUCKETS = 1 << 18  # document-frequency table: few collisions at chat vocabularies, 1 MiB as uint32
_IDF_SHIFT = np.uint64(40)  # IDF uses other hash bits than the vector bucket (low bits) and the sign (bit 63)
_SIGN_SHIFT = np.uint64(63)
_STEP = 256  # texts between progress reports and cancel checks
_STATE_MAGIC = "flashback-hashgram-idf"


@dataclass(frozen=True, eq=False)
class IdfTable:
    """Document frequencies per hashed-feature bucket, and how many documents they count. Frozen."""

    document_frequency: np.ndarray  # uint32, IDF_BUCKETS long
    documents: int

    @cached_property
    def weights(self) -> np.ndarray:
        """Smoothed IDF (sklearn's smooth_idf): log((1+N)/(1+df)) + 1, never zero or negative."""
        return (np.log((1.0 + self.documents) / (1.0 + self.document_frequency)) + 1.0).astype(np.float32)

    @cached_property
    def fingerprint(self) -> str:
        digest = hashlib.sha256(self.documents.to_bytes(8, "little"))
        digest.update(np.ascontiguousarray(self.document_frequency, dtype="<u4").tobytes())
        return digest.hexdigest()[:8]

    def to_bytes(self) -> bytes:
        header = json.dumps({"format": _STATE_MAGIC, "version": VERSION, "buckets": IDF_BUCKETS,
                             "documents": self.documents}).encode()
        return header + b"\n" + zlib.compress(np.ascontiguousarray(self.document_frequency, dtype="<u4").tobytes(), 6)

    @classmethod
    def from_bytes(cls, data: bytes) -> IdfTable:
        damaged = EmbeddingError(msg("embeddings.builtin_state_damaged"))
        try:
            header_line, _, payload = bytes(data).partition(b"\n")
            header = json.loads(header_line)
            counts = np.frombuffer(zlib.decompress(payload), dtype="<u4").astype(np.uint32)
        except (ValueError, zlib.error) as exc:
            raise damaged from exc
        if (not isinstance(header, dict) or header.get("format") != _STATE_MAGIC or header.get("version") != VERSION
                or header.get("buckets") != IDF_BUCKETS or counts.shape != (IDF_BUCKETS,)):
            raise damaged
        documents = header.get("documents")
        if not isinstance(documents, int) or documents < 0 or (documents < counts.max(initial=0)):
            raise damaged
        return cls(counts, documents)


def idf_buckets(keys: np.ndarray) -> np.ndarray:
    return ((keys >> _IDF_SHIFT) % np.uint64(IDF_BUCKETS)).astype(np.intp)


class BuiltinEmbedder(Embedder):
    """Hashed character n-gram vectors; see the module docstring for the measured choices."""

    # Consolidation's bar was set for this embedder (neighbouring topics: median cosine 0.14
    # on the demo, 0.31 on LoCoMo); naming it keeps engine.topics.merge_scale from re-measuring.
    consolidation_threshold = 0.8
    needs_fit = True  # the IDF table is fitted on the store's topics (engine.memory.build)
    # Raw-cosine anchors until a store is big enough to measure its own (engine.memory.calibration):
    # what the probes measure on small stores, the demo's chats one to three at a time (23-60
    # topics): unrelated p90 0.062-0.088 (median 0.072), related median 0.34-0.59 (median 0.38).
    # Passing raw cosines through scored a two-line store's own answer 0.24 (issue 23).
    default_anchors = (0.07, 0.38)
    # Its hashed dimensions are independent, so a fold (summing every 256th bucket) is the same
    # text hashed into 256 buckets: the index's sketch, whose 1,000 nearest items the stored
    # vectors score; those are int8 (a quarter of float32's bytes). Recall@50 of the pair against
    # exact float32 search: 0.985 (today's 1,024-dimension index: 0.995), LoCoMo dev unchanged;
    # the index is ~4× smaller and ~7× faster to build (docs/benchmarks.md, issue 26).
    sketch_dim = 256
    stored_as = "int8"
    cache_vectors = False  # the vectors beside the index are the only copy: no `embedding_cache` rows

    @property
    def fitted(self) -> bool:
        return self.idf is not None

    def __init__(self, dim: int = DEFAULT_DIM, idf: IdfTable | None = None) -> None:
        if dim < 16:
            raise ValueError("dim must be at least 16")
        self.dim = dim
        self.idf = idf
        self.model_id = f"builtin:hashgram-v{VERSION}-d{dim}" + (f"-idf{idf.fingerprint}" if idf else "")

    # ---- state ----

    def fit(self, texts: Iterable[str], on_progress: ProgressCallback | None = None,
            cancel: CancelToken | None = None, population: int | None = None) -> BuiltinEmbedder:
        """A new embedder of the same dim with IDF frozen from `texts` (hence a new `model_id`).

        Fit on the texts that will be stored (all topic embedding texts); a table fitted on
        a few dozen texts still helps (measured), an empty fit gives plain tf weighting.
        `population`: `texts` are an even sample of this many documents (a big store's fit
        reads a sample, engine.memory.embedder_state): the frequencies are scaled up to it.
        """
        total = len(texts) if isinstance(texts, Sequence) else 0  # 0: an iterator of unknown length
        df = np.zeros(IDF_BUCKETS, dtype=np.uint32)
        documents = 0
        for documents, text in enumerate(texts, start=1):
            # A repeated index is incremented once: each bucket counts a document once, no sort needed.
            df[idf_buckets(self.feature_keys(text))] += 1
            if documents % _STEP == 0:
                if on_progress is not None:
                    on_progress(documents, total)
                if cancel is not None:
                    cancel.raise_if_cancelled()
        if on_progress is not None:
            on_progress(documents, total or documents)
        if not documents:
            return type(self)(self.dim, None)
        if population is not None and population > documents:
            df = np.minimum(np.rint(df * (population / documents)), population).astype(np.uint32)
            documents = population
        return type(self)(self.dim, IdfTable(df, documents))

    @property
    def state(self) -> bytes | None:
        """What `from_state` needs to rebuild this embedder's weighting (None: nothing fitted)."""
        return self.idf.to_bytes() if self.idf is not None else None

    @classmethod
    def from_state(cls, state: bytes | None, dim: int = DEFAULT_DIM) -> BuiltinEmbedder:
        return cls(dim, IdfTable.from_bytes(state) if state else None)

    # ---- embedding ----

    def feature_keys(self, text: str) -> np.ndarray:
        """The distinct feature hashes of `text` (what `fit` counts)."""
        return features(normalise(text))[0]

    def weighted_features(self, text: str, kind: EmbedKind = "document") -> tuple[np.ndarray, np.ndarray]:
        """Feature hashes of `text` and their weights: sublinear tf (1 + ln count) times IDF.

        `kind` does not change anything here (the weighting is symmetric, which measured
        best); it is passed so a variant can weigh queries differently.
        """
        keys, counts = features(normalise(text))
        weights = 1.0 + np.log(counts)
        if self.idf is not None:
            weights *= self.idf.weights[idf_buckets(keys)]
        return keys, weights

    def embed_one(self, text: str, kind: EmbedKind = "document") -> np.ndarray:
        keys, weights = self.weighted_features(text, kind)
        signs = 1.0 - 2.0 * (keys >> _SIGN_SHIFT).astype(np.float64)  # signed hashing: collisions cancel on average
        vector: np.ndarray = np.bincount((keys % np.uint64(self.dim)).astype(np.intp), weights=signs * weights,
                                         minlength=self.dim)
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:  # no features ("", punctuation only): a fixed unit vector keeps rows valid
            vector = np.zeros(self.dim)
            vector[0] = 1.0
            norm = 1.0
        return (vector / norm).astype(np.float32)

    def embed(self, texts: Sequence[str], kind: EmbedKind = "document",
              on_progress: ProgressCallback | None = None,
              cancel: CancelToken | None = None) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), _STEP):
            if cancel is not None:
                cancel.raise_if_cancelled()
            for i in range(start, min(start + _STEP, len(texts))):
                out[i] = self.embed_one(texts[i], kind)
            if on_progress is not None:
                on_progress(min(start + _STEP, len(texts)), len(texts))
        return out
