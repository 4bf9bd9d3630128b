"""The LLM judge of `flashback eval-answers`: does an answer state the gold answer's facts?

One bounded call per question, at temperature 0, asking for JSON under a schema (the
verdict an enum); a server that ignores the schema still answers in words, so the reply is
read leniently: the JSON verdict, else the first CORRECT or WRONG in the text. A judge that
cannot answer leaves the question unjudged (counted apart), never marks it wrong. The
prompt follows the LLM-judge of the LoCoMo answer benchmarks (generous on wording and
on dates written another way) and is returned with every result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from engine.llm import ChatClient, LLMError

JUDGE_SYSTEM = "You grade answers to questions about a person's chat history. You are strict about facts and " \
               "generous about wording."
JUDGE_PROMPT = """Question: {question}
Gold answer: {gold}
Answer to grade: {answer}

The answer is CORRECT when it states the facts of the gold answer: other wording, more detail, [n] citation \
markers, or a date written another way (a relative date that names the same day, week or month) are fine. \
It is WRONG when it misses them, contradicts them, or says the chats do not hold the answer.
Reply with JSON only: {{"verdict": "CORRECT" or "WRONG", "reason": "one short sentence"}}"""
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["CORRECT", "WRONG"]},
                   "reason": {"type": "string", "maxLength": 300}},
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}
_WORD = re.compile(r"\b(CORRECT|WRONG)\b")


@dataclass
class Verdict:
    correct: bool | None  # None: the judge did not say
    reason: str
    usage: dict[str, Any] = field(default_factory=dict)
    reply: str | None = None  # what it wrote, for the record


@dataclass
class Judge:
    client: ChatClient
    model: str | None = None  # None: the endpoint's default
    max_tokens: int = 256
    timeout_s: float = 60.0

    @property
    def model_name(self) -> str:
        return self.model or self.client.endpoint.default_model

    def describe(self) -> dict[str, Any]:
        """What a run's result records about its judge (so two runs' accuracies compare like with like)."""
        return {"model": self.model_name, "endpoint": self.client.preset.label, "system": JUDGE_SYSTEM,
                "prompt": JUDGE_PROMPT, "max_tokens": self.max_tokens, "temperature": 0}

    async def grade(self, question: str, gold: str, answer: str) -> Verdict:
        messages = [{"role": "system", "content": JUDGE_SYSTEM},
                    {"role": "user", "content": JUDGE_PROMPT.format(question=question, gold=gold, answer=answer)}]
        try:
            reply = await self.client.complete(
                messages, model=self.model, max_tokens=self.max_tokens, timeout=self.timeout_s,
                response_format={"type": "json_schema",
                                 "json_schema": {"name": "verdict", "strict": True, "schema": VERDICT_SCHEMA}},
                extra_body={"temperature": 0})
        except LLMError as exc:
            return Verdict(None, f"the judge failed: {exc}")
        usage = {"prompt_tokens": reply.usage.prompt_tokens, "completion_tokens": reply.usage.completion_tokens,
                 "cost": reply.usage.cost}
        correct, reason = read_verdict(reply.content or "")
        return Verdict(correct, reason, usage, reply.content)


def read_verdict(text: str) -> tuple[bool | None, str]:
    """(correct, reason) from the judge's reply: its JSON, else the first CORRECT/WRONG in it."""
    try:
        data = json.loads(text.strip().removeprefix("```json").removesuffix("```"))
    except ValueError:
        data = None
    if isinstance(data, dict) and str(data.get("verdict", "")).upper() in ("CORRECT", "WRONG"):
        return str(data["verdict"]).upper() == "CORRECT", str(data.get("reason") or "")
    found = _WORD.search(text.upper())
    if found is None:
        return None, "the judge gave no verdict"
    return found.group(1) == "CORRECT", text.strip()[:300]
