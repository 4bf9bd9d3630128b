"""FlashReranker: the agentic turn loop of seed 000 with the reference's code-level rules.

    Turn 1   prompts + candidates, get_topics_content forced (no response_format: Gemini
             cannot combine the two)
    Turn 2…  tool results appended; response_format json_object, tools still offered
    Answer   parsed leniently, kept strictly (only ids shown, within the limits)

Whatever goes wrong with the LLM ends in a fallback, never an exception: if the model
asked for topics, its choice (the first max_topics requested ids) beats bare cosine;
otherwise the vector top. Fallbacks hold topics only (people and artifacts flooded the
reference's prompt). Only cancellation propagates.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from engine.llm import ChatClient, ChatResult, Deadline, LLMError, LLMTimeout, ToolCall
from engine.rerank.base import KINDS, Candidate, Reranker, RerankResult, Selection
from engine.rerank.flash.contextualize import contextualize
from engine.rerank.flash.errors import AnswerError
from engine.rerank.flash.parser import as_entries, parse_answer, parse_id
from engine.rerank.flash.prompt import (
    FORCED_TOOL,
    PROMPT_BUDGET_TOKENS,
    SUMMARY_CAPS,
    TOOL_NAME,
    choose_language,
    prompt_tokens,
    system_prompt,
    tool_result,
    tool_schema,
    user_prompt,
)
from engine.rerank.flash.settings import ARTIFACTS_SHOWN, EXCERPT_MIN_CHARS, PEOPLE_SHOWN, FlashSettings
from engine.rerank.flash.source import TopicSource
from engine.rerank.flash.texts import TEXTS
from engine.rerank.flash.trace import RunRecorder, scrub, secrets_of

log = logging.getLogger(__name__)

JSON_OBJECT = {"type": "json_object"}
FALLBACK_REASONS = ("llm_error", "timeout", "turn_timeout", "empty_response", "protocol_violation", "parse_error",
                    "all_hallucinated", "max_tool_calls")
MODEL_EMPTY = "model_empty"  # a valid "nothing relevant": reported like a fallback, but not a failure


class FlashReranker(Reranker):
    name = "flash"

    def __init__(self, client: ChatClient, topics: TopicSource, settings: FlashSettings = FlashSettings(),
                 recent_messages: str = "", now: Callable[[], datetime] | None = None) -> None:
        self.client = client
        self.topics = topics
        self.settings = settings
        self.recent_messages = recent_messages
        self.now = now or (lambda: datetime.now().astimezone())

    async def arerank(self, query: str, candidates: list[Candidate]) -> RerankResult:
        # All state lives in the run, so one reranker may serve concurrent searches.
        return await _Run(self, query, candidates).execute()


class _Run:
    def __init__(self, owner: FlashReranker, query: str, candidates: list[Candidate]) -> None:
        self.client, self.source, self.settings = owner.client, owner.topics, owner.settings
        self.query, self.recent = query, owner.recent_messages
        self.date = owner.now().date().isoformat()
        s = self.settings
        self.retrieved = sum(1 for c in candidates if c.kind == "topic")
        self.shown = {
            "topic": [c for c in candidates if c.kind == "topic"][: max(0, s.max_candidates)],
            "person": [c for c in candidates if c.kind == "person"][:PEOPLE_SHOWN],
            "artifact": [c for c in candidates if c.kind == "artifact"][:ARTIFACTS_SHOWN],
        }
        self.by_id = {kind: {c.id: c for c in group} for kind, group in self.shown.items()}
        self.language = choose_language(s.prompt_language, query, self.recent)
        self.uses_tool = bool(self.shown["topic"]) and s.max_tool_calls > 0
        self.recorder = RunRecorder()
        self.messages: list[dict[str, Any]] = []
        self.requested: list[int] = []  # candidate topic ids, de-duplicated, in request order
        self.calls: list[list[int]] = []  # ids as asked, per tool call
        self.loaded: set[int] = set()
        self.loaded_chars: dict[int, int] = {}
        self.turns: list[dict[str, Any]] = []
        self.trace: dict[str, Any] = {"contextualization": None}
        self.contextualized: str | None = None
        self.system = self.user = ""
        self.estimate = 0
        self.summary_cap = 0
        self.shape: str | None = None
        self.dropped: dict[str, list[str]] = {}
        self.error: str | None = None

    # -- the run ----------------------------------------------------------------------------
    async def execute(self) -> RerankResult:
        s = self.settings
        if not any(self.shown.values()):
            return self._result([], None, note="no candidates: nothing to ask the model")
        deadline = Deadline(s.total_timeout)
        if s.contextualize_query:
            if self.recent.strip():
                self.contextualized, entry = await contextualize(self.client, s, self.language, self.query,
                                                                 self.recent, deadline, self.recorder)
            else:
                entry = {"used": False, "note": "skipped: no recent messages"}
            self.trace["contextualization"] = entry
        self._build_prompts()
        self.messages = [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]
        tools = [tool_schema(self.language)] if self.uses_tool else None
        for turn in range(1, s.max_tool_calls + 2):
            forced = self.uses_tool and turn == 1
            options: dict[str, Any] = {}
            if tools:
                options.update(tools=tools, tool_choice=FORCED_TOOL if forced else "auto")
            if not forced:
                options["response_format"] = JSON_OBJECT
            result = await self._call(turn, options, deadline)
            if isinstance(result, RerankResult):  # the call failed: already a fallback
                return result
            if result.tool_calls:
                if not self.uses_tool:
                    why = "max_tool_calls" if self.shown["topic"] else "protocol_violation"
                    return self._fallback(why, "the model called a tool that was not offered")
                if len(self.calls) + len(result.tool_calls) > s.max_tool_calls:
                    for call in result.tool_calls:  # not run, but still the model's choice
                        ids = self.ids_of(call) if call.name == TOOL_NAME else []
                        self._remember(ids)
                        self.calls.append(ids)
                    return self._fallback("max_tool_calls",
                                          f"the model asked for more than {s.max_tool_calls} tool calls")
                self._run_tools(result, turn)
                continue
            if forced:
                weakened = [d for d in result.degraded if d.startswith("tool_choice:")]
                note = f" (the server did not accept the forced call: {', '.join(weakened)})" if weakened else ""
                return self._fallback("protocol_violation", "the model answered turn 1 without calling "
                                      f"{TOOL_NAME}{note}")
            return self._accept(result)
        return self._fallback("max_tool_calls", "the turn limit was reached")  # unreachable: calls exceed first

    async def _call(self, turn: int, options: dict[str, Any], deadline: Deadline) -> ChatResult | RerankResult:
        """One turn's completion, recorded; a failure comes back as the fallback result."""
        s, per_turn = self.settings, self.settings.per_turn_timeout
        timeout = deadline.turn_timeout(per_turn)
        if timeout <= 0:
            return self._fallback("timeout", f"the total time ({s.total_timeout:g} s) ran out before turn {turn}")
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
            if isinstance(exc, LLMTimeout):
                # Cut short by what was left of the total → "timeout"; by the per-turn limit → "turn_timeout".
                reason = "timeout" if timeout < per_turn - 1e-6 or deadline.expired else "turn_timeout"
                return self._fallback(reason, str(exc))
            return self._fallback("llm_error", str(exc))
        self.turns.append(self.recorder.call(label, time.perf_counter() - started, result=result))
        return result

    def _build_prompts(self) -> None:
        """The prompts, with summaries shortened until turn 1 fits the token budget."""
        s, shown = self.settings, self.shown
        self.system = system_prompt(self.language, s, shown_topics=len(shown["topic"]),
                                    has_people=bool(shown["person"]), has_artifacts=bool(shown["artifact"]),
                                    uses_tool=self.uses_tool, has_context=bool(self.contextualized))
        tools = [tool_schema(self.language)] if self.uses_tool else None
        for cap in SUMMARY_CAPS:
            self.user = user_prompt(self.language, date=self.date, query=self.query, recent=self.recent,
                                    contextualized=self.contextualized, topics=shown["topic"],
                                    people=shown["person"], artifacts=shown["artifact"], summary_cap=cap)
            self.estimate = prompt_tokens(self.system, self.user, tools)
            if self.estimate <= PROMPT_BUDGET_TOKENS:
                break
        self.summary_cap = cap

    # -- tools ------------------------------------------------------------------------------
    @staticmethod
    def ids_of(call: ToolCall) -> list[int]:
        """The topic ids a call asks for: `topic_ids` (NOTES.md) or `ids` (seed 000), any id form."""
        args = call.arguments or {}
        raw = args.get("topic_ids", args.get("ids"))
        ids = []
        for entry in as_entries(raw):
            parsed = parse_id(entry)
            if parsed is not None and parsed[0] in (None, "topic"):
                ids.append(parsed[1])
        return ids

    def _remember(self, ids: list[int]) -> None:
        for topic_id in ids:
            if topic_id in self.by_id["topic"] and topic_id not in self.requested:
                self.requested.append(topic_id)

    def _run_tools(self, result: ChatResult, turn: int) -> None:
        """Answer every tool call of this reply: the assistant message, then one `tool` message each."""
        t = TEXTS[self.language]
        self.messages.append(result.as_message())
        replies = []
        for call in result.tool_calls:
            ids = self.ids_of(call) if call.name == TOOL_NAME else []
            record: dict[str, Any] = {"turn": turn, "id": call.id, "name": call.name, "arguments": call.arguments_raw,
                                      "topic_ids": ids, "loaded": [], "missing": [], "not_candidates": [],
                                      "error": None}
            if call.name != TOOL_NAME:
                content = record["error"] = t["error_tool"].format(name=call.name[:60])
            elif call.arguments is None:
                content = record["error"] = t["error_args"].format(raw=call.arguments_raw[:200])
            elif not ids:
                content = record["error"] = t["error_empty"]
            else:
                wanted = list(dict.fromkeys(i for i in ids if i in self.by_id["topic"]))
                record["not_candidates"] = list(dict.fromkeys(i for i in ids if i not in self.by_id["topic"]))
                contents = self.source(wanted) if wanted else []
                found = {c.id for c in contents}
                record["loaded"] = [c.id for c in contents]
                record["missing"] = [i for i in wanted if i not in found]
                self.loaded.update(found)
                self.loaded_chars.update((c.id, c.chars) for c in contents)
                self._remember(wanted)
                content = tool_result(self.language, contents, missing=record["missing"],
                                      not_candidates=record["not_candidates"])
            self.calls.append(ids)
            self.recorder.tool_calls.append(record)
            replies.append({"role": "tool", "tool_call_id": call.id, "content": content})
        if len(self.calls) >= self.settings.max_tool_calls:
            replies[-1]["content"] += "\n\n" + t["last_call"]
        self.messages.extend(replies)

    # -- outcomes ---------------------------------------------------------------------------
    def _accept(self, result: ChatResult) -> RerankResult:
        s = self.settings
        allowed = {kind: list(ids) for kind, ids in self.by_id.items()}
        limits = {"topic": s.max_topics, "person": s.max_people, "artifact": s.max_artifacts}
        try:
            parsed = parse_answer(result.content, allowed, limits)
        except AnswerError as exc:
            return self._fallback(exc.reason, str(exc))
        self.shape, self.dropped = parsed.shape, parsed.dropped
        if not parsed.chosen:
            if parsed.dropped.get("hallucinated"):
                return self._fallback("all_hallucinated", "every id in the answer is outside the candidates: "
                                      + ", ".join(parsed.dropped["hallucinated"][:10]))
            return self._result([], MODEL_EMPTY, note="the model found nothing relevant")
        selected = []
        for choice in sorted(parsed.chosen, key=lambda c: KINDS.index(c.kind)):  # stable: model order per kind
            excerpt = choice.excerpt if self._excerpt_allowed(choice.kind, choice.id) else None
            selected.append(Selection(choice.kind, choice.id, choice.reason or "selected by the model", excerpt))
        return self._result(selected, None)

    def _excerpt_allowed(self, kind: str, topic_id: int) -> bool:
        """Seed 000: excerpts only for big topics, and only of a topic the model actually read."""
        if not self.settings.excerpts or kind != "topic" or topic_id not in self.loaded:
            return False
        chars = max(self.by_id["topic"][topic_id].chars, self.loaded_chars.get(topic_id, 0))
        return chars > EXCERPT_MIN_CHARS

    def _fallback(self, reason: str, detail: str) -> RerankResult:
        s, topics = self.settings, self.shown["topic"]
        self.error = detail
        log.info("flash reranker fell back (%s): %s", reason, scrub(detail, secrets_of(self.client.endpoint.api_key)))
        if self.requested:
            picked = [self.by_id["topic"][i] for i in self.requested[: s.max_topics]]
            why = "requested by the model, "
        else:
            picked = sorted(topics, key=lambda c: (-c.score, c.rank))[: s.max_topics]
            why = ""
        picked.sort(key=lambda c: (-c.score, c.rank))
        selected = [Selection("topic", c.id, f"fallback ({reason}): {why}vector rank {c.rank}, score {c.score:.2f}")
                    for c in picked]
        return self._result(selected, reason)

    def _result(self, selected: list[Selection], fallback: str | None, note: str | None = None) -> RerankResult:
        s, recorder = self.settings, self.recorder
        secrets = secrets_of(self.client.endpoint.api_key)
        error = scrub(self.error, secrets)
        usage = recorder.usage
        kept = {kind: sum(1 for x in selected if x.kind == kind) for kind in KINDS}
        trace = scrub({
            "settings": {**s.as_dict(), "per_turn_timeout": round(s.per_turn_timeout, 3)},
            "query": self.query, "prompt_language": self.language, "date": self.date,
            "system_prompt": self.system, "user_prompt": self.user,
            "prompt_tokens_estimate": self.estimate, "summary_cap": self.summary_cap,
            "contextualization": self.trace["contextualization"],
            "turns": self.turns, "tool_calls": recorder.tool_calls, "requested_ids": list(self.requested),
            "selected": [x.as_dict() for x in selected], "fallback": fallback, "error": error, "note": note,
            "answer_shape": self.shape, "dropped": self.dropped, "reasoning": recorder.reasoning,
            "usage": usage,
        }, secrets)
        timings = recorder.finish()
        trace["duration_ms"] = timings["total"]
        trace["timings_ms"] = timings
        report = {
            "retrieved": self.retrieved, "kept": kept["topic"], "kept_by_kind": kept,
            "shown": {kind: len(group) for kind, group in self.shown.items()},
            "tool_calls": [list(c) for c in self.calls], "requested_ids": list(self.requested),
            "fallback": fallback, "failed": fallback is not None and fallback != MODEL_EMPTY, "error": error,
            "note": note, "turns": len(self.turns), "usage": usage, "timings_ms": timings, "model": s.model,
            "prompt_language": self.language, "prompt_tokens_estimate": self.estimate,
            "degraded": list(recorder.degraded), "answer_shape": self.shape,
            "contextualized_query": self.contextualized,
        }
        return RerankResult("flash", selected, report, fallback=fallback, tool_calls=[list(c) for c in self.calls],
                            usage=usage, trace=trace)
