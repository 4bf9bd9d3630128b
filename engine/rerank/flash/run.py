"""The state of one Flash run and everything both protocols share: calls, reads, outcomes.

`reranker.py` holds the turn loops; this holds what a loop needs around them: the
candidates shown, the prompts, one recorded LLM call, loading the topics a read asks
for, and the three ways a run ends (an answer, a fallback, nothing to ask).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.llm import ChatResult, Deadline, LLMError, LLMTimeout, ToolCall
from engine.messages import Message, msg
from engine.rerank.base import KINDS, MODEL_EMPTY, Candidate, RerankResult, Selection, fallback_message
from engine.rerank.flash.contextualize import QueryRewrite, rewrite_query
from engine.rerank.flash.errors import AnswerError
from engine.rerank.flash.parser import close_cut_json, parse_answer
from engine.rerank.flash.prompt import (
    SUMMARY_CAPS,
    choose_language,
    fit_contents,
    prompt_tokens,
    read_tokens,
    system_prompt,
    tool_schema,
    user_prompt,
)
from engine.rerank.flash.protocol import ProtocolChoice
from engine.rerank.flash.settings import EXCERPT_MIN_CHARS
from engine.rerank.flash.trace import RunRecorder
from engine.rerank.threshold import ThresholdSettings, threshold_filter
from engine.scrub import scrub, scrub_text

if TYPE_CHECKING:
    from engine.rerank.flash.reranker import FlashReranker

log = logging.getLogger(__name__)


def fallback_selection(reason: str, requested: Sequence[Candidate], shown_topics: Sequence[Candidate],
                       max_topics: int) -> list[Selection]:
    """What a failed run keeps (NOTES.md policy): the topics the model asked to read, if it
    asked, else stage 1's best; topics only (never people or files), at most `max_topics`,
    best score first, each with the reason and where it came from."""
    if requested:
        picked = list(requested[:max_topics])
    else:
        picked = sorted(shown_topics, key=lambda c: (-c.score, c.rank))[:max_topics]
    picked.sort(key=lambda c: (-c.score, c.rank))
    said = fallback_message(reason)
    if requested:
        return [Selection.because("topic", c.id, msg("rerank.flash.fallback_requested", reason=said,
                                                     rank=int(c.rank), score=float(c.score))) for c in picked]
    return [Selection.because("topic", c.id, msg("rerank.flash.fallback_vector", reason=said, rank=int(c.rank),
                                                 score=float(c.score))) for c in picked]


def threshold_fallback(reason: str, requested: Sequence[Candidate], shown_topics: Sequence[Candidate],
                       all_topics: Sequence[Candidate], max_topics: int,
                       threshold: ThresholdSettings | None) -> tuple[list[Selection], str, Message]:
    """What a failed run keeps when the person's threshold settings are known (issue 23): the
    topics the threshold filter keeps with them (threshold, gap, top-K), so a fallback never
    shows what their own filter hides; only where it keeps nothing, the seeds' policy
    (`fallback_selection`). Returns the selection, which policy made it ("threshold",
    "requested", "vector") and that in words."""
    if threshold is not None:
        ranked = sorted(all_topics, key=lambda c: (-c.score, c.rank))
        kept, _ = threshold_filter([c.score for c in ranked], threshold)
        if kept:
            said = fallback_message(reason)
            picked = [ranked[i] for i in kept]
            selected = [Selection.because("topic", c.id, msg(
                "rerank.flash.fallback_threshold", reason=said, score=float(c.score),
                threshold=float(threshold.threshold))) for c in picked]
            return selected, "threshold", msg("rerank.flash.fallback_kept.threshold",
                                              threshold=float(threshold.threshold), gap=float(threshold.gap),
                                              top_k=int(threshold.top_k), count=len(picked))
    selected = fallback_selection(reason, requested, shown_topics, max_topics)
    which = "requested" if requested else "vector"
    kept_words = msg(f"rerank.flash.fallback_kept.{which}", count=len(selected))
    if threshold is not None:
        kept_words = msg("rerank.flash.fallback_kept.none_passed", threshold=float(threshold.threshold),
                         kept=kept_words)
    return selected, which, kept_words


class RunBase:
    def __init__(self, owner: FlashReranker, query: str, candidates: list[Candidate],
                 rewrite: QueryRewrite | None) -> None:
        self.client, self.source = owner.client, owner.topics
        self.settings = s = owner.settings.resolved(owner.client.endpoint.is_local)
        self.query, self.recent, self.rewrite = query, owner.recent_messages, rewrite
        self.profile = owner.profile if owner.profile is not None and not owner.profile.empty else None
        self.date = owner.now().date().isoformat()
        self.retrieved = sum(1 for c in candidates if c.kind == "topic")
        self.all_topics = [c for c in candidates if c.kind == "topic"]
        self.threshold = owner.threshold  # the person's filter, which a fallback keeps to (issue 23)
        self.fallback_kept: str | None = None  # which policy a fallback kept by, and that in words
        self.fallback_kept_message: Message | None = None
        self.shown = {
            "topic": [c for c in candidates if c.kind == "topic"][: max(0, s.max_candidates)],
            "person": [c for c in candidates if c.kind == "person"][: s.people_shown],
            "artifact": [c for c in candidates if c.kind == "artifact"][: s.artifacts_shown],
        }
        self.by_id = {kind: {c.id: c for c in group} for kind, group in self.shown.items()}
        self.limits = {"topic": s.max_topics, "person": s.max_people, "artifact": s.max_artifacts}
        self.language = choose_language(s.prompt_language, query, self.recent)
        self.uses_tool = bool(self.shown["topic"]) and s.max_tool_calls > 0
        self.recorder = RunRecorder()
        self.messages: list[dict[str, Any]] = []
        self.requested: list[int] = []  # candidate topic ids, de-duplicated, in request order
        self.calls: list[list[int]] = []  # ids as asked, per read
        self.loaded: set[int] = set()
        self.loaded_chars: dict[int, int] = {}
        self.read_so_far = 0  # tokens the reads have loaded into the conversation so far (estimated)
        self.turns: list[dict[str, Any]] = []
        self.protocol = ProtocolChoice("tools", "preset", "")
        self.switch: dict[str, str] | None = None
        # A rewrite the caller gives was searched with in stage 1 (engine.api.search) when it was used.
        self.stage1_used_rewrite = rewrite is not None and rewrite.used
        self.system = self.user = ""
        self.estimate = self.summary_cap = 0
        self.shape: str | None = None
        self.dropped: dict[str, list[str]] = {}
        self.error: str | None = None
        self.error_message: Message | None = None  # `error` as a code, for the window

    @property
    def contextualized(self) -> str | None:
        return self.rewrite.rewritten if self.rewrite is not None else None

    async def _contextualize(self, deadline: Deadline) -> None:
        """Use the caller's rewrite; without one, make it here (it then shapes only the prompt)."""
        s = self.settings
        if self.rewrite is None and s.contextualize_query and self.recent.strip():
            timeout = min(s.rewrite_timeout, deadline.remaining())
            self.rewrite = await rewrite_query(self.client, self.query, self.recent, timeout=timeout,
                                               max_tokens=s.max_tokens_rewrite, model=s.model, language=self.language)
            self.recorder.http_s += self.rewrite.elapsed_ms / 1000
        if self.rewrite is not None:
            self.recorder.timings_ms["contextualize"] = self.rewrite.elapsed_ms
            if self.rewrite.usage:
                self.recorder.prompt_tokens += self.rewrite.usage.get("prompt_tokens") or 0
                self.recorder.completion_tokens += self.rewrite.usage.get("completion_tokens") or 0

    def _build_prompts(self, *, constrained: bool) -> None:
        """The prompts, with summaries shortened until turn 1 fits the token budget."""
        s, shown = self.settings, self.shown
        self.system = system_prompt(self.language, s, shown_topics=len(shown["topic"]),
                                    has_people=bool(shown["person"]), has_artifacts=bool(shown["artifact"]),
                                    uses_tool=self.uses_tool, has_context=bool(self.contextualized),
                                    constrained=constrained, has_profile=self.profile is not None)
        tools = [tool_schema(self.language)] if self.uses_tool and not constrained else None
        for cap in SUMMARY_CAPS:
            self.user = user_prompt(self.language, date=self.date, query=self.query, recent=self.recent,
                                    contextualized=self.contextualized, topics=shown["topic"],
                                    people=shown["person"], artifacts=shown["artifact"], summary_cap=cap,
                                    profile=self.profile.text if self.profile is not None else "")
            self.estimate = prompt_tokens(self.system, self.user, tools)
            if self.estimate <= (s.prompt_budget_tokens or 0):
                break
        self.summary_cap = cap

    async def _call(self, turn: int, options: dict[str, Any], deadline: Deadline, *,
                    first: bool) -> ChatResult | RerankResult:
        """One turn's completion, recorded; a failure comes back as the fallback result."""
        s = self.settings
        if first:
            per_turn = s.first_turn_timeout
        elif self.protocol.protocol == "constrained" and s.turn_timeout is None:
            per_turn = deadline.remaining()  # the answer is the last turn: it may use what is left
        else:
            per_turn = s.per_turn_timeout
        timeout = deadline.turn_timeout(per_turn)
        if timeout <= 0:
            return self._fallback("timeout", msg("rerank.flash.out_of_time", total=float(s.total), turn=turn))
        label = f"turn_{turn}"
        started = time.perf_counter()
        try:
            result = await self.client.complete(self.messages, model=s.model, reasoning_effort=s.reasoning_effort,
                                                timeout=timeout, **options)
        except LLMError as exc:
            intended = {"model": s.model, "messages": list(self.messages), **options,
                        "reasoning_effort": s.reasoning_effort, "timeout": round(timeout, 3)}
            self.turns.append(self.recorder.call(label, time.perf_counter() - started, intended=intended,
                                                 error=str(exc)))
            self.turns[-1]["protocol"] = self.protocol.protocol
            if isinstance(exc, LLMTimeout):
                # Cut short by what was left of the total → "timeout"; by the per-turn limit → "turn_timeout".
                reason = "timeout" if timeout < per_turn - 1e-6 or deadline.expired else "turn_timeout"
                return self._fallback(reason, self._timeout_message(exc, reason, turn=turn, seconds=timeout))
            return self._fallback("llm_error", exc.message)
        self.turns.append(self.recorder.call(label, time.perf_counter() - started, result=result))
        self.turns[-1]["protocol"] = self.protocol.protocol
        return result

    def _timeout_message(self, exc: LLMTimeout, reason: str, *, turn: int, seconds: float) -> Message:
        """The client says "did not answer within 1.5 s"; the person set a total (`--timeout 3`):
        name the budget that ran out and what it was a part of."""
        said = exc.message
        params = said.params if isinstance(said, Message) else {}
        server, model, s = params.get("server", "?"), params.get("model", self.settings.model), self.settings
        if reason == "timeout":
            return msg("search.flash_total_timeout", server=server, model=model, total=float(s.total), turn=turn,
                       seconds=seconds)
        if s.turn_timeout is not None:
            return msg("search.flash_turn_limit", server=server, model=model, turn=turn, seconds=seconds)
        return msg("search.flash_turn_share", server=server, model=model, turn=turn, seconds=seconds,
                   total=float(s.total))

    # -- reads --------------------------------------------------------------------------------
    def _remember(self, ids: list[int]) -> None:
        for topic_id in ids:
            if topic_id in self.by_id["topic"] and topic_id not in self.requested:
                self.requested.append(topic_id)

    def _load(self, ids: list[int], turn: int, *, call_id: str, name: str, arguments: str) -> dict[str, Any]:
        """Read the candidate topics among `ids` (cut to what is left of the read budget); the
        trace record, with the contents under "_contents" for the caller to format."""
        wanted = list(dict.fromkeys(i for i in ids if i in self.by_id["topic"]))
        contents = self.source(wanted) if wanted else []
        found = {c.id for c in contents}
        # The budget is the conversation's, not each read's: every read stays in the messages
        # sent with the next turn, and three reads of 1,400 estimated tokens beside a local
        # server's 2,000-token turn 1 are ~9K real tokens, past the 8K context it was started with.
        fitted, no_room = fit_contents(contents, max(0, (self.settings.read_budget_tokens or 0) - self.read_so_far),
                                       self.language)
        self.read_so_far += read_tokens(fitted, self.language)
        self.loaded.update(c.id for c in fitted)
        self.loaded_chars.update((c.id, c.chars) for c in contents)
        self._remember(wanted)
        record: dict[str, Any] = {
            "turn": turn, "id": call_id, "name": name, "arguments": arguments, "topic_ids": ids,
            "loaded": [c.id for c in fitted], "missing": [i for i in wanted if i not in found], "no_room": no_room,
            "not_candidates": list(dict.fromkeys(i for i in ids if i not in self.by_id["topic"])), "error": None}
        self.calls.append(ids)
        self.recorder.tool_calls.append(record)
        return {**record, "_contents": fitted}

    def _tool_error(self, turn: int, call: ToolCall, ids: list[int], message: str) -> str:
        self.calls.append(ids)
        self.recorder.tool_calls.append({"turn": turn, "id": call.id, "name": call.name,
                                         "arguments": call.arguments_raw, "topic_ids": ids, "loaded": [],
                                         "missing": [], "not_candidates": [], "error": message})
        return message

    # -- outcomes ---------------------------------------------------------------------------
    def _accept(self, result: ChatResult) -> RerankResult:
        allowed = {kind: list(ids) for kind, ids in self.by_id.items()}
        content, cut_note = result.content, None
        closed = close_cut_json(content or "") if result.finish_reason == "length" else None
        if closed is not None:  # cut off at the bound: the entries it finished still stand
            content = closed
            cut_note = msg("rerank.flash.cut_kept", max_tokens=self.settings.max_tokens_answer)
        try:
            parsed = parse_answer(content, allowed, self.limits)
        except AnswerError as exc:
            if result.finish_reason == "length":
                return self._fallback(exc.reason, msg("rerank.flash.cut_unusable", problem=exc.message,
                                                      max_tokens=self.settings.max_tokens_answer))
            return self._fallback(exc.reason, exc.message)
        self.shape, self.dropped = parsed.shape, parsed.dropped
        if not parsed.chosen:
            if parsed.dropped.get("hallucinated"):
                return self._fallback("all_hallucinated", msg("rerank.flash.all_hallucinated",
                                                              ids=", ".join(parsed.dropped["hallucinated"][:10])))
            return self._result([], MODEL_EMPTY, note=msg("rerank.flash.model_found_nothing"))
        selected = []
        for choice in sorted(parsed.chosen, key=lambda c: KINDS.index(c.kind)):  # stable: model order per kind
            excerpt = choice.excerpt if self._excerpt_allowed(choice.kind, choice.id) else None
            if choice.reason:  # the model's own words, shown as written
                selected.append(Selection(choice.kind, choice.id, choice.reason, excerpt))
            else:
                selected.append(Selection.because(choice.kind, choice.id, msg("rerank.flash.selected"), excerpt))
        return self._result(selected, None, note=cut_note)

    def _excerpt_allowed(self, kind: str, topic_id: int) -> bool:
        """Seed 000: excerpts only for big topics, and only of a topic the model actually read."""
        if not self.settings.excerpts or kind != "topic" or topic_id not in self.loaded:
            return False
        chars = max(self.by_id["topic"][topic_id].chars, self.loaded_chars.get(topic_id, 0))
        return chars > EXCERPT_MIN_CHARS

    def _fallback(self, reason: str, detail: Message) -> RerankResult:
        self.error, self.error_message = str(detail), detail
        log.info("flash reranker fell back (%s): %s", reason, scrub_text(self.error, [self.client.endpoint.api_key]))
        requested = [self.by_id["topic"][i] for i in self.requested]
        selected, self.fallback_kept, self.fallback_kept_message = threshold_fallback(
            reason, requested, self.shown["topic"], self.all_topics, self.settings.max_topics, self.threshold)
        return self._result(selected, reason)

    def _result(self, selected: list[Selection], fallback: str | None, note: Message | None = None) -> RerankResult:
        s, recorder = self.settings, self.recorder
        secrets = [self.client.endpoint.api_key]
        error = scrub(self.error, secrets)
        # Each text of the report also as its code (`RerankResult.message`), scrubbed like the text.
        said = {"error_message": self.error_message, "note_message": note,
                "protocol_note_message": self.protocol.message if self.turns else None,
                "fallback_kept_message": self.fallback_kept_message if fallback else None}
        said = {key: scrub(value.to_json(), secrets) if value is not None else None for key, value in said.items()}
        note_text = str(note) if note is not None else None
        usage = recorder.usage
        kept = {kind: sum(1 for x in selected if x.kind == kind) for kind in KINDS}
        rewrite = None
        if self.rewrite is not None:
            rewrite = {**self.rewrite.as_dict(), "stage1": self.stage1_used_rewrite}
        protocol = {**self.protocol.as_dict(), "switch": self.switch} if self.turns else None
        trace = scrub({
            "settings": {**s.as_dict(), "per_turn_timeout": round(s.per_turn_timeout, 3),
                         "first_turn_timeout": round(s.first_turn_timeout, 3)},
            "query": self.query, "prompt_language": self.language, "date": self.date,
            "system_prompt": self.system, "user_prompt": self.user,
            "prompt_tokens_estimate": self.estimate, "summary_cap": self.summary_cap,
            "contextualization": rewrite, "protocol": protocol,
            "turns": self.turns, "tool_calls": recorder.tool_calls, "requested_ids": list(self.requested),
            "selected": [x.as_dict() for x in selected], "fallback": fallback, "error": error, "note": note_text,
            "fallback_kept": self._kept_by(fallback), "answer_shape": self.shape, "dropped": self.dropped,
            "reasoning": recorder.reasoning,
            "usage": usage,
        }, secrets)
        if self.profile is not None:  # what turn 1 was told of the owner (issue 33); absent when nothing is known
            trace["profile"] = scrub({"text": self.profile.text, "fact_ids": list(self.profile.fact_ids),
                                      "tokens": self.profile.tokens}, secrets)
        timings = recorder.finish()
        trace["duration_ms"] = timings["total"]
        trace["timings_ms"] = timings
        report = {
            "retrieved": self.retrieved, "kept": kept["topic"], "kept_by_kind": kept,
            "shown": {kind: len(group) for kind, group in self.shown.items()},
            "tool_calls": [list(c) for c in self.calls], "requested_ids": list(self.requested),
            "fallback": fallback, "failed": fallback is not None and fallback != MODEL_EMPTY, "error": error,
            "fallback_kept": self._kept_by(fallback), "note": note_text, "turns": len(self.turns), "usage": usage,
            "timings_ms": timings, "model": s.model,
            "prompt_language": self.language, "prompt_tokens_estimate": self.estimate,
            "degraded": list(recorder.degraded), "answer_shape": self.shape,
            "protocol": self.protocol.protocol if self.turns else None,
            "protocol_note": scrub(self.protocol.note, secrets) if self.turns else None,
            "protocol_switch": scrub(self.switch, secrets),
            "contextualized_query": self.contextualized,
            "rewrite": scrub({k: v for k, v in rewrite.items() if k != "call"}, secrets) if rewrite else None,
            **said,
        }
        return RerankResult("flash", selected, report, fallback=fallback, tool_calls=[list(c) for c in self.calls],
                            usage=usage, trace=trace)

    def _kept_by(self, fallback: str | None) -> dict[str, str] | None:
        """A fallback's policy and its words (English; `report["fallback_kept_message"]` is the code)."""
        if not fallback or self.fallback_kept is None:
            return None
        return {"policy": self.fallback_kept, "text": str(self.fallback_kept_message)}
