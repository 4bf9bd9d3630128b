"""Seed 000 step 1: restate the query using the recent messages, for stage 1 and for Flash.

    rewrite = await rewrite_query(client, "what did he say?", recent, timeout=10, max_tokens=96)
    rewrite.queries  # ["what did he say?", "the hangar lease increase"]: stage 1 searches both
    fuse_candidates(stage1_of_original, stage1_of_rewrite)  # one candidate list, best score wins

One short call with the seed's "don't guess" rule. It only helps, never blocks: without
recent messages it is not made at all, and any failure or odd answer leaves the original
query in place with the reason recorded. laplaced measured its enricher on 30 labelled
queries: hard-query recall@5 0.857 → 1.000; the original is still searched too, so a bad
rewrite can add candidates but cannot take the original's away.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from engine.llm import ChatClient, LLMError
from engine.messages import Message, msg
from engine.rerank.base import KINDS, Candidate
from engine.rerank.flash.prompt import choose_language, contextualize_messages

_PROMPT_TAG = re.compile(r"</?[A-Za-z_]+>")
MAX_GROWTH_CHARS = 300  # a rewrite longer than the query plus this is an answer, not a query
# A query is one sentence: a second one means the model talked about the task (SmolLM2-135M
# on llama-server: "You're right, I am adding … to the query. You're right, the sentence …").
# A break after a word of 3+ letters ("Dr. Smith" is not one).
_SECOND_SENTENCE = re.compile(r"(?<=[^\W\d_]{3})[.!?]\s+[A-ZА-ЯЁ]")


@dataclass(frozen=True)
class QueryRewrite:
    """What step 1 did. `rewritten` is None when the original query stands, and `reason` says why."""

    original: str
    rewritten: str | None = None
    reason: str | None = None  # "no recent messages", "unchanged", "failed (LLMTimeout): …", …
    elapsed_ms: float = 0.0
    model: str | None = None
    usage: dict[str, Any] | None = None
    call: dict[str, Any] | None = None  # the request and response (or error), for the trace
    reason_message: Message | None = field(default=None, compare=False)  # `reason` as a code, for the window

    @classmethod
    def kept(cls, original: str, why: Message, **fields: Any) -> QueryRewrite:
        """The original query stands, for the reason `why` (its English text also in `reason`)."""
        return cls(original, None, str(why)[:400], reason_message=why, **fields)

    @property
    def used(self) -> bool:
        return self.rewritten is not None

    @property
    def queries(self) -> list[str]:
        """What stage 1 searches: the original, then the rewrite when there is one."""
        return [self.original, self.rewritten] if self.rewritten is not None else [self.original]

    def as_dict(self) -> dict[str, Any]:
        data = asdict(replace(self, reason_message=None))
        del data["reason_message"]
        if self.reason_message is not None:  # beside `reason`, for a face that says it in its language
            data["reason_message"] = self.reason_message.to_json()
        data["used"] = self.used
        return data


def clean_rewrite(text: str | None, query: str) -> tuple[str, str | None]:
    """(query to use, why the rewrite was not used or None)."""
    rewritten, problem = _clean(text, query)
    return rewritten, None if problem is None else str(problem)


def _clean(text: str | None, query: str) -> tuple[str, Message | None]:
    """`clean_rewrite` with the problem as a message."""
    if not text or not text.strip():
        return query, msg("rerank.rewrite.empty")
    lines = [line.strip() for line in text.strip().strip("`").splitlines() if line.strip()]
    lines = [line for line in lines if line.lower() not in ("text", "plaintext")]  # a fence's language tag
    if not lines:
        return query, msg("rerank.rewrite.empty")
    # The prompt's own tags echoed back: SmolLM2-135M answered "<user_query>" alone (llama-server,
    # 2026-11-26), which stage 1 then searched. What stands between tags may still be the query.
    lines = [" ".join(_PROMPT_TAG.sub(" ", line).split()) for line in lines]
    lines = [line for line in lines if line]
    if not lines:
        return query, msg("rerank.rewrite.only_markup")
    # A lead-in ("You could rephrase the query to:", SmolLM2-135M on llama-server) is not the
    # query: the line after it is, and an answer that is only a lead-in has none.
    lines = [line for line in lines if not line.rstrip().endswith(":")]
    if not lines:
        return query, msg("rerank.rewrite.lead_in")
    rewritten = lines[0].strip().strip('"«»“”\'').strip()
    if not rewritten:
        return query, msg("rerank.rewrite.empty")
    if len(rewritten) > len(query) * 4 + MAX_GROWTH_CHARS:
        return query, msg("rerank.rewrite.too_long")
    if _SECOND_SENTENCE.search(rewritten) and not _SECOND_SENTENCE.search(query):
        return query, msg("rerank.rewrite.prose")
    return rewritten, None


async def rewrite_query(client: ChatClient | None, query: str, recent: str, *, timeout: float, max_tokens: int,
                        model: str | None = None, language: str = "auto",
                        reasoning_effort: str | None = None) -> QueryRewrite:
    """The contextualized query, or the original with the reason; never raises for LLM trouble.

    Costs nothing (no call) without a client or without recent messages.
    """
    if client is None:
        return QueryRewrite.kept(query, msg("rerank.rewrite.no_client"))
    if not recent.strip():
        return QueryRewrite.kept(query, msg("rerank.rewrite.no_recent"))
    language = choose_language(language, query, recent)
    messages = contextualize_messages(language, query, recent)
    started = time.perf_counter()
    try:
        result = await client.complete(messages, model=model, timeout=timeout, max_tokens=max_tokens,
                                       reasoning_effort=reasoning_effort)
    except LLMError as exc:
        elapsed = (time.perf_counter() - started) * 1000
        call: dict[str, Any] = {"request": {"intended": True, "model": model, "messages": messages,
                                            "max_tokens": max_tokens},
                                "response": None, "error": str(exc)}
        return QueryRewrite.kept(query, msg("rerank.rewrite.failed", kind=type(exc).__name__, error=exc.message),
                                 elapsed_ms=round(elapsed, 2), model=model, call=call)
    elapsed = round((time.perf_counter() - started) * 1000, 2)
    rewritten, problem = _clean(result.content, query)
    if problem is None and result.finish_reason == "length":
        problem = msg("rerank.rewrite.cut_off")  # half a query would search for the wrong thing
    if problem is None and rewritten.strip().casefold() == query.strip().casefold():
        problem = msg("rerank.rewrite.unchanged")
    usage = {"prompt_tokens": result.usage.prompt_tokens, "completion_tokens": result.usage.completion_tokens,
             "cost": result.usage.cost}
    call = {"request": dict(result.raw_request), "response": result.raw_response, "error": None,
            "degraded": list(result.degraded)}
    return QueryRewrite(query, rewritten if problem is None else None, None if problem is None else str(problem),
                        elapsed, result.model or model, usage, call, problem)


def fuse_candidates(first: Sequence[Candidate], second: Sequence[Candidate]) -> list[Candidate]:
    """Stage 1 of two queries (original, rewrite) as one list: each item once, at its better score.

    Scores are calibrated to one absolute scale (engine/memory/calibration.py), so the
    higher of the two is comparable across queries; ranks are renumbered per kind in the
    fused order, and each kind keeps as many candidates as the longer of the two lists
    (50 topics stay 50: the prompt budget is the same).
    """
    best: dict[tuple[str, int], Candidate] = {}
    for candidate in (*first, *second):
        key = (candidate.kind, candidate.id)
        if key not in best or candidate.score > best[key].score:
            best[key] = candidate
    fused: list[Candidate] = []
    for kind in KINDS:
        keep = max(sum(1 for c in first if c.kind == kind), sum(1 for c in second if c.kind == kind))
        group = sorted((c for c in best.values() if c.kind == kind), key=lambda c: (-c.score, c.rank, c.id))
        fused.extend(replace(c, rank=rank) for rank, c in enumerate(group[:keep], 1))
    return fused
