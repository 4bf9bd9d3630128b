"""Memory: what a build would do, the build itself, `check`, and which embedder is in use."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.api.context import StoreContext, idf_lost
from engine.changes import Changes
from engine.embeddings.base import Embedder, EmbeddingConfig, config_for_model, make_embedder
from engine.embeddings.local import INSTALL_HINT, local_model_available
from engine.errors import BuildCancelled, CancelToken, EngineError
from engine.retrieval.unbuilt import first_unbuilt, unbuilt_count
from engine.store.database import db_path
from engine.store.faults import plain_faults
from engine.store.lock import StoreWriteLock, WaitCallback

if TYPE_CHECKING:  # the build, its agents and the HTTP client load when a build runs, not for a search's status
    from engine.llm import Endpoint
    from engine.memory.build import BuildOptions, BuildReport, StageProgress
    from engine.memory.check import CheckReport

# What a face offers for the embedder (Settings → Embeddings, About): exported by engine.api.
__all__ = ["BUILD_CHANGES", "EMBEDDING_PRESETS", "INSTALL_HINT", "IndexLost", "MemoryService", "MemoryStatus",  # noqa: F822
           "local_model_available"]


def __getattr__(name: str) -> Any:
    """EMBEDDING_PRESETS on first use (it brings the HTTP client; issue 26: a cold search)."""
    if name == "EMBEDDING_PRESETS":
        from engine.embeddings.openai_compat import PRESETS

        return PRESETS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class IndexLost(EngineError):
    """Searching now would find nothing: the built-in embedder's fitted table is missing."""

    code = "memory.index_lost"


@dataclass(frozen=True)
class MemoryStatus:
    """What a search would miss: messages imported since the last build, or a store whose
    topics have no vectors of the current embedder (never built, or built with another)."""

    messages: bool  # the store holds searchable (non-service) messages
    new_messages: bool  # the newest of them is in no topic yet: an import since the last build
    topics: bool
    vectors: int  # topic vectors of the current embedder's model
    other_vectors: bool  # topic vectors of another model: the store was built with another embedder
    # The built-in embedder's fitted table is gone (index/ deleted) though the store holds its
    # vectors: a build refits the same table from the same topics, re-embedding nothing.
    index_lost: bool = False
    unbuilt: int = 0  # messages imported since the last build (a search finds them by their words only)

    @property
    def needs_build(self) -> bool:
        return self.new_messages or self.index_lost or (self.topics and self.vectors == 0)


BUILD_CHANGES = Changes(topics=True, vectors=True)


class MemoryService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context

    @property
    def embedding(self) -> EmbeddingConfig:
        return self._context.embedding

    def use_embedding(self, config: EmbeddingConfig) -> Changes:
        """Search and build with another embedder from now on (Settings → Embeddings)."""
        self._context.use_embedding(config)
        return Changes(vectors=True)

    def embedder(self) -> Embedder:
        return self._context.embedder()

    def build(self, options: BuildOptions | None = None, on_progress: StageProgress | None = None,
              cancel: CancelToken | None = None, topic_llm: Endpoint | None = None,
              llm_timeout: float | None = None, on_wait: WaitCallback | None = None) -> BuildReport:
        """Topics, embeddings, indexes (blocking: run it in a worker). With `topic_llm`, seed
        004's splitter and merger agents on that chat model make and merge the topics; any
        chunk they fail on is summarised extractively and counted in `report.agents`.
        Waits for another process's import or build first (`on_wait(holder)`, cancellable).
        `llm_timeout`: seconds per agent call (None: the agents' default)."""
        from engine.memory.build import build_memory
        from engine.topics.agent_session import DEFAULT_TIMEOUT_S, TopicAgents

        context = self._context
        cancel = (cancel or CancelToken()).raising(BuildCancelled)  # a build keeps what it committed: says so
        with (plain_faults(context.data_dir, "build"),
              StoreWriteLock(context.data_dir, "build", context.origin, on_wait, cancel.raise_if_cancelled)):
            connection = context.connect()
            agents = TopicAgents(topic_llm, timeout=llm_timeout or DEFAULT_TIMEOUT_S) if topic_llm else None
            try:
                report = build_memory(context.data_dir, connection, context.embedder(), options=options,
                                      splitter=agents.splitter if agents else None,
                                      merger=agents.merger if agents else None,
                                      on_progress=on_progress, cancel=cancel)
                if agents and topic_llm is not None:
                    report.agents["model"] = topic_llm.default_model
            finally:
                if agents:
                    agents.close()
                connection.close()
                context.invalidate()  # the model id (IDF refit) or the indexes may have changed
        return report

    def check(self, on_progress: StageProgress | None = None, on_wait: WaitCallback | None = None) -> CheckReport:
        """`flashback check`: quick_check, vectors, indexes and calibration, repairing what it can
        (engine.memory.check); under the write lock, as it may write."""
        from engine.memory.build import build_memory
        from engine.memory.check import check_memory

        context = self._context
        with plain_faults(context.data_dir, "check"), StoreWriteLock(context.data_dir, "check", context.origin,
                                                                      on_wait):
            connection = context.connect()
            try:
                embedder = context.embedder()
                report = check_memory(context.data_dir, connection, embedder, lambda: build_memory(
                    context.data_dir, connection, embedder, on_progress=on_progress),
                    index_lost=idf_lost(embedder, context.vector_counts(connection)))
            finally:
                connection.close()
        context.invalidate()
        return report

    def status(self) -> MemoryStatus:
        """Whether `build` has work to do for the current embedder. Cheap on any store (a
        search asks every time): the newest non-service message by id (ids grow with every
        import; a build gives every waiting message a topic) and the vector generation row."""
        config = self._context.embedding
        # An API model's id does not depend on its dimension: no probe request just to ask.
        embedder = self._context.embedder() if config.provider == "builtin" else make_embedder(config)
        model_id = embedder.model_id

        def read(connection: sqlite3.Connection) -> MemoryStatus:
            newest = connection.execute(
                "SELECT topic_id FROM message WHERE is_service = 0 ORDER BY id DESC LIMIT 1").fetchone()
            topics = connection.execute("SELECT EXISTS (SELECT 1 FROM topic)").fetchone()[0]
            counts = self._context.vector_counts(connection)
            vectors = counts.pop(model_id, 0)
            first = first_unbuilt(connection) if newest is not None and newest[0] is None else None
            return MemoryStatus(newest is not None, newest is not None and newest[0] is None, bool(topics),
                                vectors, bool(counts), vectors == 0 and idf_lost(embedder, counts),
                                unbuilt_count(connection, first) if first is not None else 0)

        return self._context.read(read)

    def built_embedding(self) -> EmbeddingConfig | None:
        """The embedder the store's topic vectors were made with (the one with the most, should a
        cancelled switch have left two), as a config without its key; None for an unbuilt store
        or a model whose id does not say how to reach it (a custom server)."""
        if not db_path(self._context.data_dir).exists():
            return None
        counts = self._context.read(self._context.vector_counts)
        if not counts:
            return None
        return config_for_model(max(counts, key=lambda model: counts[model]))

    def invalidate(self) -> None:
        self._context.invalidate()
