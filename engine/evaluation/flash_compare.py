"""Flash against the threshold reranker on the labelled queries: estimate first, then run;
and any rerankers side by side (threshold, cross-encoder, Flash, chained: `compare_rerankers`).

The estimate is made before anything is sent: per query, turn 1's prompt (instructions and
one line per shown candidate, as the Flash prompt writes them) and one read of the topics it
may load, times the provider's price when its `/models` list gives one (OpenRouter does;
OpenAI and local servers do not, and then only tokens are shown). The run hands each frozen
query's candidates to Flash through the search pipeline (`rerank_frozen`), which records every call as a run
(`flashback runs`), and scores what Flash kept beside what the threshold reranker keeps.

Side by side, each reranker gets the same frozen candidates per query and is scored by the
same definitions (engine/evaluation/report.py); a threshold cut is arithmetic on the frozen
scores (instant, not recorded), every other reranker runs through the search pipeline and is
recorded. The cross-encoder's estimate counts the (query, passage) tokens its servers bill
(engine/rerank/cross_encoder/cost.py): nothing for a local server, the caller's price per
million tokens for an API, tokens only without one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import httpx

from engine.evaluation.frozen import FrozenQuery
from engine.evaluation.report import QueryReport, averages, score_kept, threshold_kept
from engine.rerank.base import MODEL_EMPTY, Reranker, RerankResult
from engine.rerank.cross_encoder.cost import estimate_cross_encoder
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.rerank.flash import FlashSettings, estimate_tokens
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings
from engine.retrieval.search import Stage1Result


class RerankedRun(Protocol):
    """What the search pipeline gives back for a frozen query (engine.api's SearchResult)."""

    result: RerankResult
    run_id: int | None


# A reranker on frozen candidates, recorded: engine.api passes the search pipeline's own.
RerankFrozen = Callable[[Stage1Result, Reranker], Awaitable[RerankedRun]]


def _frozen(query: FrozenQuery) -> Stage1Result:
    if query.stage1 is None:
        raise ValueError("a frozen query without its stage-1 candidates cannot be reranked")
    return query.stage1

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
    requests: int = 0  # requests to the server (cross-encoder batches; Cohere bills one search per query)
    skipped: int = 0  # queries the reranker would leave in stage 1's order (the cross-encoder's conditions)


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
    # resolved() fills every budget left None
    assert budgets.prompt_budget_tokens is not None and budgets.read_budget_tokens is not None
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


async def compare(rerank_frozen: RerankFrozen, queries: Sequence[FrozenQuery], reranker, threshold: ThresholdSettings,
                  on_outcome: Callable[[int, FlashOutcome], None] | None = None) -> list[FlashOutcome]:
    """Flash on each query's frozen candidates, one after another (recorded runs); cancelling the
    awaiting task stops it between or during calls, and `on_outcome` has seen every finished one."""
    outcomes = []
    for done, query in enumerate(queries, 1):
        cut = score_kept(query, threshold_kept(query, threshold))
        try:
            run = await rerank_frozen(_frozen(query), reranker)
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


# ---- any rerankers side by side ---------------------------------------------------------

@dataclass(frozen=True)
class RerankerRun:
    """One reranker on one labelled query."""

    name: str
    report: QueryReport
    run_id: int | None = None
    fallback: str | None = None
    cost: float | None = None
    ms: float = 0.0
    error: str | None = None  # the run failed outright (still counted, as keeping nothing)


@dataclass(frozen=True)
class Comparison:
    """One labelled query under every reranker compared, by name in the order given."""

    frozen: FrozenQuery
    runs: dict[str, RerankerRun]


def estimate_cross_encoder_cost(queries: Sequence[FrozenQuery], settings: CrossEncoderSettings, *,
                                local: bool, usd_per_million: float | None = None) -> CostEstimate:
    """What the cross-encoder would send for these queries: tokens, requests, the price."""
    tokens = requests = skipped = 0
    for query in queries:
        shown = query.stage1.candidates if query.stage1 is not None else []
        cost = estimate_cross_encoder(query.target.query, shown, settings)
        tokens, requests, skipped = tokens + cost.tokens, requests + cost.requests, skipped + cost.skipped
    usd = 0.0 if local else (tokens * usd_per_million / 1e6 if usd_per_million is not None else None)
    return CostEstimate(len(queries), tokens, 0, usd, requests, skipped)


async def compare_rerankers(rerank_frozen: RerankFrozen, queries: Sequence[FrozenQuery],
                            rerankers: Mapping[str, Reranker | ThresholdSettings],
                            on_outcome: Callable[[int, Comparison], None] | None = None) -> list[Comparison]:
    """Every reranker on each query's frozen candidates, one query after another; a
    ThresholdSettings (or threshold reranker) is cut from the frozen scores, the others run
    recorded. Cancelling the awaiting task stops it; `on_outcome` has seen every finished query."""
    comparisons = []
    for done, query in enumerate(queries, 1):
        runs = {name: await _run_one(rerank_frozen, query, name, reranker) for name, reranker in rerankers.items()}
        comparison = Comparison(query, runs)
        comparisons.append(comparison)
        if on_outcome is not None:
            on_outcome(done, comparison)
    return comparisons


async def _run_one(rerank_frozen: RerankFrozen, query: FrozenQuery, name: str,
                   reranker: Reranker | ThresholdSettings) -> RerankerRun:
    started = time.perf_counter()
    if isinstance(reranker, ThresholdSettings | ThresholdReranker):
        settings = reranker if isinstance(reranker, ThresholdSettings) else reranker.settings
        return RerankerRun(name, score_kept(query, threshold_kept(query, settings)), cost=0.0,
                           ms=(time.perf_counter() - started) * 1000)
    try:
        run = await rerank_frozen(_frozen(query), reranker)
    except Exception as error:  # noqa: BLE001 - one failed query must not lose the others' results
        return RerankerRun(name, score_kept(query, ()), error=str(error) or type(error).__name__,
                           ms=(time.perf_counter() - started) * 1000)
    usage = run.result.usage or {}
    return RerankerRun(name, score_kept(query, run.result.selected_ids("topic")), run.run_id, run.result.fallback,
                       usage.get("cost"), (time.perf_counter() - started) * 1000)


def side_by_side(comparisons: Sequence[Comparison]) -> dict[str, dict[str, float | int | None]]:
    """Per reranker: the mean figures (report.averages), fallbacks, errors, cost and latency."""
    names = list(comparisons[0].runs) if comparisons else []
    table: dict[str, dict[str, float | int | None]] = {}
    for name in names:
        runs = [c.runs[name] for c in comparisons]
        costs = [r.cost for r in runs if r.cost is not None]
        times = sorted(r.ms for r in runs)
        failed = sum(1 for r in runs if r.fallback and r.fallback != MODEL_EMPTY)
        table[name] = {**averages([r.report for r in runs]), "fallbacks": failed,
                       "errors": sum(1 for r in runs if r.error), "cost": sum(costs) if costs else None,
                       "ms_p50": times[len(times) // 2] if times else 0.0}
    return table
