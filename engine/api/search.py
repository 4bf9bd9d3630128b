"""Search: stage 1, the rerankers on frozen candidates, recording the run, the packed context.

A search is a reader: it never waits for a writer and never fails because its run could not
be recorded (an import or build holding the store, a read-only folder, a full disk): the
results come back with a note saying the run was not recorded."""

from __future__ import annotations

import dataclasses
import os
import re
import sqlite3
import time
from collections.abc import Awaitable, Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.api.context import StoreContext, idf_lost
from engine.api.memory import IndexLost
from engine.api.search_records import SearchRequest, SearchResult, Timings
from engine.errors import EngineError
from engine.memory import calibration as calibration_store
from engine.messages import Message, msg
from engine.rerank.base import KeepAllReranker, Reranker
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings, keep_unread
from engine.retrieval.search import RetrievalSettings, Stage1Result
from engine.retrieval.unbuilt import first_unbuilt, unbuilt_candidates, unbuilt_count
from engine.store.faults import plain_faults
from engine.store.lock import current_holder

if TYPE_CHECKING:  # loaded where used: a cold `flashback search` pays for none of them
    import httpx

    from engine.export.pack import ContextPack
    from engine.http_retry import RetryPolicy
    from engine.llm.presets import Endpoint
    from engine.rerank.cross_encoder.presets import RerankEndpoint
    from engine.rerank.cross_encoder.reranker import CrossEncoderReranker
    from engine.rerank.cross_encoder.settings import CrossEncoderSettings
    from engine.rerank.flash.settings import FlashSettings


class EmptyQueryError(EngineError):
    """A search was asked for with nothing to look for."""

    code = "search.empty_query"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_RECORD_WAIT_MS = 1000  # how long a search waits to record its run while another process writes


def clean_query(query: str) -> str:
    """`query` as searched and recorded; raises EmptyQueryError for a blank one. Lone
    surrogates (undecodable bytes from a command line) become U+FFFD: SQLite cannot store them."""
    if not query or not query.strip():
        raise EmptyQueryError()
    return _LONE_SURROGATE.sub("\ufffd", query)


def _with_date_boost(connection: sqlite3.Connection, stage1: Stage1Result, now: datetime | None) -> Stage1Result:
    from engine.ask.dates import apply_date_boost

    boosted, boost = apply_date_boost(connection, stage1, now or datetime.now().astimezone())
    if boost is not None:
        boosted.rebuilt["dates"] = msg("search.date_boost", phrase=boost.date_range.phrase,
                                       days=boost.date_range.label(), count=len(boost.boosted))
    return boosted


def make_reranker(name: str, threshold: ThresholdSettings | None = None) -> Reranker:
    if name == "threshold":
        return ThresholdReranker(threshold)
    return KeepAllReranker()


def _settings_of(outcome: SearchResult, reranker_name: str) -> dict[str, Any]:
    """The run's settings as the run history stores them (retrieval + reranker)."""
    own = outcome.reranker_settings
    mine = dataclasses.asdict(own) if dataclasses.is_dataclass(own) and not isinstance(own, type) else {}
    return {"retrieval": dataclasses.asdict(outcome.stage1.settings), "reranker": {"name": reranker_name, **mine}}


_T = TypeVar("_T")
# How the pipeline runs a blocking step: in a worker thread under an event loop, in place otherwise.
Offload = Callable[[Callable[[], _T]], Awaitable[_T]]


async def _in_thread(work: Callable[[], _T]) -> _T:
    import asyncio

    return await asyncio.to_thread(work)


async def _in_place(work: Callable[[], _T]) -> _T:
    return work()


def _finish_in_place(coroutine: Coroutine[Any, Any, SearchResult]) -> SearchResult:
    """Run a coroutine that never suspends (every await in it finishes at once) to its end."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("the search waited on something: use SearchService.search on an event loop instead")


class SearchService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context
        self._unbuilt_counts: dict[tuple[int, int], int] = {}  # (first unbuilt id, newest id) → how many

    @property
    def data_dir(self) -> Path:
        return self._context.data_dir

    def candidates(self, query: str, settings: RetrievalSettings | None = None, *, client: str = "",
                   dates: bool = True, now: datetime | None = None) -> Stage1Result:
        """Stage 1's candidates for `query`, through the pipeline with nothing kept or recorded
        (blocking): what evaluation and Ask's sub-queries read."""
        request = SearchRequest(query, settings or RetrievalSettings(), client=client, dates=dates, now=now)
        return self.search_sync(request).stage1

    def _stage1(self, query: str, settings: RetrievalSettings | None = None, *, dates: bool = True,
                now: datetime | None = None) -> Stage1Result:
        """Candidates for `query` (blocking), the pipeline's first step.

        A date phrase in the query ("last week", "в прошлом месяце") boosts topics in that range,
        softly: nothing is removed, so a wrong parse cannot hide the answer (issue 27; `dates=False`
        for a caller that applies its own range, as Ask does)."""
        query = clean_query(query)
        context = self._context
        retriever = context.retriever()
        with plain_faults(context.data_dir, "search"):
            connection = context.connect()
            try:
                if idf_lost(retriever.embedder, context.vector_counts(connection)):
                    raise IndexLost(folder=str(context.data_dir / "index"))
                stage1 = retriever.search(connection, query, settings or RetrievalSettings())
                if dates:
                    stage1 = _with_date_boost(connection, stage1, now)
                self._add_unbuilt(connection, stage1)
            finally:
                connection.close()
        stage1.rebuilt.update(retriever.indexes.notes())
        problem = calibration_store.problem_message(retriever.indexes.folder, retriever.embedder.model_id)
        if problem is not None and problem != calibration_store.MISSING:
            stage1.rebuilt["calibration"] = msg("search.calibration_unusable", problem=problem)
        return stage1

    def warm_up(self) -> None:
        """Load what a first search reads (the embedder's fitted state, the topic index) ahead
        of it, graph and all (a loaded index otherwise builds its graph at its second search): the
        window calls this in a worker as it opens (issue 26: its first query waited for the
        index to load, 0.7 s on a 300k-message store)."""
        context = self._context
        retriever = context.retriever()
        with plain_faults(context.data_dir, "search"):
            connection = context.connect()
            try:
                loaded = retriever.indexes.get(connection, "topic")
                if loaded.index is not None:
                    loaded.index.load_graph()
            finally:
                connection.close()

    def _add_unbuilt(self, connection: sqlite3.Connection, stage1: Stage1Result) -> None:
        """Messages imported since the last build, found by their words (issue 26: a search
        never waits for a build; engine.retrieval.unbuilt), after the built candidates, with a
        note saying how many messages were searched that way."""
        started = time.perf_counter()
        first = first_unbuilt(connection)
        if first is None:
            return
        settings = stage1.settings
        found = [c for c in unbuilt_candidates(connection, stage1.query, first, chat_ids=settings.chat_ids,
                                               date_from=settings.date_from, date_to=settings.date_to)
                 if c.score >= settings.safety_threshold]
        stage1.candidates = stage1.candidates + found
        newest = connection.execute("SELECT max(id) FROM message").fetchone()[0]
        count = self._unbuilt_counts.get((first, newest))
        if count is None:  # counting a big backlog takes tens of ms: once per store state
            count = self._unbuilt_counts[(first, newest)] = unbuilt_count(connection, first)
        stage1.rebuilt["unbuilt"] = msg("search.unbuilt", count=count, found=len(found))
        stage1.timings_ms["unbuilt"] = round((time.perf_counter() - started) * 1000, 2)

    async def search(self, request: SearchRequest) -> SearchResult:
        """The one search pipeline, as a coroutine (every face's search ends here: the window on
        its qasync loop, the MCP server, Ask's search step and evaluation through `search_sync`).

        Stage 1 (or the request's frozen candidates), the query rewrite of a reranker with a chat
        model and recent messages (seed 000 step 1: stage 1 also searches the rewrite, the two
        lists fused), the rerank, the unbuilt messages a reranker does not read, then the run
        recorded when asked. Blocking work runs in a worker thread."""
        return await self._pipeline(request, _in_thread)

    def search_sync(self, request: SearchRequest) -> SearchResult:
        """`search` for a caller with no event loop running (the CLI, a worker thread, evaluation).
        A reranker that never awaits finishes in place: no event loop is started (importing
        asyncio is ~30 ms of a cold `flashback search`)."""
        reranker = request.chosen_reranker()
        coroutine = self._pipeline(request, _in_place)
        if reranker.instant and not reranker.rewrites:
            return _finish_in_place(coroutine)
        import asyncio

        return asyncio.run(coroutine)

    async def _pipeline(self, request: SearchRequest, offload: Offload) -> SearchResult:
        reranker = request.chosen_reranker()
        if request.frozen is not None:
            stage1 = request.frozen
        else:
            stage1 = await offload(lambda: self._stage1(request.query, request.retrieval, dates=request.dates,
                                                       now=request.now))
        started = time.perf_counter()
        rewrite = await reranker.arewrite(stage1.query) if reranker.rewrites else None
        if rewrite is not None and rewrite.used and rewrite.rewritten:
            rewritten = rewrite.rewritten
            stage1 = await offload(lambda: self._with_rewrite(stage1, rewritten, request))
        result = await reranker.arerank(stage1.query, stage1.candidates, rewrite)
        notes: list[Message | str] = list(stage1.rebuilt.values())
        result, refused = keep_unread(stage1.candidates, reranker, result, request.threshold or reranker.threshold)
        if refused is not None:
            notes.append(refused)
        timings = Timings.of(stage1, (time.perf_counter() - started) * 1000, result)
        outcome = SearchResult(request, stage1, result, timings, reranker.settings, notes=notes, rewrite=rewrite)
        if request.record:
            await offload(lambda: self.record(outcome, reranker, client=request.client))
        return outcome

    def _with_rewrite(self, stage1: Stage1Result, rewritten: str, request: SearchRequest) -> Stage1Result:
        """`stage1` with the rewrite's candidates fused in: each item once (every kind, unbuilt
        messages too), at its better calibrated score, as many per kind as the longer list
        (bench/rewrite_fusion.py)."""
        from engine.rerank.flash import fuse_candidates

        second = self._stage1(rewritten, stage1.settings, dates=request.dates, now=request.now)
        timings = dict(stage1.timings_ms)
        # Inside the rerank's time (measured from before the rewrite), so not added to "total".
        timings["rewrite_stage1"] = second.timings_ms.get("total", 0.0)
        return dataclasses.replace(stage1, candidates=fuse_candidates(stage1.candidates, second.candidates),
                                   timings_ms=timings, rebuilt={**second.rebuilt, **stage1.rebuilt})

    def record(self, outcome: SearchResult, reranker: Reranker, *, client: str = "") -> None:
        """Store the run's trace (`outcome.run_id`). A search is a reader: when the trace cannot
        be written (an import holds the store, a full disk, a read-only folder) the results
        still stand and a note says the run was not recorded. `client` names the face that
        asked (an assistant over MCP), kept with the run's settings. A store this process cannot
        write is not tried: one note says so, the first time only (issue 23)."""
        from engine.traces import save_run

        context = self._context
        refused = context.read_only()
        if refused is not None:  # not tried (SQLite's words were the note): said once, not per search
            if context.tell_read_only():
                outcome.notes.append(msg("search.not_recorded_read_only_file", file=str(refused.store_file))
                                     if refused.store_file is not None
                                     else msg("search.not_recorded_read_only", folder=str(context.data_dir)))
            return
        holder = current_holder(context.data_dir)
        elsewhere = holder is not None and holder.pid != os.getpid()
        if holder is not None and elsewhere and holder.operation == "import":
            # An import keeps its transaction open for its whole length: don't wait out the busy timeout.
            outcome.notes.append(msg("search.not_recorded_writer", writer=holder.message()))
            return
        settings = _settings_of(outcome, reranker.name)
        if client:
            settings["client"] = client
        secrets = [key for key in (reranker.api_key,) if key]
        try:
            with plain_faults(context.data_dir, "search"):
                connection = context.connect()
                try:
                    if elsewhere:  # a build commits in short batches: worth a short wait, not the full 5 s
                        connection.execute(f"PRAGMA busy_timeout={_RECORD_WAIT_MS}")
                    outcome.run_id = save_run(
                        connection, query=outcome.stage1.query, reranker=outcome.result.reranker,
                        settings=settings, candidates=[c.as_dict() for c in outcome.stage1.candidates],
                        result=outcome.result, timings_ms=outcome.timings.as_json(), secrets=secrets)
                finally:
                    connection.close()
        except (EngineError, sqlite3.Error, OSError) as exc:
            # TracesError (the store busy past the wait), StoreError (read-only, full): never fail the search.
            reason = exc.message if isinstance(exc, EngineError) else str(exc)
            outcome.notes.append(msg("search.not_recorded", reason=reason))

    def flash_reranker(self, endpoint: Endpoint, flash: FlashSettings | None = None, recent_messages: str = "", *,
                       threshold: ThresholdSettings | None = None, retry: RetryPolicy | None = None,
                       profile: bool = True) -> Reranker:
        """The Flash reranker over this store, a fresh HTTP client per run (see rerank/flash/session.py).
        `threshold`: the person's threshold settings; a fallback keeps what that filter keeps.
        `profile`: turn 1 carries the owner's key facts when there are any (False: without them, to
        measure what they change)."""
        from engine.rerank.flash import FlashSettings
        from engine.rerank.flash.session import FlashSession

        options = {"retry": retry} if retry is not None else None  # tests and benches: no backoff waits
        return FlashSession(endpoint, flash or FlashSettings(), self._context.connect, recent_messages, options,
                            threshold, profile=profile)

    def cross_encoder_reranker(self, endpoint: RerankEndpoint, settings: CrossEncoderSettings | None = None,
                               others: ThresholdSettings | None = None, *,
                               retry: RetryPolicy | None = None,
                               transport: httpx.AsyncBaseTransport | None = None) -> Reranker:
        """The cross-encoder over this store (rerank/cross_encoder): passages read from the store
        per run; people and files by `others`' threshold cut (none kept without it)."""
        from engine.rerank.cross_encoder import CrossEncoderReranker, store_log_source

        endpoint.check()
        return CrossEncoderReranker(endpoint, settings, store_log_source(self._context.connect), others,
                                    retry=retry, transport=transport)

    def chained_reranker(self, cross_encoder: CrossEncoderReranker, flash: Reranker) -> Reranker:
        """Flash reading only the cross-encoder's best topics (rerank/cross_encoder/chain.py)."""
        from engine.rerank.cross_encoder import ChainedReranker

        return ChainedReranker(cross_encoder, flash)

    def context(self, outcome: SearchResult, budget_tokens: int = 8000) -> ContextPack:
        """The selected context packed into a token budget, ready for `engine.export` export."""
        from engine.export.pack import assemble_context

        return self._context.read(lambda connection: assemble_context(
            connection, outcome.stage1.query, outcome.result.selected, outcome.stage1.candidates, budget_tokens,
            reranker=outcome.result.reranker))
