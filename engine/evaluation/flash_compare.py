"""Flash against the threshold reranker on the labelled queries: estimate first, then run.

The estimate is made before anything is sent: per query, turn 1's prompt (instructions and
one line per shown candidate, as the Flash prompt writes them) and one read of the topics it
may load, times the provider's price when its `/models` list gives one (OpenRouter does;
OpenAI and local servers do not, and then only tokens are shown). The run hands each frozen
query's candidates to Flash through `service.arerank`, which records every call as a run
(`flashback runs`), and scores what Flash kept beside what the threshold reranker keeps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpx

from engine.evaluation.frozen import FrozenQuery
from engine.evaluation.report import QueryReport, score_kept, threshold_kept
from engine.rerank.flash import FlashSettings, estimate_tokens
from engine.rerank.threshold import ThresholdSettings

INSTRUCTION_TOKENS = 900  # the system prompt and the user prompt's frame (measured: ~850 en, ~950 ru)
LINE_OVERHEAD_CHARS = 60  # "[Topic:42] (0.83) 2025-07-25 | 20 msgs, ~1.5K chars | "
SUMMARY_CHARS = 200  # the longest summary cap of a candidate line
ANSWER_TOKENS = 350  # a read request and a selection with short reasons, as observed


@dataclass(frozen=True)
class Price:
    prompt: float  # USD per token
    completion: float


@dataclass(frozen=True)
class CostEstimate:
    queries: int
    prompt_tokens: int
    completion_tokens: int
    usd: float | None  # None: the provider gives no price


@dataclass(frozen=True)
class FlashOutcome:
    """One labelled query's Flash run beside the threshold reranker's cut."""

    flash: QueryReport
    threshold: QueryReport
    run_id: int | None
    fallback: str | None
    cost: float | None
    error: str | None = None  # the run failed outright (it is still counted, as keeping nothing)


def estimate(queries: Sequence[FrozenQuery], settings: FlashSettings, price: Price | None) -> CostEstimate:
    """What running Flash once per query would send and get back, roughly (before any call)."""
    budgets = settings.resolved(local=False)
    prompt = 0
    for query in queries:
        shown = query.stage1.candidates if query.stage1 is not None else []
        lines = sum(estimate_tokens(" " * LINE_OVERHEAD_CHARS + c.summary[:SUMMARY_CHARS]) for c in shown)
        turn1 = min(INSTRUCTION_TOKENS + lines, budgets.prompt_budget_tokens + INSTRUCTION_TOKENS)
        topics = [c for c in shown if c.kind == "topic"][: budgets.max_candidates]
        most = budgets.load_range(len(topics))[1]
        read = min(budgets.read_budget_tokens, math.ceil(sum(c.chars for c in topics[:most]) / 4))
        prompt += turn1 + (turn1 + read if settings.max_tool_calls and topics else 0)  # turn 2 resends turn 1
    completion = ANSWER_TOKENS * 2 * len(queries)
    usd = prompt * price.prompt + completion * price.completion if price is not None else None
    return CostEstimate(len(queries), prompt, completion, usd)


def model_price(base_url: str, model: str, api_key: str | None = None, timeout: float = 10.0) -> Price | None:
    """The model's price from the provider's `GET /models` (OpenRouter's `pricing`), or None when
    it gives none or cannot be asked (blocking: a worker's job; a failure is never an error here)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.get(base_url.rstrip("/") + "/models", headers=headers, timeout=timeout)
        response.raise_for_status()
        for entry in response.json().get("data") or []:
            if entry.get("id") == model and isinstance(entry.get("pricing"), dict):
                pricing = entry["pricing"]
                return Price(float(pricing["prompt"]), float(pricing["completion"]))
    except (httpx.HTTPError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return None


async def compare(service, queries: Sequence[FrozenQuery], reranker, threshold: ThresholdSettings,
                  on_outcome: Callable[[int, FlashOutcome], None] | None = None) -> list[FlashOutcome]:
    """Flash on each query's frozen candidates, one after another (recorded runs); cancelling the
    awaiting task stops it between or during calls, and `on_outcome` has seen every finished one."""
    outcomes = []
    for done, query in enumerate(queries, 1):
        cut = score_kept(query, threshold_kept(query, threshold))
        try:
            run = await service.arerank(query.stage1, reranker, record=True)
        except Exception as error:  # noqa: BLE001 - one failed query must not lose the others' results
            outcome = FlashOutcome(score_kept(query, ()), cut, None, None, None, str(error) or type(error).__name__)
        else:
            kept = run.result.selected_ids("topic")
            usage = run.result.usage or {}
            outcome = FlashOutcome(score_kept(query, kept), cut, run.run_id, run.result.fallback, usage.get("cost"))
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(done, outcome)
    return outcomes
