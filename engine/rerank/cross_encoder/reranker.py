"""The `cross-encoder` reranker: stage 1's best topics scored against the query by a rerank
server, kept by the cross-encoder's own threshold and top-K.

    reranker = CrossEncoderReranker(RerankEndpoint("llamacpp", "http://127.0.0.1:8080"),
                                    CrossEncoderSettings(), logs=store_log_source(connect))
    result = await reranker.arerank(query, candidates)

Topics only: the first `top_n` topic candidates become passages (passages.py) and are
scored in batches (client.py). People and files keep their seed-001 threshold cut when
`others` is given (what `--reranker threshold` keeps of them), else none are kept.

A query the seed would not rerank (few candidates, scores clearly apart: settings.py) keeps
stage 1's first `top_k` topics and says why. Any failure of the server ends in the named
fallback, never an exception: stage 1's first `top_k` topics, each saying which failure
(`fallback` endpoint_error / timeout / parse_error / missing_scores). Only cancelling
propagates. The report holds every score sent back, for the chart and the cards.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from engine.http_retry import RetryPolicy
from engine.messages import Message, msg
from engine.rerank.base import KINDS, Candidate, Reranker, RerankResult, Selection, vector_reason
from engine.rerank.cross_encoder.client import RerankClient, ScoreRun
from engine.rerank.cross_encoder.errors import CrossEncoderError, cross_encoder_fallback_message
from engine.rerank.cross_encoder.passages import LogSource, passages_for
from engine.rerank.cross_encoder.presets import RerankEndpoint
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.rerank.threshold import ThresholdSettings, threshold_filter
from engine.scrub import scrub

if TYPE_CHECKING:
    from engine.rerank.flash.contextualize import QueryRewrite

log = logging.getLogger(__name__)
NAME = "cross-encoder"


@dataclass
class Scoring:
    """One query's cross-encoder step: what was sent, what came back, or why nothing did."""

    topics: list[Candidate]  # stage-1 topic candidates, best first
    sent: list[Candidate] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)  # topic id → probability
    raw: dict[int, float] = field(default_factory=dict)
    skipped: str | None = None  # "small", "apart" or "small_apart"
    note: Message | None = None
    fallback: str | None = None
    error: Message | None = None
    run: ScoreRun | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)

    def ranked(self) -> list[tuple[Candidate, float]]:
        """The scored topics, best cross-encoder score first (stage-1 rank breaks ties)."""
        pairs = [(c, self.scores[c.id]) for c in self.sent if c.id in self.scores]
        return sorted(pairs, key=lambda pair: (-pair[1], pair[0].rank))

    def stage1_first(self, count: int) -> list[Candidate]:
        return sorted(self.topics, key=lambda c: (-c.score, c.rank))[:count]


class CrossEncoderReranker(Reranker):
    name = NAME

    def __init__(self, endpoint: RerankEndpoint, settings: CrossEncoderSettings | None = None,
                 logs: LogSource | None = None, others: ThresholdSettings | None = None, *,
                 retry: RetryPolicy | None = None, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.endpoint = endpoint
        self.settings = dataclasses.replace(settings or CrossEncoderSettings(), preset=endpoint.preset,
                                            model=endpoint.model_name)
        self.logs = logs
        self.others = others
        self._retry, self._transport = retry, transport

    @property
    def api_key(self) -> str | None:  # type: ignore[override]
        """For scrubbing; never stored."""
        return self.endpoint.api_key

    async def arerank(self, query: str, candidates: list[Candidate],
                      rewrite: QueryRewrite | None = None) -> RerankResult:
        scoring = await self.score(_query_for(query, rewrite), candidates)
        return self._result(scoring, candidates)

    # -- the step shared with the chained mode ------------------------------------------------
    async def score(self, query: str, candidates: list[Candidate]) -> Scoring:
        """Score stage 1's first `top_n` topics, unless the seed's conditions skip them; a
        failure is recorded as the fallback, not raised."""
        s, started = self.settings, time.perf_counter()
        topics = sorted((c for c in candidates if c.kind == "topic"), key=lambda c: c.rank)
        scoring = Scoring(topics)
        if not topics:
            scoring.note = msg("rerank.cross_encoder.no_candidates")
            return scoring
        scoring.skipped, scoring.note = skip_reason(topics, s)
        if scoring.skipped:
            return scoring
        scoring.sent = topics[: s.top_n]
        passages = passages_for(scoring.sent, self.logs, s.passage_tokens)
        scoring.timings_ms["passages"] = _ms(started)
        client = RerankClient(self.endpoint, batch=s.batch, timeout=s.timeout, retry=self._retry,
                              transport=self._transport)
        try:
            run = await client.score(query, passages)
        except (CrossEncoderError, httpx.HTTPError) as exc:
            scoring.fallback = getattr(exc, "reason", "endpoint_error")
            scoring.error = exc.message if isinstance(exc, CrossEncoderError) else msg("error.text", text=str(exc))
            log.info("cross-encoder fell back (%s): %s", scoring.fallback, scoring.error)
        else:
            scoring.run = run
            scoring.scores = {c.id: score for c, score in zip(scoring.sent, run.scores, strict=True)}
            scoring.raw = {c.id: score for c, score in zip(scoring.sent, run.raw, strict=True)}
            scoring.timings_ms["http"] = round(run.http_ms, 3)
        scoring.timings_ms["total"] = _ms(started)
        scoring.timings_ms["own"] = round(scoring.timings_ms["total"] - scoring.timings_ms.get("http", 0.0), 3)
        return scoring

    # -- the result --------------------------------------------------------------------------
    def _result(self, scoring: Scoring, candidates: list[Candidate]) -> RerankResult:
        s = self.settings
        removed_threshold = removed_top_k = 0
        note = scoring.note
        if scoring.fallback:
            said = cross_encoder_fallback_message(scoring.fallback)
            selected = [Selection.because("topic", c.id, msg("rerank.cross_encoder.fallback_vector", reason=said,
                                                            rank=int(c.rank), score=float(c.score)))
                        for c in scoring.stage1_first(s.top_k)]
        elif scoring.skipped:
            selected = [Selection.because("topic", c.id, vector_reason(c)) for c in scoring.stage1_first(s.top_k)]
        else:
            ranked = scoring.ranked()
            above = [(c, score) for c, score in ranked if score >= s.threshold]
            removed_threshold, removed_top_k = len(ranked) - len(above), max(0, len(above) - s.top_k)
            selected = [Selection.because("topic", c.id, msg("rerank.cross_encoder.reason", score=float(score)))
                        for c, score in above[: s.top_k]]
            if ranked and not above:
                note = msg("rerank.cross_encoder.none_above", threshold=float(s.threshold), best=float(ranked[0][1]))
        by_kind = self._others(candidates, selected)
        return RerankResult(NAME, selected, self._report(scoring, selected, note, by_kind, removed_threshold,
                                                         removed_top_k), fallback=scoring.fallback,
                            usage=dict(scoring.run.usage) if scoring.run and scoring.run.usage else None)

    def _others(self, candidates: list[Candidate], selected: list[Selection]) -> dict[str, dict[str, int]]:
        """People and files by the seed-001 threshold cut (or none without `others`)."""
        by_kind: dict[str, dict[str, int]] = {}
        for kind in KINDS[1:]:
            group = sorted((c for c in candidates if c.kind == kind), key=lambda c: -c.score)
            if self.others is None:
                by_kind[kind] = {"retrieved": len(group), "kept": 0}
                continue
            kept, counts = threshold_filter([c.score for c in group], self.others)
            by_kind[kind] = counts.__dict__
            threshold = float(self.others.threshold)
            selected.extend(Selection.because(kind, group[i].id, msg(
                "rerank.threshold.reason", score=float(group[i].score), threshold=threshold)) for i in kept)
        return by_kind

    def _report(self, scoring: Scoring, selected: list[Selection], note: Message | None,
                by_kind: dict[str, dict[str, int]], removed_threshold: int, removed_top_k: int) -> dict[str, Any]:
        run, secrets = scoring.run, [self.endpoint.api_key]
        kept = {kind: sum(1 for x in selected if x.kind == kind) for kind in KINDS}
        stage1_rank = {c.id: c.rank for c in scoring.topics}
        report: dict[str, Any] = {
            "retrieved": len(scoring.topics), "sent": len(scoring.sent), "kept": kept["topic"], "kept_by_kind": kept,
            "removed_by_threshold": removed_threshold, "removed_by_gap": 0, "removed_by_top_k": removed_top_k,
            "not_sent": len(scoring.topics) - len(scoring.sent) if not scoring.skipped else 0,
            "scores": [{"id": c.id, "score": round(score, 6), "raw": round(scoring.raw[c.id], 6),
                        "stage1_rank": stage1_rank[c.id]} for c, score in scoring.ranked()],
            "normalized": run.normalized if run else None, "skipped": scoring.skipped,
            "fallback": scoring.fallback, "failed": scoring.fallback is not None,
            "error": str(scoring.error) if scoring.error else None,
            "note": str(note) if note is not None else None,
            "batches": run.batches if run else 0, "requests": run.requests if run else 0,
            "usage": dict(run.usage) if run else {}, "timings_ms": dict(scoring.timings_ms),
            "endpoint": {"preset": self.endpoint.preset, "label": str(self.endpoint.label),
                         "model": self.endpoint.model_name, "local": self.endpoint.is_local},
            "settings": dataclasses.asdict(self.settings), "by_kind": {"topic": {
                "retrieved": len(scoring.topics), "kept": kept["topic"]}, **by_kind},
            # Each text also as its code (`RerankResult.message`), for a face to say in its language.
            "error_message": scoring.error.to_json() if scoring.error else None,
            "note_message": note.to_json() if note is not None else None,
        }
        return scrub(report, secrets)


def skip_reason(topics: list[Candidate], s: CrossEncoderSettings) -> tuple[str | None, Message | None]:
    """Why the seed would leave these topics in stage 1's order, or (None, None) to score them."""
    small = len(topics) <= s.small_limit
    window = sorted((c.score for c in topics), reverse=True)[: s.flat_window]
    spread = window[0] - window[-1] if len(window) > 1 else 0.0
    apart = spread >= s.flat_spread
    rules = [held for on, held in ((s.skip_small, small), (s.skip_flat, apart)) if on]
    if not rules or not all(rules):
        return None, None
    said = []
    if s.skip_small:
        said.append(msg("rerank.cross_encoder.skip.small", count=len(topics), limit=s.small_limit))
    if s.skip_flat:
        said.append(msg("rerank.cross_encoder.skip.apart", spread=float(spread), flat=float(s.flat_spread),
                        window=len(window)))
    why = said[0] if len(said) == 1 else msg("rerank.cross_encoder.skip.both", first=said[0], second=said[1])
    key = "_".join(name for name, on in (("small", s.skip_small), ("apart", s.skip_flat)) if on)
    return key, msg("rerank.cross_encoder.skipped", why=why, count=min(s.top_k, len(topics)))


def _query_for(query: str, rewrite: QueryRewrite | None) -> str:
    """The contextualized query when stage 1 searched with it (chained after Flash's step 1)."""
    return rewrite.rewritten if rewrite is not None and rewrite.used and rewrite.rewritten else query


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
