"""`ask()`: seed 002's flow, each step bounded and with a named fallback, all of it recorded.

    plan → search (each sub-query through stage 1, RRF) → rerank (the user's reranker)
         → compose (numbered sources) → answer → verify → [refine: HyDE + deeper search,
           a second answer and verify, once, when under half the claims are supported]

Time: one total budget (30 s cloud, 180 s local, `AskSettings.total_budget_s`); a model step
gets at most its share of it and never more than what is left (`SHARES`), the refine round
whatever remains. Every model call carries `max_tokens`. Any failure falls back to what was
found so far, with the reason: a failed plan → the offline plan; a failed rerank → stage 1's
best; a failed answer → the sources without an answer (`AskOutcome.fallback`). No model
configured → the sources and one sentence saying what to set. Only cancellation raises:
`AskCancelled` (its `partial` holds the steps so far), or asyncio's own CancelledError.

`on_answer_text` is told the answer as the model writes it (the reply is streamed), then
its final text (with the caveat, after verify), each time it changes.

A person may give the plan (`plan=`: the window's edited chips): no plan call is made, and
its sub-queries, dates, chats and people are searched as given (`planning.user_plan`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from engine.ask import plan as planning
from engine.ask.answer import not_found_answer, write_answer
from engine.ask.quote import quote_sources
from engine.ask.steps import Steps
from engine.ask.types import AskCancelled, AskDeps, AskOutcome, AskSettings, Plan, StepRecord, StepUsage
from engine.errors import CancelToken
from engine.facts.records import Profile
from engine.facts.store import known_profile, profile_budget
from engine.llm import Deadline
from engine.messages import Message, msg, reason_message, step_message
from engine.rerank.flash.prompt import choose_language

SHARES = {"plan": 0.2, "rerank": 0.35, "answer": 0.5, "verify": 0.15}
NO_MODEL_NOTE = msg("ask.no_model")
CANCEL_POLL_S = 0.05
REFINE_MIN_S = 2.0  # a refine round needs at least this much of the budget left to be worth starting


async def ask(question: str, deps: AskDeps, settings: AskSettings | None = None, *, now: datetime,
              cancel: CancelToken | None = None, on_step: Callable[[StepRecord], None] | None = None,
              on_answer_text: Callable[[str], None] | None = None, plan: Plan | None = None) -> AskOutcome:
    """Answer `question` from the store (see the module docstring); `plan`: the person's own."""
    settings = (settings or AskSettings()).resolved(deps.local)
    run = _Run(question, deps, settings, now, cancel, on_step, on_answer_text, plan)
    task = asyncio.ensure_future(run.execute())
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=CANCEL_POLL_S if cancel is not None else None)
            if done:
                return task.result()
            if cancel is not None and cancel.cancelled:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                raise AskCancelled(run.steps.outcome)
    except asyncio.CancelledError:
        task.cancel()
        raise


def _changes_only(listener: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """`listener`, told the answer's text only when it differs from what it was told last (the
    streamed text usually ends as the final one)."""
    if listener is None:
        return None
    last: list[str | None] = [None]

    def tell(text: str) -> None:
        if text != last[0]:
            last[0] = text
            listener(text)
    return tell


class _Run:
    def __init__(self, question: str, deps: AskDeps, settings: AskSettings, now: datetime,
                 cancel: CancelToken | None, on_step, on_answer_text, plan: Plan | None = None) -> None:
        self.question, self.deps, self.settings, self.now = question, deps, settings, now
        self.cancel = cancel
        self.given_plan = plan
        self.on_answer_text = _changes_only(on_answer_text)
        self.deadline = Deadline(settings.total_budget_s or 30.0)
        self.language = choose_language("auto", question)
        outcome = AskOutcome(question, planning.offline_plan(question, now, None),
                             model=(deps.model or deps.client.endpoint.default_model) if deps.client else None)
        self.steps = Steps(outcome, deps, settings, self.check_cancel, on_step)
        self.profile: Profile | None = None  # the owner's key facts, read once before the first answer
        self.profile_read = False

    async def owner_profile(self) -> Profile | None:
        """The owner's key facts for the answer's prompt (issue 33), read once per question."""
        if not self.profile_read:
            def read() -> Profile | None:
                connection = self.deps.connect()
                try:
                    return known_profile(connection, profile_budget(self.settings.budget_tokens))
                finally:
                    connection.close()
            self.profile = await asyncio.to_thread(read)
            self.profile_read = True
        return self.profile

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.cancelled:
            raise AskCancelled(self.steps.outcome)

    def timeout(self, step: str) -> float:
        return min(SHARES[step] * self.deadline.total_s, self.deadline.remaining())

    async def execute(self) -> AskOutcome:
        started = time.perf_counter()
        outcome, steps = self.steps.outcome, self.steps
        await self.plan()
        found = await steps.search(outcome.plan, self.question, self.cancel)
        if found is None:
            outcome.fallback = "search_error"
        else:
            outcome.candidates = found.candidates
            outcome.selection = await steps.rerank(self.question, found.candidates, self.timeout("rerank"))
            composed = await steps.compose(self.question, outcome.selection, found.candidates)
            outcome.sources = composed.sources if composed is not None else []
            if composed is None:
                outcome.fallback = "compose_error"
            else:
                await self.answer_and_verify()
        steps.finish(started)
        if self.settings.record:
            await asyncio.to_thread(self.steps.save)
        return outcome

    async def plan(self) -> None:
        outcome, deps = self.steps.outcome, self.deps
        if self.given_plan is not None:
            outcome.plan = planning.user_plan(self.question, self.given_plan, deps, self.settings)
            self.steps.add(StepRecord("plan", 0.0, True, None, {"plan": outcome.plan.as_dict(),
                                                                "note": "the person's own plan: no plan call"}))
            return
        if deps.client is None or not self.settings.use_plan_model:
            reason = "no_model" if deps.client is None else "off"
            outcome.plan = planning.offline_plan(self.question, self.now, reason)
            self.steps.add(StepRecord("plan", 0.0, True, reason, {"plan": outcome.plan.as_dict()}))
            return
        mark = time.perf_counter()
        outcome.plan, call = await planning.model_plan(self.question, deps, self.settings, now=self.now,
                                                      timeout=self.timeout("plan"))
        if call.reason == "unreachable":
            self.steps.unreachable = call.error_message
        self.steps.add(self.steps.call_record("plan", mark, call, {"plan": outcome.plan.as_dict()},
                                              fallback=outcome.plan.fallback))

    async def answer_and_verify(self) -> None:
        outcome, settings = self.steps.outcome, self.settings
        if self.deps.client is None:
            outcome.fallback = "no_model"
            outcome.notes.append(NO_MODEL_NOTE)
            self.quote()
            self.steps.add(StepRecord("answer", 0.0, False, "no_model", {"sources": len(outcome.sources),
                                                                         "quotes": len(outcome.quotes)}))
            return
        if self.steps.unreachable is not None:
            await self.without_the_server(self.steps.unreachable)
            return
        answer = await self.answer(outcome.sources, round_=1)
        if answer is None:
            return
        outcome.answer = answer
        share = await self.steps.verify(answer, outcome.sources, self.timeout("verify"), self.question)
        if (settings.refine and share is not None and share < 0.5 and not answer.not_found
                and self.deadline.remaining() >= REFINE_MIN_S):
            await self.refine(answer)
        self.steps.caveat(outcome.answer, self.language)
        if self.on_answer_text is not None and outcome.answer is not None:
            self.on_answer_text(outcome.answer.text)

    def failed_step(self) -> tuple[str, str] | None:
        """The rerank or compose step that failed on the way to the sources, and its reason."""
        for record in self.steps.outcome.steps:
            # "model_empty" is the model's own verdict after reading: nothing relevant, truly.
            if record.name in ("rerank", "compose") and record.fallback not in (None, "model_empty", "off"):
                return record.name, record.fallback
            if record.name == "compose" and not record.ok:
                return record.name, "compose_error"
        return None

    def quote(self) -> None:
        """No model's answer: the sentences of the sources that answer, ranked as the verifier reads them."""
        outcome = self.steps.outcome
        outcome.quotes = quote_sources(self.question, outcome.sources)

    async def answer(self, sources, round_: int):
        outcome, settings, deps = self.steps.outcome, self.settings, self.deps
        self.check_cancel()
        form = self.steps.answer_form()
        if not sources:
            failed = self.failed_step()
            if failed is not None:
                # Nothing to read because a step failed: that is said, never "not in your chats".
                step, reason = failed
                detail: dict[str, Any] = {"round": round_, "format": form, "note": f"no sources: {step} failed"}
                self.steps.add(StepRecord("answer", 0.0, False, f"{step}_failed", detail))
                if round_ == 1:
                    outcome.fallback = f"{step}_{reason}"
                    outcome.notes.append(msg("ask.step_failed_nothing_read", step=step_message(step),
                                             reason=reason_message(reason)))
                return None
            not_found = not_found_answer(self.language, form)
            self.steps.add(StepRecord("answer", 0.0, True, None, {"round": round_, "format": form,
                                                                   "note": "no sources: nothing to ask the model"}))
            return not_found
        mark = time.perf_counter()
        timeout = self.deadline.remaining() if round_ > 1 else self.timeout("answer")
        profile = await self.owner_profile()
        answer, call = await write_answer(deps.client, self.question, sources, language=self.language, form=form,
                                          max_tokens=settings.max_tokens_answer or 1024, timeout=timeout,
                                          today=self.now.date().isoformat(), model=deps.model,
                                          on_text=self.on_answer_text, profile=profile.text if profile else "")
        detail = {"round": round_, "format": form, "sources": len(sources),
                  "answer": answer.as_dict() if answer is not None else None}
        if profile is not None:  # the trace shows what the answer was told of the owner
            detail["profile"] = {"text": profile.text, "fact_ids": list(profile.fact_ids), "tokens": profile.tokens}
        self.steps.add(self.steps.call_record("answer", mark, call, detail))
        if answer is None and round_ == 1:
            outcome.fallback = f"answer_{call.reason}"
            if call.reason == "unreachable" and call.error_message is not None:
                outcome.notes.append(msg("ask.unreachable", error=call.error_message))
            else:
                outcome.notes.append(msg("ask.no_answer", reason=msg(f"rerank.fallback.{call.reason}"),
                                         error=call.error_message or call.error or ""))
            self.quote()  # the model gave no answer: the sources' answering sentences stand in
        return answer

    async def without_the_server(self, said: Message) -> None:
        """An earlier step could not reach the chat model's server: no answer is asked of it (it
        was down a moment ago), and none claims that nothing was found (the model never judged
        the topics): the sources found stand, stage 1's best when the rerank kept none."""
        outcome, steps = self.steps.outcome, self.steps
        if not outcome.sources and outcome.candidates:
            composed = await steps.compose(self.question, steps.stand_in(outcome.candidates, said),
                                           outcome.candidates, record=False)
            if composed is not None:
                outcome.sources = composed.sources
        outcome.fallback = "answer_unreachable"
        outcome.notes.append(msg("ask.unreachable", error=said))
        self.quote()
        steps.add(StepRecord("answer", 0.0, False, "unreachable", {"sources": len(outcome.sources),
                                                                   "error": str(said),
                                                                   "error_message": said.to_json()}))

    async def refine(self, first) -> None:
        """Seed 002's one extra round: the first answer as a hypothetical document (HyDE) and a
        deeper stage 1, then a second answer, kept when it is better supported."""
        outcome, steps = self.steps.outcome, self.steps
        mark = time.perf_counter()
        hyde = " ".join(c.text for c in first.claims)
        found = await steps.search(outcome.plan, self.question, self.cancel, extra=[hyde], deeper=True,
                                   record=False)
        detail: dict = {"hyde": hyde, "reason": "under half of the claims supported"}
        if found is None:
            steps.add(StepRecord("refine", steps.ms(mark), False, "search_error", detail))
            return
        selection = await steps.rerank(self.question, found.candidates, self.timeout("rerank"), record=False)
        composed = await steps.compose(self.question, selection, found.candidates, record=False)
        if composed is None or not composed.sources:
            steps.add(StepRecord("refine", steps.ms(mark), False, "compose_error" if composed is None
                                 else "no_sources", detail))
            return
        detail.update(candidates=len(found.candidates), sources=len(composed.sources))
        steps.add(StepRecord("refine", steps.ms(mark), True, None, detail, StepUsage(**steps.rerank_usage)))
        second = await self.answer(composed.sources, round_=2)
        if second is None:
            outcome.notes.append(msg("ask.refine_failed"))
            return
        share = await steps.verify(second, composed.sources, self.deadline.remaining(), self.question)
        first_share = steps.share(first)
        if second.not_found or (share is not None and first_share is not None and share < first_share):
            outcome.notes.append(msg("ask.refine_not_better"))
            return
        outcome.answer, outcome.sources, outcome.selection = second, composed.sources, selection
        outcome.candidates = found.candidates
        outcome.refined = True

