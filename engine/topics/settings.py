"""Tunable numbers of topic building and consolidation (seed 004's `rag.*` settings)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.messages import msg
from engine.topics.errors import TopicsError


@dataclass(frozen=True, slots=True)
class TopicSettings:
    """Defaults follow seed 004 and the reference code (NOTES.md wins where they differ).

    Plain frozen dataclass: the app's pydantic settings tree can hold the same fields and
    build one of these; the engine needs no pydantic of its own.
    """

    # A pause of at least this long ends a session (seed: rag.chunk_interval = 1 h).
    chunk_interval_s: float = 3600.0
    # A session is also cut when a chunk reaches either cap (seed: max_chunk_size = 400,
    # split_threshold_chars = 25,000). One message longer than the char cap is its own chunk.
    max_chunk_messages: int = 400
    max_chunk_chars: int = 25_000
    # Without a language model, a session longer than 1.5× this is cut where its subject
    # changes into parts near this size (engine/topics/session_split.py); 0 keeps sessions whole.
    # LoCoMo (docs/benchmarks.md): 2,000 → recall@5 0.924, evidence@8000 0.815; 1,500 gives
    # more evidence and less recall (0.903 / 0.840), 2,500 the reverse (0.924 / 0.778).
    subject_chars: int = 2_000
    # Consolidation candidates: cosine of the topic vectors (code: 0.8; the document says 0.85).
    consolidation_threshold: float = 0.8
    # Two topics are never merged into one larger than this (seed: max_merged_size_chars).
    max_merged_chars: int = 50_000
    # Topics larger than this are shown to the reranker as excerpts (seed 004, retrieval).
    excerpt_threshold_chars: int = 25_000
    # Most similar topics the merger agent is asked about per unchecked topic.
    max_merge_candidates: int = 3
    # Splitter requests in flight at once (chunks of one batch are independent).
    splitter_concurrency: int = 4
    # Messages written per transaction: bounds what a cancel throws away and how long the
    # store's write lock is held, and keeps memory flat on a chat of a million messages.
    batch_messages: int = 20_000

    def __post_init__(self) -> None:
        if self.chunk_interval_s <= 0 or self.max_chunk_messages < 1 or self.max_chunk_chars < 1:
            raise TopicsError(msg("topics.settings.chunks_positive"))
        if self.subject_chars < 0:
            raise TopicsError(msg("topics.settings.subject_chars"))
        if not -1.0 <= self.consolidation_threshold <= 1.0:
            raise TopicsError(msg("topics.settings.consolidation_threshold"))
        if self.splitter_concurrency < 1 or self.batch_messages < 1 or self.max_merge_candidates < 1:
            raise TopicsError(msg("topics.settings.at_least_one"))
