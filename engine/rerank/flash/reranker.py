"""FlashReranker: seed 000's turn loop, on any OpenAI-compatible server.

    Step 1   the contextualized query (given by the caller, who searched with it, or made
             here from the recent messages for the prompt only)
    Turn 1   the candidates; the model names the topics to read: a forced
             get_topics_content call ("tools") or a JSON schema ("constrained")
    Turn 2…  the topics read; the model answers with its selection (JSON object / schema)
    Answer   parsed leniently, kept strictly (only ids shown, within the limits)

Which protocol runs is chosen per endpoint (protocol.py). A turn-1 answer without the
call while tools were sent is evidence that the server does not enforce forced calls:
the endpoint is remembered as "constrained" and turn 1 is asked again that way.

Whatever goes wrong with the LLM ends in a fallback, never an exception: given the person's
threshold settings, what their threshold filter keeps; where it keeps nothing (or without
them), if the model asked for topics, its choice (the first max_topics requested ids) beats
bare cosine; otherwise the vector top. Fallbacks hold topics only (people and artifacts flooded the
reference's prompt). An empty selection is an answer (`model_empty`), not a failure.
Only cancellation propagates.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from engine.facts.records import Profile
from engine.llm import ChatClient, ChatResult, Deadline
from engine.messages import Message, msg
from engine.rerank.base import FALLBACK_REASONS, MODEL_EMPTY, Candidate, Reranker, RerankResult
from engine.rerank.flash.contextualize import QueryRewrite
from engine.rerank.flash.parser import as_entries, extract_json, parse_id
from engine.rerank.flash.prompt import FORCED_TOOL, TOOL_NAME, tool_result, tool_schema
from engine.rerank.flash.protocol import ProtocolChoice, answer_format, choose_protocol, protocol_name, read_format
from engine.rerank.flash.run import RunBase
from engine.rerank.flash.settings import FlashSettings
from engine.rerank.flash.source import TopicSource
from engine.rerank.flash.texts import TEXTS
from engine.rerank.threshold import ThresholdSettings

__all__ = ["FALLBACK_REASONS", "MODEL_EMPTY", "FlashReranker"]

JSON_OBJECT = {"type": "json_object"}


class FlashReranker(Reranker):
    name = "flash"
    reads = ("topic", "person", "artifact")  # unbuilt messages are cut by the threshold (the pipeline)

    def __init__(self, client: ChatClient, topics: TopicSource, settings: FlashSettings = FlashSettings(),
                 recent_messages: str = "", now: Callable[[], datetime] | None = None,
                 threshold: ThresholdSettings | None = None, profile: Profile | None = None) -> None:
        """`threshold`: the person's threshold filter; a fallback keeps what it keeps (the seeds'
        policy only where it keeps nothing). None: the seeds' policy alone. `profile`: the
        owner's key facts for turn 1 (issue 33); None or empty: the prompt as without facts."""
        self.profile = profile
        self.client = client
        self.topics = topics
        self.settings = settings
        self.threshold = threshold
        self.recent_messages = recent_messages
        self.now = now or (lambda: datetime.now().astimezone())

    async def arerank(self, query: str, candidates: list[Candidate],
                      rewrite: QueryRewrite | None = None) -> RerankResult:
        # All state lives in the run, so one reranker may serve concurrent searches.
        return await _Run(self, query, candidates, rewrite).execute()


class _Run(RunBase):
    async def execute(self) -> RerankResult:
        if not any(self.shown.values()):
            return self._result([], None, note=msg("rerank.flash.no_candidates"))
        deadline = Deadline(self.settings.total)
        await self._contextualize(deadline)
        choice = choose_protocol(self.settings.protocol, self.client, self.settings.model)
        self.protocol = choice
        if choice.protocol == "constrained":
            return await self._constrained(deadline)
        outcome = await self._tools(deadline)
        if isinstance(outcome, Message):  # evidence that forcing is not enforced: switch and ask again
            return await self._constrained(deadline, switched_because=outcome)
        return outcome

    # -- the seeds' protocol ----------------------------------------------------------------
    async def _tools(self, deadline: Deadline) -> RerankResult | Message:
        """The forced-call loop; a message instead of a result means "switch to constrained: <why>"."""
        s = self.settings
        self._build_prompts(constrained=False)
        self.messages = [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]
        tools = [tool_schema(self.language)] if self.uses_tool else None
        for turn in range(1, s.max_tool_calls + 2):
            forced = self.uses_tool and turn == 1
            options: dict[str, Any] = {"max_tokens": s.max_tokens_read if forced else s.max_tokens_answer}
            if tools:
                options["tools"] = tools
            if forced:
                options["tool_choice"] = FORCED_TOOL
            else:
                # "auto" is the default wherever tools are offered; sent beside response_format it
                # is a pair Gemini rejects, so it is simply not sent.
                options["response_format"] = JSON_OBJECT
            result = await self._call(turn, options, deadline, first=forced)
            if isinstance(result, RerankResult):  # the call failed: already a fallback
                return result
            if result.tool_calls:
                if not self.uses_tool:
                    why = "max_tool_calls" if self.shown["topic"] else "protocol_violation"
                    return self._fallback(why, msg("rerank.flash.tool_not_offered"))
                if len(self.calls) + len(result.tool_calls) > s.max_tool_calls:
                    for call in result.tool_calls:  # not run, but still the model's choice
                        ids = self.ids_of(call.arguments or {}) if call.name == TOOL_NAME else []
                        self._remember(ids)
                        self.calls.append(ids)
                    return self._fallback("max_tool_calls", msg("rerank.flash.too_many_calls",
                                                                count=s.max_tool_calls))
                self._run_tools(result, turn)
                continue
            if forced:
                return self._no_call_on_turn_1(result)
            return self._accept(result)
        return self._fallback("max_tool_calls", msg("rerank.flash.turn_limit"))  # unreachable: calls exceed first

    def _no_call_on_turn_1(self, result: ChatResult) -> RerankResult | Message:
        """Tools were sent and forced, the model answered without the call: say which, then switch or fall back."""
        rejected = [r for r in result.rejected if r.startswith("tool_choice")]
        weakened = [d for d in result.degraded if d.startswith("tool_choice:")]
        if rejected:
            evidence = msg("rerank.flash.forced_rejected", rejected=", ".join(rejected), tool=TOOL_NAME)
        elif weakened:
            evidence = msg("rerank.flash.forced_ignored_as", sent_as=weakened[0].split(":", 1)[1], tool=TOOL_NAME)
        else:
            evidence = msg("rerank.flash.forced_ignored", tool=TOOL_NAME)
        caps = self.client.capabilities_for(self.settings.model)
        if self.settings.protocol == "auto" and "json_schema" not in caps.rejected_response_formats:
            # The client remembers the evidence (its capability memory outlives this run).
            self.client.learn_protocol("constrained", evidence, self.settings.model)
            return evidence
        return self._fallback("protocol_violation", evidence)

    # -- constrained turns ------------------------------------------------------------------
    async def _constrained(self, deadline: Deadline, switched_because: Message | None = None) -> RerankResult:
        s = self.settings
        if switched_because:
            self.switch = {"from": "tools", "to": "constrained", "evidence": str(switched_because)}
            self.protocol = ProtocolChoice.said("constrained", "learned", msg(
                "rerank.flash.protocol.switched", protocol=protocol_name("constrained"), evidence=switched_because))
        self._build_prompts(constrained=True)
        self.messages = [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]
        allowed = {kind: list(ids) for kind, ids in self.by_id.items()}
        answer = answer_format(allowed, self.limits, s.excerpts)
        first_turn = len(self.turns) + 1
        if self.uses_tool:
            _, most = s.load_range(len(self.shown["topic"]))
            fmt = read_format(allowed["topic"], most)
            result = await self._call(first_turn, {"response_format": fmt, "max_tokens": s.max_tokens_read},
                                      deadline, first=True)
            if isinstance(result, RerankResult):
                return result
            self._schema_evidence(result)
            ids, problem = self._read_request(result)
            if problem:
                return self._fallback(*problem)
            self._run_read(result, ids, first_turn)
            first_turn += 1
        result = await self._call(first_turn, {"response_format": answer, "max_tokens": s.max_tokens_answer},
                                  deadline, first=not self.uses_tool)
        if isinstance(result, RerankResult):
            return result
        self._schema_evidence(result)
        return self._accept(result)

    def _schema_evidence(self, result: ChatResult) -> None:
        """A server that refused the schema cannot hold constrained turns: next time, tool calls."""
        refused = [r for r in result.rejected if r.startswith("response_format")]
        if refused and "response_format" in result.degraded and self.settings.protocol == "auto":
            evidence = msg("rerank.flash.schema_rejected", refused=", ".join(refused))
            self.client.learn_protocol("tools", evidence, self.settings.model)

    def _read_request(self, result: ChatResult) -> tuple[list[int], tuple[str, Message] | None]:
        """The ids a constrained turn 1 asked for, read as a tool call's arguments are."""
        if not result.content or not result.content.strip():
            return [], ("empty_response", msg("rerank.flash.read_empty"))
        try:
            value = extract_json(result.content)
        except Exception:  # noqa: BLE001 (AnswerError; any unreadable text is the same failure)
            if result.finish_reason == "length":
                return [], ("parse_error", msg("rerank.flash.read_not_json_cut"))
            return [], ("parse_error", msg("rerank.flash.read_not_json"))
        args = value if isinstance(value, dict) else {"topic_ids": value}
        ids = self.ids_of(args)
        if not ids:
            return [], ("protocol_violation", msg("rerank.flash.read_nothing"))
        return ids, None

    def _run_read(self, result: ChatResult, ids: list[int], turn: int) -> None:
        """The read as a tool call would be answered, sent back as a user message."""
        t = TEXTS[self.language]
        record = self._load(ids, turn, call_id=f"read_{turn}", name="response_format",
                            arguments=result.content or "")
        content = tool_result(self.language, record.pop("_contents"), missing=record["missing"],
                              not_candidates=record["not_candidates"], no_room=record["no_room"])
        self.messages.append({"role": "assistant", "content": result.content or ""})
        self.messages.append({"role": "user", "content": content + "\n\n" + t["answer_now"]})

    # -- tool calls ---------------------------------------------------------------------------
    @staticmethod
    def ids_of(args: dict) -> list[int]:
        """The topic ids a read asks for: `topic_ids` (NOTES.md) or `ids` (seed 000), any id form."""
        raw = args.get("topic_ids", args.get("ids"))
        ids = []
        for entry in as_entries(raw):
            parsed = parse_id(entry)
            if parsed is not None and parsed[0] in (None, "topic"):
                ids.append(parsed[1])
        return ids

    def _run_tools(self, result: ChatResult, turn: int) -> None:
        """Answer every tool call of this reply: the assistant message, then one `tool` message each."""
        t = TEXTS[self.language]
        self.messages.append(result.as_message())
        replies = []
        for call in result.tool_calls:
            ids = self.ids_of(call.arguments or {}) if call.name == TOOL_NAME else []
            if call.name != TOOL_NAME:
                content = self._tool_error(turn, call, ids, t["error_tool"].format(name=call.name[:60]))
            elif call.arguments is None:
                content = self._tool_error(turn, call, ids, t["error_args"].format(raw=call.arguments_raw[:200]))
            elif not ids:
                content = self._tool_error(turn, call, ids, t["error_empty"])
            else:
                record = self._load(ids, turn, call_id=call.id, name=call.name, arguments=call.arguments_raw)
                content = tool_result(self.language, record.pop("_contents"), missing=record["missing"],
                                      not_candidates=record["not_candidates"], no_room=record["no_room"])
            replies.append({"role": "tool", "tool_call_id": call.id, "content": content})
        if len(self.calls) >= self.settings.max_tool_calls:
            replies[-1]["content"] += "\n\n" + t["last_call"]
        self.messages.extend(replies)
