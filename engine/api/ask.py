"""Ask: a question answered from the store with numbered citations (engine.ask, seed 002's
flow), wired to this store's stage 1, the person's reranker and an optional chat model."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from engine.api.context import StoreContext
from engine.api.search import SearchService, clean_query
from engine.ask import AskDeps, AskOutcome, AskSettings, Plan, StepRecord, ask, store_profile
from engine.errors import CancelToken
from engine.llm import ChatClient, Endpoint
from engine.rerank.base import Reranker
from engine.retrieval.search import RetrievalSettings, Stage1Result

if TYPE_CHECKING:  # eval-answers loads these when it runs
    from engine.ask.answer_data import QAItem
    from engine.ask.answer_eval import AnswerEvalResult, ProgressFn


class AskService:
    def __init__(self, context: StoreContext, search: SearchService) -> None:
        self._context = context
        self._search = search

    def _stage1_without_dates(self, query: str, settings: RetrievalSettings) -> Stage1Result:
        """Ask's search step: each sub-query through the one search pipeline, nothing kept or
        recorded there (Ask reranks the fused candidates and records its own run); the plan's
        date range is applied by the flow, so the query's own date phrase is not."""
        return self._search.candidates(query, settings, client="ask", dates=False)

    async def ask(self, question: str, reranker: Reranker, *, endpoint: Endpoint | None = None,
                  settings: AskSettings | None = None, now: datetime | None = None,
                  cancel: CancelToken | None = None, on_step: Callable[[StepRecord], None] | None = None,
                  on_answer_text: Callable[[str], None] | None = None, client_name: str = "",
                  plan: Plan | None = None) -> AskOutcome:
        """Plan, search, rerank, compose, answer, verify (a coroutine: the window awaits it on its
        qasync loop, the CLI with asyncio.run). Without `endpoint` no model is called: the outcome
        holds the sources found and a note saying what to set. The run is recorded in Run history.
        `plan`: the person's own (the window's edited chips), searched as given with no plan call."""
        question = clean_query(question)
        import asyncio  # a coroutine runs on a loop, so asyncio is loaded by then

        # Store reads off the awaiting thread: in the window that is the GUI thread (issue 31).
        chats, languages = await asyncio.to_thread(self._context.read, store_profile)
        embedder = (await asyncio.to_thread(self._context.retriever)).embedder
        client = ChatClient(endpoint) if endpoint is not None else None
        deps = AskDeps(stage1=self._stage1_without_dates, reranker=reranker, connect=self._context.connect,
                       embedder=embedder, client=client, model=endpoint.default_model if endpoint else None,
                       chats=chats, languages=languages, client_name=client_name)
        try:
            return await ask(question, deps, settings, now=now or datetime.now().astimezone(), cancel=cancel,
                             on_step=on_step, on_answer_text=on_answer_text, plan=plan)
        finally:
            if client is not None:
                await client.aclose()

    async def evaluate(self, qa_path: Path, reranker: Reranker, *, endpoint: Endpoint | None,
                       judge_endpoint: Endpoint | None = None, settings: AskSettings | None = None,
                       limit: int | None = None, on_progress: ProgressFn | None = None,
                       cancel: CancelToken | None = None) -> AnswerEvalResult:
        """`flashback eval-answers`: every question of a LoCoMo-format (or dated-questions) file
        through the whole Ask flow, scored against its gold answer and evidence (seed 002's eval
        plan: accuracy by an LLM judge, citation precision and coverage, fully-supported share,
        latency, tokens, cost). The judge is `judge_endpoint`, else the answering endpoint."""
        from engine.ask.answer_data import load_questions
        from engine.ask.answer_eval import evaluate_answers
        from engine.ask.answer_judge import Judge

        items = load_questions(Path(qa_path), limit)
        judge_on = judge_endpoint or endpoint
        judge_client = ChatClient(judge_on) if judge_on is not None else None

        async def one(item: QAItem) -> AskOutcome:
            return await self.ask(item.question, reranker, endpoint=endpoint, settings=settings,
                                  now=item.now, client_name="eval-answers")

        try:
            return await evaluate_answers(
                items, one, self._context.connect, judge=Judge(judge_client) if judge_client else None,
                source=str(qa_path), settings=(settings or AskSettings()).as_dict(),
                model=endpoint.default_model if endpoint else None,
                on_progress=on_progress, cancel=cancel)
        finally:
            if judge_client is not None:
                await judge_client.aclose()

    def warm_up(self) -> None:
        """Load now, in the caller's (worker) thread, what the first Ask would load on the thread
        that awaits it, the window's GUI thread (issue 31: the first Ask froze the window for
        1.5-2 s): the HTTP stack's lazily imported parts and its TLS context, and dateparser's
        language data (a question's "last week"). Importing this module loaded the flow."""
        import contextlib

        from engine.ask.dates import warm_up as read_a_date
        from engine.llm.client import tls_context

        read_a_date()
        tls_context()
        self._context.read(store_profile)  # the store's languages, remembered until its messages change
        with contextlib.suppress(ImportError):  # private module paths: a newer httpx may move them
            import anyio._backends._asyncio  # noqa: F401 - the first request's lock picks the backend
            import anyio.streams.tls  # noqa: F401
            import httpcore._async.http11  # noqa: F401 - the first connection
            import httpcore._backends.anyio  # noqa: F401
