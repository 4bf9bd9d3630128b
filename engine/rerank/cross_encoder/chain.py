"""Flash after the cross-encoder: the cross-encoder narrows the topics Flash reads.

    chained = ChainedReranker(cross_encoder, service.search.flash_reranker(endpoint, settings))
    result = await chained.arerank(query, candidates, rewrite)   # Flash's result, report["chain"]

Flash's turn 1 shows every topic candidate (50 on a cloud endpoint) and its reads load the
ones it asks for; a cross-encoder costs far less per topic than an LLM prompt, so it scores
stage 1's `top_n` first and Flash sees only its best `chain_keep`, in the cross-encoder's
order, with the cross-encoder's score in place of stage 1's (the prompt shows it; Flash's
own fallback then keeps the cross-encoder's best). People and files reach Flash unchanged.

When the cross-encoder skips a query (the seed's conditions) or fails, Flash reads stage 1's
candidates as they are: the chain never loses a search, and the report says why
(bench/cross_encoder_chain.py measures the prompt tokens saved).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.messages import msg
from engine.rerank.base import Candidate, Reranker, RerankResult
from engine.rerank.cross_encoder.errors import cross_encoder_fallback_message
from engine.rerank.cross_encoder.reranker import CrossEncoderReranker, Scoring, _query_for
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.rerank.threshold import ThresholdSettings

if TYPE_CHECKING:
    from engine.rerank.flash.contextualize import QueryRewrite


@dataclass(frozen=True)
class ChainSettings:
    """Recorded with the run: both rerankers' settings."""

    flash: Any
    cross_encoder: CrossEncoderSettings


class ChainedReranker(Reranker):
    name = "flash"  # the selection, usage and trace are Flash's
    reads = ("topic", "person", "artifact")  # unbuilt messages are cut by the threshold (the pipeline)

    def __init__(self, cross_encoder: CrossEncoderReranker, flash: Reranker) -> None:
        self.cross_encoder = cross_encoder
        self.flash = flash
        self.settings = ChainSettings(flash.settings, cross_encoder.settings)

    @property
    def api_key(self) -> str | None:  # type: ignore[override]  # a property over the base's plain attribute
        return self.flash.api_key

    @property
    def threshold(self) -> ThresholdSettings | None:  # type: ignore[override]  # as api_key: Flash's own
        return self.flash.threshold

    async def arewrite(self, query: str) -> QueryRewrite | None:
        return await self.flash.arewrite(query)

    async def arerank(self, query: str, candidates: list[Candidate],
                      rewrite: QueryRewrite | None = None) -> RerankResult:
        scoring = await self.cross_encoder.score(_query_for(query, rewrite), candidates)
        narrowed, chain = narrow(scoring, candidates, self.cross_encoder.settings.chain_keep)
        result = await self.flash.arerank(query, narrowed, rewrite)
        result.report["chain"] = chain
        if result.trace is not None:
            result.trace["chain"] = chain
        return result


def narrow(scoring: Scoring, candidates: list[Candidate], keep: int) -> tuple[list[Candidate], dict[str, Any]]:
    """The candidates Flash reads, and the chain's report."""
    before = len(scoring.topics)
    chain: dict[str, Any] = {
        "before": before, "after": before, "sent": len(scoring.sent), "skipped": scoring.skipped,
        "fallback": scoring.fallback, "error": str(scoring.error) if scoring.error else None,
        "timings_ms": dict(scoring.timings_ms), "usage": dict(scoring.run.usage) if scoring.run else {},
        "scores": [{"id": c.id, "score": round(score, 6), "stage1_rank": c.rank} for c, score in scoring.ranked()],
    }
    ranked = scoring.ranked()
    if scoring.fallback or scoring.skipped or not ranked:
        why = cross_encoder_fallback_message(scoring.fallback) if scoring.fallback else scoring.note
        note = msg("rerank.cross_encoder.chain.unnarrowed", count=before, why=why or msg("error.text", text="—"))
        chain.update(note=str(note), note_message=note.to_json())
        return candidates, chain
    topics = [dataclasses.replace(c, rank=rank, score=score) for rank, (c, score) in enumerate(ranked[:keep], 1)]
    note = msg("rerank.cross_encoder.chain.narrowed", before=before, after=len(topics))
    chain.update(after=len(topics), kept_ids=[c.id for c in topics], note=str(note), note_message=note.to_json())
    return topics + [c for c in candidates if c.kind != "topic"], chain
