"""Evaluation on relevance judgements: a QRELS file's figures (`flashback eval`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.api.context import StoreContext
from engine.api.figures import EvaluationFigures
from engine.api.search import SearchService
from engine.api.search_records import SearchRequest, SearchResult
from engine.evaluation.qrels import JudgedQuery
from engine.evaluation.runner import evaluate, load_qrels
from engine.rerank.base import Reranker, RerankResult
from engine.retrieval.search import RetrievalSettings, Stage1Result

if TYPE_CHECKING:  # loaded where used: the window's first search pays for none of them
    from engine.errors import CancelToken
    from engine.evaluation.facts import FactsEvaluation
    from engine.evaluation.flash_compare import Comparison, CostEstimate, FlashOutcome
    from engine.evaluation.frozen import FrozenQuery, Target
    from engine.evaluation.tune import TuneResult
    from engine.llm.presets import Endpoint
    from engine.rerank.cross_encoder.presets import RerankEndpoint
    from engine.rerank.cross_encoder.settings import CrossEncoderSettings
    from engine.rerank.flash.settings import FlashSettings
    from engine.rerank.threshold import ThresholdSettings

Progress = Callable[[int, int], None]  # (done, total)


class EvaluationService:
    """Every evaluation searches through the one search pipeline (`SearchService.search`, with
    each judged query's own filters), so what it measures is exactly what a search does: the date
    boost, unbuilt messages, the same reranker code."""

    def __init__(self, context: StoreContext, search: SearchService) -> None:
        self._context = context
        self._search = search

    def labelled_targets(self) -> list:
        """The store's labelled queries as targets (a quick read)."""
        from engine.evaluation.frozen import labelled_targets

        return labelled_targets(self._search)

    def qrels_targets(self, qrels_path: Path) -> tuple[list, int]:
        """A QRELS file's queries as targets, and how many judgements matched no message."""
        from engine.evaluation.frozen import targets_from_qrels
        from engine.evaluation.qrels import load_qrels

        judged = load_qrels(qrels_path)
        return self._context.read(lambda connection: targets_from_qrels(connection, judged))

    def freeze(self, targets: Sequence[Target], settings: RetrievalSettings | None = None,
               on_progress: Progress | None = None, cancel: CancelToken | None = None,
               cache: dict[tuple[str, str], Stage1Result] | None = None) -> list[FrozenQuery]:
        """Stage 1 of every target, frozen for sweeps and the Flash comparison (blocking)."""
        from engine.evaluation.frozen import freeze_with_service

        return freeze_with_service(self._search, targets, settings, on_progress, cancel, cache)

    def tune(self, targets: Sequence[Target], retrieval: RetrievalSettings, current: ThresholdSettings,
             objective: str = "f1", budget: int | None = None, folds: int = 5, lexical: bool = True, seed: int = 0,
             on_progress: Progress | None = None, cancel: CancelToken | None = None) -> TuneResult:
        """k-fold tuned threshold settings (engine.evaluation.tune; blocking)."""
        from engine.evaluation.sweep import DEFAULT_BUDGET
        from engine.evaluation.tune import tune_service

        return tune_service(self._search, targets, retrieval, current, objective,
                            DEFAULT_BUDGET if budget is None else budget, folds, lexical, seed, on_progress, cancel)

    async def compare_flash(self, queries: Sequence[FrozenQuery], reranker: Reranker, threshold: ThresholdSettings,
                            on_outcome: Callable[[int, FlashOutcome], None] | None = None) -> list[FlashOutcome]:
        """Flash against the threshold filter on frozen labelled queries (each Flash call recorded)."""
        from engine.evaluation.flash_compare import compare

        return await compare(self._rerank_frozen, queries, reranker, threshold, on_outcome)

    def estimate_flash(self, queries: Sequence[FrozenQuery], flash_settings: FlashSettings,
                       endpoint: Endpoint) -> CostEstimate:
        """What Flash would cost on these frozen queries (a CostEstimate): tokens counted here, the
        price asked of the provider (a GET of its model list, never a chat call; none for a local
        server). Blocking: run it in a worker."""
        from engine.evaluation.flash_compare import estimate, model_price

        price = None if endpoint.is_local else model_price(endpoint.url, flash_settings.model, endpoint.api_key)
        return estimate(queries, flash_settings, price)

    async def compare_rerankers(self, queries: Sequence[FrozenQuery],
                                rerankers: Mapping[str, Reranker | ThresholdSettings],
                                on_outcome: Callable[[int, Comparison], None] | None = None) -> list[Comparison]:
        """Any rerankers side by side on frozen labelled queries: a name → reranker mapping (a
        ThresholdSettings is cut from the frozen scores; the others run recorded). Each query's
        `Comparison`; `side_by_side` makes the table."""
        from engine.evaluation.flash_compare import compare_rerankers

        return await compare_rerankers(self._rerank_frozen, queries, rerankers, on_outcome)

    def estimate_cross_encoder(self, queries: Sequence[FrozenQuery], settings: CrossEncoderSettings,
                               endpoint: RerankEndpoint, usd_per_million: float | None = None) -> CostEstimate:
        """What the cross-encoder would send for these frozen queries (a CostEstimate, tokens
        counted here, nothing sent): free on a local server, priced by the caller's price per
        million tokens for an API, tokens only without one."""
        from engine.evaluation.flash_compare import estimate_cross_encoder_cost

        return estimate_cross_encoder_cost(queries, settings, local=endpoint.is_local, usd_per_million=usd_per_million)

    async def _rerank_frozen(self, stage1: Stage1Result, reranker: Reranker) -> SearchResult:
        """A reranker on a labelled query's frozen candidates, recorded, through the pipeline."""
        return await self._search.search(SearchRequest(stage1.query, stage1.settings, reranker, record=True,
                                                       client="evaluate", frozen=stage1))

    def evaluate(self, qrels_path: Path, settings: RetrievalSettings | None = None,
                 reranker: Reranker | None = None,
                 on_progress: Callable[[int, int], None] | None = None) -> EvaluationFigures:
        """`flashback eval QRELS`: each judged query searched as a person would search it (its
        own chat and day filters in place of the settings' own), then scored."""
        from engine.evaluation.frozen import retrieval_for

        queries = load_qrels(qrels_path)
        base = settings or RetrievalSettings()

        def run(query: JudgedQuery) -> tuple[Stage1Result, RerankResult | None]:
            request = SearchRequest(query.query, retrieval_for(base, query.filters), reranker, client="eval")
            outcome = self._search.search_sync(request)
            return outcome.stage1, outcome.result

        connection = self._context.connect()
        try:
            return EvaluationFigures.from_json(evaluate(connection, queries, run, on_progress))
        finally:
            connection.close()


def evaluate_facts(locomo: Path, endpoint: Endpoint, work_dir: Path, *, chats: list[str] | None = None,
                   first: int | None = None, limit_topics: int | None = None, timeout: float | None = None,
                   judge: Endpoint | None = None, on_progress: Progress | None = None,
                   cancel: CancelToken | None = None) -> FactsEvaluation:
    """`flashback eval-facts`: the Archivist on LoCoMo conversations, in a store of its own under
    `work_dir` (never the person's): fact recall (by the verifier, or by `judge`), provenance
    precision, unsupported facts, tokens per topic, every call timed (engine.evaluation.facts).
    Blocking: run it in a worker."""
    from engine.evaluation.facts import evaluate_facts as evaluate

    return evaluate(locomo, endpoint, work_dir, chats=chats, first=first, limit_topics=limit_topics,
                    timeout=timeout, judge=judge, on_progress=on_progress, cancel=cancel)
