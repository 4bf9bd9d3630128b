"""The flow's steps that run on the store or the user's reranker, each recorded with its fallback.

`Steps` holds the outcome being built and appends a `StepRecord` per step (telling
`on_step` at once, for the window's progress); flow.py decides the order and the budget.
Blocking work (stage 1, reading messages, embedding claims) runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from engine.ask.answer import Answer
from engine.ask.calls import CallOutcome, schema_protocol
from engine.ask.compose import Composed, compose_sources
from engine.ask.record import try_save
from engine.ask.search import Found, search_plan
from engine.ask.types import (
    AskDeps,
    AskOutcome,
    AskSettings,
    Plan,
    Source,
    StepRecord,
    StepUsage,
    step_usage,
    usage_of,
)
from engine.ask.verify import check_offline, check_with_model, supported_share
from engine.errors import EngineError
from engine.messages import Message, msg, render
from engine.rerank.base import Candidate, RerankResult
from engine.rerank.flash.run import fallback_selection
from engine.rerank.threshold import keep_unread
from engine.scrub import scrub

FALLBACK_TOPICS = 5  # what a failed rerank keeps: stage 1's best, as Flash's own fallback does


class Steps:
    def __init__(self, outcome: AskOutcome, deps: AskDeps, settings: AskSettings,
                 check_cancel: Callable[[], None], on_step: Callable[[StepRecord], None] | None) -> None:
        self.outcome, self.deps, self.settings = outcome, deps, settings
        self.check_cancel = check_cancel
        self.on_step = on_step
        self.rerank_usage: StepUsage = StepUsage()  # the last rerank's tokens and model time (refine records it)
        # Why the chat model's server could not be reached, once a step found it so (issue 31):
        # the answer step then says so instead of asking it again or claiming nothing was found.
        self.unreachable: Message | None = None

    @staticmethod
    def ms(mark: float) -> float:
        return round((time.perf_counter() - mark) * 1000, 2)

    def add(self, record: StepRecord) -> None:
        self.outcome.steps.append(record)
        if self.on_step is not None:
            self.on_step(record)

    def call_record(self, name: str, mark: float, call: CallOutcome, detail: dict[str, Any],
                    fallback: str | None = None) -> StepRecord:
        detail = {**detail, "protocol": call.protocol, "error": call.error, "finish_reason": call.finish_reason,
                  "call": call.record}
        if call.error_message is not None:  # the error as a code: a face says it in its language
            detail["error_message"] = call.error_message.to_json()
        return StepRecord(name, self.ms(mark), call.ok, fallback or call.reason, detail, step_usage(call.usage))

    # -- search, rerank, compose -----------------------------------------------------------
    async def search(self, plan: Plan, question: str, cancel, *, extra: list[str] | None = None,
                     deeper: bool = False, record: bool = True) -> Found | None:
        self.check_cancel()
        base = self.settings.retrieval
        if deeper:
            base = dataclasses.replace(base, candidates=max(base.candidates, self.settings.refine_candidates))
        mark = time.perf_counter()
        try:
            found = await asyncio.to_thread(search_plan, self.deps.stage1, plan, question, dict(self.deps.chats),
                                            base, connect=self.deps.connect, rrf_k=self.settings.rrf_k,
                                            extra_queries=extra or (), cancel=cancel)
        except (EngineError, sqlite3.Error) as exc:
            self.check_cancel()  # a cancel between sub-queries is the person's, not a failure
            if record:
                self.add(StepRecord("search", self.ms(mark), False, "search_error", {"error": str(exc)}))
            self.outcome.notes.append(msg("ask.search_failed", error=_said(exc)))
            return None
        self.outcome.notes.extend(n for n in found.notes if n not in self.outcome.notes)
        if record:
            topics = sum(1 for c in found.candidates if c.kind == "topic")
            self.add(StepRecord("search", self.ms(mark), True, None, {**found.detail, "topics": topics,
                                                                       "candidates": len(found.candidates)}))
        return found

    async def rerank(self, question: str, candidates: list[Candidate], timeout: float, *,
                     record: bool = True) -> RerankResult:
        self.check_cancel()
        reranker = self.deps.reranker
        mark = time.perf_counter()
        fallback, error = None, None
        try:
            async with asyncio.timeout(max(timeout, 0.001)):
                result = await reranker.arerank(question, candidates)
        except TimeoutError:
            fallback, error = "timeout", f"the reranker took longer than its {timeout:.1f} s"
        except EngineError as exc:
            fallback, error = "rerank_error", str(exc)
        if fallback is not None:
            topics = [c for c in candidates if c.kind == "topic"]
            result = RerankResult(reranker.name, fallback_selection(fallback, [], topics, FALLBACK_TOPICS),
                                  {"error": error}, fallback=fallback)
        else:  # unbuilt messages Flash does not read: cut by the person's threshold, or said (as Search does)
            result, refused = keep_unread(candidates, reranker, result, reranker.threshold)
            if refused is not None:
                self.outcome.notes.append(refused)
        said = result.message("error") if result.fallback else None
        if said is not None and said.code == "llm.unreachable":
            self.unreachable = said
        usage = step_usage(result.usage)
        turns = (result.report or {}).get("timings_ms") or {}
        usage["model_ms"] = round(sum(v for k, v in turns.items() if k.startswith("turn_")
                                      and isinstance(v, int | float)), 2)
        self.rerank_usage = usage
        if record:
            detail: dict[str, Any] = {"reranker": result.reranker, "selected": [s.as_dict() for s in result.selected],
                      "error": error, "report": result.report, "trace": result.trace}
            self.add(StepRecord("rerank", self.ms(mark), fallback is None, fallback or result.fallback, detail,
                                usage))
        return result

    def stand_in(self, candidates: list[Candidate], said: Message) -> RerankResult:
        """Stage 1's best topics in place of a selection no model could make."""
        topics = [c for c in candidates if c.kind == "topic"]
        return RerankResult(self.deps.reranker.name, fallback_selection("unreachable", [], topics, FALLBACK_TOPICS),
                            {"error": str(said)}, fallback="unreachable")

    async def compose(self, question: str, selection: RerankResult, candidates: list[Candidate], *,
                      record: bool = True) -> Composed | None:
        self.check_cancel()
        mark = time.perf_counter()

        def work() -> Composed:
            connection = self.deps.connect()
            try:
                return compose_sources(connection, question, selection.selected, candidates,
                                       self.settings.budget_tokens or 6000, self.settings.source_messages,
                                       reranker=selection.reranker)
            finally:
                connection.close()
        try:
            composed = await asyncio.to_thread(work)
        except (EngineError, sqlite3.Error) as exc:
            if record:
                self.add(StepRecord("compose", self.ms(mark), False, "compose_error", {"error": str(exc)}))
            self.outcome.notes.append(msg("ask.sources_unreadable", error=_said(exc)))
            return None
        if record:
            self.add(StepRecord("compose", self.ms(mark), True, None, composed.detail))
        return composed

    # -- answer form, verify ---------------------------------------------------------------
    def answer_form(self) -> str:
        if self.settings.answer_format != "auto":
            return self.settings.answer_format
        client = self.deps.client
        assert client is not None  # asked only on the way to an answer, which Flow starts only with a client
        constrained = schema_protocol(client, self.deps.model) == "constrained"
        return "schema" if constrained else "text"

    @staticmethod
    def share(answer: Answer) -> float | None:
        return supported_share(answer.claims)["share"]

    async def verify(self, answer: Answer, sources: list[Source], timeout: float, question: str = "") -> float | None:
        self.check_cancel()
        mode = self.settings.verify
        if mode == "off" or answer.not_found or not answer.claims:
            why = "off" if mode == "off" else "nothing to check"
            self.add(StepRecord("verify", 0.0, True, "off" if mode == "off" else None, {"note": why}))
            return None
        mark = time.perf_counter()
        # The offline check first (the issue's order): a verify call that fails or skips a claim
        # leaves that claim with the offline verdict.
        figures = await asyncio.to_thread(check_offline, answer.claims, sources, self.deps.embedder, question)
        offline = [{"support": c.support, "supported": c.supported, "note": c.note} for c in answer.claims]
        if mode == "llm" and self.deps.client is not None:
            call = await check_with_model(self.deps.client, answer.claims, sources,
                                          max_tokens=self.settings.max_tokens_verify or 512, timeout=timeout,
                                          model=self.deps.model, question=question)
            figures = supported_share(answer.claims)
            method = "llm" if call.ok else "offline"
            self.add(self.call_record("verify", mark, call, {"method": method, **figures, "offline": offline}))
            return figures["share"]
        verified: dict[str, Any] = {"method": "offline", **figures, "claims": offline}
        self.add(StepRecord("verify", self.ms(mark), True, None, verified))
        return figures["share"]

    def caveat(self, answer: Answer | None, language: str) -> None:
        """The answer says what it could not support (seed 002: soften rather than assert)."""
        if answer is None or answer.caveat is not None:
            return
        unsupported = [c.text for c in answer.claims if c.supported is False]
        if unsupported:
            # In the answer's language (the question's), not the window's: it is part of the answer.
            claims = "; ".join(f"«{t.rstrip('.!?… ')}»" for t in unsupported)
            answer.caveat = render(msg("ask.caveat", claims=claims), language)
            answer.text = f"{answer.text}\n\n{answer.caveat}"
        checked = [c for c in answer.claims if c.supported is not None]
        if checked and 2 * len(unsupported) > len(checked):
            # Seed 002's refusal: mostly unsupported is said first, before anything is believed.
            answer.refusal = render(msg("ask.mostly_unsupported", unsupported=len(unsupported), claims=len(checked)),
                                    language)
            answer.text = f"{answer.refusal}\n\n{answer.text}"

    # -- the end ---------------------------------------------------------------------------
    def finish(self, started: float) -> None:
        outcome = self.outcome
        timings: dict[str, float] = {}
        for step in outcome.steps:
            timings[step.name] = round(timings.get(step.name, 0.0) + step.ms, 2)
        total = (time.perf_counter() - started) * 1000
        model = sum(step.usage.get("model_ms", 0.0) for step in outcome.steps)
        timings.update(total=round(total, 2), model=round(model, 2), overhead=round(max(total - model, 0.0), 2))
        outcome.timings_ms = timings
        outcome.usage = usage_of(*(step.usage for step in outcome.steps))
        secrets = self.deps.secrets
        for step in outcome.steps:
            step.detail = scrub(step.detail, secrets)
        outcome.notes = [_scrubbed(note, secrets) for note in outcome.notes]

    def save(self) -> None:
        try_save(self.deps, self.outcome, self.settings)


def _said(error: Exception) -> Message | str:
    """An engine error's code (said in the person's language), else its text."""
    return error.message if isinstance(error, EngineError) else str(error)


def _scrubbed(note: Message | str, secrets: list[str]) -> Message | str:
    """A note with the secrets out of its text, or out of every parameter of its code."""
    if isinstance(note, Message):
        return Message.from_json(scrub(note.to_json(), secrets)) or note
    return scrub(note, secrets)
