"""Build options that follow the embedder: what a topic is cut into, and when two topics merge.

Both were set for the lexical built-in embedder. A sentence model such as the local
multilingual-e5-small needs short passages (`documents.PassageShape`), and its cosines sit
in a narrow, high band: neighbouring topics of LoCoMo conv-30 at p10/p50/p90 0.96/0.97/0.98
(the built-in embedder: 0.27/0.31/0.37), of the demo's chats 0.85/0.90/0.93 (0.03/0.14/0.26),
so consolidation's 0.8 merged every topic of a conversation into one (measured:
docs/benchmarks.md, "A local multilingual model"). Such an embedder names its own merge
threshold (`consolidation_threshold`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from engine.embeddings.base import Embedder
from engine.memory.documents import DEFAULT_CHUNK_CHARS, chunking_for
from engine.topics.settings import TopicSettings

if TYPE_CHECKING:  # build.py applies these to every build: it imports this module, not the reverse
    from engine.memory.build import BuildOptions

_DEFAULT_MERGE = TopicSettings().consolidation_threshold  # a slots dataclass: read it from an instance


def build_options_for(embedder: Embedder, options: BuildOptions | None = None) -> BuildOptions:
    """`options` (default: `BuildOptions()`) adapted to `embedder` where they hold the defaults
    made for the built-in one; values a caller chose are kept. Applying it twice changes nothing."""
    if options is None:
        from engine.memory.build import BuildOptions

        options = BuildOptions()
    if options.chunk_chars == DEFAULT_CHUNK_CHARS:
        options = replace(options, chunk_chars=chunking_for(embedder, options.chunk_chars))
    threshold = embedder.consolidation_threshold
    if threshold is not None and options.topics.consolidation_threshold == _DEFAULT_MERGE:
        options = replace(options, topics=replace(options.topics, consolidation_threshold=threshold))
    return options
