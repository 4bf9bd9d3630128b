"""The one object the UI (and anything else) calls: Flashback's engine behind a small API.

Methods are blocking and thread-safe to call from a worker; the UI runs them off the GUI
thread through `ui.tasks` and gets results back by signal. Each call opens its own SQLite
connection (WAL lets searches read while a build writes).

Many processes may use one data folder (the window, the CLI, a server): writers (import,
build, check) take the store's write lock and wait for each other (`on_wait` hears for
whom); searches never wait for it, never write an index another process is building, and
a run that cannot be recorded still returns its results with a note (`SearchOutcome.notes`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import browse
from engine.embeddings.base import Embedder, EmbeddingConfig, config_for_model, make_embedder
from engine.errors import BuildCancelled, CancelToken, EngineError, StoreError
from engine.evaluation.runner import evaluate, load_qrels
from engine.importers.base import ProgressCallback
from engine.importers.runner import ImportReport, import_path
from engine.llm import Endpoint
from engine.memory import calibration as calibration_store
from engine.memory.build import BuildOptions, BuildReport, StageProgress, build_memory
from engine.memory.embedder_state import load_embedder
from engine.memory.indexes import IndexSet
from engine.rerank.base import KeepAllReranker, Reranker, RerankResult
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings
from engine.retrieval.search import RetrievalSettings, Retriever, Stage1Result
from engine.store.database import connect, db_path, open_engine
from engine.store.faults import plain_faults
from engine.store.lock import LockHolder, StoreWriteLock, WaitCallback, current_holder
from engine.store.stats import StoreStats, store_stats
from engine.topics.agent_session import DEFAULT_TIMEOUT_S, TopicAgents


class EmptyQueryError(EngineError):
    """A search was asked for with nothing to look for."""

    def __init__(self) -> None:
        super().__init__("The query is empty: type what to look for, e.g. a name, a place or a question.")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_query(query: str) -> str:
    """`query` as searched and recorded; raises EmptyQueryError for a blank one. Lone
    surrogates (undecodable bytes from a command line) become U+FFFD: SQLite cannot store them."""
    if not query or not query.strip():
        raise EmptyQueryError()
    return _LONE_SURROGATE.sub("\ufffd", query)


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

    @property
    def needs_build(self) -> bool:
        return self.new_messages or self.index_lost or (self.topics and self.vectors == 0)


_RECORD_WAIT_MS = 1000  # how long a search waits to record its run while another process writes


class IndexLost(EngineError):
    """Searching now would find nothing: the built-in embedder's fitted table is missing."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(f"The search index in {Path(data_dir) / 'index'} is missing (was the folder deleted?): "
                         "build the memory again (Memory → Build memory, or `flashback build`); the stored "
                         "vectors are kept, so it is quick.")


@dataclass
class SearchOutcome:
    stage1: Stage1Result
    result: RerankResult
    timings_ms: dict[str, float] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)  # retrieval + reranker, as recorded
    run_id: int | None = None  # the stored trace (rerank_run), when the run was recorded
    notes: list[str] = field(default_factory=list)  # what the person should know: stand-in index, unrecorded run
    # Seed 000 step 1: the query restated from the recent messages. When `rewrite.used`,
    # `stage1` holds the candidates of the original and the rewrite, fused.
    rewrite: Any = None  # engine.rerank.flash.QueryRewrite | None

    def as_dict(self) -> dict:
        shaped = {
            "query": self.stage1.query,
            "reranker": self.result.reranker,
            "candidates": [c.as_dict() for c in self.stage1.candidates],
            "selected": [s.as_dict() for s in self.result.selected],
            "report": self.result.report,
            "fallback": self.result.fallback,
            "timings_ms": self.timings_ms,
        }
        if self.result.reranker == "flash":  # the LLM's own figures (issue 4's search JSON)
            shaped["tool_calls"] = self.result.tool_calls
            shaped["usage"] = self.result.usage or {}
        if self.run_id is not None:
            shaped["run_id"] = self.run_id
        if self.notes:
            shaped["notes"] = self.notes
        if self.rewrite is not None:
            shaped["rewrite"] = {k: v for k, v in self.rewrite.as_dict().items() if k != "call"}
        return shaped


def _settings_of(retrieval: RetrievalSettings, reranker: Reranker) -> dict[str, Any]:
    own = getattr(reranker, "settings", None)
    return {"retrieval": dataclasses.asdict(retrieval),
            "reranker": {"name": reranker.name,
                         **(dataclasses.asdict(own) if dataclasses.is_dataclass(own) else {})}}


def make_reranker(name: str, threshold: ThresholdSettings | None = None) -> Reranker:
    if name == "threshold":
        return ThresholdReranker(threshold)
    return KeepAllReranker()


class FlashbackService:
    def __init__(self, data_dir: Path, embedding: EmbeddingConfig | None = None, *, origin: str = "") -> None:
        """`origin` ("window", "command") is what other processes are told while this one writes."""
        self.data_dir = Path(data_dir)
        self.embedding = embedding or EmbeddingConfig()
        self.origin = origin
        open_engine(self.data_dir).dispose()  # fail early (and clearly) on an unusable store
        self._lock = threading.Lock()
        self._retriever: Retriever | None = None

    # -- store ------------------------------------------------------------------------
    def stats(self) -> StoreStats:
        return store_stats(self.data_dir)

    def import_path(self, path: Path, format_name: str = "auto", on_progress: ProgressCallback | None = None,
                    cancel: CancelToken | None = None, on_wait: WaitCallback | None = None) -> ImportReport:
        return import_path(self.data_dir, Path(path), format_name, on_progress, cancel, on_wait, self.origin)

    def writer(self) -> LockHolder | None:
        """Who writes the store now (an import or build here or in another process), or None."""
        return current_holder(self.data_dir)

    def change_token(self) -> tuple:
        """Changes when an import or build (in any process) changed what the window shows:
        the newest message, source and topic ids and the vector generations. A few
        primary-key reads, cheap enough to poll."""
        return self._read(lambda connection: tuple(connection.execute(
            "SELECT (SELECT max(id) FROM message), (SELECT max(id) FROM source), (SELECT max(id) FROM topic), "
            "(SELECT coalesce(sum(generation), 0) FROM vector_generation)").fetchone()))

    def _connect(self):
        return connect(db_path(self.data_dir))

    # -- memory -----------------------------------------------------------------------
    def embedder(self) -> Embedder:
        return load_embedder(self.data_dir, self.embedding)

    def build(self, options: BuildOptions | None = None, on_progress: StageProgress | None = None,
              cancel: CancelToken | None = None, topic_llm: Endpoint | None = None,
              llm_timeout: float = DEFAULT_TIMEOUT_S, on_wait: WaitCallback | None = None,
              **client_options) -> BuildReport:
        """Topics, embeddings, indexes (blocking: run it in a worker). With `topic_llm`, seed
        004's splitter and merger agents on that chat model make and merge the topics; any
        chunk they fail on is summarised extractively and counted in `report.agents`.
        Waits for another process's import or build first (`on_wait(holder)`, cancellable)."""
        cancel = (cancel or CancelToken()).raising(BuildCancelled)  # a build keeps what it committed: says so
        with (plain_faults(self.data_dir, "build"),
              StoreWriteLock(self.data_dir, "build", self.origin, on_wait, cancel.raise_if_cancelled)):
            connection = self._connect()
            agents = TopicAgents(topic_llm, timeout=llm_timeout, **client_options) if topic_llm else None
            try:
                report = build_memory(self.data_dir, connection, self.embedder(), options=options,
                                      splitter=agents.splitter if agents else None,
                                      merger=agents.merger if agents else None,
                                      on_progress=on_progress, cancel=cancel)
                if agents:
                    report.agents["model"] = topic_llm.default_model
            finally:
                if agents:
                    agents.close()
                connection.close()
        with self._lock:
            self._retriever = None  # the model id (IDF refit) or the indexes may have changed
        return report

    def check(self, on_progress: StageProgress | None = None, on_wait: WaitCallback | None = None):
        """`flashback check`: quick_check, vectors, indexes and calibration, repairing what it can
        (engine.memory.check); under the write lock, as it may write."""
        from engine.memory.check import check_memory

        with plain_faults(self.data_dir, "check"), StoreWriteLock(self.data_dir, "check", self.origin, on_wait):
            connection = self._connect()
            try:
                embedder = self.embedder()
                report = check_memory(self.data_dir, connection, embedder, lambda: build_memory(
                    self.data_dir, connection, embedder, on_progress=on_progress),
                    index_lost=_idf_lost(embedder, self._vector_counts(connection)))
            finally:
                connection.close()
        self.invalidate()
        return report

    def memory_status(self) -> MemoryStatus:
        """Whether `build` has work to do for this service's embedder. Cheap on any store (a
        search asks every time): the newest non-service message by id (ids grow with every
        import; a build gives every waiting message a topic) and the vector generation row."""
        # An API model's id does not depend on its dimension: no probe request just to ask.
        embedder = self.embedder() if self.embedding.provider == "builtin" else make_embedder(self.embedding)
        model_id = embedder.model_id

        def read(connection) -> MemoryStatus:
            newest = connection.execute(
                "SELECT topic_id FROM message WHERE is_service = 0 ORDER BY id DESC LIMIT 1").fetchone()
            topics = connection.execute("SELECT EXISTS (SELECT 1 FROM topic)").fetchone()[0]
            counts = dict(connection.execute("SELECT model_id, items FROM vector_generation WHERE kind = 'topic' "
                                             "AND items > 0").fetchall())
            vectors = counts.pop(model_id, 0)
            return MemoryStatus(newest is not None, newest is not None and newest[0] is None, bool(topics),
                                vectors, bool(counts), vectors == 0 and _idf_lost(embedder, counts))

        return self._read(read)

    def invalidate(self) -> None:
        """Forget cached search state (the retriever, its indexes and term statistics): call
        after the store changed behind this object's back, e.g. a build in another process."""
        with self._lock:
            self._retriever = None

    def retriever(self) -> Retriever:
        with self._lock:
            if self._retriever is None:
                embedder = self.embedder()
                # A search never saves an index another process is building (engine.memory.indexes).
                indexes = IndexSet(self.data_dir, embedder.model_id, embedder.dim, owner=False)
                self._retriever = Retriever(embedder, indexes, calibration_store.load(indexes.folder, embedder))
            return self._retriever

    def stage1(self, query: str, settings: RetrievalSettings | None = None) -> Stage1Result:
        """Candidates for `query` (blocking: run it in a worker). The window freezes them and
        re-filters with the threshold reranker or hands them to Flash without repeating this.
        `Stage1Result.rebuilt` carries notes: an index searched through a stand-in, an
        unusable calibration."""
        query = clean_query(query)
        retriever = self.retriever()
        with plain_faults(self.data_dir, "search"):
            connection = self._connect()
            try:
                if _idf_lost(retriever.embedder, self._vector_counts(connection)):
                    raise IndexLost(self.data_dir)
                stage1 = retriever.search(connection, query, settings or RetrievalSettings())
            finally:
                connection.close()
        stage1.rebuilt.update(retriever.indexes.notes())
        problem = calibration_store.problem(retriever.indexes.folder, retriever.embedder.model_id)
        if problem is not None and problem != "missing":
            stage1.rebuilt["calibration"] = (f"the saved score calibration is {problem}: scores use the defaults "
                                             "until `flashback build` (or Build memory) measures it again")
        return stage1

    def built_embedding(self) -> EmbeddingConfig | None:
        """The embedder the store's topic vectors were made with (the one with the most, should a
        cancelled switch have left two), as a config without its key; None for an unbuilt store
        or a model whose id does not say how to reach it (a custom server)."""
        if not db_path(self.data_dir).exists():
            return None
        counts = self._read(self._vector_counts)
        if not counts:
            return None
        return config_for_model(max(counts, key=counts.get))

    @staticmethod
    def _vector_counts(connection) -> dict[str, int]:
        return dict(connection.execute(
            "SELECT model_id, items FROM vector_generation WHERE kind = 'topic' AND items > 0").fetchall())

    async def arerank(self, stage1: Stage1Result, reranker: Reranker, *, record: bool = True) -> SearchOutcome:
        """Stage 2 on frozen candidates, as a coroutine (the LLM waits on the network; the
        GUI awaits this on its qasync loop). Recording writes the trace in a worker thread.

        A reranker with a chat model and recent messages first restates the query (seed 000
        step 1); stage 1 then also searches the rewrite, in a worker, and the two candidate
        lists are fused before the rerank sees them (`outcome.stage1`, `outcome.rewrite`)."""
        started = time.perf_counter()
        rewrite = await reranker.arewrite(stage1.query)
        if rewrite is not None and rewrite.used:
            stage1 = await asyncio.to_thread(self._with_rewrite, stage1, rewrite.rewritten)
        result = await reranker.arerank(stage1.query, stage1.candidates, rewrite)
        outcome = self._outcome(stage1, reranker, result, started, rewrite)
        if record:
            await asyncio.to_thread(self._record, outcome, reranker)
        return outcome

    def search(self, query: str, settings: RetrievalSettings | None = None,
               reranker: Reranker | None = None, *, record: bool = False) -> SearchOutcome:
        """Both stages, blocking (CLI, workers); the query rewrite as in `arerank`."""
        reranker = reranker or KeepAllReranker()
        stage1 = self.stage1(query, settings)
        started = time.perf_counter()
        rewrite = reranker.rewrite(stage1.query)
        if rewrite is not None and rewrite.used:
            stage1 = self._with_rewrite(stage1, rewrite.rewritten)
        result = reranker.rerank(stage1.query, stage1.candidates, rewrite)
        outcome = self._outcome(stage1, reranker, result, started, rewrite)
        if record:
            self._record(outcome, reranker)
        return outcome

    def _with_rewrite(self, stage1: Stage1Result, rewritten: str) -> Stage1Result:
        """`stage1` with the rewrite's candidates fused in: each topic once, at its better
        calibrated score, as many per kind as the longer list (bench/rewrite_fusion.py)."""
        from engine.rerank.flash import fuse_candidates

        second = self.stage1(rewritten, stage1.settings)
        timings = dict(stage1.timings_ms)
        # Inside the rerank's time (measured from before the rewrite), so not added to "total".
        timings["rewrite_stage1"] = second.timings_ms.get("total", 0.0)
        return dataclasses.replace(stage1, candidates=fuse_candidates(stage1.candidates, second.candidates),
                                   timings_ms=timings, rebuilt={**second.rebuilt, **stage1.rebuilt})

    def rerank_frozen(self, stage1: Stage1Result, reranker: Reranker) -> SearchOutcome:
        """Stage 2 on frozen candidates with a reranker that never waits (threshold, keep-all),
        on the calling thread: the window re-filters this way as a slider moves. Not recorded."""
        started = time.perf_counter()
        return self._outcome(stage1, reranker, reranker.rerank_now(stage1.query, stage1.candidates), started)

    def _outcome(self, stage1: Stage1Result, reranker: Reranker, result: RerankResult,
                 started: float, rewrite=None) -> SearchOutcome:
        timings = dict(stage1.timings_ms)
        timings["rerank"] = round((time.perf_counter() - started) * 1000, 2)
        timings["total"] = round(timings.get("total", 0.0) + timings["rerank"], 2)
        llm_timings = (result.report or {}).get("timings_ms")
        if isinstance(llm_timings, dict):  # per-turn figures of an LLM reranker
            timings.update({f"rerank_{name}": value for name, value in llm_timings.items()})
        return SearchOutcome(stage1, result, timings, _settings_of(stage1.settings, reranker),
                             notes=list(stage1.rebuilt.values()), rewrite=rewrite)

    def _record(self, outcome: SearchOutcome, reranker: Reranker) -> None:
        """Store the run's trace (`outcome.run_id`). A search is a reader: when the trace cannot
        be written (an import holds the store, a full disk, a read-only folder) the results
        still stand and a note says the run was not recorded."""
        from engine.traces import save_run

        holder = current_holder(self.data_dir)
        elsewhere = holder is not None and holder.pid != os.getpid()
        if elsewhere and holder.operation == "import":
            # An import keeps its transaction open for its whole length: don't wait out the busy timeout.
            outcome.notes.append(f"this run was not recorded: {holder.describe()} is writing the store")
            return
        secrets = [key for key in (getattr(reranker, "api_key", None),) if key]
        try:
            with plain_faults(self.data_dir, "search"):
                connection = self._connect()
                try:
                    if elsewhere:  # a build commits every batch: worth a short wait, not the full 5 s
                        connection.execute(f"PRAGMA busy_timeout={_RECORD_WAIT_MS}")
                    outcome.run_id = save_run(
                        connection, query=outcome.stage1.query, reranker=outcome.result.reranker,
                        settings=outcome.settings, candidates=[c.as_dict() for c in outcome.stage1.candidates],
                        result=outcome.result, timings_ms=outcome.timings_ms, secrets=secrets)
                finally:
                    connection.close()
        except StoreError as exc:
            outcome.notes.append(f"this run was not recorded: {exc}")

    def flash_reranker(self, endpoint, flash=None, recent_messages: str = "", **client_options) -> Reranker:
        """The Flash reranker over this store, a fresh HTTP client per run (see rerank/flash/session.py)."""
        from engine.rerank.flash import FlashSettings
        from engine.rerank.flash.session import FlashSession

        return FlashSession(endpoint, flash or FlashSettings(), self._connect, recent_messages, client_options)

    def context(self, outcome: SearchOutcome, budget_tokens: int = 8000):
        """The selected context packed into a token budget, ready for `engine.export` export."""
        from engine.export.pack import assemble_context

        return self._read(lambda connection: assemble_context(
            connection, outcome.stage1.query, outcome.result.selected, outcome.stage1.candidates, budget_tokens,
            reranker=outcome.result.reranker))

    # -- run history ------------------------------------------------------------------
    def runs(self, limit: int = 50, offset: int = 0) -> list:
        from engine.traces import list_runs

        return self._read(lambda connection: list_runs(connection, limit, offset))

    def run(self, run_id: int) -> dict | None:
        from engine.traces import get_run

        return self._read(lambda connection: get_run(connection, run_id))

    def run_metrics(self) -> dict:
        from engine.traces import run_metrics

        return self._read(run_metrics)

    # -- browsing ---------------------------------------------------------------------
    def chats(self) -> list[browse.ChatInfo]:
        return self._read(browse.chats)

    def chat_formats(self) -> dict[int, str]:
        """chat id → the export format it came from (telegram, chatgpt, whatsapp, jsonl)."""
        return self._read(lambda connection: dict(connection.execute("SELECT id, format FROM chat").fetchall()))

    def topics(self, chat_id: int | None = None, text: str = "", limit: int = 500) -> list[browse.TopicInfo]:
        return self._read(lambda connection: browse.topics(connection, chat_id, text, limit))

    def people(self) -> list[browse.PersonInfo]:
        return self._read(browse.people)

    def topic_detail(self, topic_id: int) -> browse.TopicDetail:
        return self._read(lambda connection: browse.topic_detail(connection, topic_id))

    def _read(self, query):
        connection = self._connect()
        try:
            return query(connection)
        finally:
            connection.close()

    def evaluate(self, qrels_path: Path, settings: RetrievalSettings | None = None,
                 reranker: Reranker | None = None, on_progress=None) -> dict:
        queries = load_qrels(qrels_path)
        settings = settings or RetrievalSettings()
        reranker = reranker or KeepAllReranker()
        retriever = self.retriever()
        connection = self._connect()
        try:
            def run(query: str):
                stage1 = retriever.search(connection, query, settings)
                return stage1, reranker.rerank(query, stage1.candidates)

            return evaluate(connection, queries, run, on_progress)
        finally:
            connection.close()


def _idf_lost(embedder: Embedder, counts: dict[str, int]) -> bool:
    """The built-in embedder has no fitted table, yet the store holds vectors of a fitted
    built-in model: `index/` was deleted (issue 12, finding 6). Searching with the unfitted
    model would find nothing and say nothing."""
    return (embedder.needs_fit and not embedder.fitted and embedder.model_id.startswith("builtin:")
            and any(model.startswith("builtin:") and model != embedder.model_id for model in counts))
